"""Reading what people and the assistant wrote: rules in a person's words, the passages
that give reasons, the gist of a text, what a wrap-up leaves open, the answers to the
agent's questions. Words decide only what structure cannot (see lexicon/).
"""

from __future__ import annotations

import re

from . import lexicon
from .prose import prose as person_prose
from .transcript import ToolCall

MAX_RULE_CHARS = 400
MAX_REASON_CHARS = 420
MAX_OPEN_ITEM_CHARS = 420
MIN_REASONING_CHARS = 160
LONG_PROMPT_CHARS = 1500  # beyond this a prompt is a pasted spec: only explicit rules count
BRIEF_REPLY_CHARS = 40  # "yes please", "да, делай так", "go ahead, but keep the old flag"
INVESTIGATION_RE = re.compile(
    r"^\s*(let me|let's|i'll|i will|i need to|i'm going to|now i'll|first,? i'll|next,? i'll)"
    r"\s+(now\s+)?(check|look|read|see|search|find|examine|view|explore|verify|inspect|open|run|"
    r"investigate|understand|figure|review|test|confirm|start|try running|grep)\b",
    re.IGNORECASE,
)
QUESTION_WORD_RE = re.compile(
    r"question|вопрос|frage|pregunt|pergunt|(?<!遗留)(?<!已知)问题|質問|確認|确认|相談|検討|"
    r"未決|判断|decid|discuss|klären|trancher|dúvida|обсуд|решени|讨论|待定", re.I)
_ANSWER_RE = re.compile(r'"(?P<q>[^"]+)"="(?P<a>[^"]*)"')


def normalized(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def gist_of(texts: list[str], limit: int = 220) -> str:
    """The first sentences of some assistant text that are neither narration, questions nor
    table rows, up to `limit`."""
    out = ""
    for text in texts:
        for sentence in lexicon.sentences(text):
            if len(sentence) < 20 or sentence.rstrip("*").endswith(("?", "？")) or (
                sentence.startswith("|")  # a table's row
                or INVESTIGATION_RE.match(sentence)
                or lexicon.NARRATION_RE.match(sentence) and len(sentence) < 60
            ):
                continue
            if out and len(out) + len(sentence) > limit:
                return out
            out = f"{out} {sentence}".strip()
    return shorten(out, limit)


_LOG_LINE_RE = re.compile(
    r"^\W{0,3}(ERROR|FATAL|WARN(ING)?|CRITICAL|Traceback|panic(ked)?\b|error(\[\w+\])?:|"
    r"[A-Z]\w*(Error|Exception|Warning)\b|\d{4}-\d\d-\d\d[ T]\d\d:|node:\d+\)|"
    r"(Unhandled|Uncaught) (Promise )?(Rejection|Exception|Error)\b)")


# A list item's mark: "- ", "* ", "• ", "2. ", "3) ".
LIST_MARK = r"(?:[-*•]|\d+[.)])"
LIST_ITEM_RE = re.compile(r"^\s*" + LIST_MARK + r"\s+(.*)$")
_BOX_RE = re.compile(r"[│┃║╭╮╰╯┌┐└┘├┤]")
_CODE_SPAN_RE = re.compile(r"`[^`\n]*`")
# Whoever a rule for each time is for: "every time you …", "jedes Mal, wenn jemand …".
_SOMEONE_RE = re.compile(r"\b(you|we|someone|anyone|du|ihr|jemand|tu|vous|quelqu'un|tú|"
                         r"alguien|você|alguém|ты|вы|кто-то|кто-нибудь)\b|你|有人", re.IGNORECASE)


def rule_type(sentence: str, *, long_prompt: bool = False, asking: bool = False
              ) -> str | None:
    """'constraint', 'preference' or None for one sentence a person wrote.

    `asking`: said in a question that is to change nothing ("why does latexmk run four
    times? don't change any files"): there "every time" tells what happens, and only an
    obligation or a preference makes a rule."""
    text = sentence.strip()
    if len(text) < 8 or len(text) > MAX_RULE_CHARS or text.endswith(("?", "？")):
        return None
    if _LOG_LINE_RE.match(text) or _BOX_RE.search(text):
        return None  # a pasted log line ("ERROR [Error: … you have to pass it in yourself]"),
        # or a terminal's framed output ("│ ;; no servers could be reached │")
    if lexicon.SELF_REPORT_RE.search(text):
        return None  # "I never call Deno.env anywhere" tells what they did, asks nothing
    if lexicon.ONE_OFF_RE.search(text):
        return None  # "don't run the full suite this time": asked for once
    scoped = bool(lexicon.PLACE_RE.search(text))
    # a quoted error's "must" asks nothing of anyone (cut at a sentence end inside it, too)
    text = _CODE_SPAN_RE.sub(" ", text).split("`")[0]
    if lexicon.IMAGINED_RE.search(text):
        return None  # "if we ever move to Postgres, these queries need rewriting"
    text = lexicon.NEVER_HAPPENS_RE.sub(" ", text)  # a symptom's "never" forbids nothing
    text = lexicon.BEHAVIOUR_RE.sub(" ", text)  # nor what a thing always does
    if lexicon.HANDOFF_RE.search(text) or lexicon.WONDER_RE.search(text):
        return None  # "ask Priya, she owns …", "I wonder whether we should": questions
    if lexicon.TELL_SOMEONE_RE.search(text):
        return None  # "Sofía de security tiene que saberlo": someone to tell, a todo
    lasting = bool(lexicon.LASTING_RE.search(text)) or bool(
        lexicon.RULE_SUBJECT_RE.search(text) and lexicon.SCHEDULE_RE.search(text))
    if (lexicon.NOT_A_RULE_RE.search(text) or lexicon.NO_CHANGES_RE.search(text)) and not (
        lasting or scoped
    ):
        return None  # ("ファイルは何も変えないでください": this question changes nothing)
    preference = bool(lexicon.PREFERENCE_RE.search(text))
    obligation = bool(lexicon.OBLIGATION_RE.search(text) or lexicon.PROHIBITION_RE.search(text)
                      or lexicon.NIGHT_WINDOW_RE.search(text)
                      and not lexicon.PROBLEM_RE.search(text))
    if not (obligation or preference) and (lexicon.EXPLAINED_RE.search(text) or (
        lexicon.EVERY_TIME_RE.search(text) and lexicon.PROBLEM_RE.search(text)
        and not _SOMEONE_RE.search(text)  # (not "every time you see a red test, …")
    )):
        return None  # "the job always retries 3 times, that's why …"; "crashes every time"
    emphasis = bool(lexicon.EMPHASIS_RE.search(text))
    if preference and (lasting or not long_prompt):
        return "preference"
    if lasting and (obligation or preference or not asking and (
            lexicon.RULE_SUBJECT_RE.search(text) or len(text) <= 200)):
        return "constraint"
    if obligation and (not long_prompt or emphasis):
        return "constraint"
    if emphasis and not long_prompt and (len(text.split()) > 3 or _WIDE_RE.search(text)):
        return "constraint"  # "Important: X, the SDKs rely on it"; "two rules of this repo: …"
        # (not a heading's few words: "Firewall rule violations" names what to look into)
    return None


# The need that makes a request a task: "hay que montar la sección", "on doit passer à Qt 6".
_TASK_MODAL_RE = re.compile(
    r"\b(we|i) (need|have|want) to\b|\bwe must\b|\bhay que\b|\btenemos que\b|"
    r"\bnecesito\b|\bquiero\b|\bon doit\b|\bil faut\b|\bnous devons\b|\bje veux\b|"
    r"\bwir (müssen|wollen)\b|\bich (muss|will)\b|\btemos que\b|\bprecisamos\b|\bquero\b|"
    r"\b(нам |мне )?(нужно|надо)\b|我们?(需要|要|得)|必要があ", re.IGNORECASE)


def rules_in(text: str, *, whole: bool = False, opening: bool = False) -> list[tuple[str, str]]:
    """(constraint|preference, rule) in a person's text, each rule in their words with
    the sentences of the same paragraph that continue or explain it.

    `whole`: the text is one statement (feedback on a rejected tool call): when any of
    its sentences is a rule, all of it is kept as one. `opening`: the session's first
    prompt, whose first paragraph states the task ("we need to move to Qt 6"): a need
    there is the work asked for, not a rule, unless more than the need makes it one.
    """
    prose = _own_words(person_prose(text))
    long_prompt = len(prose) > LONG_PROMPT_CHARS
    asking = opening and bool(lexicon.NO_CHANGES_RE.search(prose))
    found: list[tuple[str, str]] = []
    ruled = False  # under a line that announces rules ("our rules here in the repo:")
    # each item of a list is a rule of its own, as each paragraph is
    for number, paragraph in enumerate(re.split(r"\n\s*\n|\n(?=\s*" + LIST_MARK + r"\s)", prose)):
        parts = lexicon.sentences(paragraph)
        kinds = [rule_type(p, long_prompt=long_prompt, asking=asking) for p in parts]
        if LIST_ITEM_RE.match(paragraph.lstrip("\n").split("\n", 1)[0]):
            if ruled and parts and kinds[0] is None:
                kinds[0] = "constraint"  # "- severity only page or ticket"
        elif parts:
            ruled = _announces_rules(parts[-1])
            if ruled:
                kinds[-1] = None  # the announcement is none of them
        for at, part in enumerate(parts if opening and number == 0 else []):
            if kinds[at] and _TASK_MODAL_RE.search(part) and rule_type(
                _TASK_MODAL_RE.sub(" ", part), long_prompt=long_prompt
            ) is None:
                kinds[at] = None
        if whole and any(kinds):
            kind = "preference" if "preference" in kinds and "constraint" not in kinds else (
                "constraint")
            found.append((kind, shorten(" ".join(parts), MAX_RULE_CHARS)))
            continue
        # A short message is one thought: a rule there keeps what follows it ("don't run
        # consume like that, it never ends. use --limit when testing by hand").
        short = len(parts) <= 3 and text_weight(paragraph) <= 240
        index = 0
        while index < len(parts):
            kind = kinds[index]
            if kind is None:
                index += 1
                continue
            chunk = [parts[index]]
            if index and kinds[index - 1] is None and _names_the_rule_before(
                    parts[index], parts[index - 1]):
                chunk.insert(0, parts[index - 1])
            index += 1
            while index < len(parts) and len(" ".join(chunk)) < MAX_RULE_CHARS and (
                kinds[index] is not None
                or ((short or insight_score(parts[index]) > 0
                     or lexicon.CONSEQUENCE_RE.search(parts[index]))
                    and not parts[index].endswith(("?", "？")))
            ):
                chunk.append(parts[index])
                index += 1
            # in their words, without the bold of a pasted spec ("**Idempotency:** …")
            found.append((kind, shorten(" ".join(chunk).replace("**", ""), MAX_RULE_CHARS)))
    return found


def _announces_rules(sentence: str) -> bool:
    """A line that introduces a list of rules ("so you don't walk into it, our rules here
    in the repo:", "наши правила:"): a few words holding a rule word, ending in a colon."""
    line = unemphasised(sentence).strip()
    return line.endswith((":", "：")) and len(line) <= 120 and bool(
        lexicon.RULES_WORD_RE.search(line))


# A verdict on what was just said: "это железное правило", "Pas de chaînes en dur.",
# "ハードコード禁止です", "このリポジトリの方針です".
_VERDICT_RE = re.compile(r"禁止|ダメ|だめ|不行|不可以|方針|方针|规定|规矩")


def _names_the_rule_before(rule: str, before: str) -> bool:
    """Whether a short rule sentence only labels or sharpens the sentence before it, which
    then holds what the rule is about ("Все деньги храним в копейках. Никаких float, это
    железное правило")."""
    short = len(rule.split()) <= 8 if rule.isascii() or " " in rule.strip() else len(rule) <= 30
    return (short and not before.rstrip().endswith(("?", "？")) and len(before) <= 200
            and bool(lexicon.EMPHASIS_RE.search(rule) or lexicon.PROHIBITION_RE.match(rule)
                     or _VERDICT_RE.search(rule) or _POINTS_BACK_RE.match(rule)))


# A rule about what the sentence before named: "on l'a interdit", "we banned it", "das ist
# verboten", "это запрещено".
_POINTS_BACK_RE = re.compile(
    r"^\W*(on (l'|les )|we (\w+ )?(banned|forbade|dropped|removed|disabled) (it|that|them)\b|"
    r"(it's|that's|it is|that is|this is) (\w+ )?(banned|forbidden|not allowed)\b|"
    r"das (ist|haben wir) (\w+ )?(verboten|untersagt)|(eso|esto) (está|lo hemos) prohibid|"
    r"isso (é|está) proibid|это (\w+ )?(запрещено|запретили)|(这个|那个)(是)?禁止)",
    re.IGNORECASE)


# What announces a pasted page: "Does this doc page help?", "Man page:", "from the docs:".
_PASTE_INTRO_RE = re.compile(
    r"\b(docs?|documentation|man ?page|manual|page|article|readme|guide|here'?s|below|"
    r"pasted|copied|la doc|Doku\w*|documentaci[oó]n|documentação)\b|документаци|文档|ドキュメント",
    re.IGNORECASE)


def _own_words(prose: str) -> str:
    """A long message's own words, before a page it pastes and announces ("Does this doc
    page help?" and the page): the rules a copied page states ("never mutate a tool
    environment") are its author's, not this team's."""
    if len(prose) <= LONG_PROMPT_CHARS:
        return prose
    paragraphs = re.split(r"\n\s*\n", prose)
    for number, paragraph in enumerate(paragraphs[:-1]):
        intro = paragraph.strip()
        rest = sum(len(p) for p in paragraphs[number + 1:])
        if intro.endswith((":", "?", "：", "？")) and _PASTE_INTRO_RE.search(intro) and (
            rest >= LONG_PROMPT_CHARS // 2
        ):
            return "\n\n".join(paragraphs[:number + 1])
    return prose


def reasoning(texts: list[str], limit: int = MAX_REASON_CHARS) -> tuple[str, int]:
    """A whole reasoned paragraph before an edit, when the explaining is spread over it
    ("The answer should be a 409. A delta re-applied can double-count. So …"): every
    sentence but narration, kept when there are several, they are long enough to be an
    argument, and at least one of them gives a reason."""
    kept = [s for t in texts for s in lexicon.sentences(t)
            if len(s) >= 20 and not s.endswith(("?", "？")) and not s.startswith("|")
            and not is_narration(s)
            and not lexicon.MECHANICS_RE.search(s)]
    text = " ".join(dict.fromkeys(kept))
    if len(kept) < 2 or len(text) < MIN_REASONING_CHARS:
        return "", 0
    return shorten(text, limit), max(insight_score(s) for s in kept)


def insight_score(sentence: str) -> int:
    """How much a sentence explains (a reason, a purpose, an alternative, a limit)."""
    return (2 * bool(lexicon.ALTERNATIVE_RE.search(sentence))
            + bool(lexicon.PURPOSE_RE.search(sentence))
            + bool(lexicon.GUARD_RE.search(sentence))
            + bool(lexicon.CAUSE_RE.search(sentence))
            + bool(lexicon.LIMITATION_RE.search(sentence))
            + bool(lexicon.EVALUATIVE_RE.search(sentence)))


def is_narration(sentence: str) -> bool:
    return bool(INVESTIGATION_RE.match(sentence) or lexicon.NARRATION_RE.match(sentence)) and (
        insight_score(sentence) == 0
    )


def insight_passage(texts: list[str], limit: int = MAX_REASON_CHARS) -> tuple[str, int]:
    """The explaining part of some assistant text, and how much it explains.

    Keeps sentences that give a reason, a purpose, an alternative or a limit, each with
    the sentence that follows it when that one says what is done about it ("SQLite can't
    alter a column's nullability. I need to rewrite the migration as a table copy.").
    Narration ("Let me check the tests") and talk of the code's momentary state
    ("the import is unused") do not count.
    """
    chosen: list[tuple[float, str]] = []  # (what it explains, sentence)
    score = 0
    follow = False
    told = 0
    for text in texts:
        previous = ""
        for sentence in lexicon.sentences(text):
            before, previous = previous, sentence
            told -= 1
            if lexicon.FOUND_IT_RE.match(sentence):
                told = 3  # "Found it." — the next two sentences are the cause
                continue
            if len(sentence) < 12 or sentence.endswith(("?", "？")) or sentence.startswith("|"):
                follow = False  # a question, or a table's row (cells, not an argument)
                continue
            value = insight_score(sentence) - len(lexicon.MECHANICS_RE.findall(sentence))
            if lexicon.NARRATION_RE.match(sentence) and not (
                lexicon.ALTERNATIVE_RE.search(sentence) or lexicon.CAUSE_RE.search(sentence)
            ):
                value = 0  # "Let me make it safer:" announces, it does not explain
            if value > 0 and text_weight(sentence) >= 25:
                if before and lexicon.BACK_REFERENCE_RE.search(sentence) and all(
                    said != before for _, said in chosen
                ):  # "… CONCURRENTLY. Otherwise every write is locked": what is chosen
                    chosen.append((0.5, before))  # is said just before
                chosen.append((value, sentence))
                score += value
                follow = True
            elif told > 0 and len(sentence) >= 20:
                chosen.append((1, sentence))
                score += 1
                follow = False
            elif follow and not INVESTIGATION_RE.match(sentence) and len(sentence) >= 20:
                chosen.append((0.5, sentence))
                follow = False
            else:
                follow = False
    kept = list(dict.fromkeys(chosen))
    # Too long for a memory: drop the earliest sentences but the one that explains most,
    # so what is said last before the change ("Instead I'll put it on <body>: …") stays.
    while len(kept) > 1 and len(" ".join(s for _, s in kept)) > limit:
        best = max(kept, key=lambda pair: (  # of equals, the one naming the way not taken
            pair[0], bool(lexicon.ALTERNATIVE_RE.search(pair[1]))))
        kept.remove(next(pair for pair in kept if pair is not best))
    passage = " ".join(sentence for _, sentence in kept)
    return (shorten(passage, limit), score) if passage else ("", 0)


_VERIFICATION_RE = re.compile(
    r"\b(tests?|passing|passed|passes|green|clean|commit(ted)?|pushed|lint|coverage|credo|"
    r"dialyzer|clippy|ruff|eslint|files? changed|closed|bead|pr|ci|"
    r"verts?|grün|verdes?|тест\w*|зелён\w*|propres?|sauber|limpios?|limpos?|чист\w*)\b|"
    r"测试|通过了|干净|テスト|クリーン|테스트", re.IGNORECASE)
# A line that heads what follows: a markdown heading, a bold line, a line ending in ":".
_HEADING_RE = re.compile(r"^\s*(#{1,6}\s|\*\*[^*]+\*\*:?\s*$)|^[^-*•\d\s].*[:：]\s*$")
# Steps for the reader to take, not how the thing is built.
_TRY_RE = re.compile(
    r"\b(try|verify|check|how to|steps?|manual(ly)?|test (it|checklist)|testing|to test|"
    r"prueba|probar|verifica\w*|essa(ie|yer)|vérifi\w*|ausprobieren|prüf\w*|testa\w*|провер\w*|попробу\w*)\b|试|验证|確認|試|확인",
    re.IGNORECASE)
# How a thing is built now, in the languages of the rule cues: what it uses or goes
# through, what it replaced, where it is kept ("passe par IDbContextFactory", "nutzt …").
_DESIGN_RE = re.compile(
    r"\b(uses?|via|through|instead|only|default|per|so that|to (avoid|keep|reduce|make)|"
    r"rather|never|always|stays?|keeps?|carr(y|ies)|falls? back|stored?|cached?|streams?|"
    r"utilise|passe par|au lieu|plutôt|plus de|seulement|uniquement|par défaut|pour éviter|"
    r"nutzt|verwendet|läuft über|statt|anstatt|nur noch|nur|standardmäßig|damit|bleibt|"
    r"usa|utiliza|utilizza|tramite|a través de|através de|en lugar|en vez|em vez|ao invés|"
    r"invece|anziché|solo|só|apenas|por defecto|por padrão|para evitar|per evitare|"
    r"использует|через|вместо|только|по умолчанию|чтобы|хранит\w*)\b|"
    r"使用|通过|改为|改用|而不是|不再|默认|以免|経由|代わりに|ではなく|のみ|ごとに|"
    r"대신|통해|사용", re.IGNORECASE)


_IDENTIFIER_RE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+[A-Z]\w*")  # snake, Camel


def design_items(text: str) -> list[str]:
    """List items of a wrap-up that state how something was built ("Traces go to stdout in
    dev, via …"), not what was checked ("12 tests pass")."""
    found = []
    checking = False  # under a heading of steps to try ("## Test it", "**To verify:**")
    for raw in text.splitlines():
        item = LIST_ITEM_RE.match(raw)
        if not item:
            if _HEADING_RE.match(raw):
                checking = bool(_TRY_RE.search(raw))
            continue
        if checking:
            continue
        line = unemphasised(item.group(1)).strip().strip("*_ ")
        if not 40 <= len(line) <= 300 or _VERIFICATION_RE.search(line) or line.endswith(
            ("?", "？")
        ):
            continue  # what was checked, or a question for the person
        if _DESIGN_RE.search(line) and ("`" in line or _IDENTIFIER_RE.search(line)):
            found.append(line)
    return found


_WIDE_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def text_weight(text: str) -> int:
    """Length as Latin text would have it: a Chinese, Japanese or Korean character says
    about as much as three Latin ones."""
    return len(text) + 2 * len(_WIDE_RE.findall(text))


def list_items(text: str) -> list[str]:
    """The items of a text laid out as a list of two or more ("1. **Race**: …"), each with
    its emphasis marks dropped; [] for prose."""
    items = [unemphasised(m.group(1)).strip() for m in re.finditer(
        r"^\s*" + LIST_MARK + r"\s+(.+)$", text, re.MULTILINE)]
    return items if len(items) >= 2 else []


def answers_of(call: ToolCall) -> list[tuple[str, str]]:
    result = call.result if isinstance(call.result, dict) else {}
    answers = result.get("answers")
    if isinstance(answers, dict) and answers:
        return [
            (str(q), ", ".join(map(str, a)) if isinstance(a, list) else str(a))
            for q, a in answers.items()
        ]
    return [(m.group("q"), m.group("a")) for m in _ANSWER_RE.finditer(call.output or "")]


def first_sentences(text: str, limit: int = 300) -> str:
    parts = lexicon.sentences(text)
    out = ""
    for part in parts:
        if len(out) + len(part) > limit:
            break
        out = f"{out} {part}".strip()
    return out or shorten(text, limit)


# A request for the person's input: "could you tell me", "what would you like to do?".
_ASKING_RE = re.compile(r"\?|？|\b(could|can|would|clarify|provide|tell|confirm|pourriez|"
                        r"könntest|könnten|podrías|podría|poderia|можете|не могли)\b|请|ください",
                        re.IGNORECASE)


# A heading that turns from what was done to what could be done: "If you agree, the
# follow-up I'd run:", "Suggested next steps:", "Options:".
_PROPOSAL_HEADING_RE = re.compile(
    r"\b(if you agree|if you('d| would) like|i'd (run|do|suggest|propose)|i (would|could) "
    r"(run|do|suggest|propose)|suggest(ed|ion|ions)?|propos(ed|al|e)|options?|next steps?)\b",
    re.IGNORECASE)


# Headings that say only that something was done ("## Summary", "Changes made:").
_GENERIC_HEADING_RE = re.compile(
    r"^\W*(summary|(the |key )?changes?( made)?( in this \w+)?|what (changed|i did|was done|"
    r"i changed)|done|"
    r"results?|overview|details|notes?|implementation( details)?|files?( \w+)?|"
    r"key (changes|features|points)|features?( implemented| added)?|updates?|fixes|fixed|"
    r"completed|complete|changes summary|here's what.*|what'?s (new|next)|in short|"
    r"erledigt|fertig|zusammenfassung|änderungen|terminé|résumé|fait|hecho|listo|resumen|"
    r"cambios|feito|pronto|resumo|mudanças|готово|сделано|итог|изменения|完成|总结|改动|"
    r"完了|まとめ|変更点|완료|요약|변경 사항)\W*$",
    re.IGNORECASE)


# A line that is a sentence of the reply rather than a title.
_SAID_RE = re.compile(r"[.!?]\s|^(i|i've|i'm|we|we've|here|this|that|let|now|so)\b",
                      re.IGNORECASE)


def heading_before(text: str, part: str) -> str:
    """The heading a part of a text sits under ("GitHub Action Updates" for "Trigger: now
    runs on all pushes"), when it names the subject; '' under a generic or no heading."""
    at = text.find(part[:40])
    if at < 0:
        return ""
    for raw in reversed(text[:at].splitlines()):
        line = raw.strip()
        if line and is_heading(line):
            title = re.sub(r"[#*_`]+", "", line).strip(" :：")
            title = re.sub(r"^[^\w(]+", "", title)
            if 3 <= len(title) <= 60 and not _GENERIC_HEADING_RE.match(title) and not (
                _SAID_RE.search(title)):  # "Perfect! I've changed it so that it now:"
                return title
            return ""
    return ""


def unemphasised(text: str) -> str:
    """Text without Markdown's bold marks (`**x**`, `__x__`)."""
    return re.sub(r"\*\*|__", "", text)


def unmarked(text: str) -> str:
    """A wrap-up's line without its Markdown emphasis and leading list marks."""
    return re.sub(r"^\s*" + LIST_MARK + r"\s+", "", unemphasised(text)).strip()


def is_heading(line: str) -> bool:
    """A (stripped) line that heads what follows: `## …`, "…:", a bold line."""
    return line.startswith("#") or line.endswith((":", "：")) or bool(
        re.match(r"^\*\*[^*]+\*\*[:：]?$", line))


def done_part(text: str) -> str:
    """A wrap-up up to where it turns to what is left or what it proposes: only that part
    tells what was decided."""
    lines = text.splitlines()
    for number, raw in enumerate(lines):
        line = raw.strip()
        if number and is_heading(line) and len(line) < 120 and (
            open_heading(line) or _PROPOSAL_HEADING_RE.search(line)
        ):
            return "\n".join(lines[:number])
    return text


def open_heading(heading: str, most: int = 5) -> bool:
    """A heading that announces what is left ("Still open:", "## Next steps", "Was noch
    fehlt:"): a few words holding the marker, not a sentence that happens to contain it
    ("The TODO app is in place: …" announces nothing). A line set as a heading may take
    a word more ("**À faire avant la mise en prod**")."""
    words = re.sub(r"^[\W\d_]+", "", heading).split()
    return len(words) <= most and bool(lexicon.OPEN_HEADING_RE.search(" ".join(words)))


def _labelled_parts(text: str) -> list[str]:
    """A line split where a sentence opens with another open-work label ("Open question
    for whoever reviews: …")."""
    parts = [""]
    for sentence in lexicon.sentences(text):
        label = re.match(r"^(?:\*\*)?([^:：*]{2,40})(?:\*\*)?\s*[:：]\s*(\S.*)$", sentence)
        if label and parts[-1] and open_heading(label.group(1)):
            parts.append(label.group(2))
        else:
            parts[-1] = f"{parts[-1]} {sentence}".strip()
    return [p for p in parts if p]


# A list item ("- x", "2) x", "[ ] x"), and a line that is a short label and its text
# ("**Next:** open the PR", "Descartado: `dockertest` — …").
BULLET_RE = re.compile(r"^(?:[-*•]|\d+[.)]|\[ \])\s+(.*)$")
LABELLED_LINE_RE = re.compile(
    r"^(?:\*\*)?([^:：*]{2,40})(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(\S.{6,})$")


def open_items(text: str) -> list[tuple[str, str]]:
    """(todo|open_question, item) named as remaining by a wrap-up."""
    found: list[tuple[str, str]] = []
    in_section = False
    question_section = False
    offering = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        bullet = BULLET_RE.match(line)
        heading = not bullet and is_heading(line)
        inline = LABELLED_LINE_RE.match(line)
        if not bullet and inline and open_heading(inline.group(1)):
            # "Next: open the PR. Open question for the reviewer: is 7 days enough?" — each
            # labelled part is its own item, the kind told by its own words
            for part in _labelled_parts(inline.group(2)):
                asks = any(s.endswith(("?", "？")) for s in lexicon.sentences(part))
                kind = "open_question" if asks else "todo"
                found.append((kind, first_sentences(part)))
            in_section = True
            question_section = False
            continue
        if heading:
            # a heading that asks ("### 6. Which API has the missing comment?") heads
            # its answer, not what is left
            in_section = open_heading(line, 6) and len(line) < 80 and not (
                unemphasised(line).rstrip().endswith(("?", "？")))
            question_section = in_section and bool(QUESTION_WORD_RE.search(line))
            # "Would you like me to:", "Could you provide more details about:"
            offering = bool(lexicon.OFFER_RE.search(line) or (
                lexicon.TO_USER_RE.search(line) and _ASKING_RE.search(line)))
            continue
        if offering and bullet:
            continue  # each item an offer, or a question only the person can answer
        item = (unemphasised(bullet.group(1)) if bullet else line).strip().strip("*_ ")
        if in_section and bullet:
            kind = "open_question" if question_section or item.endswith(("?", "？")) else "todo"
            found.append((kind, item))
            continue
        # A short paragraph is one item: its verdict ("Not started.", "I haven't picked")
        # names nothing without the sentences before it that say what it is about.
        whole = text_weight(item) <= MAX_OPEN_ITEM_CHARS
        uncertain = False  # one open question per paragraph, however many sentences
        asked = False  # a question of this paragraph kept: what follows it elaborates it
        sentences = lexicon.sentences(item)
        for number, sentence in enumerate(sentences):
            choice = lexicon.CHOICE_ASK_RE.search(sentence)
            if (choice or lexicon.UNCERTAIN_RE.search(sentence)) and not sentence.endswith(
                ("?", "？")) and len(sentence) >= 12 and (
                choice or not lexicon.OFFER_RE.search(sentence)
            ) and not lexicon.CLARIFY_RE.search(sentence):
                if not uncertain:
                    found.append(("open_question", item if whole else sentence))
                uncertain = True
                continue
            if sentence.endswith(("?", "？")):
                # (not what the assistant needs to know to start: "Could you clarify what
                # you'd like exported?")
                if not lexicon.OFFER_RE.search(sentence) and len(sentence) >= 20 and not (
                    lexicon.CLARIFY_RE.search(sentence)
                ):
                    found.append(("open_question", sentence))
                    asked = True
            elif lexicon.OFFER_RE.search(sentence) or _GIT_STATUS_RE.search(sentence) or (
                lexicon.NOTHING_OPEN_RE.search(sentence) or _DONE_ITEM_RE.match(sentence)
            ):
                continue
            elif lexicon.STILL_OPEN_RE.search(lexicon.GENERIC_YOU_RE.sub(" ", _CODE_SPAN_RE.sub(
                " ", sentence))) and (  # (a `# TODO:` comment removed is code, not work left)
                text_weight(sentence) >= 25 or whole
            ) and not (whole and any(lexicon.OFFER_RE.search(s) for s in sentences)):
                # (not "Want me to …? I haven't touched anything yet": waiting for a go)
                # "falta decidir quién se entera": work that is a question to settle
                kind = "open_question" if lexicon.UNDECIDED_RE.search(sentence) else "todo"
                if whole and text_weight(sentence) < 40:
                    if not asked:
                        found.append((kind, item))
                elif number and (_ANAPHOR_RE.match(sentence) or not _NAMES_RE.search(sentence)):
                    # "That will break too", "I didn't move it": what? The sentences before
                    # (unless they asked a question, which this only elaborates).
                    if not asked:
                        found.append((kind, " ".join(sentences[max(0, number - 2):number + 1])))
                else:
                    found.append((kind, sentence))
    return found


# A sentence that names its subject only by pointing back at the one before it.
_ANAPHOR_RE = re.compile(
    r"^(this|that|it|these|those|das|dies|es|ça|cela|ce|esto|eso|isso|isto|questo|ciò|to|"
    r"это|этот|эта|эти)\b|^(这|那|それ|これ|이것|그것)", re.IGNORECASE)


# What names a thing of the code: `code`, a file name, an identifier.
_NAMES_RE = re.compile(r"`[^`]+`|\b\w+\.\w{1,5}\b|\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+[A-Z]\w*")


# A list's item telling what was done to a file ("`README.md` — Updated the table to link
# the follow-up note"): its "follow-up" is done work.
_DONE_ITEM_RE = re.compile(
    r"^\W*(`[^`]+`|[\w./-]+\.\w{1,5})\W*(\([^)]*\)\s*)?[—–:-]+\s*(updated|added|removed|fixed|"
    r"changed|created|moved|renamed|replaced|rewrote|deleted|documented|aktualisiert|"
    r"hinzugefügt|entfernt|mis à jour|ajouté|supprimé|actualizado|añadido|eliminado|"
    r"atualizado|adicionado|removido|обновл\w*|добавл\w*|удал\w*)\b", re.IGNORECASE)


# "The only remaining unstaged change is .mcp.json": the state of a checkout, not work.
_GIT_STATUS_RE = re.compile(r"\b(unstaged|untracked|uncommitted|staged) (changes?|files?)\b",
                            re.IGNORECASE)


_PLAN_LABEL_RE = re.compile(
    r"^\W*(?P<label>problem|issue|why|context|solution|approach|fix|decision|проблема|решение|"
    r"lösung|ansatz|problème|problema|solución|solução|问题|方案|解决|問題|解決策|対応)"
    r"\W*[:：]\s*(?P<text>.*)$", re.IGNORECASE)
_SOLUTION_LABELS = frozenset({"solution", "approach", "fix", "decision", "решение", "lösung",
                              "ansatz", "solución", "solução", "方案", "解决", "解決策", "対応"})


_DECISIONS_HEADING_RE = re.compile(
    r"decision|design|trade-?off|решени|entscheidung|décision|decisión|decisão|决定|决策|決定|"
    r"設計", re.IGNORECASE)


def plan_decisions(plan: str) -> list[tuple[str, str]]:
    """(why, decision) pairs a plan states: labelled ("**Problem**: X" then "**Solution**:
    Y"), or the reasoned items of a "Design decisions" section (the why inside the item);
    outside its code blocks. A solution with no problem before it in its section is left
    alone (it has no why)."""
    prose = re.sub(r"```.*?(```|\Z)", "\n", plan, flags=re.DOTALL)
    pairs: list[tuple[str, str]] = []
    problem = ""
    in_decisions = False
    for raw in prose.splitlines():
        if raw.lstrip().startswith("#"):
            problem = ""  # a new section
            in_decisions = bool(_DECISIONS_HEADING_RE.search(raw))
            continue
        item = LIST_ITEM_RE.match(raw)
        if in_decisions and item:
            line = unemphasised(item.group(1)).strip()
            if len(line) >= 30 and insight_score(line) >= 1:
                pairs.append(("", line))
            continue
        found = _PLAN_LABEL_RE.match(unemphasised(raw).strip())
        if not found or not found.group("text").strip():
            # A step that names the road not taken ("shell.nix는 삭제하지 않고 flake-compat으로
            # 위임"), or a paragraph arguing a choice ("Sin DEFAULT: … Mejor fallar en el
            # INSERT que eso."): the plan's reasoned choices.
            line = unemphasised(item.group(1) if item else raw).strip()
            labelled = not item and re.match(r"^[^:：]{2,40}[:：]\s", line)
            if text_weight(line) >= 40 and (insight_score(line) >= 2 or (
                    labelled and insight_score(line) >= 1)):
                pairs.append(("", line))
            continue
        text = found.group("text").strip()
        if found.group("label").lower() in _SOLUTION_LABELS:
            if problem:
                pairs.append((problem, text))
                problem = ""
        else:
            problem = text
    return pairs


# Claude Code's compaction summary has fixed sections; "Errors and fixes" is its own list
# of what broke and how it was fixed.
_ERRORS_HEADING_RE = re.compile(r"^\s*\d+\.\s*(\*\*|__)?errors? and fix(es)?\b", re.IGNORECASE)
_SECTION_HEADING_RE = re.compile(r"^\s*\d+\.\s+\S[^:]{0,60}:\s*(\*\*|__)?\s*$")
_MECHANICAL_RE = re.compile(
    r"\b(credo|lint\w*|unused|complexity|nesting|formatt(ing|er)|not formatted|warnings?|typo|"
    r"expected during|undefined (function|variable)|compile errors? for missing)\b",
    re.IGNORECASE)
_OPEN_RE = re.compile(
    r"\b(unresolved|current|not yet|partially|partly|still (fails|failing|open))\b",
    re.IGNORECASE)
_FIXED_RE = re.compile(r"\b(fixed|fix(ed)? by|resolved|rewrote|replaced|switched|changed|"
                       r"added|used|using|moved|converted)\b", re.IGNORECASE)


_USER_MESSAGES_HEADING_RE = re.compile(r"^\s*\d+\.\s*all user messages\b", re.IGNORECASE)


def summary_user_messages(summary: str) -> list[str]:
    """The user's own messages a compaction summary quotes ("All user messages"): in a
    session continued from an earlier one, the only record of what the user said there."""
    lines = summary.splitlines()
    start = next((i for i, line in enumerate(lines) if _USER_MESSAGES_HEADING_RE.match(line)),
                 None)
    if start is None:
        return []
    found = []
    for line in lines[start + 1:]:
        if _SECTION_HEADING_RE.match(line):
            break
        quoted = re.match(r'^\s*[-*•]\s+["“](.+)["”]\s*$', line)
        if quoted:  # a quote; "(Plan mode approval - implicit)" is the summary's own words
            found.append(quoted.group(1))
    return found


def summary_fixes(summary: str) -> list[tuple[str, str]]:
    """(error, how it was fixed) from a compaction summary's "Errors and fixes" section:
    items that name a fix, leaving out lint nits, mechanical compile slips and what was
    still open when the summary was written."""
    lines = summary.splitlines()
    start = next((i for i, line in enumerate(lines) if _ERRORS_HEADING_RE.match(line)), None)
    if start is None:
        return []
    items: list[str] = []
    for line in lines[start + 1:]:
        if _SECTION_HEADING_RE.match(line):
            break
        bullet = re.match(r"^(\s*)[-*•]\s+(.*)$", line)
        if bullet and (not items or len(bullet.group(1)) <= 4):
            items.append(bullet.group(2))
        elif items and line.strip():
            items[-1] += " " + line.strip().lstrip("-*• ")
    found = []
    for item in items:
        plain = unemphasised(item).strip()
        head, _, body = plain.partition(":")
        if not body.strip() or len(plain) < 40:
            continue
        fixed = _FIXED_RE.search(body)
        told = plain[:len(head) + 1 + fixed.start()] if fixed else plain  # before the fix
        if not fixed or _MECHANICAL_RE.search(told) or _OPEN_RE.search(plain):
            continue
        found.append((head.strip(), body.strip()))
    return found
