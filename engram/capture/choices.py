"""Decisions the person made in their own words.

A request that names how to build it with the problem it answers, numbered answers to
numbered questions, options picked by number, a reply that settles what the assistant
asked or left open, a verdict that keeps what was just built, a proposal turned down with
what to do instead, and answers to AskUserQuestion (a rule when the answer states one).
Each is kept with what it chose from, since "number 2" or "yes, that" means nothing later.
"""

from __future__ import annotations

import re

from . import lexicon
from .extractor import Extractor, Turn, is_prompt
from .finding import Finding
from .reading import (
    MAX_REASON_CHARS,
    answers_of,
    gist_of,
    insight_score,
    normalized,
    rule_type,
    rules_in,
    shorten,
    text_weight,
    unemphasised,
)
from .transcript import Event, ToolCall

MIN_CORRECTION_CHARS = 30  # "no" alone turns something down without saying what instead


def requested_design(x: Extractor, turns: list[Turn]) -> None:
    """A request that names how to build it, with the problem it answers ("POST
    /payments needs idempotency keys. mobile retries double-charged 3 people. store keys
    in postgres."): the person's decision and its why, when the turn built it."""
    for turn in turns:
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt" or not turn.edited:
            continue
        said = lexicon.sentences(prompt.prose)
        directive = next((s for s in said if lexicon.DIRECTIVE_RE.search(s.strip())
                          and text_weight(s) <= 120 and rule_type(s) is None), None)
        if directive is None:
            continue
        why = [s for s in said if s != directive and rule_type(s) is None
               and not s.endswith(("?", "？")) and text_weight(s) >= 25]
        if not why:
            continue
        content = f"{directive} — {shorten(' '.join(why[:3]), 300)}"
        x.add(Finding("decision", content, "requested", at=prompt.at,
                      files=turn.files(x)[:10], importance=0.6,
                      anchor=prompt.position))


def weighed(x: Extractor, turns: list[Turn]) -> None:
    """Two ways the person weighed in their request and the one they leaned to ("I'm not
    sure if I should use local storage or index DB. … the timer list is very small … local
    storage might be good enough"), in a turn that built it: their decision, with the
    reasons they gave on the way."""
    for turn in turns:
        prompt = turn.opener
        if not is_prompt(prompt) or not turn.edited:
            continue
        said = lexicon.sentences(prompt.prose)
        for at, sentence in enumerate(said):
            options = _weighed_options(sentence)
            lean = next(((s, picked) for s in said[at + 1:] if not s.endswith(("?", "？"))
                         and lexicon.LEAN_RE.search(s)
                         and (picked := [o for o in options if _squeezed(o) in _squeezed(s)])
                         and len(picked) == 1), None)
            if lean is None:
                continue
            leaning, (picked,) = lean
            other = next(o for o in options if o != picked)
            why = [s for s in said[at + 1:said.index(leaning)]
                   if not s.endswith(("?", "？")) and text_weight(s) >= 25
                   and rule_type(s) is None]
            content = f"{picked} rather than {other}: {leaning}"
            if why:
                content += f" — {' '.join(why)}"
            x.add(Finding("decision", shorten(content, MAX_REASON_CHARS), "weighed",
                          at=prompt.at, files=turn.files(x)[:10], importance=0.6,
                          anchor=prompt.position))
            break


# What "should I use it or not" weighs is no way of building anything.
_NOT_OPTIONS = frozenset({"it", "this", "that", "them", "not", "one", "both", "either",
                          "neither", "something", "else", "nicht", "pas", "no", "não"})


def _weighed_options(sentence: str) -> tuple[str, str] | tuple[()]:
    match = lexicon.WEIGHING_RE.search(sentence)
    if match is None:
        return ()
    a, b = match.group("a").strip(), match.group("b").strip()
    if {a.lower(), b.lower()} & _NOT_OPTIONS or _squeezed(a) == _squeezed(b):
        return ()
    return a, b


def _squeezed(text: str) -> str:
    """"local storage" as the code spells it ("localStorage"): lower case, no spaces."""
    return re.sub(r"[\s_-]+", "", text.lower())


def numbered_answers(x: Extractor, turns: list[Turn]) -> None:
    """Numbered answers to the assistant's numbered questions ("1. qmake or CMake? 2. …"
    answered "1. qmake stays, CMake is another project 2. …"): each answer that is not a
    rule is a choice made, kept with the question it settles."""
    for proposal, turn in zip(turns, turns[1:], strict=False):
        prompt, closing = turn.opener, proposal.closing()
        if prompt is None or prompt.kind != "prompt" or closing is None:
            continue
        questions = numbered_parts(closing.text)
        answers = numbered_parts(prompt.text)
        if sum("?" in q or "？" in q for q in questions) < 2 or len(answers) < 2:
            continue
        for question, answer in zip(questions, answers, strict=False):
            if text_weight(answer) < 12 or rule_type(answer) is not None or (
                _ERRAND_RE.search(question)
            ):
                continue
            x.add(Finding("decision", f"{shorten(answer, 300)} ({shorten(question, 160)})",
                          "answer", at=prompt.at, importance=0.6,
                          anchor=prompt.position))


def picked_options(x: Extractor, turns: list[Turn]) -> None:
    """The person choosing among the numbered options the assistant laid out ("ditch
    number 5 and 6, I'm really interested in private credit (number 2)"): their choice,
    with the options it names spelled out, since "number 5" means nothing later."""
    options: dict[str, str] = {}  # the last options laid out, through one aside since
    age = 0
    for proposal, turn in zip(turns, turns[1:], strict=False):
        prompt, closing = turn.opener, proposal.closing()
        laid_out = {n: title for n, title in _OPTION_RE.findall(closing.text)
                    if not title.rstrip().endswith(("?", "？"))  # questions, not options
                    } if closing is not None else {}
        options, age = (laid_out, 0) if len(laid_out) >= 3 else (options, age + 1)
        if not is_prompt(prompt) or not options or age > 1:
            continue
        said = [sentence for sentence in lexicon.sentences(prompt.prose)
                if not sentence.endswith(("?", "？"))]
        named = [n for sentence in said for ref in _OPTION_REF_RE.finditer(sentence)
                 for n in re.findall(r"\d{1,2}", ref.group(0)) if n in options]
        if not named:
            continue
        spelled = "; ".join(f"{n}. {options[n].strip()}" for n in dict.fromkeys(named))
        x.add(Finding("decision", f"{shorten(' '.join(said), 300)} ({spelled})",
                      "picked", at=prompt.at, importance=0.6, anchor=prompt.position))


# An option laid out by name: "**Option A** — Copy the db …", "### Variant 2: …"
_NAMED_OPTION_RE = re.compile(
    r"^[#*_\s]*(?:option|variant|approach|alternative|вариант|opción|opção|variante|"
    r"möglichkeit|选项|方案)\s*([A-Z]|\d{1,2})\b[*_:.)\s]*[—–:-]?\s*(.{3,160})$",
    re.IGNORECASE | re.MULTILINE)
_NAMED_REF = r"\b(?:option|variant|approach|alternative|вариант\w*|opción|opção|variante)\s*{}\b"


def named_options(x: Extractor, turns: list[Turn]) -> None:
    """The person taking one of the options the assistant laid out by name ("**Option A**
    — Copy the db …", "**Option B** — Point dev at it") by naming it or by its words
    ("copy the db, good idea"): the option chosen, with the assistant's reason for it
    when it recommended one, since "good idea" means nothing later."""
    for proposal, turn in zip(turns, turns[1:], strict=False):
        prompt, closing = turn.opener, proposal.closing()
        if not is_prompt(prompt) or closing is None or text_weight(prompt.prose) > 300 or (
            lexicon.CORRECTION_RE.match(prompt.prose)
        ):
            continue
        options: dict[str, str] = {}
        for match in _NAMED_OPTION_RE.finditer(closing.text):
            text = unemphasised(match.group(2)).strip(" *_:—–-")
            # the command that carries it out, when a code block follows the heading
            shown = re.match(r"\s*```[\w-]*\n([^\n`]{3,160})\n", closing.text[match.end():])
            if shown:
                text = f"{text}: `{shown.group(1).strip()}`"
            options.setdefault(match.group(1).upper(), text)
        if len(options) < 2:
            continue
        said = [s for s in lexicon.sentences(prompt.prose) if not s.endswith(("?", "？"))]
        reply = " ".join(said)
        named = [label for label in options
                 if re.search(_NAMED_REF.format(re.escape(label)), reply, re.IGNORECASE)]
        echoed = [label for label, text in options.items() if _takes_up(reply, text)]
        picked = named if len(named) == 1 else echoed if len(echoed) == 1 and not named else []
        if not picked:
            continue
        label = picked[0]
        reasons = [s for s in lexicon.sentences(closing.text)
                   if re.search(_NAMED_REF.format(re.escape(label)), s, re.IGNORECASE)
                   and not _NAMED_OPTION_RE.match(s) and insight_score(s) > 0]
        content = options[label] + (f" — {reasons[0]}" if reasons else "")
        content = shorten(f"{content} (option {label}, chosen: {shorten(reply, 120)})",
                          MAX_REASON_CHARS)
        told = next((f for f in x.findings if f.origin == "chosen"
                     and f.anchor == prompt.position), None)
        if told is not None:  # "let's go with option B": the choice, told with what B is
            told.content = content
            continue
        x.add(Finding("decision", content, "named", at=prompt.at, importance=0.6,
                      anchor=prompt.position))


# Words a reply shares with any option without choosing it.
_COMMON_STEMS = frozenset({"that", "this", "with", "from", "have", "will", "would", "your",
                           "into", "them", "then", "just", "only", "also", "want", "good",
                           "great", "idea", "sure", "okay", "thank", "pleas", "there", "what"})


def _takes_up(reply: str, option: str) -> bool:
    """Whether a short reply uses a content word of an option ("copy the db" for "Copy the
    db so you can mess with it freely")."""
    return bool((_stems(reply) & _stems(option)) - _COMMON_STEMS) and (
        not lexicon.HANDOFF_RE.search(reply))


def chosen(x: Extractor, turns: list[Turn]) -> None:
    """The person settling what the assistant asked or laid out, in their own words
    ("ok, fine, let's do vite", "let's do maxrecordings = 30. And let's turn on
    togglemode"): their choice, with the gist of what it chose from."""
    for proposal, turn in zip(turns, turns[1:], strict=False):
        prompt, closing = turn.opener, proposal.closing() or _last_question(proposal)
        if not is_prompt(prompt) or closing is None or not (
            "?" in closing.text or "？" in closing.text
            or len(_OPTION_RE.findall(closing.text)) >= 2
            or len(re.findall(r"\boption \w+", closing.text, re.IGNORECASE)) >= 2
        ):
            continue
        open_ends = [s for s in lexicon.sentences(closing.text) if s.endswith(("?", "？"))
                     or lexicon.UNCERTAIN_RE.search(s) or lexicon.UNDECIDED_RE.search(s)]
        said = [s for s in lexicon.sentences(prompt.prose) if not s.endswith(("?", "？"))]
        option = _option_named(closing.text, said[0]) if said else None
        if option is not None and turn.edited:
            picks = said  # "生成列。插件那个要改 deleted_at 类型…": an option named, then why
        else:
            picks = [sentence for sentence in said if lexicon.CHOICE_RE.search(sentence)
                     # "release on exception only for PspUnavailable" settling "I think
                     # the reservation should be released on an exception, but …"
                     or turn.edited and any(_echoes(sentence, end) for end in open_ends
                                            if not end.endswith(("?", "？")))]
        if not picks:
            continue
        asked = [s for s in open_ends if any(_echoes(p, s) for p in picks)] or [
            s for s in lexicon.sentences(closing.text) if s.endswith(("?", "？"))]
        offered = shorten(unemphasised(option).strip(), 200) if option else shorten(
            asked[-1], 200) if asked else gist_of([closing.text], 200)
        content = " ".join(picks) + (f" (answering: {offered})" if offered else "")
        x.add(Finding("decision", shorten(content, MAX_REASON_CHARS), "chosen",
                      at=prompt.at, importance=0.6, anchor=prompt.position))


# Alternatives announced as such: "Two real options:", "Dos opciones de verdad:", "两个办法".
_OPTIONS_WORD_RE = re.compile(
    r"\b(options|opciones|opções|optionen|variant(s|es|en)|approaches|alternatives|two ways|"
    r"dos caminos|dois caminhos|deux (options|approches|façons)|два (варианта|способа|пути))\b|"
    r"(两|几)(个|种)(办法|方案|选择|思路)|选项|案があります", re.IGNORECASE)


def _option_named(laid_out: str, reply: str) -> str | None:
    """The numbered option a reply opens by naming: its title whole ("生成列" for "2.
    **生成列**：…"), or the one option whose title shares a content word with the reply's
    first sentence ("sí, per request" for "1. **Loaders por request**")."""
    options = [(line, unemphasised(m.group(2)).strip(" `*_:：")) for line in
               laid_out.splitlines() if (m := _OPTION_RE.match(line))]
    whole = next((line for line, title in options if normalized(title) == normalized(reply)),
                 None)
    if whole is not None or text_weight(reply) > 40 or not _OPTIONS_WORD_RE.search(laid_out):
        return whole
    # (options set out by bold names, not a list of steps or a report's numbered headings)
    sharing = [line for line, title in options if _takes_up(reply, title)
               and re.match(r"^\s*\d{1,2}[.)]\s+\*\*", line)]
    return sharing[0] if len(sharing) == 1 else None


def _last_question(turn: Turn) -> Event | None:
    """The turn's last words when they ask the person something or lay out options, though
    a command ran after them ("你倾向哪个？" and then the failed attempt's file removed;
    "Two real options: 1. … 2. … I'll take 1 unless you'd rather not", then the revert):
    what the next prompt answers."""
    last = next((e for e in reversed(turn.events) if e.kind == "text"), None)
    return last if last is not None and (last.text.rstrip().endswith(("?", "？")) or len(
        _OPTION_RE.findall(last.text)) >= 2) else None


def verdicts(x: Extractor, turns: list[Turn]) -> None:
    """The person weighing what was just built and keeping it, with the reason ("cursor
    paging would be nicer but the v1 api can only do offset, so this stays"): their
    decision, with the change it keeps."""
    for previous, turn in zip(turns, turns[1:], strict=False):
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt" or not previous.edited:
            continue
        for sentence in lexicon.sentences(prompt.prose):
            if sentence.endswith(("?", "？")) or text_weight(sentence) < 40 or rule_type(
                sentence
            ) is not None or lexicon.PROBLEM_RE.search(sentence):
                continue
            weighed = lexicon.ALTERNATIVE_RE.search(sentence) or lexicon.EVALUATIVE_RE.search(
                sentence)
            if not weighed or insight_score(sentence) < 3:
                continue
            kept = previous.closing_gist() or x.last_change_reason(previous)
            content = shorten(sentence, 300) + (f" — {shorten(kept, 200)}" if kept else "")
            x.add(Finding("decision", content, "verdict", at=prompt.at,
                          files=previous.files(x)[:10], importance=0.6,
                          anchor=prompt.position))
            break


def corrections(x: Extractor, turns: list[Turn]) -> None:
    """The user turning down what the assistant proposed, before anything was changed,
    and saying what to do instead ("no, wrong — use jsonb, keep only the diff"): the
    choice made, in the user's words, with what it replaced."""
    for proposal, turn in zip(turns, turns[1:], strict=False):
        prompt, closing = turn.opener, proposal.closing()
        if prompt is None or prompt.kind != "prompt" or closing is None or proposal.edited:
            continue
        if len(prompt.text) < MIN_CORRECTION_CHARS or not turn.worked or not (
            lexicon.CORRECTION_RE.match(prompt.text)
        ):
            continue
        proposed = gist_of([closing.text], 200)
        content = f"{shorten(prompt.text, 400)} — instead of: {proposed}"
        x.add(Finding("decision", content, "correction", at=prompt.at,
                      files=turn.files(x), importance=0.7, anchor=prompt.position))


# A question about the person's own setup ("Do you have SSH access set up to Slate?", "What
# is the IP address of your Zima server?") or asking leave for a one-off step ("Should I
# install tmux via Homebrew?"): its answer serves this session and decides nothing.
_ERRAND_RE = re.compile(
    r"^\W*(do you (already )?(have|use)|have you (already )?(got|set up|installed|configured)|"
    r"are you (running|using|on|logged in|connected)|(is|are) your \w+( \w+)? (currently )?"
    r"(on|up|running|powered|connected|reachable|installed|set up|configured)|"
    r"what('s| is) the (\w+ )?(ip|address|hostname|host|port|path|username|email) (of|for) your|"
    r"(should|shall|can|may) i (go ahead and )?(install|run|restart|reboot|re-?pair|unpair|open|"
    r"launch|kill|execute|retry)|"
    r"(do|would) you (want|like) me to (go ahead and )?(install|run|restart|reboot|re-?pair|"
    r"unpair|open|launch|kill|execute|retry)|please run|"
    r"hast du|haben sie|as-tu|avez-vous|¿?tienes|¿?tiene usted|você tem)\b|"
    # where or what something of theirs is, or how to reach it: "Which repository? (please
    # provide the path)", "Is legion the computer I'm running on?", "how should I access it?"
    r"\bclarif|\bplease (provide|share|specify|paste)\b|\b(path|location|hostname|ip address|"
    r"url) (of|to|for)\b|\b(currently )?running on\b|\bhow (should|do|can) i (access|reach|"
    r"connect to|log ?in to)\b", re.IGNORECASE)


def answers(x: Extractor) -> None:
    for call in x.session.tools:
        if call.name != "AskUserQuestion" or call.failed is not False:
            continue
        pairs = answers_of(call)
        for question, answer in pairs:
            if not answer.strip():
                continue
            stated = rules_in(answer, whole=True)
            # a value picked with its reason ("2 秒。电池优先") decides this question; a
            # rule states what holds from now on
            lasting = lexicon.LASTING_RE.search(answer) or lexicon.OBLIGATION_RE.search(
                answer) or lexicon.PROHIBITION_RE.search(answer)
            if stated and len(answer) >= 20 and lasting:
                kind, rule = stated[0]
                x.add(Finding(kind, rule, "answer", at=call.at, importance=0.7))
                continue
            if _ERRAND_RE.search(question):
                continue
            content = f"{shorten(question, 200)} — the user chose: {shorten(answer, 300)}"
            described = _option_descriptions(call, question, answer)
            if described:  # "수동" alone says nothing; its option said what it means
                content += f" ({shorten(described, 300)})"
            x.add(Finding("decision", content, "answer", at=call.at, importance=0.65))


def _option_descriptions(call: ToolCall, question: str, answer: str) -> str:
    """What the options the person picked said of themselves, as AskUserQuestion laid them
    out ({"label": "수동", "description": "설정 메뉴의 '업데이트 확인'에서만"})."""
    asked = call.input.get("questions")
    if not isinstance(asked, list):
        return ""
    for item in asked:
        if not isinstance(item, dict) or str(item.get("question", "")).strip() != question.strip():
            continue
        options = [o for o in item.get("options") or [] if isinstance(o, dict)
                   and isinstance(o.get("label"), str) and isinstance(o.get("description"), str)
                   and o["label"].strip() and o["description"].strip()]
        told = []
        for part in (p.strip().lower() for p in answer.split(",")):
            # the label itself, or the one label a short typed answer is part of ("수동")
            same = [o for o in options if o["label"].strip().lower() == part]
            within = [o for o in options if len(part) >= 2 and part in o["label"].lower()]
            for o in same or (within if len(within) == 1 else []):
                told.append(f"{o['label']}: {o['description']}")
        return "; ".join(dict.fromkeys(told))
    return ""


# A numbered option as a list item or heading: "**2. Private credit on Solana** — …".
_OPTION_RE = re.compile(r"^\s*(?:#{1,6}\s*)?\**(\d{1,2})[.)]\s+\**([^\n*—:]{3,80})", re.M)


# The person naming options by number: "number 5 and 6", "option 2", "Nr. 4" (not "#3":
# an issue or a pull request as often as an option).
_OPTION_REF_RE = re.compile(
    r"(?:\b(?:numbers?|nos?\.|options?|items?|points?|nr\.|nummer|numéros?|números?|opci[oó]n|"
    r"opção|номер\w*|вариант\w*)\s*)\d{1,2}(?:\s*(?:,|&|and|or|und|oder|et|ou|y|o|e|и|или)\s*"
    r"\d{1,2}\b)*|(?:选项|方案|番号?)\s*\d{1,2}|\d{1,2}\s*(?:番|号)", re.IGNORECASE)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[^\W\d_]{4,}", text.lower())}


def _echoes(reply: str, asked: str) -> bool:
    """Whether a reply takes up what an open end said, in two or more of its words."""
    return len(_stems(reply) & _stems(asked)) >= 2 and not lexicon.HANDOFF_RE.search(reply)


_NUMBER_RE = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+")


def numbered_parts(text: str) -> list[str]:
    """The parts of a reply numbered 1, 2, 3 … in order, inline or one per line."""
    parts: list[str] = []
    last = None
    for match in _NUMBER_RE.finditer(text):
        if int(match.group(1)) != len(parts) + 1:
            continue
        if last is not None:
            parts[-1] = text[last:match.start()].strip()
        parts.append("")
        last = match.end()
    if last is not None:
        parts[-1] = text[last:].strip()
    return [p for p in parts if p]
