"""An optional LLM summariser for consolidation ("ollama:<model>" or "openai:<model>").

Only used when configured (`summariser` in [lifecycle] or $ENGRAM_SUMMARISER); any
failure returns None and consolidation falls back to the deterministic merge.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Sequence

from ..redaction import redact

PROMPT = (
    "Merge these notes from a software project into one concise note. Keep every distinct"
    " fact, decision, file name, command and date; drop repetition; no preamble.\n\n"
)
TIMEOUT_S = 60


def _post(url: str, payload: dict, headers: dict[str, str]) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), method="POST",
        headers={"Content-Type": "application/json", **headers},
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310
        return json.loads(response.read())


def summarise(spec: str, texts: Sequence[str]) -> str | None:
    kind, _, model = spec.partition(":")
    prompt = PROMPT + "\n".join(f"- {t}" for t in texts)
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
    if not isinstance(text, str) or not text.strip():
        return None
    return redact(text.strip()).text
