"""Language-aware text analysis for Engram's FTS5 keyword index.

Memories and queries go through one pipeline so that a memory is found by the words a user
would type for it: inflected forms (a stemmer per script), code identifiers (whole or split),
file names and paths, error codes and versions.

Contract for the search code (the FTS table uses ``tokenize='unicode61 remove_diacritics 2'``):

* ``index_terms(text)`` is stored in the ``terms`` column. Every term consists of Unicode
  letters and digits only: unicode61 treats ``_``, ``.``, ``/`` and combining marks as separators,
  so a term containing them would silently fall apart into several FTS tokens.
* Plain words: lowercased, stop words removed, stemmed with the stemmer of their own script
  (Latin words with the language detected for the text's Latin words, Cyrillic with
  russian/serbian, ...). Latin words of a text detected as non-English are *also* indexed with
  their English stem, because a short query is almost always detected as English.
* English negated contractions become "<aux> not": "don't", "dont", "do not" all index "not".
* Compound tokens (identifiers, paths, file names, dotted/hyphenated words, versions) are split
  into segments (``/`` ``\\``), pieces (``. - : @ # ~``) and atoms (``_``, camelCase,
  letter/digit boundaries). Emitted, in this order: the concatenation of every multi-atom
  segment (``session.ts`` -> ``sessionts``, ``snake_case_name`` -> ``snakecasename``,
  ``getUserById`` -> ``getuserbyid``), the concatenation of every multi-atom piece of a
  multi-piece segment (``React.useEffect`` -> ``useeffect``), then every atom stemmed with the
  English stemmer (non-Latin atoms: their script's stemmer), no stop-word removal, so the atoms
  are adjacent and a phrase query over them matches. Segments containing a separator between
  two digits (versions, dates, IPs) get no concatenation: ``1.2.3`` would collide with ``123``.
  Example: ``src/auth/session.ts`` -> ``sessionts src auth session ts``.
* Han/kana runs (no spaces between words) are indexed as overlapping character bigrams.
* ``query_terms`` yields one group per query token; an alternative containing spaces is a phrase
  (``fts_query`` quotes it, FTS5 matches the words adjacently). Plain word:
  ``(stem, [english stem], raw)``; identifier: ``(whole, stem(whole), "atom atom ...")``, so
  ``get_user_by_id``, ``getUserById`` and "get user by id" find each other; a path gives one
  group per segment (``auth/session.ts`` -> ``auth`` AND ``sessionts|"session ts"``), so it
  finds the file under any prefix. ``:<digits>`` starts a segment ("session.ts:42").
* Queries stop after ``MAX_QUERY_GROUPS`` groups; CJK runs are one phrase of bigrams.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from functools import cache
from typing import Any

__all__ = [
    "MAX_QUERY_GROUPS",
    "STOP_WORDS",
    "detect_language",
    "estimate_tokens",
    "fts_query",
    "index_terms",
    "normalize_for_dedup",
    "query_terms",
]

#: Language detection only looks at this many characters: enough for a verdict, bounded cost.
_DETECT_CHARS = 2000
#: Longer terms are truncated identically on both sides; keeps blobs from bloating the index.
_MAX_TERM_LEN = 64
#: A piece splitting into more atoms than this is a hash or blob, not an identifier.
_MAX_ATOMS = 12
#: More groups than this never AND-match anything and only slow FTS5 down.
MAX_QUERY_GROUPS = 32

# --------------------------------------------------------------------------------------------
# Stop words. Per language: words removed from index and query, and words that are only used
# as language-detection evidence because they carry meaning (negations, rule words).
# --------------------------------------------------------------------------------------------

_LANG_WORDS: dict[str, tuple[str, str]] = {
    "english": (
        "a an the and or but if then else so than that this these those there here is are was"
        " were be been being am do does did doing have has had having i me my mine myself we us"
        " our ours ourselves you your yours yourself yourselves he him his himself she her hers"
        " herself it its itself they them their theirs themselves what which who whom whose"
        " when where why how all any both each few more most other some such own same too very"
        " s t d ll m re ve can will just also of at by for with about into through during to"
        " from up down in out on off over under again further once as while would could shall"
        " may might should etc eg ie aka vs via please recently lately",
        "not no nor never without always must only cannot except dont doesnt didnt isnt"
        " cant wont",
    ),
    "russian": (
        "и в во что он на я с со как а то все всё она так его но да ты к у же вы за бы по ее"
        " её мне было вот от меня еще ещё о из ему теперь когда даже ну вдруг ли если уже или"
        " быть был него вас нибудь опять уж вам ведь там потом себя ей они тут где есть ней"
        " для мы тебя их чем была сам чтоб будто чего раз тоже себе под будет ж тогда кто этот"
        " того потому этого какой совсем ним здесь этом почти мой тем чтобы нее неё сейчас были"
        " куда зачем всех при наконец об другой хоть над больше тот через эти нас про всего них"
        " какая много разве эту моя впрочем свою этой иногда чуть том такой им более всю это"
        " эта также недавно",
        "не нет ни никогда без всегда нельзя надо нужно должен должны только кроме можно",
    ),
    "german": (
        "der die das den dem des ein eine einer eines einem einen und oder aber als am an auf"
        " aus bei bin bis bist da damit dann dass daß dein deine denn dich dir du durch er es"
        " euch euer für hab habe haben hat hatte ich ihr ihm ihn im in ist ja jetzt man mein"
        " meine mich mir mit nach noch nun ob sehr sein seine sich sie sind über um uns unser"
        " von vor war waren was wenn wer wie wir wird wo zu zum zur auch diese dieser dieses"
        " seit weil schon wieder beim vom sondern unter zwischen gegen kann können wurde wurden"
        " werden",
        "nicht kein keine keinen nie niemals ohne immer muss müssen nur darf soll sollte",
    ),
    "french": (
        "le la les un une des du de d l et ou mais donc car que qui quoi dont où à au aux ce ces"
        " cet cette c il ils elle elles on nous vous je j me m te t se s lui leur leurs mon ma"
        " mes ton ta tes son sa ses notre nos votre vos en y dans par pour sur avec est sont été"
        " être avoir ai as avons avez ont était qu comme aussi très tout tous toute toutes même"
        " depuis après avant quand chez ainsi alors encore déjà cela ceci ça fait peut peuvent"
        " entre sous vers selon",
        "ne pas non jamais sans toujours doit doivent faut seulement aucun aucune rien",
    ),
    "spanish": (
        "el la los las un una unos unas de del al a y e o u pero que quien quienes cual como en"
        " con por para es son fue era está están estar ser soy eres somos lo le les se me te nos"
        " os mi mis tu tus su sus este esta estos estas ese esa esos esas muy más ya también hay"
        " desde hasta cuando donde sobre entre porque cómo qué nuestro nuestra usted ustedes ellos"
        " ellas eso algo todo todos cada otro otra tiene tienen puede pueden",
        "no nunca sin siempre debe deben solo sólo ni jamás",
    ),
    "italian": (
        "il lo la i gli le un uno una di del della dei delle degli da dal dalla in nel nella con"
        " su sul per tra fra e ed o ma che chi cui come è sono era erano essere ho ha hanno"
        " questo questa questi queste quello quella anche molto più si ci vi mi ti suo sua loro"
        " mio mia"
        " l dell nell all sull alla sulla dopo prima quando dove perché ancora già nostro nostra"
        " ogni altro tutto tutti può possono stato",
        "non mai senza sempre deve devono solo",
    ),
    "portuguese": (
        "o a os as um uma uns umas de do da dos das em no na nos nas por para com e ou mas que"
        " quem qual como é são foi era está estão ser ter tem há se me te lhe lhes seu sua seus"
        " suas meu minha este esta estes estas esse essa isso isto muito mais também já ao aos"
        " à às"
        " desde depois antes quando onde porque ainda nosso nossa pelo pela pelos pelas num numa"
        " aquilo você vocês eles elas pode podem tudo todos",
        "não nunca sem sempre deve devem só apenas nem",
    ),
    "dutch": (
        "de het een en of maar dat die dit deze van in op te met voor aan bij uit als is zijn"
        " was waren wordt worden ik je jij hij zij wij we ze u hem haar ons hun mijn er ook om"
        " naar dan tot wat wie waar hoe door over heb heeft hebben"
        " sinds na wanneer omdat nog al weer onder tussen tegen kan kunnen werd werden zal zullen",
        "niet geen nooit zonder altijd moet moeten alleen",
    ),
    "swedish": (
        "och i att det som en ett på är av för med till den de om var jag hon han vi ni så men"
        " har hade från vid kan sig min mitt sin ut eller då när där här detta dessa"
        " efter också hur vad sedan",
        "inte aldrig utan alltid måste bara ingen",
    ),
    "norwegian": (
        "og i det som en et på er av for med til den de om var jeg hun han vi dere så men har"
        " hadde fra ved kan seg min mitt sin ut eller da når der her dette disse å"
        " etter også hvordan hva siden",
        "ikke aldri uten alltid må bare ingen",
    ),
    "danish": (
        "og i at det som en et på er af for med til den de om var jeg hun han vi så men har"
        " havde fra ved kan sig min mit sin ud eller da når der her dette disse"
        " efter også hvordan hvad siden",
        "ikke aldrig uden altid skal kun ingen",
    ),
    "finnish": (
        "ja on se että oli ovat olla kun mutta tai jos niin kuin myös joka jotka tämä nämä ne"
        " hän he me te minä sinä sen sitä siitä mitä mikä kanssa jo nyt"
        " jälkeen kautta vielä",
        "ei eikä koskaan ilman aina pitää täytyy vain",
    ),
    "hungarian": (
        "a az egy és vagy de hogy is van volt lesz meg már ez azt ezt mint mert ha el fel le ki"
        " be itt ott ahol amely amit aki ami"
        " után miatt pedig",
        "nem soha nélkül mindig kell csak sem",
    ),
    "romanian": (
        "și sau dar că de la în pe cu din pentru este sunt a fost fi un o unei unui al ale lui"
        " ei el ea noi voi ce care cum mai se să",
        "nu niciodată fără mereu trebuie doar",
    ),
    "turkish": (
        "ve veya ama bir bu şu o da de ile için gibi çok daha ne ki mi mı mu mü olarak olan ben"
        " sen biz siz onlar en her",
        "değil hiç asla olmadan yok sadece mutlaka",
    ),
    "indonesian": (
        "yang dan di ke dari ini itu dengan untuk pada adalah dalam akan juga atau ada oleh saya"
        " kami kita mereka dia ia sudah telah",
        "tidak bukan jangan tanpa selalu harus hanya belum",
    ),
    "polish": (
        "i w z na do że się to jest jak o co ale a od po dla tak czy przez jego jej ich ten ta"
        " te być był była było są by lub oraz także już który która które",
        "nie nigdy bez zawsze musi trzeba tylko ani",
    ),
    "czech": (
        "a v na se je že s z do to o k i jak by jsem jsou byl být ale nebo pro za od po jeho"
        " její jejich ten ta tak také už který která které",
        "ne nikdy bez vždy musí jen nesmí",
    ),
    "catalan": (
        "el la els les un una de del dels a al i o però que qui com en amb per és són va ser"
        " està aquest aquesta això molt més també ja"
        " des quan perquè encara seu seva nostre",
        "no mai sense sempre cal només",
    ),
    "serbian": (
        "i u je na da se za od su to sa kao ali ili koji koja koje biti bio bila što",
        "ne nikad bez uvek mora samo",
    ),
}

#: Stop words per PyStemmer language (only languages with an embedded list).
STOP_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(stop.split()) for lang, (stop, _keep) in _LANG_WORDS.items()
}

_LANG_RANK = {lang: rank for rank, lang in enumerate(_LANG_WORDS)}

#: Letters that are strong evidence for one Latin-script language.
_HINT_CHARS: dict[str, str] = {
    "ß": "german", "ñ": "spanish", "ã": "portuguese", "õ": "portuguese", "ł": "polish",
    "ą": "polish", "ę": "polish", "ś": "polish", "ź": "polish", "ż": "polish", "ř": "czech",
    "ě": "czech", "ů": "czech", "ő": "hungarian", "ű": "hungarian", "ș": "romanian",
    "ț": "romanian", "ă": "romanian", "ğ": "turkish", "ı": "turkish", "đ": "serbian",
}  # fmt: skip


@cache
def _detection_weights() -> dict[str, tuple[tuple[str, float], ...]]:
    """Word -> languages it votes for; shared words vote weakly ("de" is in seven lists)."""
    langs_by_word: dict[str, list[str]] = {}
    for lang, (stop, keep) in _LANG_WORDS.items():
        for word in {*stop.split(), *keep.split()}:
            langs_by_word.setdefault(word, []).append(lang)
    return {
        word: tuple((lang, 1.0 / len(langs)) for lang in langs)
        for word, langs in langs_by_word.items()
    }


# --------------------------------------------------------------------------------------------
# Scripts
# --------------------------------------------------------------------------------------------

_SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, "latin"),
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0530, 0x058F, "armenian"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0750, 0x077F, "arabic"),
    (0x08A0, 0x08FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0B80, 0x0BFF, "tamil"),
    (0x1100, 0x11FF, "hangul"),
    (0x1C80, 0x1C8F, "cyrillic"),
    (0x1E00, 0x1EFF, "latin"),
    (0x1F00, 0x1FFF, "greek"),
    (0x2C60, 0x2C7F, "latin"),
    (0x2DE0, 0x2DFF, "cyrillic"),
    (0x3040, 0x30FF, "cjk"),
    (0x3130, 0x318F, "hangul"),
    (0x31F0, 0x31FF, "cjk"),
    (0x3400, 0x4DBF, "cjk"),
    (0x4E00, 0x9FFF, "cjk"),
    (0xA640, 0xA69F, "cyrillic"),
    (0xA720, 0xA7FF, "latin"),
    (0xAC00, 0xD7AF, "hangul"),
    (0xF900, 0xFAFF, "cjk"),
    (0xFB1D, 0xFB4F, "hebrew"),
    (0xFB50, 0xFDFF, "arabic"),
    (0xFE70, 0xFEFF, "arabic"),
    (0xFF66, 0xFF9F, "cjk"),
    (0x20000, 0x2FA1F, "cjk"),
)
_SCRIPT_STARTS = [start for start, _end, _name in _SCRIPT_RANGES]

#: Scripts whose language needs no vote: one stemmer per script.
_FIXED_SCRIPT_LANG = {"greek": "greek", "armenian": "armenian", "tamil": "tamil"}
_SERBIAN_CYRILLIC = frozenset("ђјљњћџ")
_PERSIAN_LETTERS = frozenset("پچژگکی")
_YIDDISH_LETTERS = frozenset("װױײ")
_NEPALI_MARKERS = ("छ", "छन्", "हुन्छ", "हुँदैन")
_HINDI_MARKERS = ("है", "हैं", "और", "नहीं")


def _script(ch: str) -> str | None:
    """Script of one letter, by code-point range (unicodedata has no script property)."""
    code = ord(ch)
    if code < 0x250:  # fast path: ASCII and Latin-1/Extended letters
        return "latin"
    i = bisect_right(_SCRIPT_STARTS, code) - 1
    if i >= 0:
        start, end, name = _SCRIPT_RANGES[i]
        if start <= code <= end:
            return name
    return None


def _word_script(word: str) -> str | None:
    for ch in word:
        if ch.isalpha():
            return _script(ch)
    return None


# --------------------------------------------------------------------------------------------
# Language detection
# --------------------------------------------------------------------------------------------

_LETTERS_RE = re.compile(r"[^\W\d_]+")


def _detect_latin(words: list[str], sample: str) -> str:
    """Vote with stop-word hits; English wins ties and weak evidence (code is English).

    The primary score is the number of distinct function words a language recognises, so
    three shared Romance words ("la", "de", "está") still beat one exclusive word; the
    weighted score (shared words vote weakly) only breaks ties between related languages.
    Two hits are required: one foreign-looking word ("die", "de-dupe") is no evidence.
    """
    weights = _detection_weights()
    hits: dict[str, int] = {}
    weighted: dict[str, float] = {}
    for word in set(words):
        for lang, weight in weights.get(word, ()):
            hits[lang] = hits.get(lang, 0) + 1
            weighted[lang] = weighted.get(lang, 0.0) + weight
    if not sample.isascii():
        for ch, lang in _HINT_CHARS.items():
            if ch in sample:
                hits[lang] = hits.get(lang, 0) + 1
                weighted[lang] = weighted.get(lang, 0.0) + 0.5
    if not hits:
        return "english"
    best = max(hits, key=lambda lang: (hits[lang], weighted[lang], -_LANG_RANK[lang]))
    if hits[best] < 2 or hits.get("english", 0) >= hits[best]:
        return "english"
    return best


def _script_language(script: str, words: list[str], sample: str) -> str | None:
    if script in _FIXED_SCRIPT_LANG:
        return _FIXED_SCRIPT_LANG[script]
    if script == "latin":
        return _detect_latin(words, sample)
    text = "".join(words)
    if script == "cyrillic":
        # No Ukrainian/Belarusian/Bulgarian stemmer exists; russian is the closest available.
        return "serbian" if _SERBIAN_CYRILLIC.intersection(text) else "russian"
    if script == "arabic":
        return "persian" if _PERSIAN_LETTERS.intersection(text) else "arabic"
    if script == "hebrew":
        # The only Hebrew-script stemmer is Yiddish; it would mangle Hebrew, so stem nothing.
        return "yiddish" if _YIDDISH_LETTERS.intersection(text) else None
    if script == "devanagari":
        # Marks split _LETTERS_RE words ("है" -> "ह"), so look at whitespace tokens instead.
        tokens = set(sample.replace("।", " ").split())
        is_nepali = not tokens.isdisjoint(_NEPALI_MARKERS)
        is_hindi = not tokens.isdisjoint(_HINDI_MARKERS)
        return "nepali" if is_nepali and not is_hindi else "hindi"
    return None


def _languages(text: str) -> tuple[str, dict[str, str]]:
    """(dominant language, stemmer language per script present) for an already-NFKC text."""
    sample = text[:_DETECT_CHARS].lower()
    words_by_script: dict[str, list[str]] = {}
    letters: dict[str, int] = {}
    words = _LETTERS_RE.findall(sample)
    if sample.isascii():  # the common case: skip per-word script lookups
        words_by_script["latin"] = words
        letters["latin"] = 1
    else:
        for word in words:
            script = _script(word[0])
            if script is None:
                continue
            words_by_script.setdefault(script, []).append(word)
            letters[script] = letters.get(script, 0) + len(word)
    langs: dict[str, str] = {}
    for script, words in words_by_script.items():
        lang = _script_language(script, words, sample)
        if lang is not None:
            langs[script] = lang
    langs.setdefault("latin", "english")
    ranked = sorted(letters, key=letters.__getitem__, reverse=True)
    dominant = next((langs[s] for s in ranked if s in langs), "english")
    return dominant, langs


def detect_language(text: str) -> str:
    """PyStemmer algorithm name for the text's dominant script (Latin: stop-word vote).

    Scripts without a stemmer (CJK, Hangul, Hebrew, Thai...) fall back to "english", the
    language of code, identifiers and error strings that surround them.
    """
    if not isinstance(text, str) or not text:
        return "english"
    return _languages(unicodedata.normalize("NFKC", text[:_DETECT_CHARS]))[0]


# --------------------------------------------------------------------------------------------
# Stemming (PyStemmer is imported on first use: module import must stay cheap)
# --------------------------------------------------------------------------------------------

_stemmer_cache = threading.local()
_DIGIT_RE = re.compile(r"\d")


def _stemmer(lang: str) -> Any:
    """Cached per thread: PyStemmer objects keep an internal cache and are not thread-safe."""
    stemmers: dict[str, Any] | None = getattr(_stemmer_cache, "stemmers", None)
    if stemmers is None:
        stemmers = _stemmer_cache.stemmers = {}
    stemmer = stemmers.get(lang)
    if stemmer is None:
        import Stemmer  # lazy: keeps `import engram.text` cheap

        stemmer = stemmers[lang] = Stemmer.Stemmer(lang)
    return stemmer


def _stem(word: str, lang: str | None) -> str:
    if lang is None or _DIGIT_RE.search(word):
        return word
    return _stemmer(lang).stemWord(word)


# --------------------------------------------------------------------------------------------
# Tokenisation
# --------------------------------------------------------------------------------------------

#: Combining marks of common scripts: they are part of a word (Devanagari vowel signs, Arabic
#: harakat) though neither Python's \w nor unicode61 count them as word characters.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
    "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed"
    "\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7"
    "\u0a01-\u0a03\u0a3c-\u0a51\u0a81-\u0a83\u0abc-\u0acd\u0b01-\u0b03\u0b3c-\u0b57\u0b82"
    "\u0bbe-\u0bcd\u0bd7\u0c00-\u0c04\u0c3e-\u0c56\u0c81-\u0c83\u0cbc-\u0cd6\u0d00-\u0d03"
    "\u0d3b-\u0d57\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd"
    "\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\u3099\u309a\ufe20-\ufe2f"
)
_JOINERS = "./\\:@#~-"
_APOSTROPHES = "'\u2019\u02bc"
#: A chunk: word runs glued by identifier/path punctuation ("src/a.ts", "utf-8", "a::b") and
#: apostrophes (contractions are resolved per chunk). One character class, because a
#: ``word+(joiner+word+)*`` pattern over these Unicode classes takes milliseconds to compile;
#: leading and trailing joiners are stripped afterwards instead.
_CHUNK_RE = re.compile(rf"[\w{_MARKS}{re.escape(_JOINERS + _APOSTROPHES)}]+")
_JOINER_CHARS = _JOINERS + _APOSTROPHES
#: Paths split into segments; so does ":<digits>" ("session.ts:42", "localhost:3000").
_SEGMENT_SPLIT_RE = re.compile(r"[/\\]+|:+(?=\d)")
_PIECE_SPLIT_RE = re.compile(r"[.:@#~\-]+")
_NUMERIC_JOIN_RE = re.compile(r"\d[.:\-]+\d")
#: Hex literals and hash-like runs stay whole: splitting "a1b2c3" at digits is noise.
_HEXISH_RE = re.compile(
    r"0[xX][0-9a-fA-F]+|(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{4,}"
)
_CJK_RUN = (
    "[\u3040-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f]+"
)


@cache
def _cjk_run_re() -> re.Pattern[str]:
    """Compiled on first non-ASCII text: this class alone costs several ms to compile."""
    return re.compile(_CJK_RUN)


#: Anything unicode61 would treat as a separator (marks, "_", punctuation, symbols).
_NON_TERM_RE = re.compile(r"[\W_]+")
_APOSTROPHE_RE = re.compile(f"[{_APOSTROPHES}]")
_NEGATION_RE = re.compile(
    r"^(do|does|did|is|are|was|were|ca|wo|sha|should|would|could|must|have|has|had|need|ai)"
    rf"n[{_APOSTROPHES}]?t$"
)
_NEGATION_AUX = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
#: English clitics carry no meaning of their own: "user's" -> "user", "we're" -> "we".
_CLITIC_RE = re.compile(rf"(?<=[^\W\d_])[{_APOSTROPHES}](?:s|re|ve|ll|d|m)\b", re.IGNORECASE)


def _expand_negation(word: str) -> list[str] | None:
    """ "don't"/"dont" -> ["do", "not"]: negation must survive as the searchable word "not"."""
    lower = word.lower()
    if lower == "cannot":
        return ["can", "not"]
    match = _NEGATION_RE.match(lower)
    if match is None:
        return None
    aux = match.group(1)
    return [_NEGATION_AUX.get(aux, aux), "not"]


def _split_chunk(chunk: str, english: bool) -> list[str]:
    """Resolve contractions and elisions; the result contains no apostrophes."""
    if english and chunk[-1] in "tT" and (expanded := _expand_negation(chunk)) is not None:
        return expanded
    if _APOSTROPHE_RE.search(chunk) is None:
        return [chunk]
    out: list[str] = []
    for piece in _APOSTROPHE_RE.split(_CLITIC_RE.sub("", chunk)):
        part = piece.strip(_JOINER_CHARS)
        if not part:
            continue
        if english and (expanded := _expand_negation(part)) is not None:
            out.extend(expanded)
        else:
            out.append(part)
    return out


def _prepare(text: str) -> str:
    """Give Han/kana runs their own chunks (they are bigrammed, not split on spaces)."""
    if text.isascii():
        return text
    return _cjk_run_re().sub(r" \g<0> ", text)


def _char_kind(ch: str) -> str:
    if ch.isdigit() or ch.isnumeric():
        return "d"
    if ch.isupper():
        return "u"
    if ch.isalpha():
        return "l"
    return "m"


def _split_case(part: str) -> list[str]:
    """camelCase, acronym and letter/digit boundaries: "HTTPServer2" -> HTTP, Server, 2."""
    if part.isalpha() and (part.islower() or part.isupper() or part.istitle()):
        return [part]
    if part.isdigit() or _HEXISH_RE.fullmatch(part):
        return [part]
    kinds: list[str] = []
    for ch in part:
        kind = _char_kind(ch)
        kinds.append(kinds[-1] if kind == "m" and kinds else kind)
    atoms: list[str] = []
    start = 0
    for i in range(1, len(part)):
        prev, cur = kinds[i - 1], kinds[i]
        boundary = (
            (prev == "d") != (cur == "d")
            or (prev == "l" and cur == "u")
            or (
                prev == "u"
                and cur == "u"
                and i + 1 < len(part)
                and kinds[i + 1] == "l"
                and part[i + 1 :] != "s"  # "URLs", "IDs" are plurals, not URL + Ls
            )
        )
        if boundary:
            atoms.append(part[start:i])
            start = i
    atoms.append(part[start:])
    return atoms if len(atoms) <= _MAX_ATOMS else [part]


def _atoms(piece: str) -> list[str]:
    atoms: list[str] = []
    for part in piece.split("_"):
        if part:
            atoms.extend(_split_case(part))
    return atoms if len(atoms) <= _MAX_ATOMS else [piece.replace("_", "")]


def _clean(term: str) -> str:
    return _NON_TERM_RE.sub("", term)[:_MAX_TERM_LEN]


def _lower(word: str) -> str:
    return word.lower().replace("ё", "е")


class _Chunk:
    """One chunk split into segments -> pieces -> lowercased atoms."""

    __slots__ = ("text", "segments", "atoms")

    def __init__(self, text: str) -> None:
        self.text = text
        self.segments: list[tuple[str, list[list[str]]]] = []
        for seg in _SEGMENT_SPLIT_RE.split(text):
            pieces = [[_lower(a) for a in _atoms(p)] for p in _PIECE_SPLIT_RE.split(seg)]
            pieces = [p for p in pieces if p]
            if pieces:
                self.segments.append((seg, pieces))
        self.atoms = [a for _seg, pieces in self.segments for p in pieces for a in p]

    def wholes(self) -> list[str]:
        """Concatenated forms so an identifier/file name is found whole, in any convention."""
        out: list[str] = []
        for seg, pieces in self.segments:
            seg_atoms = [a for p in pieces for a in p]
            if len(seg_atoms) > 1 and not _NUMERIC_JOIN_RE.search(seg):
                out.append("".join(seg_atoms))
            if len(pieces) > 1:
                out.extend("".join(p) for p in pieces if len(p) > 1)
        cleaned = (_clean(w) for w in out)
        return list(dict.fromkeys(w for w in cleaned if w))


class _Analyzer:
    """Per-text language choices: which stemmer and stop list apply to which script."""

    def __init__(self, text: str) -> None:
        text = unicodedata.normalize("NFKC", text)
        self.dominant, self.langs = _languages(text)
        self.latin = self.langs["latin"]
        self.stop_latin = STOP_WORDS.get(self.latin, frozenset()) | STOP_WORDS["english"]
        self.english = self.latin == "english"
        self.text = _prepare(text)
        self._stems: dict[str, list[str] | None] = {}

    def chunks(self) -> Iterator[str]:
        for raw in _CHUNK_RE.findall(self.text):
            yield from self.split(raw)

    def split(self, raw: str) -> list[str]:
        """The chunks of one run of word characters (contractions resolved)."""
        chunk = raw.strip(_JOINER_CHARS)
        return _split_chunk(chunk, self.english) if chunk else []

    def word_lang(self, word: str) -> tuple[str | None, str | None]:
        """(script, stemmer language) for a plain word."""
        script = _word_script(word)
        return script, (self.langs.get(script) if script else None)

    def is_stop(self, word: str, script: str | None, lang: str | None) -> bool:
        if script == "latin":
            return word in self.stop_latin
        return lang is not None and word in STOP_WORDS.get(lang, ())

    def word_stems(self, word: str) -> list[str] | None:
        """Stems of a plain word (None for a stop word); see the module doc for why two."""
        if word in self._stems:
            return self._stems[word]
        script, lang = self.word_lang(word)
        stems: list[str] | None = None
        if not self.is_stop(word, script, lang):
            raw = [_stem(word, lang)]
            if script == "latin" and lang != "english":
                raw.append(_stem(word, "english"))
            stems = list(dict.fromkeys(c for c in map(_clean, raw) if c)) or None
        self._stems[word] = stems
        return stems

    def code_stem(self, atom: str) -> str:
        """Identifier atoms are code, i.e. English, whatever the prose around them is."""
        script, lang = self.word_lang(atom)
        return _stem(atom, "english" if script == "latin" else lang)


def _bigrams(run: str) -> list[str]:
    if len(run) < 3:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _is_plain_word(chunk: str) -> bool:
    """Fast path for ordinary prose words: no identifier splitting can apply."""
    if not chunk.isalpha():
        return False
    if not (chunk.islower() or chunk.istitle() or chunk.isupper()):
        return False
    return chunk.isascii() or _cjk_run_re().search(chunk) is None


def _is_cjk(chunk: str) -> bool:
    return not chunk.isascii() and _cjk_run_re().fullmatch(chunk) is not None


#: Terms of an ASCII run of word characters, by (the text's Latin language, run). They
#: depend on nothing else (contractions, the stop list and the stemmer follow the Latin
#: language; identifier atoms are stemmed as English), and the same words recur from
#: memory to memory: at 100K memories, indexing was ~15% of saving one and this halves
#: it. ~300 bytes an entry, so a long-lived server keeps at most ~6 MB; cleared when full
#: rather than kept in LRU order, as refilling costs less than the bookkeeping would.
_RUN_TERMS: dict[tuple[str, str], tuple[str, ...]] = {}
_RUN_TERMS_MAX = 20_000


def index_terms(text: str) -> str:
    """Space-separated FTS-safe terms for the ``terms`` column (see the module docstring)."""
    if not isinstance(text, str) or not text:
        return ""
    analyzer = _Analyzer(text)
    terms: list[str] = []
    memo = _RUN_TERMS
    for raw in _CHUNK_RE.findall(analyzer.text):
        if not raw.isascii():
            terms.extend(_run_terms(analyzer, raw))
            continue
        key = (analyzer.latin, raw)
        found = memo.get(key)
        if found is None:
            found = _run_terms(analyzer, raw)
            if len(memo) >= _RUN_TERMS_MAX:
                memo.clear()
            memo[key] = found
        terms.extend(found)
    return " ".join(terms)


def _run_terms(analyzer: _Analyzer, raw: str) -> tuple[str, ...]:
    """The index terms of one run of word characters, empty ones dropped."""
    return tuple(t for chunk in analyzer.split(raw) for t in _chunk_terms(analyzer, chunk) if t)


def _chunk_terms(analyzer: _Analyzer, chunk_text: str) -> list[str]:
    """The index terms of one chunk; may hold empty strings (_run_terms drops them)."""
    if _is_plain_word(chunk_text):
        return analyzer.word_stems(_lower(chunk_text)) or []
    if _is_cjk(chunk_text):
        return _bigrams(chunk_text)
    chunk = _Chunk(chunk_text)
    if len(chunk.atoms) == 1:
        return analyzer.word_stems(chunk.atoms[0]) or []
    if len(chunk.atoms) > 1:
        wholes = chunk.wholes()
        if wholes and wholes[0] in analyzer.stop_latin:  # "e.g", "i.e"
            return []
        return [*wholes, *(_clean(analyzer.code_stem(a)) for a in chunk.atoms)]
    return []


def _alternatives(alts: list[str]) -> tuple[str, ...]:
    cleaned = (" ".join(filter(None, map(_clean, alt.split()))) for alt in alts)
    return tuple(dict.fromkeys(alt for alt in cleaned if alt))


def _segment_group(analyzer: _Analyzer, seg: str, atoms: list[str]) -> tuple[str, ...]:
    """Alternatives for one identifier/path segment: whole forms or the adjacent atoms."""
    alts: list[str] = []
    if len(atoms) > 1 and not _NUMERIC_JOIN_RE.search(seg):
        whole = _clean("".join(atoms))
        alts += [whole, analyzer.code_stem(whole)]
    if len(atoms) == 1:
        alts.append(atoms[0])
    alts.append(" ".join(analyzer.code_stem(a) for a in atoms))
    return _alternatives(alts)


def _query_groups(analyzer: _Analyzer, chunk_text: str) -> list[tuple[str, ...]]:
    """Groups for one chunk: a word gives one group, a path one group per segment."""
    if _is_cjk(chunk_text):
        return [(" ".join(_bigrams(chunk_text)),)]
    chunk = None if _is_plain_word(chunk_text) else _Chunk(chunk_text)
    if chunk is None or len(chunk.atoms) == 1:
        # The raw form also matches identifier wholes: "nodejs" finds "node.js" ("nodejs").
        word = _lower(chunk_text) if chunk is None else chunk.atoms[0]
        stems = analyzer.word_stems(word)
        return [_alternatives([*stems, word])] if stems else []
    wholes = chunk.wholes()
    if len(chunk.segments) == 1 and wholes and wholes[0] in analyzer.stop_latin:  # "e.g."
        return []
    groups = []
    for seg, pieces in chunk.segments:
        group = _segment_group(analyzer, seg, [a for p in pieces for a in p])
        if group:
            groups.append(group)
    return groups


def query_terms(query: str) -> list[tuple[str, ...]]:
    """One group of alternatives per meaningful query token, analysed like ``index_terms``.

    Never raises, and stops after ``MAX_QUERY_GROUPS`` distinct groups: a pasted stack trace
    should still produce a usable (OR-mode) query rather than a pathological one.
    """
    if not isinstance(query, str) or not query.strip():
        return []
    analyzer = _Analyzer(query)
    groups: dict[tuple[str, ...], None] = {}
    for chunk_text in analyzer.chunks():
        for group in _query_groups(analyzer, chunk_text):
            groups[group] = None
        if len(groups) >= MAX_QUERY_GROUPS:
            break
    return list(groups)[:MAX_QUERY_GROUPS]


# --------------------------------------------------------------------------------------------
# FTS5 MATCH construction
# --------------------------------------------------------------------------------------------

_SURROGATES_RE = re.compile("[\ud800-\udfff\x00]")


def _fts_string(term: str) -> str | None:
    """Quote a term as an FTS5 string; None when unicode61 would find no token in it.

    An empty phrase inside an AND makes FTS5 match nothing, so such terms are dropped.
    """
    term = _SURROGATES_RE.sub("", term)
    if not any(ch.isalnum() for ch in term):
        return None
    return '"' + term.replace('"', '""') + '"'


def fts_query(groups: list[tuple[str, ...]], mode: str = "and") -> str | None:
    """Safe FTS5 MATCH expression: every term quoted, so user text is never FTS5 syntax."""
    joiner = {"and": " AND ", "or": " OR "}.get(mode.lower() if isinstance(mode, str) else "")
    if joiner is None:
        raise ValueError(f"fts_query mode must be 'and' or 'or', not {mode!r}")
    parts: list[str] = []
    for group in groups or ():
        alts = list(dict.fromkeys(filter(None, map(_fts_string, group or ()))))
        if len(alts) == 1:
            parts.append(alts[0])
        elif alts:
            parts.append("(" + " OR ".join(alts) + ")")
    return joiner.join(parts) if parts else None


# --------------------------------------------------------------------------------------------
# Misc helpers
# --------------------------------------------------------------------------------------------

_UNIFY = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "`": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-",
})  # fmt: skip
_EDGE_PUNCT = " \t\n'\".,;:!?\u2026-*\u2022\u00b7"


def normalize_for_dedup(text: str) -> str:
    """Key under which two memories count as the same statement.

    Only presentation is folded (case, whitespace, quote style, edge punctuation); every word
    stays, so "Auth is not Clerk" never collapses into "Auth is Clerk".
    """
    if not isinstance(text, str):
        return ""
    folded = unicodedata.normalize("NFKC", text).translate(_UNIFY).casefold()
    return " ".join(folded.split()).strip(_EDGE_PUNCT)


def estimate_tokens(text: str) -> int:
    """Rough LLM token count for context budgets: UTF-8 bytes / 4.

    Bytes rather than characters because Cyrillic (2 bytes) and CJK (3 bytes) text costs
    about that much more per character in BPE vocabularies than ASCII does.
    """
    if not text:
        return 0
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4
