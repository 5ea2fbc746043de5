"""What an LLM summariser may read of a session (engram/capture/summariser.py)."""

from __future__ import annotations

from typing import Any

from ..hooks import triage
from .commands import display_command, run_outcome
from .extractor import EDIT_TOOLS, Extractor, relative_path, turns_of
from .failures import error_line
from .reading import answers_of
from .transcript import Session

MAX_WINDOW_CHARS = 1_500
MAX_WINDOWS_CHARS = 16_000


def windows(session: Session, cwd: str | None = None) -> list[dict[str, Any]]:
    """The parts of a session a summariser may read, in order: the user's prompts, the
    assistant's words before each change, each failed command with its telling error and
    the command that passed after it, answers to questions, rejections, the wrap-ups.

    Never the raw transcript: no tool output beyond one error line, no file contents, and
    a bounded total (the newest windows are kept when it runs over). Callers redact.
    """
    extractor = Extractor(session, cwd)
    out: list[dict[str, Any]] = []

    def add(kind: str, at: str | None, text: str, files: list[str] | None = None) -> None:
        text = " ".join(text.split())
        if len(text) > MAX_WINDOW_CHARS:
            # Cut between words, never inside one: half a token could slip past redaction.
            text = text[:MAX_WINDOW_CHARS].rsplit(" ", 1)[0] + " …"
        if text:
            out.append({"kind": kind, "at": at, "text": text, "files": files or []})

    for event in session.events:
        call = event.tool
        if event.kind == "prompt":
            add("user", event.at, event.text)
        elif call is not None and call.name in EDIT_TOOLS and call.failed is False:
            texts, at = extractor.text_before(event.position)
            if texts:
                file = relative_path(call.file_path, extractor.cwd) if call.file_path else ""
                add("before-edit", at, " ".join(texts), [file] if file else [])
        elif call is not None and call.name == "Bash" and call.command:
            outcome = run_outcome(call)
            command = display_command(call.command)
            if outcome is False:
                add("command-failed", call.at, f"`{command}`: {error_line(call.output)}")
            elif outcome and triage.command_kind(call.command) is not None:
                add("command-passed", call.at, f"`{command}`")
        elif call is not None and call.name == "AskUserQuestion":
            for question, answer in answers_of(call):
                add("answer", call.at, f"{question} → {answer}")
        elif call is not None and call.rejected and call.feedback:
            add("rejected", call.at, call.feedback)
    for turn in turns_of(session):
        closing = turn.closing()
        if closing is not None:
            add("wrap-up", closing.at, closing.text)
    out.sort(key=lambda w: w["at"] or "")
    total = 0
    kept: list[dict[str, Any]] = []
    for window in reversed(out):
        total += len(window["text"])
        if total > MAX_WINDOWS_CHARS:
            break
        kept.append(window)
    return kept[::-1]
