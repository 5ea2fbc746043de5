"""An optional LLM summariser for consolidation: "claude[:model]", "codex[:model]" (the
agent CLIs the user is logged into, as capture's summariser runs them), "ollama:<model>"
or "openai:<model>".

Only used when configured (`summariser` in [lifecycle] or $ENGRAM_SUMMARISER). It reads
the sources redacted (again: what is stored is redacted already), and its answer must
keep every number and version the sources hold, or the deterministic recap is used: a
summary that lost "20 minutes" or "node 20.12" is worse than none. Any failure returns
None.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Sequence

from ..redaction import redact

PROMPT = (
    "Merge these notes from a software project into one concise note: first one sentence"
    " saying what recurred and when, then the facts that differ as a short list, then what"
    " fixed it if a note says so. Keep every distinct fact, number, version, negation, file"
    " name, command and date; drop repetition; no preamble.\n\n"
)
TIMEOUT_S = 60


def _post(url: str, payload: dict, headers: dict[str, str]) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), method="POST",
        headers={"Content-Type": "application/json", **headers},
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310
        return json.loads(response.read())


_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w.])")


def keeps_numbers(texts: Sequence[str], summary: str) -> bool:
    """Every number and version of the sources is in the summary."""
    wanted = {n for t in texts for n in _NUMBER_RE.findall(t)}
    return wanted <= set(_NUMBER_RE.findall(summary))


def summarise(spec: str, texts: Sequence[str]) -> str | None:
    texts = [redact(t).text for t in texts]
    text = _ask(spec, texts)
    if not isinstance(text, str) or not text.strip():
        return None
    answer = redact(text.strip()).text
    return answer if keeps_numbers(texts, answer) else None


def _ask(spec: str, texts: Sequence[str]) -> str | None:
    kind, _, model = spec.partition(":")
    prompt = PROMPT + "\n".join(f"- {t}" for t in texts)
    if kind in ("claude", "codex"):
        from ..capture import llm

        try:
            return llm.complete(prompt, "You merge a software team's notes.",
                                llm.Settings(kind, model or None, float(TIMEOUT_S)),
                                os.getcwd())
        except (llm.SummariserError, OSError):
            return None
    try:
        if kind == "ollama" and model:
            host = (os.environ.get("OLLAMA_HOST") or os.environ.get("OLLAMA_BASE_URL")
                    or "http://127.0.0.1:11434").rstrip("/")
            if not host.startswith("http"):
                host = "http://" + host
            data = _post(f"{host}/api/generate",
                         {"model": model, "prompt": prompt, "stream": False}, {})
            text = data.get("response")
        elif kind == "openai" and model:
            base = (os.environ.get("ENGRAM_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                    or "https://api.openai.com/v1").rstrip("/")
            key = os.environ.get("ENGRAM_OPENAI_API_KEY") or os.environ.get("OPENAI_API_KEY")
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            data = _post(f"{base}/chat/completions", {
                "model": model, "messages": [{"role": "user", "content": prompt}],
            }, headers)
            text = data["choices"][0]["message"]["content"]
        else:
            return None
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return text if isinstance(text, str) else None
