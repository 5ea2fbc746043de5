"""What a prompt's recalled memories look like in the agent's context.

Which memories a prompt earns is the service's rule (engram/prompt_recall.py); this
module only renders them within the token budget.
"""

from __future__ import annotations

from ..prompt_recall import MAX_TOKENS, Recalled


def render(recalled: list[Recalled]) -> tuple[str, list[str]]:
    """The text to inject and the ids it really contains (the token budget may cut)."""
    from ..exchange import AUTHORITY_RULE
    from ..text import estimate_tokens

    header = f"Engram recalled memories that may be relevant to this prompt. {AUTHORITY_RULE}"
    lines = [header]
    ids: list[str] = []
    used = estimate_tokens(header)
    for item in recalled:
        memory = item.memory
        content = " ".join(memory.content.split())
        if memory.solution and memory.solution not in content:
            content += f" — solution: {' '.join(memory.solution.split())}"
        if len(content) > 600:
            content = content[:599] + "…"
        line = f"- [{memory.type}, {memory.when:%Y-%m-%d}, id {memory.id}] {content}"
        cost = estimate_tokens(line)
        if used + cost > MAX_TOKENS and len(lines) > 1:
            break
        lines.append(line)
        ids.append(memory.id)
        used += cost
    return "\n".join(lines), ids
