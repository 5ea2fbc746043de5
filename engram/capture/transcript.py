"""Claude Code's transcript (JSON Lines) read into the events capture reasons about.

A transcript holds much that is not the conversation: progress and hook records, file
snapshots, the subagents' side chains, meta entries, local slash commands, compaction
summaries, background-task notifications, interruption and rejection boilerplate. This
module keeps the conversation — the user's real prompts, the assistant's text, each tool
call paired with its result — and marks the rest for what it is, so that nothing but a
person's words is ever read as a request.

Claude Code writes one entry per content block, so an assistant message spans entries;
results arrive as `tool_result` blocks in user entries, with the tool's structured
result beside them in `toolUseResult`.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..hooks import triage
from ..text.prompt import persons_words
from .prose import prose

MAX_TRANSCRIPT_BYTES = 64_000_000  # beyond this, the newest part of the session is read
MAX_LINE_BYTES = 8_000_000
OUTPUT_HEAD = 3_000
OUTPUT_TAIL = 12_000
MAX_TEXT_CHARS = 20_000
MAX_SUBAGENTS = 40  # side chains read per session; the rest are left unread
MAX_SUBAGENT_BYTES = 8_000_000  # per subagent file (Claude Code 2.1+ keeps them apart)

NO_CONTENT = "(no content)"  # Claude Code's placeholder for an empty message
SYNTHETIC_MODEL = "<synthetic>"  # the model of a message Claude Code writes itself
TIMED_OUT_RE = re.compile(r"^\s*(Error: )?Command timed out after ")
INTERRUPT_RE = re.compile(r"^\[Request interrupted by user[^\]]*\]")
REJECTED_PREFIX = "The user doesn't want to proceed with this tool use"
# What Claude Code writes in the person's place when they choose to talk about an
# AskUserQuestion instead of answering it: their words come in their next message.
_CLARIFY_PREFIX = "The user wants to clarify these questions"
_REJECT_FEEDBACK_RE = re.compile(
    r"(?:the user said:|the following reason for the rejection:)\s*(.+?)\s*"
    r"(?:\n\s*Note: The user's next message.*)?\Z",
    re.DOTALL | re.IGNORECASE,
)
# User-role text that Claude Code or a hook wrote, not the person.
_MACHINE_TEXT_RE = re.compile(
    r"^\s*(<(command-name|command-message|command-args|local-command-stdout|local-command-"
    r"stderr|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)\b|Caveat: The messages"
    r" below were generated)",
)
_NOTIFICATION_RE = re.compile(r"^\s*<task-notification>")
_COMPACT_RE = re.compile(r"^This session is being continued from a previous conversation")
# A command Claude Code runs in the background: its verdict arrives later, in a
# notification or a TaskOutput/BashOutput result, and its output in a file the agent reads.
_BACKGROUND_RE = re.compile(r"running in background with ID: (?P<id>[\w-]+)(?:\. Output is being"
                            r" written to: (?P<file>\S+?)\.?$)?", re.MULTILINE)
_TAG_RE = re.compile(r"<(?P<tag>task-id|task_id|bash_id|status|exit_code|output-file)>\s*"
                     r"(?P<value>[^<]*?)\s*</(?P=tag)>")
_EXIT_CODE_RE = re.compile(r"\(exit code (\d+)\)")
_OUTPUT_RE = re.compile(r"<(stdout|output)>\n?(.*?)</\1>", re.DOTALL)
# An uncaught error a runtime printed on a line of its own ("TypeError: Cannot open
# database …", node's "Error [ERR_MODULE_NOT_FOUND]: …"); indented, it is a passing test's
# logged output (jest's console.error). Read as a crash only in a background task's output,
# whose exit status is not known while its watcher runs.
_CRASH_RE = re.compile(r"(^|\n)([A-Z]\w*Error|Error \[[A-Z_]+\]): \S")
# Showing a file in the shell: how an agent looks at a background task's output file.
_SHOWS_FILE_RE = re.compile(r"(^|[;&|]\s*)(cat|tail|head)\b")
# Read's line numbers: "     1→" (older versions) or "1<tab>"
_READ_LINE_RE = re.compile(r"^ *\d+(\u2192|\t)", re.MULTILINE)


@dataclass
class ToolCall:
    """One tool use and what came back."""

    id: str
    name: str
    input: dict[str, Any]
    at: str | None
    position: int
    failed: bool | None = None  # None: no result (the session ended or was cut first)
    interrupted: bool = False
    rejected: bool = False
    output: str = ""
    result: Any = None  # toolUseResult, when Claude Code recorded one
    feedback: str | None = None  # what the user said when rejecting it

    @property
    def command(self) -> str | None:
        value = self.input.get("command")
        return value if isinstance(value, str) else None

    @property
    def file_path(self) -> str | None:
        value = self.input.get("file_path") or self.input.get("notebook_path")
        return value if isinstance(value, str) and value else None


@dataclass
class Event:
    """kind: prompt, text (assistant), tool, interrupt, notification, compaction, aside (the
    person's words typed while the assistant worked and handed to it mid-turn; "queued" once
    they come again as a prompt)."""

    kind: str
    position: int
    at: str | None = None
    text: str = ""
    tool: ToolCall | None = None

    @functools.cached_property
    def prose(self) -> str:
        """The text without what was pasted into it (capture/prose.py)."""
        return prose(self.text)


@dataclass
class Session:
    session_id: str | None = None
    cwd: str | None = None
    events: list[Event] = field(default_factory=list)
    truncated: bool = False  # only the newest part of a very large file was read
    # A subagent's own transcript read on its own: its first prompt is the parent agent's
    # brief, not a person's words
    delegated: bool = False
    # The subagents' own conversations (Task/Agent calls), each a session of its own
    # whose "prompts" were written by the main agent, not by the person.
    subagents: list[Session] = field(default_factory=list)

    @property
    def tools(self) -> list[ToolCall]:
        return [e.tool for e in self.events if e.tool is not None]


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})


def plain_apostrophes(text: str) -> str:
    """"Don’t", typed on a phone or pasted from a document, read as "Don't": every rule and
    reason is written with the plain apostrophe, and people's words keep their meaning."""
    return text.translate(_APOSTROPHES)


def _bounded(text: str) -> str:
    """Head and tail of a long output: errors sit at either end, rarely in the middle."""
    if len(text) <= OUTPUT_HEAD + OUTPUT_TAIL:
        return text
    return text[:OUTPUT_HEAD] + "\n…\n" + text[-OUTPUT_TAIL:]


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        b["text"] for b in _blocks(content) if isinstance(b.get("text"), str)
    )


def _small(value: Any, depth: int = 0) -> Any:
    """toolUseResult trimmed to what capture reads (Edit results carry whole files)."""
    if depth > 6:
        return None
    if isinstance(value, str):
        return value if len(value) <= OUTPUT_HEAD + OUTPUT_TAIL else _bounded(value)
    if isinstance(value, dict):
        return {
            k: _small(v, depth + 1) for k, v in list(value.items())[:50]
            if k not in ("originalFile", "structuredPatch", "content", "file")
        }
    if isinstance(value, list):
        return [_small(v, depth + 1) for v in value[:50]]
    return value


def _lines(path: str, limit: int = MAX_TRANSCRIPT_BYTES) -> tuple[Iterator[bytes], bool]:
    size = os.path.getsize(path)
    handle = open(path, "rb")  # noqa: SIM115 - closed by the generator below
    truncated = size > limit
    if truncated:
        handle.seek(size - limit)
        handle.readline()  # drop the partial line

    def generate() -> Iterator[bytes]:
        with handle:
            while True:
                line = handle.readline(MAX_LINE_BYTES)
                if not line:
                    return
                if not line.endswith(b"\n") and len(line) >= MAX_LINE_BYTES:
                    while True:  # skip the rest of an oversized entry
                        more = handle.readline(MAX_LINE_BYTES)
                        if not more or more.endswith(b"\n"):
                            break
                    continue
                yield line

    return generate(), truncated


def read(path: str) -> Session:
    """Parse a transcript file, and its subagents' files beside it (Claude Code 2.1+ keeps
    them in `<transcript>/subagents/agent-*.jsonl`; older versions inline them as side
    chains); unreadable lines are skipped, never fatal."""
    lines, truncated = _lines(path)
    session = Session(truncated=truncated)
    parser = _Parser(session)
    _feed(parser, lines)
    folder = os.path.join(os.path.splitext(path)[0], "subagents")
    try:
        names = sorted(n for n in os.listdir(folder)
                       if n.startswith("agent-") and n.endswith(".jsonl"))
    except OSError:
        names = []
    for name in names[:MAX_SUBAGENTS]:
        try:
            _feed(parser, _lines(os.path.join(folder, name), MAX_SUBAGENT_BYTES)[0],
                  side_chain=name.removesuffix(".jsonl"))
        except OSError:
            continue
    return _own_session(session)


def _own_session(session: Session) -> Session:
    """A subagent's own transcript read on its own (`subagents/agent-*.jsonl`, every entry
    a side chain): the agent's conversation is the session, not a side chain of nothing."""
    if session.events or len(session.subagents) != 1 or not session.subagents[0].events:
        return session
    own = session.subagents[0]
    own.truncated, own.delegated = session.truncated, True
    own.session_id = own.session_id or session.session_id
    return own


def _feed(parser: _Parser, lines: Iterator[bytes], side_chain: str | None = None) -> None:
    for raw in lines:
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):  # one broken or absurdly nested line
            continue
        if isinstance(entry, dict):
            if side_chain is not None:
                entry.setdefault("agentId", side_chain)
                entry["isSidechain"] = True
            parser.entry(entry)


def close_with(session: Session, last_message: Any) -> None:
    """Add the turn's closing words when the transcript does not end with them yet."""
    if not isinstance(last_message, str) or not last_message.strip():
        return
    text = plain_apostrophes(last_message.strip()[:MAX_TEXT_CHARS])
    last = next((e for e in reversed(session.events) if e.kind != "compaction"), None)
    if last is not None and last.kind == "text" and last.text == text:
        return
    session.events.append(Event("text", len(session.events), None, text))


# What a tool or Claude Code says when something fails, as against a person's sentence.
_TOOL_SPEAK_RE = re.compile(
    r"\b(error|fatal|failed|failure|not found|no such|denied|cannot|can't access|refused|"
    r"warning|exception|traceback|timed out|requires approval|blocked|permission|invalid|"
    r"unknown|usage:|exit code)\b|^\s*[\[(<{>$#/.~]|\w+\.\w+:\d+|[│├└]|"
    # Claude Code's own tool errors, which say "please" too: "… exceeds maximum allowed
    # tokens (25000). Please use offset and limit parameters …"
    r"\b(exceeds maximum|parameters?|replace_all|occurrences?|has not been read|read it first|"
    r"does not exist|matches of the string|to uniquely identify|tool_use_error|GrepTool|"
    r"(are|is) not allowed in|specify an? (exact|valid|absolute)|write operations?)\b",
    re.IGNORECASE)
_PERSON_RE = re.compile(r"\b(i|we|you|let's|lets|please|pls|wait|don't|do not|no,|instead)\b|\?$",
                        re.IGNORECASE)


def _said_instead(text: str, structured: Any) -> bool:
    """A refused call whose whole result is what the person typed instead ("please add
    transformer.js too first"): the VS Code extension records a refusal with a message as
    the tool's error, with none of the CLI's "The user doesn't want to proceed" wording."""
    line = text.strip()
    return (isinstance(structured, str) and structured.strip() == f"Error: {line}"
            and 0 < len(line) <= 600 and "\n" not in line
            and bool(_PERSON_RE.search(line)) and not _TOOL_SPEAK_RE.search(line))


def parse_entries(entries: list[dict[str, Any]]) -> Session:
    """The same, from entries already in memory (tests, replays)."""
    session = Session()
    parser = _Parser(session)
    for entry in entries:
        if isinstance(entry, dict):
            parser.entry(entry)
    return _own_session(session)


class _Parser:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.calls: dict[str, ToolCall] = {}
        self.background: dict[str, ToolCall] = {}  # task id -> the Bash call that started it
        self.output_files: dict[str, ToolCall] = {}  # its output file -> the same call
        self.chains: dict[str, _Parser] = {}  # a side chain's id -> its own parser
        self.chain_of: dict[str, str] = {}  # an entry's uuid -> its side chain's id
        self.queue: list[str] = []  # the person's messages waiting while the assistant works
        self.asides: list[Event] = []  # those handed over mid-turn

    def add(self, kind: str, at: str | None, text: str = "", tool: ToolCall | None = None) -> None:
        events = self.session.events
        text = plain_apostrophes(text)
        if kind == "prompt":  # an aside sent again as a prompt of its own is that prompt
            for aside in self.asides:
                if aside.text == text.strip():
                    aside.kind = "queued"
        events.append(Event(kind, len(events), at, text, tool))
        if kind == "aside":
            self.asides.append(events[-1])

    def side_chain(self, entry: dict[str, Any]) -> None:
        """A subagent's own conversation: a session of its own (its chain found by its
        agentId, or by following parentUuid to the chain's first entry)."""
        uuid = entry.get("uuid") if isinstance(entry.get("uuid"), str) else None
        parent = entry.get("parentUuid")
        agent = entry.get("agentId")
        if isinstance(agent, str) and agent:
            chain = agent
        elif isinstance(parent, str) and parent in self.chain_of:
            chain = self.chain_of[parent]
        else:
            chain = uuid or f"chain-{len(self.chains)}"
        if uuid:
            self.chain_of[uuid] = chain
        parser = self.chains.get(chain)
        if parser is None:
            if len(self.chains) >= MAX_SUBAGENTS:
                return
            sub = Session(session_id=self.session.session_id, cwd=self.session.cwd)
            self.session.subagents.append(sub)
            parser = self.chains[chain] = _Parser(sub)
        parser.entry({**entry, "isSidechain": False})

    def entry(self, entry: dict[str, Any]) -> None:
        if entry.get("isSidechain"):
            self.side_chain(entry)
            return
        kind = entry.get("type")
        at = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        session = self.session
        if isinstance(entry.get("sessionId"), str) and not session.session_id:
            session.session_id = entry["sessionId"]
        if isinstance(entry.get("cwd"), str) and entry["cwd"]:
            session.cwd = entry["cwd"]
        if kind == "system" and entry.get("subtype") == "compact_boundary":
            self.add("compaction", at)
            return
        if kind == "queue-operation":
            self.queued(entry, at)
            return
        message = entry.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            return
        if kind == "assistant":
            self.assistant(message, at)
        else:
            self.user(entry, message, at)

    def queued(self, entry: dict[str, Any], at: str | None) -> None:
        """A message the person typed while the assistant worked. Dequeued, it comes back as
        a prompt of its own; removed, it was handed to the assistant mid-turn and this entry
        is its only record (an aside); popped back into the input box, it was not sent."""
        operation = entry.get("operation")
        if operation == "enqueue":
            text = _text_of(entry.get("content")) if not isinstance(
                entry.get("content"), str) else entry["content"][:MAX_TEXT_CHARS]
            if text.strip() and not _NOTIFICATION_RE.match(text) and not text.startswith("/"):
                self.queue.append(text.strip())
            else:
                self.queue.append("")
        elif operation == "dequeue" and self.queue:
            self.queue.pop(0)
        elif operation == "remove" and self.queue:
            text = self.queue.pop(0)
            if text:
                self.add("aside", at, text)
        elif operation == "popAll":
            self.queue.clear()

    def assistant(self, message: dict[str, Any], at: str | None) -> None:
        # Claude Code's own words in the assistant's place ("No response requested.", "Request
        # timed out", a usage limit) come as a message of the model "<synthetic>"
        synthetic = message.get("model") == SYNTHETIC_MODEL
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip() and (
                block["text"].strip() != NO_CONTENT and not synthetic
            ):
                self.add("text", at, block["text"].strip()[:MAX_TEXT_CHARS])
            elif kind == "tool_use" and isinstance(block.get("input"), dict):
                call = ToolCall(
                    id=str(block.get("id") or ""), name=str(block.get("name") or ""),
                    input=block["input"], at=at, position=len(self.session.events),
                )
                self.calls[call.id] = call
                self.add("tool", at, tool=call)

    def user(self, entry: dict[str, Any], message: dict[str, Any], at: str | None) -> None:
        if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
            self.add("compaction", at, _text_of(message.get("content")))
            return
        if entry.get("isMeta"):
            return
        texts: list[str] = []
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "tool_result":
                self.result(block, entry.get("toolUseResult"))
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        for text in texts:
            self.user_text(text, at)

    def user_text(self, text: str, at: str | None) -> None:
        stripped = persons_words(text)
        if not stripped or stripped == NO_CONTENT:
            return
        if INTERRUPT_RE.match(stripped):
            self.add("interrupt", at, stripped)
        elif _NOTIFICATION_RE.match(stripped):
            self.settle(dict((m["tag"], m["value"]) for m in _TAG_RE.finditer(stripped)),
                        stripped)
            self.add("notification", at, stripped)
        elif _COMPACT_RE.match(stripped):
            self.add("compaction", at, stripped)
        elif not _MACHINE_TEXT_RE.match(stripped):
            self.add("prompt", at, stripped[:MAX_TEXT_CHARS])

    def result(self, block: dict[str, Any], structured: Any) -> None:
        call = self.calls.get(str(block.get("tool_use_id")))
        if call is None:
            return
        text = _result_text(block)
        call.output = _bounded(text)
        call.result = _small(structured)
        call.failed = bool(block.get("is_error"))
        if text.startswith(REJECTED_PREFIX):
            call.rejected = call.failed = True
            said = _REJECT_FEEDBACK_RE.search(text)
            if said and not said.group(1).startswith(_CLARIFY_PREFIX):
                call.feedback = plain_apostrophes(said.group(1).strip()[:2000])
        elif call.failed and _said_instead(text, structured):
            call.rejected = True  # the IDE extension's way: the person's words, nothing else
            call.feedback = plain_apostrophes(text.strip())
        if INTERRUPT_RE.match(text.strip()):
            call.interrupted = call.failed = True
        if isinstance(structured, dict) and structured.get("interrupted") is True:
            call.interrupted = call.failed = True
        if call.name == "Bash" and isinstance(structured, dict):
            parts = [structured.get("stdout"), structured.get("stderr")]
            joined = "\n".join(p for p in parts if isinstance(p, str) and p)
            if joined and not call.failed:
                call.output = _bounded(joined)
        started = _BACKGROUND_RE.search(text) if call.name == "Bash" and not call.failed else None
        if started:
            call.failed = None  # no verdict yet: it comes with the task's notification
            call.output = ""
            self.background[started["id"]] = call
            if started["file"]:
                self.output_files[started["file"]] = call
        elif call.name in ("TaskOutput", "BashOutput") and not call.failed:
            self.task_output(call, text, structured)
        elif (task := self.task_read(call)) is not None:
            shown = _bounded(_READ_LINE_RE.sub("", text) if call.name == "Read" else call.output)
            if task.failed is not None or not task.output:
                task.output = shown  # (still running: what it has printed so far)
            # A server that crashed on start ("sh: tsx: command not found", "TypeError:
            # Cannot open database …") may still report exit 0, or nothing at all while
            # its watcher waits: what its output shows is the verdict.
            if not task.failed and (_CRASH_RE.search(shown)
                                    or not triage.bash_succeeded({"stdout": shown})):
                task.failed, task.output = True, shown

    def task_read(self, call: ToolCall) -> ToolCall | None:
        """The background command whose output file this call reads (Read, or `cat` /
        `tail` of the file in Bash)."""
        if call.failed:
            return None
        if call.name == "Read":
            return self.output_files.get(call.file_path or "")
        if call.name == "Bash" and call.command and _SHOWS_FILE_RE.search(call.command):
            return next((task for path, task in self.output_files.items()
                         if path in call.command), None)
        return None

    def task_output(self, call: ToolCall, text: str, structured: Any) -> None:
        """A background task's state as TaskOutput (or the older BashOutput) reported it."""
        tags = {m["tag"]: m["value"] for m in _TAG_RE.finditer(text)}
        task = structured.get("task") if isinstance(structured, dict) else None
        if isinstance(task, dict):
            tags.setdefault("task_id", str(task.get("task_id") or ""))
            tags.setdefault("status", str(task.get("status") or ""))
            if task.get("exit_code") is not None:
                tags.setdefault("exit_code", str(task.get("exit_code")))
        output = _OUTPUT_RE.search(text)
        if isinstance(task, dict) and isinstance(task.get("output"), str):
            body = task["output"]
        else:
            body = output.group(2) if output else ""
        tags.setdefault("task-id", tags.get("task_id") or tags.get("bash_id")
                        or str(call.input.get("task_id") or call.input.get("bash_id") or ""))
        self.settle(tags, "", body)

    def settle(self, tags: dict[str, str], text: str, output: str = "") -> None:
        """Give a background command its verdict once its task has ended."""
        call = self.background.get(tags.get("task-id", ""))
        status = tags.get("status", "").lower()
        if call is None or status not in ("completed", "failed", "killed"):
            return
        code = tags.get("exit_code") or next(iter(_EXIT_CODE_RE.findall(text)), None)
        call.failed = status != "completed" or (code is not None and code != "0")
        call.interrupted = status == "killed"
        if output:
            call.output = _bounded(output)
        elif call.failed and code is not None and not call.output:
            call.output = f"Exit code {code}"  # the status is all the task left to read


def _text_of(content: Any) -> str:
    return "\n".join(
        b["text"] for b in _blocks(content) if isinstance(b.get("text"), str)
    )[:MAX_TEXT_CHARS]
