"""Writes the `written/` half of the capture corpus: Claude Code transcripts and their gold.

Every session lives in `sessions/NAME.py` as a function that plays the session through the
`Session` builder below, plus its hand-written gold items. The builder only takes care of
what Claude Code itself would write: uuids and the parentUuid chain, one entry per content
block with a shared message id and requestId, tool results with their `toolUseResult`
shapes, file contents behind Read/Edit/Write, timestamps that move like a real session.
The words — prompts, replies, command output — are written by hand in each session file.

Run `python benchmarks/capture_corpus/written/make_sessions.py` to regenerate every
`NAME.jsonl` and `NAME.gold.json`; the output is deterministic (seeded per session).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import random
import string
import sys
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SESSIONS = HERE / "sessions"

REJECT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
)
REJECT_STOP = REJECT + "STOP what you are doing and wait for the user to tell you how to proceed."
MEMORY_HINT = (
    "\n\nNote: The user's next message may contain a correction or preference. Pay close "
    "attention — if they explain what went wrong or how they'd prefer you to work, consider "
    "saving that to memory for future sessions."
)
TODO_OK = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)
COMPACT_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)
B62 = string.ascii_letters + string.digits


@dataclass
class Call:
    """One tool call: what the model sent and what Claude Code recorded as its result."""

    name: str
    input: dict[str, Any]
    content: Any  # tool_result content (str or blocks)
    result: Any  # toolUseResult
    is_error: bool | None = None
    secs: float = 1.5  # how long the tool ran
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. interruption follow-ups


class Session:
    """Builds one transcript, entry by entry, as Claude Code 2.1.x writes it."""

    def __init__(
        self,
        name: str,
        *,
        cwd: str,
        branch: str,
        start: str,
        version: str = "2.1.39",
        model: str = "claude-opus-4-6",
        permission_mode: str = "default",
        slug: str | None = None,
        stop_reasons: bool = False,
        tmp_user: str = "1000",
    ) -> None:
        self.name = name
        self.rng = random.Random(int(hashlib.sha256(name.encode()).hexdigest()[:12], 16))
        self.session_id = self._uuid()
        self.cwd = cwd
        self.branch = branch
        self.version = version
        self.model = model
        self.permission_mode = permission_mode
        self.slug = slug
        self.stop_reasons = stop_reasons
        self.tmp_user = tmp_user
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.entries: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.files: dict[str, str] = {}
        self.todos: list[dict[str, str]] = []
        self.backups: dict[str, dict[str, Any]] = {}
        self.edited: set[str] = set()
        self.context_tokens = self.rng.randint(14000, 26000)
        self._msg: dict[str, Any] | None = None
        self._bg = 0
        self._prompts = 0

    # ----------------------------------------------------------------- ids and clock
    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def _hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def tick(self, secs: float) -> None:
        jitter = secs * self.rng.uniform(-0.15, 0.15)
        self.clock += timedelta(seconds=max(0.001, secs + jitter))

    def _ts(self) -> str:
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def _base(self) -> dict[str, Any]:
        base: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if self.slug and self._prompts > 0 and self.entries:
            base["slug"] = self.slug
        return base

    def _push(self, entry: dict[str, Any]) -> dict[str, Any]:
        self.entries.append(entry)
        if "uuid" in entry and entry.get("type") not in ("file-history-snapshot",):
            self.parent = entry["uuid"]
        return entry

    def abs(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.cwd}/{path}"

    # ----------------------------------------------------------------- user side
    def _snapshot(self, message_id: str) -> None:
        tracked = {}
        for rel in sorted(self.edited):
            info = self.backups.setdefault(rel, {"version": 0})
            info["version"] += 1
            tracked[rel] = {
                "backupFileName": f"{self._hex(16)}@v{info['version']}",
                "version": info["version"],
                "backupTime": self._ts(),
            }
        self.entries.append(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": tracked,
                    "timestamp": self._ts(),
                },
                "isSnapshotUpdate": False,
            }
        )

    def user(self, text: str, wait: float = 40.0) -> None:
        """A prompt typed by the user (after `wait` seconds of reading and typing)."""
        self._close()
        self.tick(wait)
        uid = self._uuid()
        self._snapshot(uid)
        entry = self._base()
        entry.update(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": uid,
                "timestamp": self._ts(),
                "thinkingMetadata": {"maxThinkingTokens": 31999},
                "todos": [dict(t) for t in self.todos],
                "permissionMode": self.permission_mode,
            }
        )
        self._prompts += 1
        self._push(entry)

    def user_text_block(self, text: str, wait: float = 0.3, **extra: Any) -> None:
        """A user entry whose content is a text block (interruption markers, meta text)."""
        self._close()
        self.tick(wait)
        entry = self._base()
        entry.update(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
                "uuid": self._uuid(),
                "timestamp": self._ts(),
            }
        )
        entry.update(extra)
        self._push(entry)

    def interrupt(self, for_tool: bool = False, wait: float = 0.2) -> None:
        suffix = " for tool use" if for_tool else ""
        self.user_text_block(f"[Request interrupted by user{suffix}]", wait=wait)

    def local_command(self, name: str, stdout: str, args: str = "", wait: float = 20.0) -> None:
        """A slash command run locally (/model, /cost, /clear …): caveat, command, stdout."""
        self._close()
        self.tick(wait)
        cmd_uuid = self._uuid()
        self._snapshot(cmd_uuid)
        caveat = self._base()
        caveat.update(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "<local-command-caveat>Caveat: The messages below were generated "
                    "by the user while running local commands. DO NOT respond to these messages "
                    "or otherwise consider them in your response unless the user explicitly asks "
                    "you to.</local-command-caveat>",
                },
                "isMeta": True,
                "uuid": self._uuid(),
                "timestamp": self._ts(),
            }
        )
        self._push(caveat)
        body = (
            f"<command-name>/{name}</command-name>\n            <command-message>{name}"
            f"</command-message>\n            <command-args>{args}</command-args>"
        )
        cmd = self._base()
        cmd.update(
            {
                "type": "user",
                "message": {"role": "user", "content": body},
                "uuid": cmd_uuid,
                "timestamp": self._ts(),
            }
        )
        self._push(cmd)
        out = self._base()
        out.update(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": f"<local-command-stdout>{stdout}</local-command-stdout>",
                },
                "uuid": self._uuid(),
                "timestamp": self._ts(),
            }
        )
        self._push(out)

    def task_notification(self, task_id: str, description: str, status: str = "completed",
                          exit_code: int = 0, wait: float = 30.0, queued: bool = True) -> str:
        """A background command finished: Claude Code queues and then delivers a notification."""
        self._close()
        self.tick(wait)
        out_file = (
            f"/tmp/claude-{self.tmp_user}/{self.cwd.replace('/', '-')}/tasks/{task_id}.output"
        )
        verb = "completed" if status == "completed" else "failed"
        text = (
            f"<task-notification>\n<task-id>{task_id}</task-id>\n<output-file>{out_file}"
            f"</output-file>\n<status>{status}</status>\n<summary>Background command "
            f"\"{description}\" {verb} (exit code {exit_code})</summary>\n</task-notification>\n"
            f"Read the output file to retrieve the result: {out_file}"
        )
        if queued:
            self.entries.append(
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": self._ts(),
                    "sessionId": self.session_id,
                    "content": text,
                }
            )
            self.tick(2.0)
        entry = self._base()
        entry.update(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": self._uuid(),
                "timestamp": self._ts(),
                "thinkingMetadata": {"maxThinkingTokens": 31999},
                "todos": [dict(t) for t in self.todos],
                "permissionMode": self.permission_mode,
            }
        )
        self._push(entry)
        return out_file

    def queued_prompt(self, text: str) -> None:
        """A prompt typed while the agent was busy (queued, shown later as a normal prompt)."""
        self.entries.append(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": self._ts(),
                "sessionId": self.session_id,
                "content": text,
            }
        )

    def compact(self, summary: str, pre_tokens: int = 167000, trigger: str = "auto") -> None:
        """Context ran out: a compact_boundary, then the summary as an isCompactSummary entry."""
        self._close()
        self.tick(95.0)
        logical = self.parent
        self.parent = None
        boundary = self._base()
        boundary.update(
            {
                "logicalParentUuid": logical,
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "timestamp": self._ts(),
                "uuid": self._uuid(),
                "level": "info",
                "compactMetadata": {"trigger": trigger, "preTokens": pre_tokens},
            }
        )
        # parentUuid null, logicalParentUuid set: key order as Claude Code writes it
        boundary = {"parentUuid": None, "logicalParentUuid": logical,
                    **{k: v for k, v in boundary.items() if k not in ("parentUuid",
                                                                      "logicalParentUuid")}}
        self._push(boundary)
        entry = self._base()
        entry.update(
            {
                "type": "user",
                "message": {"role": "user", "content": COMPACT_PREFIX + summary},
                "isVisibleInTranscriptOnly": True,
                "isCompactSummary": True,
                "uuid": self._uuid(),
                "timestamp": self._ts(),
            }
        )
        self._push(entry)
        self.context_tokens = self.rng.randint(18000, 24000)

    def summary_entry(self, text: str) -> None:
        """A `summary` line (written at the top of a resumed conversation)."""
        self.entries.append({"type": "summary", "summary": text, "leafUuid": self._uuid()})

    def turn_end(self, hooks: list[str] | None = None) -> None:
        """System entries Claude Code writes when a turn ends (stop hooks, turn duration)."""
        self._close()
        if hooks:
            self.tick(0.4)
            entry = self._base()
            entry.update(
                {
                    "type": "system",
                    "subtype": "stop_hook_summary",
                    "hookCount": len(hooks),
                    "hookInfos": [{"command": h} for h in hooks],
                    "hookErrors": [],
                    "preventedContinuation": False,
                    "stopReason": "",
                    "hasOutput": False,
                    "level": "suggestion",
                    "timestamp": self._ts(),
                    "uuid": self._uuid(),
                    "toolUseID": self._uuid(),
                }
            )
            self._push(entry)
        first_prompt = next(
            (e for e in reversed(self.entries) if e.get("type") == "user"
             and isinstance(e.get("message", {}).get("content"), str)
             and "permissionMode" in e),
            None,
        )
        if first_prompt:
            started = datetime.fromisoformat(first_prompt["timestamp"].replace("Z", "+00:00"))
            ms = int((self.clock - started).total_seconds() * 1000)
            self.tick(0.05)
            entry = self._base()
            entry.update(
                {
                    "type": "system",
                    "subtype": "turn_duration",
                    "durationMs": ms,
                    "timestamp": self._ts(),
                    "uuid": self._uuid(),
                    "isMeta": False,
                }
            )
            self._push(entry)

    def hook_progress(self, event: str, hook_name: str, command: str,
                      tool_use_id: str | None = None) -> None:
        entry = self._base()
        tid = tool_use_id or self._uuid()
        entry.update(
            {
                "type": "progress",
                "data": {"type": "hook_progress", "hookEvent": event, "hookName": hook_name,
                         "command": command},
                "parentToolUseID": tid,
                "toolUseID": tid,
                "timestamp": self._ts(),
                "uuid": self._uuid(),
            }
        )
        self._push(entry)

    # ----------------------------------------------------------------- assistant side
    def _open(self) -> dict[str, Any]:
        if self._msg is None:
            out = self.rng.randint(8, 60)
            self.context_tokens += self.rng.randint(150, 1400)
            creation = self.rng.randint(120, 3500)
            self._msg = {
                "id": "msg_01" + self._b62(22),
                "requestId": "req_011C" + self._b62(20),
                "usage": {
                    "input_tokens": self.rng.choice([1, 1, 1, 3, 3, 4, 6]),
                    "cache_creation_input_tokens": creation,
                    "cache_read_input_tokens": self.context_tokens,
                    "cache_creation": {"ephemeral_5m_input_tokens": 0,
                                       "ephemeral_1h_input_tokens": creation},
                    "output_tokens": out,
                    "service_tier": "standard",
                    "inference_geo": "not_available",
                },
                "entries": [],
            }
            self.tick(self.rng.uniform(1.5, 4.0))
        return self._msg

    def _close(self) -> None:
        msg = self._msg
        if msg and self.stop_reasons and msg["entries"]:
            last = msg["entries"][-1]["message"]
            kinds = {b["type"] for b in last["content"]}
            last["stop_reason"] = "tool_use" if "tool_use" in kinds else "end_turn"
        self._msg = None

    def _block(self, block: dict[str, Any], secs: float) -> dict[str, Any]:
        msg = self._open()
        words = len(json.dumps(block)) // 4
        msg["usage"]["output_tokens"] += words
        self.context_tokens += words
        self.tick(secs)
        entry = self._base()
        entry.update(
            {
                "message": {
                    "model": self.model,
                    "id": msg["id"],
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": msg["usage"],
                },
                "requestId": msg["requestId"],
                "type": "assistant",
                "uuid": self._uuid(),
                "timestamp": self._ts(),
            }
        )
        msg["entries"].append(entry)
        return self._push(entry)

    def blank(self) -> None:
        """The empty "\\n\\n" text block some models open a response with."""
        self._block({"type": "text", "text": "\n\n"}, 0.3)

    def think(self, text: str) -> None:
        sig = "".join(self.rng.choice(B62 + "+/") for _ in range(self.rng.randint(280, 560)))
        self._block({"type": "thinking", "thinking": text, "signature": sig + "=="},
                    max(0.8, len(text) / 180))

    def say(self, text: str) -> None:
        self._block({"type": "text", "text": text}, max(0.6, len(text) / 220))

    def call(self, *calls: Call) -> list[dict[str, Any]]:
        """Sends tool calls (in parallel if several) and records their results."""
        uses = []
        for c in calls:
            tid = "toolu_01" + self._b62(22)
            entry = self._block(
                {"type": "tool_use", "id": tid, "name": c.name, "input": c.input,
                 "caller": {"type": "direct"}},
                max(0.5, len(json.dumps(c.input)) / 400),
            )
            uses.append((c, tid, entry))
        self._close()
        results = []
        for c, tid, use_entry in uses:
            self.tick(c.secs)
            self.parent = use_entry["uuid"]
            block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result",
                                     "content": c.content}
            if c.is_error is not None:
                block["is_error"] = c.is_error
            if c.is_error:
                block = {"type": "tool_result", "content": c.content, "is_error": True,
                         "tool_use_id": tid}
            entry = self._base()
            entry.update(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [block]},
                    "uuid": self._uuid(),
                    "timestamp": self._ts(),
                    "toolUseResult": c.result,
                    "sourceToolAssistantUUID": use_entry["uuid"],
                }
            )
            results.append(entry)
        for entry in results:
            self.entries.append(entry)
        if results:
            self.parent = results[-1]["uuid"]
        for c, *_ in uses:
            after = c.extra.get("after")
            if after:
                after()
        return results

    # ----------------------------------------------------------------- tool helpers
    def bash(self, command: str, out: str = "", *, code: int = 0, desc: str | None = None,
             secs: float = 2.0, timeout: int | None = None, stderr: str = "",
             no_matches: bool = False) -> list[dict[str, Any]]:
        return self.call(self.bash_call(command, out, code=code, desc=desc, secs=secs,
                                        timeout=timeout, stderr=stderr, no_matches=no_matches))

    def bash_call(self, command: str, out: str = "", *, code: int = 0, desc: str | None = None,
                  secs: float = 2.0, timeout: int | None = None, stderr: str = "",
                  no_matches: bool = False) -> Call:
        inp: dict[str, Any] = {"command": command}
        if desc:
            inp["description"] = desc
        if timeout:
            inp["timeout"] = timeout
        out = out.rstrip("\n")
        if code and not no_matches:
            text = f"Exit code {code}\n{out}" if out else f"Exit code {code}"
            if stderr:
                text += ("\n" if out else "\n") + stderr.rstrip("\n")
            return Call("Bash", inp, text, "Error: " + text, is_error=True, secs=secs)
        content = out
        if stderr:
            content = (out + "\n" + stderr.rstrip("\n")) if out else stderr.rstrip("\n")
        result: dict[str, Any] = {"stdout": out, "stderr": stderr.rstrip("\n"),
                                  "interrupted": False, "isImage": False,
                                  "noOutputExpected": False}
        if no_matches:
            result["returnCodeInterpretation"] = "No matches found"
            content = "No matches found"
        return Call("Bash", inp, content, result, is_error=False, secs=secs)

    def bash_bg(self, command: str, desc: str, secs: float = 0.6) -> str:
        """A command started with run_in_background; returns the background task id."""
        task_id = "b" + self._hex(6)
        out_file = (
            f"/tmp/claude-{self.tmp_user}/{self.cwd.replace('/', '-')}/tasks/{task_id}.output"
        )
        inp = {"command": command, "description": desc, "run_in_background": True}
        result = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False,
                  "noOutputExpected": False, "backgroundTaskId": task_id}
        content = (f"Command running in background with ID: {task_id}. Output is being written "
                   f"to: {out_file}")
        self.call(Call("Bash", inp, content, result, is_error=False, secs=secs))
        return task_id

    def bash_rejected(self, command: str, desc: str | None = None, reason: str | None = None,
                      hint: bool = False, secs: float = 6.0) -> None:
        inp: dict[str, Any] = {"command": command}
        if desc:
            inp["description"] = desc
        self.call(self.rejected_call("Bash", inp, reason=reason, hint=hint, secs=secs))

    def rejected_call(self, name: str, inp: dict[str, Any], reason: str | None = None,
                      hint: bool = False, secs: float = 6.0) -> Call:
        if reason:
            content = REJECT + "To tell you how to proceed, the user said:\n" + reason
            result = ("Error: " + REJECT + "The user provided the following reason for the "
                      "rejection:  " + reason)
        else:
            content = REJECT_STOP
            result = "User rejected tool use"
        if hint:
            content += MEMORY_HINT
        return Call(name, inp, content, result, is_error=True, secs=secs)

    def read(self, path: str, content: str | None = None, *, offset: int | None = None,
             limit: int | None = None, secs: float = 0.3) -> None:
        self.call(self.read_call(path, content, offset=offset, limit=limit, secs=secs))

    def read_call(self, path: str, content: str | None = None, *, offset: int | None = None,
                  limit: int | None = None, secs: float = 0.3) -> Call:
        full = self.abs(path)
        if content is not None:
            self.files[full] = content
        text = self.files[full]
        lines = text.split("\n")
        start = offset or 1
        stop = len(lines) if limit is None else min(len(lines), start - 1 + limit)
        shown = lines[start - 1:stop]
        numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(shown, start))
        inp: dict[str, Any] = {"file_path": full}
        if offset:
            inp["offset"] = offset
        if limit:
            inp["limit"] = limit
        result = {"type": "text", "file": {"filePath": full, "content": "\n".join(shown),
                                            "numLines": len(shown), "startLine": start,
                                            "totalLines": len(lines)}}
        return Call("Read", inp, numbered, result, secs=secs)

    def read_missing(self, path: str) -> None:
        full = self.abs(path)
        self.call(Call("Read", {"file_path": full},
                       "<tool_use_error>File does not exist.</tool_use_error>",
                       "Error: File does not exist.", is_error=True, secs=0.2))

    def _patch(self, old: str, new: str) -> list[dict[str, Any]]:
        a, b = old.split("\n"), new.split("\n")
        hunks = []
        for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(3):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            lines = []
            for tag, x1, x2, y1, y2 in group:
                if tag == "equal":
                    lines += [" " + s for s in a[x1:x2]]
                if tag in ("replace", "delete"):
                    lines += ["-" + s for s in a[x1:x2]]
                if tag in ("replace", "insert"):
                    lines += ["+" + s for s in b[y1:y2]]
            hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1,
                          "newLines": j2 - j1, "lines": lines})
        return hunks

    def edit(self, path: str, old: str, new: str, *, replace_all: bool = False,
             secs: float = 0.4) -> None:
        self.call(self.edit_call(path, old, new, replace_all=replace_all, secs=secs))

    def edit_call(self, path: str, old: str, new: str, *, replace_all: bool = False,
                  secs: float = 0.4) -> Call:
        full = self.abs(path)
        original = self.files[full]
        if old not in original:
            raise ValueError(f"{self.name}: old_string not in {path}: {old[:60]!r}")
        updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
        self.files[full] = updated
        self._mark_edited(full)
        inp = {"file_path": full, "old_string": old, "new_string": new}
        if replace_all:
            inp = {"replace_all": True, **inp}
        result = {"filePath": full, "oldString": old, "newString": new,
                  "originalFile": original, "structuredPatch": self._patch(original, updated),
                  "userModified": False, "replaceAll": replace_all}
        return Call("Edit", inp, f"The file {full} has been updated successfully.", result,
                    secs=secs)

    def edit_missing(self, path: str, old: str, new: str) -> None:
        """An Edit whose old_string is not in the file (the model misremembered it)."""
        full = self.abs(path)
        text = f"String to replace not found in file.\nString: {old}"
        self.call(Call("Edit", {"file_path": full, "old_string": old, "new_string": new},
                       f"<tool_use_error>{text}</tool_use_error>", "Error: " + text,
                       is_error=True, secs=0.2))

    def edit_rejected(self, path: str, old: str, new: str, reason: str | None = None,
                      hint: bool = False) -> None:
        full = self.abs(path)
        self.call(self.rejected_call("Edit", {"file_path": full, "old_string": old,
                                              "new_string": new}, reason=reason, hint=hint))

    def write(self, path: str, content: str, secs: float = 0.4) -> None:
        self.call(self.write_call(path, content, secs=secs))

    def write_call(self, path: str, content: str, secs: float = 0.4) -> Call:
        full = self.abs(path)
        original = self.files.get(full)
        self.files[full] = content
        self._mark_edited(full)
        if original is None:
            return Call("Write", {"file_path": full, "content": content},
                        f"File created successfully at: {full}",
                        {"type": "create", "filePath": full, "content": content,
                         "structuredPatch": [], "originalFile": None}, secs=secs)
        lines = content.split("\n")
        snippet = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines[:12], 1))
        return Call("Write", {"file_path": full, "content": content},
                    f"The file {full} has been updated. Here's the result of running `cat -n` "
                    f"on a snippet of the edited file:\n{snippet}",
                    {"type": "update", "filePath": full, "content": content,
                     "structuredPatch": self._patch(original, content), "originalFile": original},
                    secs=secs)

    def _mark_edited(self, full: str) -> None:
        rel = full[len(self.cwd) + 1:] if full.startswith(self.cwd + "/") else full
        self.edited.add(rel)

    def grep(self, pattern: str, files: list[str] | None = None, content: str | None = None,
             *, path: str | None = None, glob: str | None = None, secs: float = 0.4) -> None:
        self.call(self.grep_call(pattern, files, content, path=path, glob=glob, secs=secs))

    def grep_call(self, pattern: str, files: list[str] | None = None, content: str | None = None,
                  *, path: str | None = None, glob: str | None = None,
                  secs: float = 0.4) -> Call:
        inp: dict[str, Any] = {"pattern": pattern}
        if path:
            inp["path"] = self.abs(path)
        if glob:
            inp["glob"] = glob
        if content is not None:
            inp["output_mode"] = "content"
            inp["-n"] = True
            n = len(content.split("\n")) if content else 0
            return Call("Grep", inp, content or "No matches found",
                        {"mode": "content", "numFiles": 0, "filenames": [], "content": content,
                         "numLines": n}, secs=secs)
        files = [self.abs(f) for f in files or []]
        if not files:
            return Call("Grep", inp, "No files found",
                        {"mode": "files_with_matches", "filenames": [], "numFiles": 0}, secs=secs)
        listing = f"Found {len(files)} file{'s' if len(files) != 1 else ''}\n" + "\n".join(files)
        return Call("Grep", inp, listing,
                    {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)},
                    secs=secs)

    def glob(self, pattern: str, files: list[str], secs: float = 0.3) -> None:
        full = [self.abs(f) for f in files]
        self.call(Call("Glob", {"pattern": pattern}, "\n".join(full) or "No files found",
                       {"filenames": full, "durationMs": self.rng.randint(20, 400),
                        "numFiles": len(full), "truncated": False}, secs=secs))

    def todo(self, items: list[tuple[str, str, str]]) -> None:
        """TodoWrite with (content, status, activeForm) triples."""
        new = [{"content": c, "status": st, "activeForm": af} for c, st, af in items]
        old = [dict(t) for t in self.todos]
        self.todos = [] if all(t["status"] == "completed" for t in new) else new
        self.call(Call("TodoWrite", {"todos": new}, TODO_OK, {"oldTodos": old, "newTodos": new},
                       secs=0.2))

    def ask(self, questions: list[dict[str, Any]], answers: dict[str, str],
            wait: float = 45.0) -> None:
        """AskUserQuestion: each question {question, header, options:[(label, desc)], multi}."""
        qs = []
        for q in questions:
            qs.append({"question": q["question"], "header": q["header"],
                       "options": [{"label": lab, "description": d} for lab, d in q["options"]],
                       "multiSelect": q.get("multi", False)})
        said = ", ".join(f'"{q}"="{a}"' for q, a in answers.items())
        content = (f"User has answered your questions: {said}. You can now continue with the "
                   "user's answers in mind.")
        self.call(Call("AskUserQuestion", {"questions": qs}, content,
                       {"questions": qs, "answers": answers}, secs=wait))

    def task_output(self, task_id: str, desc: str, output: str, exit_code: int = 0,
                    secs: float = 1.0) -> None:
        status = "completed" if exit_code == 0 else "failed"
        content = (f"<retrieval_status>success</retrieval_status>\n\n<task_id>{task_id}</task_id>"
                   f"\n\n<task_type>local_bash</task_type>\n\n<status>{status}</status>\n\n"
                   f"<exit_code>{exit_code}</exit_code>\n\n<output>\n{output}\n</output>")
        self.call(Call("TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000},
                       content,
                       {"retrieval_status": "success",
                        "task": {"task_id": task_id, "task_type": "local_bash", "status": status,
                                 "description": desc, "output": output,
                                 "exitCode": exit_code}}, secs=secs))

    # ----------------------------------------------------------------- output
    def lines(self) -> list[str]:
        self._close()
        return [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in self.entries]


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"session_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    only = set(argv)
    for path in sorted(SESSIONS.glob("*.py")):
        if path.stem.startswith("_") or (only and path.stem.replace("_", "-") not in only):
            continue
        module = load(path)
        session: Session = module.build()
        gold = module.GOLD
        name = session.name
        (HERE / f"{name}.jsonl").write_text("\n".join(session.lines()) + "\n", encoding="utf-8")
        gold = {"source": "written", "licence": "Apache-2.0 (this repository)", **gold}
        (HERE / f"{name}.gold.json").write_text(
            json.dumps(gold, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"{name}: {len(session.entries)} entries, {len(gold.get('items', []))} gold items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
