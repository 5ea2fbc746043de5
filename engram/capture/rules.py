"""Rules (`constraint` / `preference`) in the user's own words, and the tool calls they
turned down.

A rule is a sentence of the user's that asks for something lasting: in a prompt, in a message
typed while the assistant worked, in what a compaction summary quotes of them, or in the
feedback on a rejected tool call. A rejected command whose feedback says what runs it instead
("las migraciones las aplica el CI") is a rule about that command. Any other rejection that
states no rule is a failed attempt: what the assistant meant to do, and why the user
stopped it.
"""

from __future__ import annotations

from . import lexicon
from .extractor import RECORDING_RE, Extractor
from .finding import Finding
from .reading import gist_of, normalized, rules_in, shorten, summary_user_messages


def rules(x: Extractor) -> None:
    seen: set[str] = set()
    sources: list[tuple[str, str | None, str]] = [
        (e.text, e.at, "rule") for e in x.events if e.kind in ("prompt", "aside")
        # a subagent's brief relays the parent agent's instructions, not the person's rules
        and not (x.session.delegated and e.text is x.opening)
    ]
    said = [normalized(text) for text, _, _ in sources]
    for event in x.events:  # what the user said before a compaction, if not here
        if event.kind == "compaction" and event.text:
            sources += [(quote, event.at, "rule")
                        for quote in summary_user_messages(event.text)
                        if not any(normalized(quote) in prompt for prompt in said)]
    sources += [(c.feedback, c.at, "rejected") for c in x.session.tools if c.feedback]
    for text, at, origin in sources:
        for kind, rule in rules_in(text, whole=origin == "rejected",
                                   opening=text is x.opening):
            if normalized(rule) in seen:
                continue
            seen.add(normalized(rule))
            x.add(Finding(kind, rule, "rule", at=at, importance=0.7))


def rejections(x: Extractor) -> None:
    for call in x.session.tools:
        if not call.rejected or not call.feedback:
            continue
        if rules_in(call.feedback, whole=True):
            continue  # already a rule in the user's words
        if call.command and lexicon.DONE_ELSEWHERE_RE.search(call.feedback):
            # "no, las migraciones las aplica el CI …" to `supabase db push`: never run here
            x.add(Finding("constraint", f"Not `{shorten(call.command, 120)}` from here — "
                          f"{shorten(call.feedback, 300)}", "rule", at=call.at,
                          importance=0.7))
            continue
        if call.feedback.rstrip().endswith(("?", "？")) or RECORDING_RE.search(
            call.command or ""
        ):  # a question, or "add X first" said to a commit (stopping one changes what is
            # recorded, not how the work was done): nothing tried was wrong
            continue
        intent, _ = x.text_before(call.position)
        approach = gist_of(intent) or f"{call.name} {call.file_path or call.command or ''}"
        content = f"{approach} — rejected by the user: {shorten(call.feedback, 240)}"
        x.add(Finding("failed_attempt", content, "rejected", at=call.at,
                      importance=0.55))

