"""What a commit has to pass here (`project_fact`): a hook that runs checks before each
`git commit` (a pre-commit script, husky, lefthook, the pre-commit framework, an agent's
own tool hook) and refused one in the session. Next week's work meets the same gate, so
it is told once, with the checks it named — and that `--no-verify` did not get past it
when the session saw that.
"""

from __future__ import annotations

import re

from .commits import is_commit
from .extractor import Extractor
from .finding import Finding

# A refusal that comes from a hook, not from git itself ("nothing to commit").
_HOOK_RE = re.compile(r"pre-commit|precommit|husky|lefthook|\bhook\b", re.IGNORECASE)
# The checks a gate names: "[CREDO]" labels (not log levels), the pre-commit framework's
# "ruff....Failed", husky's "> npm run lint".
_CHECK_RES = (
    re.compile(r"^\[(?!(?:INFO|WARN|WARNING|ERROR|DEBUG|NOTE)\])([A-Z][A-Z0-9_ -]{1,20})\]",
               re.MULTILINE),
    re.compile(r"^([\w .+-]{2,40}?)\.{4,}\s*(?:Failed|Passed)\b", re.MULTILINE),
    re.compile(r"^> (?:npm run|pnpm(?: run)?|yarn(?: run)?|bun run) ([\w:.-]+)", re.MULTILINE),
)
MAX_CHECKS = 6


def commit_gate(x: Extractor) -> None:
    """The first commit a hook refused, with every check the session's refusals named."""
    refused = [call for call in x.session.tools if call.name == "Bash" and call.command
               and is_commit(call.command) and call.failed is True
               and _HOOK_RE.search(call.output)]
    if not refused:
        return
    checks: list[str] = []
    for call in refused:
        text = call.output.replace("\\n", "\n")  # a hook's message often arrives escaped
        for pattern in _CHECK_RES:
            checks += [m.strip().lower() for m in pattern.findall(text)
                       if m.strip().lower() not in checks]
    named = f" ({', '.join(checks[:MAX_CHECKS])})" if checks else ""
    content = f"Commits go through a pre-commit hook{named}: `git commit` fails until it passes"
    if any("--no-verify" in (call.command or "") for call in refused):
        content += "; `--no-verify` does not skip it"
    first = refused[0]
    x.add(Finding("project_fact", content, "gate", at=first.at, importance=0.55,
                  anchor=first.position))
