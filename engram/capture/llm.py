"""Three ways to ask a small model for one answer: Claude Code headless (`claude -p`),
`codex exec`, or an Ollama / OpenAI-compatible HTTP endpoint.

The CLIs are the ones the user already has and is logged into, so they run with the
user's environment — plus ENGRAM_HOOKS=off, because each run is itself an agent session
whose hooks must not capture it — in their own process group, killed whole at the
timeout, with the prompt on stdin (argv is visible to every user in `ps`). Flags that
keep a run lean (no tools, no hooks, no MCP servers, nothing saved) are given where the
CLI has them; a version that rejects one is retried once with the bare minimum.

Flags checked against `claude --help` (Claude Code 2.1.197) and `codex exec --help`
(codex-cli 0.169.0), and Claude Code's headless docs (`-p`, `--output-format json`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HOOKS_OFF_ENV = "ENGRAM_HOOKS"
#: What Claude Code sets for the processes of one session (hooks, tools): see child_env.
SESSION_ENV = frozenset({"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_CHILD_SESSION",
                         "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE",
                         "AI_AGENT", "TRACEPARENT"})
MAX_ANSWER_CHARS = 200_000
# A first try whose flags this CLI version does not know is retried with the bare minimum.
_FLAG_ERROR_RE = re.compile(
    r"(unknown|unexpected|unrecognized|invalid)\s+(option|argument|flag|value)|--settings|"
    r"--tools|--strict-mcp-config|--no-session-persistence|--ephemeral", re.IGNORECASE)


class SummariserError(Exception):
    """The backend gave no usable answer (the message goes to the hooks log)."""


@dataclass(frozen=True)
class Settings:
    backend: str  # claude | codex | endpoint
    model: str | None
    timeout: float


def _run(argv: list[str], prompt: str, timeout: float, cwd: str,
         env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a CLI in its own process group; on timeout the whole group is killed."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(prompt, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise SummariserError(f"`{os.path.basename(argv[0])}` did not answer within "
                              f"{timeout:g} s") from None
    except BaseException:
        _kill_group(proc)
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # AttributeError: no process groups on Windows
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError, OSError):
        proc.communicate(timeout=5)


def child_env() -> dict[str, str]:
    """The agent CLI's environment: the user's own (its login lives there), hooks off, and
    none of the variables that tie a process to the Claude Code session whose hook started
    it (a run that inherited them would count as that session's child)."""
    env = {k: v for k, v in os.environ.items() if k not in SESSION_ENV}
    env[HOOKS_OFF_ENV] = "off"
    return env


def _attempts(full: list[str], bare: list[str], prompt: str, timeout: float, cwd: str
              ) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    env = child_env()
    proc = _run(full, prompt, timeout, cwd, env)
    if proc.returncode != 0 and _FLAG_ERROR_RE.search(proc.stderr or ""):
        left = timeout - (time.monotonic() - started)
        if left > 1:
            proc = _run(bare, prompt, left, cwd, env)
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or _result_text(proc.stdout) or proc.stdout or "").split())
        tail = tail[-300:]
        raise SummariserError(f"`{os.path.basename(full[0])}` exited with {proc.returncode}: "
                              f"{tail or 'no output'}")
    return proc


def _result_text(stdout: str) -> str | None:
    """What a failed `claude -p --output-format json` says ("Not logged in · …")."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    result = data.get("result") if isinstance(data, dict) else None
    return result if isinstance(result, str) else None


def claude_argv(executable: str, model: str | None, system: str) -> tuple[list[str], list[str]]:
    """Claude Code headless: the prompt on stdin (not argv, which `ps` shows), JSON out.

    No tools (`--tools ""`), no hooks (`disableAllHooks` through --settings), no MCP
    servers (`--strict-mcp-config` with none given), nothing saved for /resume, and a
    short system prompt instead of the coding agent's. The second list is the fallback
    for a version that rejects one of those flags."""
    base = [executable, "-p", "--output-format", "json"]
    if model:
        base += ["--model", model]
    full = [*base, "--tools", "", "--settings", json.dumps({"disableAllHooks": True}),
            "--strict-mcp-config", "--no-session-persistence", "--system-prompt", system]
    return full, base


def claude_answer(stdout: str) -> str:
    """The model's text from `--output-format json` ({"type": "result", "result": …})."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return stdout  # a version that printed plain text: the answer may still be in it
    if isinstance(data, list):  # older versions: every message, the result last
        data = next((d for d in reversed(data) if isinstance(d, dict)
                     and d.get("type") == "result"), {})
    if not isinstance(data, dict):
        raise SummariserError("claude printed JSON that is not a result")
    if data.get("is_error") or data.get("subtype") not in (None, "success"):
        raise SummariserError(f"claude reported an error: {str(data.get('result'))[:200]}")
    if isinstance(data.get("structured_output"), dict | list):
        return json.dumps(data["structured_output"])
    result = data.get("result")
    if not isinstance(result, str):
        raise SummariserError("claude's result holds no text")
    return result


def call_claude(prompt: str, system: str, chosen: Settings, cwd: str) -> str:
    executable = shutil.which("claude")
    if executable is None:
        raise SummariserError("`claude` is not on PATH")
    full, bare = claude_argv(executable, chosen.model, system)
    return claude_answer(_attempts(full, bare, prompt, chosen.timeout, cwd).stdout)


def codex_argv(executable: str, model: str | None, out_file: str) -> tuple[list[str], list[str]]:
    """`codex exec` read-only and ephemeral, hooks off, last message to a file, the prompt
    on stdin (`-`). The second list is the fallback for an older version."""
    tail = ["--output-last-message", out_file]
    if model:
        tail += ["--model", model]
    full = [executable, "exec", "--sandbox", "read-only", "--skip-git-repo-check",
            "--ephemeral", "--color", "never", "-c", "features.hooks=false", *tail, "-"]
    bare = [executable, "exec", "--sandbox", "read-only", "--skip-git-repo-check", *tail, "-"]
    return full, bare


def call_codex(prompt: str, system: str, chosen: Settings, cwd: str) -> str:
    """codex exec has no system prompt flag: the instructions lead the prompt."""
    executable = shutil.which("codex")
    if executable is None:
        raise SummariserError("`codex` is not on PATH")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="engram-codex-") as folder:
        out_file = os.path.join(folder, "last-message.txt")
        full, bare = codex_argv(executable, chosen.model, out_file)
        proc = _attempts(full, bare, f"{system}\n\n{prompt}", chosen.timeout, cwd)
        try:
            with open(out_file, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_ANSWER_CHARS)
        except OSError:
            text = ""
    return text if text.strip() else proc.stdout


def _post(url: str, payload: dict[str, Any], headers: dict[str, str], timeout: float) -> Any:
    import urllib.request  # ~20 ms: only in the background run that needs it

    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), method="POST",
        headers={"Content-Type": "application/json", **headers},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
        return json.loads(response.read(MAX_ANSWER_CHARS * 4))


def call_endpoint(prompt: str, system: str, chosen: Settings, cwd: str) -> str:
    """Ollama or an OpenAI-compatible server, configured like consolidation's summariser."""
    kind, _, model = (chosen.model or "").partition(":")
    try:
        if kind == "ollama" and model:
            host = (os.environ.get("OLLAMA_HOST") or os.environ.get("OLLAMA_BASE_URL")
                    or "http://127.0.0.1:11434").rstrip("/")
            if not host.startswith("http"):
                host = "http://" + host
            data = _post(f"{host}/api/generate", {
                "model": model, "system": system, "prompt": prompt, "stream": False,
                "format": "json"}, {}, chosen.timeout)
            text = data.get("response")
        elif kind == "openai" and model:
            base = (os.environ.get("ENGRAM_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                    or "https://api.openai.com/v1").rstrip("/")
            key = os.environ.get("ENGRAM_OPENAI_API_KEY") or os.environ.get("OPENAI_API_KEY")
            data = _post(f"{base}/chat/completions", {"model": model, "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt}]},
                {"Authorization": f"Bearer {key}"} if key else {}, chosen.timeout)
            text = data["choices"][0]["message"]["content"]
        else:
            raise SummariserError("no endpoint model: set summarizer_model = "
                                  '"ollama:<model>" or "openai:<model>"')
    except SummariserError:
        raise
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise SummariserError(f"endpoint {chosen.model}: {type(exc).__name__}: {exc}") from None
    if not isinstance(text, str):
        raise SummariserError(f"endpoint {chosen.model} returned no text")
    return text


CALLS: dict[str, Callable[[str, str, Settings, str], str]] = {
    "claude": call_claude, "codex": call_codex, "endpoint": call_endpoint,
}


def complete(prompt: str, system: str, chosen: Settings, cwd: str) -> str:
    """The model's answer as text; SummariserError when there is none to read."""
    if chosen.backend not in CALLS:
        raise SummariserError(f"unknown summariser {chosen.backend!r}")
    return CALLS[chosen.backend](prompt, system, chosen, cwd)


