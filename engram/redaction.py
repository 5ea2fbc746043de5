"""Secret redaction, applied before any text is stored or embedded.

Memories outlive the session that produced them: they are copied into prompts,
embedded, exported and shared. A credential that slips into the store once is
effectively leaked for good, so every write path runs text through `redact`
first.

The design trades a little recall for a lot of precision. An agent's memories are
full of code, configs and prose *about* passwords and tokens; mangling
``max_tokens=1500`` or "reset your password" would quietly corrupt the memory
that the tool exists to keep. So:

* Well known, high-signal formats (``ghp_…``, ``AKIA…``, JWTs, PEM blocks…) are
  matched by shape alone.
* Generic ``key = value`` assignments only count when the key *names* a
  secret (``DB_PASSWORD``, ``client_secret``, ``api_key``…) and the value
  looks like a literal rather than a placeholder, a variable, a type annotation
  or English prose.
* Only the value is replaced, so the memory still says *what* was there:
  ``password=[REDACTED:password]``.

Every pattern is linear-time: no nested or adjacent unbounded quantifiers over
overlapping character classes, quoted values use unambiguous "unrolled" loops,
and token patterns open with a literal prefix (so ``sre`` can skip ahead with
its fast search) followed by a fixed-width boundary look-behind, so a long run
of look-alike characters is entered once rather than at every offset. Regexes
compile lazily on first use to keep ``import`` cheap for hooks.
"""

from __future__ import annotations

import binascii
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Redaction", "contains_secret", "redact"]


@dataclass(frozen=True)
class Redaction:
    """Result of `redact`.

    ``kinds`` lets callers log or surface *that* something was removed (and
    what sort of thing) without ever holding the secret itself.
    """

    text: str
    kinds: tuple[str, ...]


_PATTERN_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub")


class _Re:
    """A regex compiled on first use.

    ``sre`` compiles in pure Python: the ~50 patterns below cost 15-30 ms, which
    would make ``import engram.redaction`` (pulled in by every hook and CLI
    call) far more than the few milliseconds it is allowed. The first call
    compiles and shadows these methods with the compiled pattern's own bound
    methods, so later calls cost exactly what calling ``re.Pattern`` costs.
    """

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags

    def _compile(self) -> re.Pattern[str]:
        compiled = re.compile(self._source, self._flags)
        for name in _PATTERN_METHODS:
            setattr(self, name, getattr(compiled, name))
        return compiled

    def findall(self, string: str) -> list[str]:
        return self._compile().findall(string)

    def finditer(self, string: str, *args: int) -> Iterator[re.Match[str]]:
        return self._compile().finditer(string, *args)

    def fullmatch(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().fullmatch(string, *args)

    def match(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().match(string, *args)

    def search(self, string: str, *args: int) -> re.Match[str] | None:
        return self._compile().search(string, *args)

    def split(self, string: str) -> list[str]:
        return self._compile().split(string)

    def sub(self, repl: str, string: str) -> str:
        return self._compile().sub(repl, string)


# --------------------------------------------------------------------------
# Value heuristics shared by the context-dependent rules
# --------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Anything already redacted must stay inert, otherwise a second pass would
# "find" ``[REDACTED:password]`` as the value of ``password=`` and nest it.
_PLACEHOLDER_TOKEN = _Re(r"\[REDACTED:[a-z0-9_]{1,40}\]")

# Values that document the *shape* of a secret instead of containing one.
_PLACEHOLDER_VALUE = _Re(
    r"""(?ix)
    \$[{(A-Za-z_].*                       # $VAR, ${VAR}, $(cmd), ${{ secrets.X }}
    | \{\{.*  | \{[A-Za-z_][\w.]*\}       # {{ template }}, {name}
    | %\(?\w*\)?[sd] | %[A-Za-z_]\w*%     # %s, %(name)s, %VAR%
    | <[^>]*>? | \[[^\]]*\] | \([^)]*\)   # <your token>, [PAD], (hidden)
    | [*xX.\u2026\u2022_\-#?!|>]+         # ***, xxxx, ..., ---, ???, |
    | :[A-Za-z_]\w* | \*[A-Za-z_]\w* | ![A-Za-z]\w*   # :param, *yaml_alias, !yaml_tag
    | (?:(?:your|my|the|some|a|an|insert|enter|put|add)[-_ ]?)
      (?:[a-z0-9]+[-_ ])*?
      (?:pass(?:word|wd|phrase)?|pwd|secret|token|key|creds?|credentials?)
      (?:[-_ ]?(?:goes[-_ ])?here)?
    | [a-z0-9\-_ ]*[-_ ]here
    | replace[-_ ]?(?:me|with.*|this.*) | change[-_ ]?me | fill[-_ ]?me(?:[-_ ]?in)?
    """
)

# Bare words that, as a value, mean "no secret here".
_NON_SECRET_WORDS = _words(
    """
    none null nil undefined nan true false yes no on off y n t f required optional empty
    blank unset unknown default hidden masked redacted secret secrets password passwd pass
    pwd token key apikey api_key credentials changeme example sample placeholder dummy fake
    test testing todo tbd fixme n/a na foo bar baz foobar qux string str env environ
    variable include omit same-origin auto inherit prompt ask stdin file see below above
    here there it is done set not the a an
    """
)

# Names of types: ``password: str`` is an annotation, not a credential.
_TYPE_NAMES = _words(
    """
    str string bytes bytearray int integer float number bool boolean any object dict list
    optional union secretstr secretbytes text varchar char uuid type typing
    """
)

# Roots of attribute chains that are obviously program objects.
_CODE_ROOTS = _words(
    """
    self this cls os sys env environ process config cfg conf settings args opts options
    params request req ctx context app client creds credentials secrets vault keyring
    getpass window document props state data payload user account auth
    """
)

_NUMBER = _Re(r"[+-]?\d{1,20}(?:\.\d+)?")
_WORDS_ONLY = _Re(r"[A-Za-z]+(?:[-_. ]+[A-Za-z]+)*")
_PLAIN_WORD = _Re(r"[A-Za-z_]+")
_FORMAT_ONLY = _Re(r"(?:%[-#0-9.]*[sdr]|\{[^{}]*\}|[^A-Za-z0-9])*")
_CSS_COLOR = _Re(r"#[0-9a-fA-F]{3,8}")
_CONSTANT = _Re(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_IDENT = _Re(r"[A-Za-z_$][\w$]*")
_DOTTED_IDENT = _Re(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_CALL_OR_INDEX = _Re(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*[(\[]")
_KEYWORDISH = _Re(r"(?i)pass|pw|secret|token|key|cred|auth")
_PROSE_WORDS = _Re(r"(?i)\b(?:password|passphrase|token|secret|key)s?\b")


def _has_classes(value: str, minimum: int = 3) -> bool:
    """Random credentials mix cases and digits; identifiers and words rarely do."""
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
    )
    return classes >= minimum


# Shape heuristics only look this far into a value: enough to recognise any
# placeholder or expression, and it bounds their cost on megabyte-long values.
_WINDOW = 256


def _is_placeholder(value: str) -> bool:
    """Values that name, template, truncate or mask a secret rather than contain one."""
    return _is_placeholder_head(value[:_WINDOW])


@lru_cache(maxsize=4096)  # keyed on a bounded head so the cache never pins big texts
def _is_placeholder_head(value: str) -> bool:
    v = value.strip()
    if not any(c.isalnum() for c in v):
        return True  # empty, ``***``, ``{``, ``(``: nothing to leak
    low = v.lower()
    if low in _NON_SECRET_WORDS:
        return True
    if _NUMBER.fullmatch(v) and not (v.isdigit() and len(v) >= _LONG_ID_DIGITS):
        return True  # counts, ports, limits; 14+ digits are client ids (Asana, Discord)
    if low.rstrip("?[]!") in _TYPE_NAMES:
        return True  # schema examples: ``"password": "string?"``
    if low.startswith("file://"):
        return True  # ``--private-key file://key.pem`` names where it is kept
    if _FORMAT_ONLY.fullmatch(v) or _CSS_COLOR.fullmatch(v):
        return True  # ``"%s:%s" % (user, pw)``, ``"{user}:{pw}"``, ``'#1e1e1e'``
    if "..." in v or "\u2026" in v or "***" in v or low.endswith(("xxx", "here")):
        return True  # truncated or masked: ``sk-...``, ``hf_***``, ``ghp_xxxx``, ``TokenHere``
    if "EXAMPLE" in v or low.rstrip("]").endswith("[redacted"):
        return True  # AWS's documented ``AKIAIOSFODNN7EXAMPLE``; ``ops_eyJz..[Redacted]``
    if (
        _WORDS_ONLY.fullmatch(v)
        and _KEYWORDISH.search(v)
        and (not v.isalpha() or _CAMEL_SPLIT.search(v))
    ):
        return True  # ``fal-ai-api-key``, ``my_secret_token``, ``challengePassword``
    return _PLACEHOLDER_VALUE.fullmatch(v) is not None


# Shortest all-digit value that counts as an id rather than a number: 13-digit
# millisecond timestamps stay numbers.
_LONG_ID_DIGITS = 14
_CAMEL_WORDS = _Re(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def _random_letters(value: str) -> bool:
    """Generated letters-only keys (``api_org_kkEopxXxhjnIGmaEZAycep…``) versus words.

    Split at case changes, identifiers give word-sized pieces (``getUserAccessToken``,
    ``HTTPServerURL``); random mixed case gives many of one or two letters.
    """
    for chunk in value[:_WINDOW].replace("-", "_").replace(".", "_").split("_"):
        if len(chunk) < 12 or chunk.islower() or chunk.isupper():
            continue
        pieces = _CAMEL_WORDS.findall(chunk)
        short = sum(len(p) <= 2 for p in pieces)
        if len(pieces) >= 4 and short >= max(2, len(pieces) / 3):
            return True
    return False


def _fake(value: str) -> bool:
    """Masks a person typed as a sample: ``ghp_xxxx…``, ``AIzaaaaa…``, ``glc_1111…``
    (after a short prefix, one or two characters repeated). Only for keys and tokens:
    ``aaaaaaaa`` is a real password."""
    head = value[:_WINDOW]
    return len(head) >= 16 and len(set(head[4:])) <= 2


def _secret_like(value: str) -> bool:
    """API keys and tokens are long and machine-made; ``Operator``, ``#cccccc``
    or ``inferred`` after ``token =`` are code, colours or words.

    Passwords are exempt (``hunter2`` is a real one); this gate is for the
    ``secret`` family only.
    """
    if _WORDS_ONLY.fullmatch(value) and not _random_letters(value):
        return False  # ``SCHEMATHESIS-INVALID-VALUE``, ``re-exchanging``
    if " " in value and max(len(chunk) for chunk in value[:_WINDOW].split()) < 24:
        return False  # keys and tokens are one unbroken run: this is prose or a command
    if value.startswith(("arn:", "http://", "https://", "projects/")):
        return False  # resource names and links that say *where* a key lives
    if len(value) >= 16:
        return True
    if len(value) >= 5 and any(c.isdigit() for c in value):
        return True  # ``token=abc123``
    return len(value) >= 8 and (
        not value.replace("_", "").replace("-", "").isalnum() or any(c.isupper() for c in value[1:])
    )


_HEX_OR_UUID = _Re(r"[0-9a-fA-F\-]+")


def _machine_made(value: str) -> bool:
    """Long, unbroken, letters mixed with digits, and not a hash or UUID: how a generated
    key looks. The bar for keys whose name alone does not say "secret" (``alibabaKey``)."""
    head = value[:_WINDOW]
    return (
        len(value) >= 20
        and _has_classes(head, 2)
        and any(c.isdigit() for c in head)
        and not any(c.isspace() for c in head)
        and _HEX_OR_UUID.fullmatch(head) is None
        and not head.startswith(("arn:", "http://", "https://", "/", "./"))
    )


def _accepts(family: str, value: str) -> str | None:
    """The kind to report when ``value`` fits a key of ``family``, else None."""
    if family == "key":
        return "secret" if _machine_made(value) and not _fake(value) else None
    if family == "secret" and (not _secret_like(value) or _fake(value)):
        return None
    return family


def _is_code_reference(value: str, key_quoted: bool) -> bool:
    """Unquoted values in source code are usually expressions, not literals.

    ``api_key=os.environ["X"]``, ``password=get_password()``,
    ``secret_key=settings.SECRET_KEY`` and ``{"password": pw}`` all *move* a
    secret around without revealing it.
    """
    return bool(value) and _is_code_reference_head(value[:_WINDOW], key_quoted)


@lru_cache(maxsize=4096)
def _is_code_reference_head(value: str, key_quoted: bool) -> bool:
    if value[0] in "([{" or _CALL_OR_INDEX.match(value) or _CONSTANT.fullmatch(value):
        return True  # a tuple/dict/f-string expression, a call, or ``FG_DEFAULT``
    if _DOTTED_IDENT.fullmatch(value):
        root = value.split(".", 1)[0].lower().lstrip("$")
        last = value.rsplit(".", 1)[-1]
        if root in _CODE_ROOTS or _KEYWORDISH.search(last) or not any(c.isdigit() for c in value):
            return True
    if _IDENT.fullmatch(value):
        if len(value) >= 24 and sum(c.isdigit() for c in value) >= 4:
            return False  # ``github_pat_7hve…``: generated, not a variable name
        # In JSON every literal string is quoted, so a bare word after a quoted
        # key is a variable in a dict/object literal.
        if key_quoted:
            return True
        # ``api_key=api_key``, ``token=self_token``, ``key=apiKey``: passing a
        # variable along (bare ``pwd``/``token`` are caught as placeholders).
        if _KEYWORDISH.search(value) and ("_" in value or _CAMEL_SPLIT.search(value)):
            return True
    return False


# --------------------------------------------------------------------------
# Key classification for generic assignments
# --------------------------------------------------------------------------

_CAMEL_SPLIT = _Re(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_SEPARATORS = _Re(r"[_.\-:]+")

# Words that may follow the secret word without changing what the key holds:
# ``password_confirm``, ``SECRET_KEY_BASE``, ``API_TOKEN_PROD``.
_TRAILING_OK = _words(
    """
    value val plain plaintext raw b64 base64 hex encoded enc confirm string str
    confirmation again repeat verify prod production dev development staging stage test
    live local main primary secondary current new old v key base
    """
)
_TRAILING_OK_AFTER_SECRET = _TRAILING_OK | {"access", "token"}

# Words just before the secret word that make the key about the secret's UI or
# policy rather than the secret: ``forgot_password``, ``show_password``.
_LEADING_NOT_SECRET = _words(
    """
    forgot show hide toggle min max has is use enable enabled allow require requires
    validate check enter remember no num count
    """
)

# ``eos_token``/``pad_token`` are tokenizer vocabulary; ``page_token`` is a cursor.
_TOKEN_NOT_SECRET = _words(
    """
    page next prev previous continuation pagination cursor sync max min num eos bos pad unk
    sep cls mask start end special stop total prompt completion input output first last
    decoder encoder image vision audio new type format kind name per
    change idempotency lock request starting client creation update sequence action
    """
)

# ``<qualifier>_key`` names that hold key material.
_KEY_QUALIFIERS = _words(
    """
    api access secret private signing encryption encrypt master account subscription
    license licence app client session hmac auth consumer webhook
    """
)

# ``<qualifier>_key`` names of keys that index or identify, never authenticate.
_KEY_NOT_SECRET = _words(
    """
    primary foreign cache sort partition row composite unique index lookup hash schema
    sequence object bucket table column field map dict item entry group registry
    translation idempotency cursor page hot short shortcut keyboard sign ssh kms gpg pgp
    """
)

_PASSWORD_SUFFIXES = ("password", "passwd", "passphrase")
_PASSWORD_EXACT = frozenset({"pass", "pwd", "pw"})


def _segments(key: str) -> list[str]:
    """``AWS_SECRET_ACCESS_KEY``/``awsSecretAccessKey``/``aws.secret-access-key``
    all become ``["aws", "secret", "access", "key"]``."""
    key = _CAMEL_SPLIT.sub("_", key.strip("-.:"))
    return [s.rstrip("0123456789") or s for s in _KEY_SEPARATORS.split(key.lower()) if s]


def _anchor(segments: list[str], i: int) -> str | None:
    """Family of the secret word at ``segments[i]``, if it is one."""
    seg = segments[i]
    prev = segments[i - 1] if i else ""
    if prev in _LEADING_NOT_SECRET:
        return None
    if seg.endswith(_PASSWORD_SUFFIXES) or seg in _PASSWORD_EXACT:
        return "password"
    if seg.endswith("secret") or seg in ("secretkey", "secretaccesskey"):
        return "secret"
    if seg.endswith("token"):
        compound = seg[: -len("token")]
        if prev in _TOKEN_NOT_SECRET or compound in _TOKEN_NOT_SECRET:
            return None
        return "secret"
    if seg == "key":
        if prev in _KEY_QUALIFIERS:
            return "secret"
        # ``alibabaKey``, ``MAILCHIMP_KEY``: maybe a credential, judged by the value
        return "key" if prev and prev not in _KEY_NOT_SECRET else None
    if seg.endswith("key") and seg[: -len("key")] in _KEY_QUALIFIERS:
        return "secret"
    if seg.endswith("apikey"):
        return "secret"
    if seg in ("credentials", "credential", "creds"):
        return "secret"
    return None


@lru_cache(maxsize=2048)
def _classify_key(key: str) -> str | None:
    """Which secret family a key names, judged by its right-most secret word.

    The right-most word decides because English-like keys put the head noun
    last: ``password_min_length`` is a length, ``secret_key`` is a key.
    """
    if key in ("PWD", "OLDPWD"):  # the shell's working directory, not a password
        return None
    segments = _segments(key)
    if "public" in segments:
        return None  # ``public_key``, ``publicKeyToken``: meant to be shared
    for i in range(len(segments) - 1, -1, -1):
        family = _anchor(segments, i)
        if family is None:
            continue
        allowed = _TRAILING_OK_AFTER_SECRET if segments[i].endswith("secret") else _TRAILING_OK
        if all(s in allowed or s.isdigit() for s in segments[i + 1 :]):
            return family
        return None
    return None


# --------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------

# A check sees the match and the original text. Rules flagged ``lower`` match
# against a lower-cased copy with identical offsets, so spans carry over. It
# returns the kind to report (optionally with a corrected span) or None to veto.
Verdict = str | tuple[str, int, int] | None
Check = Callable[[re.Match[str], str], Verdict]


class _Rule:
    """One detector: where to look, which group to blank, and whether it counts.

    ``group`` holds the secret, so a rule can blank just a value and keep its
    key; checks that find the value themselves return its span instead.
    ``trigger`` is a literal that must occur for the pattern to be worth
    running at all. A plain slotted class: dataclass creation alone would eat a
    third of the import budget.
    """

    __slots__ = ("check", "group", "kind", "lower", "pattern", "trigger")

    def __init__(
        self,
        kind: str,
        pattern: str,
        group: int | str = 0,
        check: Check | None = None,
        *,
        flags: int = 0,
        lower: bool = False,
        trigger: str = "",
    ) -> None:
        self.kind = kind
        self.pattern = _Re(pattern, flags)
        self.group = group
        self.check = check
        self.lower = lower
        self.trigger = trigger


def _after(width: int, left: str = r"A-Za-z0-9_") -> str:
    """Boundary look-behind placed *after* a literal prefix ``width`` chars long.

    A look-behind at the very start of a pattern stops ``sre`` from jumping
    between occurrences of the prefix with its fast literal search (~30 ms per
    MB per pattern); checking the character before the prefix from after it
    keeps the fast path and still means "not in the middle of a word".
    """
    return rf"(?<![{left}].{{{width}}})"


_W = r"A-Za-z0-9_\-"  # word characters of dashed identifiers

# Quoted values use the "unrolled loop" form: unambiguous, hence linear even
# when the closing quote is missing.
_DQ = r'"(?P<dq>[^"\\\n]*(?:\\.[^"\\\n]*)*)"'
_SQ = r"'(?P<sq>[^'\\\n]*(?:\\.[^'\\\n]*)*)'"
_BQ = r"`(?P<bq>[^`\\\n]*)`"  # Go raw strings, JS template literals, shell
_BARE = r"""["']?(?P<bare>[^\s"'`,;&<)}\]]+)"""
_VALUE = rf"(?:{_DQ}|{_SQ}|{_BQ}|{_BARE})"

# ``key [sep] value`` anchored on the secret word itself (matched on lower-cased
# text), so the scan jumps between rare letters instead of trying every
# offset. The rest of the key to the left is recovered in `_key_before`.
_ASSIGNMENT = (
    r"(?:pass|pw|secret|token|key|cred)"
    r"(?P<rest>[a-z0-9_.\-]{0,40}+)"
    r"(?:(?P<kq>[\"'])\]?)?\??"
    r"(?P<sep>[ \t]*"
    r"(?::[ \t]*[a-z_][\w.\[\]|, ]{0,40}?[ \t]+=(?!=)"  # ``password: str = "..."``
    r"|(?:string|\[\]byte)[ \t]*=(?!=)"  # Go: ``var token string = "..."``
    # Make's ``?=``/``::=``/``:::=``, PHP's ``.=``, ``??=``/``||=``, appends
    r"|=>|:{1,3}=|\?\?=|\?=|\.=|\+=|\|\|=|=(?!=)|:(?![:/\\])"
    r"|[!=]==?(?=[ \t]*[\"'])"  # a hard-coded comparison: ``if (api_key == "...")``
    r"|,)"  # ``setProperty("API_TOKEN", "...")``: checked to be quoted on both sides
    r"[ \t]*)"
    rf"{_VALUE}"
)
_CLI_FLAG = (
    "--" + _after(2, r"a-z0-9_.\-") + r"(?P<key>[a-z][a-z0-9_.\-]{0,62}+)"
    r"(?P<sep>[ \t]*=[ \t]*|[ \t]+)" + _VALUE
)

_KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_KEY_MAX_PREFIX = 40
_PATH_STARTS = ("/", "~", "./", "../")
_ENV_NAME = _Re(r"[A-Z][A-Z0-9_]*")
_NON_SPACE = _Re(r"\S*")
_PRIVATE_KEY_BODY = _Re(
    r"(?:\s|\\[nr])*"  # newlines, real or JSON-escaped
    r"(?:[A-Za-z][A-Za-z-]*:[^\n\\]*(?:\n|\\n)(?:\s|\\[nr])*){0,4}"  # Proc-Type:, Version:
    r"[A-Za-z0-9+/=]{20}"
)


def _key_before(text: str, keyword_start: int) -> int:
    """Start of the key whose secret word begins at ``keyword_start`` (-1: too long).

    Done with ``rstrip`` on a bounded window rather than a regex look-behind
    (which would have to be variable-width) or a backwards loop.
    """
    window = text[max(0, keyword_start - _KEY_MAX_PREFIX - 1) : keyword_start]
    prefix = len(window) - len(window.rstrip(_KEY_CHARS))
    return -1 if prefix > _KEY_MAX_PREFIX else keyword_start - prefix


def _is_env_line(text: str, key: str, key_start: int) -> bool:
    """``KEY=value`` at the start of a line (optionally ``export``): .env / shell."""
    if not key[0].isupper() or _ENV_NAME.fullmatch(key) is None:
        return False
    window_start = max(0, key_start - 64)
    line_start = text.rfind("\n", window_start, key_start) + 1
    if line_start == 0 and window_start > 0:
        return False  # no line start within reach: not a short ``export`` prefix
    head = text[line_start:key_start].strip(" \t")
    return head in ("", "export")


def _check_value(value: str, quoted: bool, key_quoted: bool) -> bool:
    """Shared literal-vs-not judgement for generic assignments."""
    if _is_placeholder(value):
        return False
    if quoted:
        # ``"forgot": "Forgot your password?"``: UI text, not a credential.
        # (Long unbroken runs, as in a PEM body, are never prose.)
        head = value[:_WINDOW]
        return not (
            " " in head
            and _PROSE_WORDS.search(head)
            and max(len(word) for word in head.split()) <= 24
        )
    return not _is_code_reference(value, key_quoted)


def _check_assignment(m: re.Match[str], text: str) -> Verdict:
    key_start = _key_before(text, m.start())
    if key_start < 0:
        return None
    key = text[key_start : m.end("rest")]
    family = _classify_key(key)
    if family is None:
        return None
    group = m.lastgroup  # the value alternative that matched: dq, sq or bare
    start, end = m.span(group)
    value = text[start:end]
    sep = m.group("sep").strip()

    if m.group("sep") == "=" and _is_env_line(text, key, key_start):
        # A .env / shell line: the value is a literal up to the next blank.
        if group == "bare":
            end += len(_NON_SPACE.match(text, end).group())  # type: ignore[union-attr]
            value = text[start:end]
        if _is_placeholder(value):
            return None
        if "CREDENTIAL" in key and value.startswith(_PATH_STARTS):
            return None  # GOOGLE_APPLICATION_CREDENTIALS=/path/key.json
        if family == "key" and not _machine_made(value):
            return None  # ``REDIS_KEY=sessions``
        if family != "password" and _fake(value.rstrip(",;")):
            return None  # ``API_KEY=glc_1111…``
        return "env_secret", start, end

    bare = group == "bare"
    kq = m.group("kq")
    key_quoted = kq is not None and key_start > 0 and text[key_start - 1] == kq
    if sep == "," and (bare or not key_quoted or not _secret_like(value)):
        # ``token, secret = pair`` and word lists (``"pwd", "echo"``): only
        # ``("API_TOKEN", "<credential-like>")`` pairs count
        return None
    if not _check_value(value, not bare, key_quoted):
        return None
    kind = _accepts(family, value)
    if kind is None:
        return None
    if bare:
        if sep == "=" and m.group("sep") != "=" and _PLAIN_WORD.fullmatch(value):
            return None  # ``password = value``: code assigning a variable
        if sep == ":" and not key_quoted and m.group("sep") != ": ":
            # YAML and headers write ``key: value``; "Pass :meth:`x`",
            # ``arn:...:secret:name`` and ``DEBUG=pw:api`` are not assignments.
            raw = m.group("sep")
            if raw[0] in " \t" or raw[-1] not in " \t":
                return None
        if sep[0] == ":" and sep[-1] != "=":
            first = _IDENT.match(value)
            if first and first.group().lower() in _TYPE_NAMES:
                return None  # ``password: str``
            if _WORDS_ONLY.fullmatch(value) and _continues_as_prose(text, end):
                return None  # ``Password: must be at least 8 characters``
        if value.startswith(_PATH_STARTS):
            lowered = key.lower()
            if "credential" in lowered or lowered.endswith("pwd"):
                return None  # a path to a credentials file, or a working directory
    return kind, start, end


def _check_cli(m: re.Match[str], text: str) -> Verdict:
    family = _classify_key(text[m.start("key") : m.end("key")])
    if family is None:
        return None
    group = m.lastgroup
    start, end = m.span(group)
    value = text[start:end]
    bare = group == "bare"
    if bare and value.startswith("-"):
        return None  # ``--password-stdin --verbose``: the next flag, not a value
    if bare and m.group("sep").strip() != "=" and value.isalpha() and value.islower():
        return None  # "the --password option", "--db-password requires --db-user"
    kind = _accepts(family, value)
    if kind is None:
        return None
    return (kind, start, end) if _check_value(value, not bare, False) else None


def _continues_as_prose(text: str, end: int) -> bool:
    """True when more words follow on the same line (prose, not a YAML value).

    Only the first following character counts, so the verdict cannot change
    when something later on the line gets redacted.
    """
    rest = text[end : end + 200].lstrip(" \t")
    return bool(rest) and rest[0] not in "#,;}]\r\n"


def _check_xml(m: re.Match[str], text: str) -> Verdict:
    raw = m.group("v")
    value = raw.strip()
    if not value or "\n" in value:
        return None  # nested markup or several lines: not one value
    family = _classify_key(m.group("key"))
    if family is None or _is_placeholder(value):
        return None
    kind = _accepts(family, value)
    if kind is None:
        return None
    start = m.start("v") + len(raw) - len(raw.lstrip())
    return kind, start, start + len(value)


def _check_private_key(m: re.Match[str], text: str) -> Verdict:
    # Prose that merely mentions the header ("starts with -----BEGIN RSA PRIVATE
    # KEY-----") and doc skeletons with "..." bodies carry no key material.
    body = m.group("body")[:600]
    return "private_key" if _PRIVATE_KEY_BODY.match(body) else None


def _check_url_password(m: re.Match[str], text: str) -> Verdict:
    value = m.group("v")
    if _is_placeholder(value) or value == m.group("user"):
        return None
    return "url_password"


def _original(m: re.Match[str], text: str, group: int | str = "v") -> str:
    start, end = m.span(group)
    return text[start:end]


def _check_bearer_header(m: re.Match[str], text: str) -> Verdict:
    # In a real header anything but an obvious placeholder is a credential,
    # even when elided (``Bearer abc...``); ``Bearer hf_***`` is masked already.
    value = _original(m, text)
    end = m.end("v")
    if text[end : end + 1] in ("*", "\u2026") or _is_placeholder(value.rstrip(".")):
        return None
    return "bearer_token"


def _check_header_other(m: re.Match[str], text: str) -> Verdict:
    # ``Authorization: Api-Token 22cb…``, ``Authorization: sha256~…``: whatever the
    # scheme, the header carries a credential (bearer and basic have their own rules).
    scheme = m.group("scheme")
    if scheme and scheme.rstrip() in ("bearer", "token", "basic"):
        return None
    value = _original(m, text)
    if len(value) < 8 or _is_placeholder(value) or value.startswith("$"):
        return None
    return "authorization"


def _check_bearer(m: re.Match[str], text: str) -> Verdict:
    # "Bearer tokens are ...": outside an Authorization header insist on a
    # credential-looking value.
    value = _original(m, text)
    if len(value) < 16 or not _has_classes(value, 2) or _is_placeholder(value):
        return None
    return "bearer_token"


def _check_basic_header(m: re.Match[str], text: str) -> Verdict:
    value = _original(m, text)
    return "basic_auth" if len(value) >= 8 and not _is_placeholder(value) else None


def _check_basic(m: re.Match[str], text: str) -> Verdict:
    # Outside a header "Basic xyz" is usually English; real credentials decode
    # to printable ``user:password``.
    try:
        decoded = binascii.a2b_base64(_original(m, text).encode("ascii"), strict_mode=True)
    except (binascii.Error, ValueError):
        return None
    ok = b":" in decoded and all(32 <= b < 127 for b in decoded)
    return "basic_auth" if ok else None


def _check_user_pass(m: re.Match[str], text: str) -> Verdict:
    start = m.start()
    if start and not text[start - 1].isspace():
        return None  # ``--user`` must be a flag of its own, not ``x-user``
    value = m.group("v")
    if _is_placeholder(value) or value == m.group("user") or m.group("user")[:1] == "<":
        return None  # ``-u 1000:1000``, ``-u postgres:postgres``, ``-u <user:password>``
    if len(value) < 4 or (value.isalpha() and value.isupper()):
        return None  # ``gsutil acl ch -u AllUsers:R``: a permission, not a password
    return "basic_auth"


_DISCORD_ID = _Re(r"[MNO][A-Za-z0-9_\-]{23,25}")  # a 17-19 digit id, base64


def _check_discord(m: re.Match[str], text: str) -> Verdict:
    start = m.start()
    head = start
    while head > 0 and start - head <= 26 and (text[head - 1].isalnum() or text[head - 1] in "_-"):
        head -= 1
    if not _DISCORD_ID.fullmatch(text, head, start):
        return None
    value = text[head:m.end()]
    if not _has_classes(value, 3) or _is_placeholder(value):
        return None
    return "discord_token", head, m.end()


def _fixed(kind: str, value_ok: Callable[[str], bool], group: int | str = "v") -> Check:
    def check(m: re.Match[str], text: str) -> Verdict:
        return kind if value_ok(_original(m, text, group)) else None

    return check


def _random(kind: str, classes: int = 3) -> Check:
    """For prefixes that also start ordinary words or identifiers (``sk-learn-…``,
    ``hf_hub_…``): the tail must mix character classes like generated keys do."""
    return _fixed(kind, lambda v: _has_classes(v, classes) and not _is_placeholder(v), 0)


def _with_digit(kind: str) -> Check:
    """Slack tokens embed numeric team/user ids; ``xoxb-your-token-here`` does not."""
    return _fixed(kind, lambda v: any(c.isdigit() for c in v) and not _is_placeholder(v), 0)


def _not_placeholder(kind: str, group: int | str = "v") -> Check:
    """Doc examples spell webhook ids as ``T00000000/B00000000/XXXXXXXX``."""
    return _fixed(
        kind,
        lambda v: not _is_placeholder(v) and not _fake(v) and not set(v) <= set("xX0_/TB"),
        group,
    )


_HEADER = r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?"

# Vendor prefixes that only start generated credentials (gitleaks' and the vendors'
# documented formats). Seventy literal prefixes would cost seventy scans of every text;
# instead one pattern finds each run of token characters long enough to be one (entering
# only at a separator, so a run is read once) and the check looks its start up here.
_VENDOR_PREFIXES = (
    "ntn_", "sgp_", "EZAK", "EZTK", "s-s4t2ud-", "s-s4t2af-", "sha256~", "sntrys_", "sntryu_",
    "fo1_", "fm1a_", "fm1r_", "fm2_", "ops_eyJ", "HRKU-", "sq0csp-", "sq0atp-", "glc_", "glsa_",
    "ABSK", "sqp_", "squ_", "sqa_", "pscale_pw_", "pscale_tkn_", "pscale_oauth_", "lin_api_",
    "pplx-", "PMAK-", "pnu_", "pul-", "rdme_", "rubygems_", "xkeysib-", "shippo_live_",
    "shippo_test_", "dp.pt.", "dt0c01.", "duffel_live_", "duffel_test_", "FLWSECK", "fio-u-",
    "CLOJARS_", "ATATT3", "p8e-", "LTAI", "AKCp", "tk-us-", "glagent-", "glffct-", "gloas-",
    "GR1348941", "EAA", "NRAK-", "NRII-", "NRJS-", "api_org_", "dckr_pat_", "figd_",
    "lsv2_pt_", "lsv2_sk_", "pcsk_", "r8_", "tvly-", "xai-", "dop_v1_", "doo_v1_", "dor_v1_",
)
_RUN_HEAD = r"A-Za-z0-9_\-.~"
_FILE_NAME = _Re(r"\.(?:[a-z]{2,4}|json|yaml|toml)$")
_RUN = rf"(?P<v>[{_RUN_HEAD}]{{20,}}+[{_RUN_HEAD}+/=]*)"


def _check_vendor(m: re.Match[str], text: str) -> Verdict:
    value = m.group("v")
    if not value.startswith(_VENDOR_PREFIXES):
        return None
    value = value.rstrip(".")
    if _FILE_NAME.search(value):
        return None  # ``api_org_96726c78_4ae3….xml``: a fixture's file name
    tail = value[value.index("_") + 1 :] if "_" in value[:14] else value
    words = _WORDS_ONLY.fullmatch(tail) and not _random_letters(tail)
    if not _has_classes(tail, 2) or words or _is_placeholder(value) or _fake(value):
        return None
    start = m.start("v")
    return "vendor_token", start, start + len(value)

# Order is priority: when matches overlap, the earlier rule names the result,
# so specific formats beat the generic assignment rules at the bottom.
_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
        r"(?P<body>(?:(?!-----BEGIN ).)*?)"
        r"(?:-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----|\Z)",
        check=_check_private_key,
        flags=re.S,
    ),
    _Rule(
        "anthropic_key",
        "sk-ant-" + _after(7, _W) + rf"[{_W}]{{20,}}",
        check=_random("anthropic_key"),
    ),
    _Rule(
        "openai_key",
        "sk-" + _after(3, _W) + rf"(?!ant-)[{_W}]{{20,}}",
        check=_random("openai_key"),
    ),
    _Rule(
        "aws_access_key",
        "A(?:KIA|SIA|BIA|CCA)" + _after(4, "A-Za-z0-9") + r"[A-Z0-9]{16}(?![A-Za-z0-9])",
        check=_not_placeholder("aws_access_key", 0),
    ),
    *(
        _Rule(  # two rules, so each opens with a literal that sre can scan for
            "aws_secret_key",
            key + r"[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*[\"']?(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
            "v",
            _fixed("aws_secret_key", lambda v: _has_classes(v, 2) and not _is_placeholder(v)),
            lower=True,
            trigger="secret",
        )
        for key in (
            r"aws[_\-]?secret(?:[_\-]?access)?(?:[_\-]?key)?",
            r"secret[_\-]?access[_\-]?key",
        )
    ),
    _Rule(
        "gcp_api_key",
        "AIza" + _after(4, _W) + rf"[{_W}]{{35}}(?![{_W}])",
        check=_not_placeholder("gcp_api_key", 0),
    ),
    _Rule(
        "gcp_service_account",
        r"\"private_key_id\"[ \t]*:[ \t]*\"(?P<v>[0-9a-f]{40})\"",
        "v",
    ),
    _Rule("google_client_secret", "GOCSPX-" + _after(7, _W) + rf"[{_W}]{{28}}(?![{_W}])"),
    _Rule(
        "google_oauth_token",
        r"ya29\." + _after(5) + rf"[{_W}]{{20,}}",
        check=_random("google_oauth_token", 2),
    ),
    *(
        _Rule(  # one literal each: an alternation at the start would defeat sre's fast scan
            "azure_storage_key",
            rf"{name}=(?P<v>[a-z0-9+/]{{20,}}={{0,2}})",
            "v",
            lower=True,
            trigger=f"{name}=",
        )
        for name in ("accountkey", "sharedaccesskey")
    ),
    _Rule("azure_storage_key", r"SharedAccessSignature=(?P<v>[^;\s\"']+)", ("v",)),
    _Rule("azure_storage_key", r"[?&]sig=(?P<v>[A-Za-z0-9%+/=]{30,})", "v", trigger="sig="),
    _Rule(
        "github_token",
        "gh[pousr]_" + _after(4) + r"[A-Za-z0-9]{36,}(?![A-Za-z0-9])",
        check=_not_placeholder("github_token", 0),
    ),
    _Rule(
        "github_token",
        "github_pat_" + _after(11) + r"[A-Za-z0-9_]{22,}",
        check=_random("github_token"),
    ),
    _Rule(
        "gitlab_token",
        "gl" + _after(2, _W) + rf"(?:pat|dt|ptt|rt|ft|soat|cbt|imt|oas)-[{_W}]{{20,}}",
        check=_random("gitlab_token", 2),
    ),
    _Rule(
        "slack_token",
        "x" + _after(1, _W) + r"(?:ox[abeoprs]|app)-[A-Za-z0-9\-]{20,}",
        check=_with_digit("slack_token"),
    ),
    _Rule(
        "slack_webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"(?P<v>[A-Za-z0-9_]{8,}(?:/[A-Za-z0-9_]+){0,3})",
        "v",
        _not_placeholder("slack_webhook"),
    ),
    _Rule(
        "teams_webhook",
        r"\.webhook\.office\.com/webhookb2/(?P<v>[A-Za-z0-9\-@/]{40,})",
        "v",
        _not_placeholder("teams_webhook"),
        trigger=".webhook.office.com",
    ),
    _Rule(
        "discord_webhook",
        rf"discord(?:app)?\.com/api/webhooks/(?P<v>\d{{5,}}/[{_W}]{{20,}})",
        "v",
    ),
    *(
        _Rule(
            "stripe_key",
            f"{kind}k_(?:live|test|prod)_" + _after(8) + r"[A-Za-z0-9]{10,}",
            check=_random("stripe_key", 2),
        )
        for kind in "sr"  # secret and restricted keys; a literal start keeps the scan fast
    ),
    _Rule(
        "stripe_key",
        "whsec_" + _after(6) + r"[A-Za-z0-9+/=]{24,}",
        check=_random("stripe_key", 2),
    ),
    _Rule(
        "npm_token",
        "npm_" + _after(4) + r"[A-Za-z0-9]{36}(?![A-Za-z0-9])",
        check=_not_placeholder("npm_token", 0),
    ),
    _Rule(
        "huggingface_token",
        "hf_" + _after(3) + r"[A-Za-z0-9]{34,}(?![A-Za-z0-9])",
        check=_fixed(  # ``hf_requiredCharacteristicTypesFor…`` is an Objective-C name
            "huggingface_token",
            lambda v: _has_classes(v, 2) and not _is_placeholder(v)
            and (any(c.isdigit() for c in v) or _random_letters(v)),
            0,
        ),
    ),
    _Rule("pypi_token", "pypi-AgE" + _after(8) + rf"[{_W}]{{50,}}"),
    _Rule("sendgrid_key", r"SG\." + _after(3) + rf"[{_W}]{{22}}\.[{_W}]{{43}}(?![{_W}])"),
    _Rule("digitalocean_token", "do[opr]_v1_" + _after(7) + r"[a-f0-9]{64}(?![a-f0-9])"),
    _Rule(
        "shopify_token",
        "shp(?:at|ca|pa|ss)_" + _after(6) + r"[a-fA-F0-9]{32}(?![a-fA-F0-9])",
    ),
    _Rule("databricks_token", "dapi" + _after(4) + r"[a-f0-9]{32}(?:-\d)?(?![a-f0-9])"),
    _Rule("groq_key", "gsk_" + _after(4) + r"[A-Za-z0-9]{48,}", check=_random("groq_key")),
    _Rule(
        "vault_token",
        r"hv[sbr]\." + _after(4) + rf"[{_W}]{{24,}}",
        check=_random("vault_token", 2),
    ),
    _Rule("age_secret_key", "AGE-SECRET-KEY-1" + _after(16) + r"[0-9A-Z]{58}"),
    _Rule(
        "telegram_bot_token",
        rf"(?<![0-9])\d{{8,10}}:AA[{_W}]{{33}}(?![{_W}])",
        trigger=":AA",
    ),
    _Rule("vendor_token", rf"[^{_RUN_HEAD}+/]" + _RUN, "v", _check_vendor),
    _Rule("vendor_token", r"\A" + _RUN, "v", _check_vendor),
    _Rule(
        "azure_client_secret",  # ``abc8Q~…``: Entra ID application secrets
        r"(?<![\w~.])[\w~.]{3}\dQ~[\w~.\-]{31,34}(?![\w~.\-])",
        check=_random("azure_client_secret", 2),
        trigger="Q~",
    ),
    _Rule(  # 1Password account secret key
        "onepassword_secret_key",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}(?![A-Z0-9])",
        check=_not_placeholder("onepassword_secret_key", 0),
        trigger="A3-",
    ),
    _Rule(
        "cloudflare_origin_ca_key",
        "v1\\.0-" + _after(5) + r"[a-f0-9]{24}-[a-f0-9]{146}",
        trigger="v1.0-",
    ),
    _Rule("jwt", "eyJ" + _after(3, _W) + rf"[{_W}]{{5,}}\.[{_W}]{{4,}}\.[{_W}]*"),
    # Unsigned (``alg: none``) or signature cut off: the claims are still the secret part.
    _Rule("jwt", "eyJ" + _after(3, _W) + rf"[{_W}]{{5,}}\.eyJ[{_W}]{{4,}}", trigger=".eyJ"),
    # Discord bot tokens: base64 of the bot's numeric id, a timestamp, an HMAC. Found
    # from their middle part (a literal "." to scan for); the check reads the id before it.
    _Rule(
        "discord_token",
        r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}(?![A-Za-z0-9_\-])",
        check=_check_discord,
    ),
    _Rule("mailchimp_key", r"(?<![0-9a-f])[0-9a-f]{32}-us\d{1,2}(?![0-9A-Za-z])", trigger="-us"),
    _Rule(
        "url_password",
        r"://(?P<user>[^\s:@/?#\[\]\"'<>]{0,128})"
        r":(?P<v>[^\s@/?#\"'<>]{1,128})@(?=[A-Za-z0-9\[])",
        "v",
        _check_url_password,
    ),
    _Rule(
        "bearer_token",
        _HEADER + r"(?:bearer|token)[ \t]+(?P<v>[a-z0-9\-._~+/]+=*)",
        "v",
        _check_bearer_header,
        lower=True,
        trigger="authorization",
    ),
    _Rule(
        "authorization",
        _HEADER + r"(?P<scheme>[a-z][a-z0-9_\-]{0,20}[ \t]+)?(?P<v>[a-z0-9\-._~+/@!#%^&*]{8,}=*)"
        r"(?![^\s\"',;])",
        "v",
        _check_header_other,
        lower=True,
        trigger="authorization",
    ),
    _Rule(
        "bearer_token",
        "bearer" + _after(6, "a-z0-9_") + r"[ \t]+(?P<v>[a-z0-9\-._~+/]+=*)",
        "v",
        _check_bearer,
        lower=True,
        trigger="bearer",
    ),
    _Rule(
        "basic_auth",
        _HEADER + r"basic[ \t]+(?P<v>[a-z0-9+/]{4,}={0,2})(?![a-z0-9+/=])",
        "v",
        _check_basic_header,
        lower=True,
        trigger="authorization",
    ),
    _Rule(
        "basic_auth",
        "basic" + _after(5, "a-z0-9_") + r"[ \t]+(?P<v>[a-z0-9+/]{4,}={0,2})(?![a-z0-9+/=])",
        "v",
        _check_basic,
        lower=True,
        trigger="basic",
    ),
    _Rule(
        "basic_auth",
        r"-(?:u|-user)[ \t]+[\"']?(?P<user>[^\s:\"']{1,128}):(?P<v>[^\s\"']{1,256})",
        "v",
        _check_user_pass,
        trigger="-",
    ),
    # SQL ``... PASSWORD 'x'`` / ``IDENTIFIED BY 'x'``; lower-case "identified by"
    # is English ("identified by 'name'"), so that one must be upper case.
    _Rule(
        "password",
        "password" + _after(8, "a-z0-9_") + r"[ \t]+'(?P<v>[^'\\\n]{1,256})'",
        "v",
        _fixed("password", lambda v: not _is_placeholder(v)),
        lower=True,
        trigger="password",
    ),
    _Rule(
        "password",
        "IDENTIFIED" + _after(10) + r"[ \t]+BY[ \t]+'(?P<v>[^'\\\n]{1,256})'",
        "v",
        _fixed("password", lambda v: not _is_placeholder(v)),
        trigger="IDENTIFIED",
    ),
    # .netrc ``machine h login u password p``
    _Rule(
        "password",
        "login" + _after(5) + r"[ \t]+\S{1,128}[ \t]+password[ \t]+(?P<v>[^\s'\"]{1,256})",
        "v",
        _fixed("password", lambda v: not _is_placeholder(v)),
        trigger="login",
    ),
    _Rule(
        "password",  # kind decided by the key: password or secret
        r"<(?P<key>[A-Za-z_][\w.:\-]{0,60})>(?P<v>[^<]{1,300})</(?P=key)>",
        "v",
        _check_xml,
        trigger="</",
    ),
    _Rule(  # .NET/NuGet ``<add key="ClearTextPassword" value="…" />``
        "password",  # kind decided by the key: password or secret
        "key" + _after(3) + r"[ \t]*=[ \t]*\"(?P<key>[A-Za-z_][\w.:\-]{0,60})\"[ \t]+"
        r"value[ \t]*=[ \t]*\"(?P<v>[^\"\n]{1,256})\"",
        "v",
        _check_xml,
        trigger="value",
    ),
    _Rule("password", _CLI_FLAG, 0, _check_cli, lower=True, trigger="--"),
    _Rule("password", _ASSIGNMENT, 0, _check_assignment, lower=True),
)


# --------------------------------------------------------------------------
# Engine
# --------------------------------------------------------------------------

_Span = tuple[int, int, int, str]  # start, end, priority, kind


def _lowercase(text: str) -> str:
    """Lower-case without moving any offset.

    U+0130 is the only code point whose lower case is two characters; mapping
    it to "I" first keeps match positions valid for the original text.
    """
    lower = text.lower()
    if len(lower) != len(text):
        lower = text.replace("\u0130", "I").lower()
    return lower


def _subtract(
    start: int, end: int, guards: list[tuple[int, int]], guard_starts: list[int]
) -> Iterator[tuple[int, int]]:
    """Yield the parts of [start, end) not covered by an existing placeholder.

    Dropping the whole candidate instead would let ``"abc [REDACTED:x] hunter2"``
    keep ``hunter2``; leaving placeholders intact is what makes `redact`
    idempotent.
    """
    i = max(bisect_left(guard_starts, start) - 1, 0)
    pos = start
    while i < len(guards) and guards[i][0] < end:
        g_start, g_end = guards[i]
        if g_end > pos:
            if g_start > pos:
                yield pos, g_start
            pos = max(pos, g_end)
        i += 1
    if pos < end:
        yield pos, end


def _overlaps(guards: list[tuple[int, int]], guard_starts: list[int], start: int, end: int) -> bool:
    i = bisect_left(guard_starts, end) - 1  # last guard starting before ``end``
    return i >= 0 and guards[i][1] > start


def _find(text: str, first_only: bool = False) -> list[_Span]:
    guards = [m.span() for m in _PLACEHOLDER_TOKEN.finditer(text)] if "[REDACTED:" in text else []
    guard_starts = [g[0] for g in guards]
    lower: str | None = None
    spans: list[_Span] = []
    for priority, rule in enumerate(_RULES):
        if rule.lower:
            if lower is None:
                lower = _lowercase(text)
            subject = lower
        else:
            subject = text
        if rule.trigger and rule.trigger not in subject:
            continue
        check, group = rule.check, rule.group
        for m in rule.pattern.finditer(subject):
            if guards:
                # Cheap skip for the common re-redaction case: the value is
                # already a placeholder (``password=[REDACTED:password]``).
                v_start, v_end = m.span(m.lastgroup or group)
                i = bisect_left(guard_starts, v_start + 1) - 1
                if i >= 0 and guards[i][0] <= v_start and v_end <= guards[i][1]:
                    continue
            if check is None:
                kind = rule.kind
                start, end = m.span(group)
            else:
                verdict = check(m, text)
                if verdict is None:
                    continue
                if isinstance(verdict, str):
                    kind = verdict
                    start, end = m.span(group)
                else:
                    kind, start, end = verdict
            if start >= end:
                continue
            if guards and m.start() < start and _overlaps(guards, guard_starts, m.start(), start):
                # The context that made this a secret is itself a placeholder
                # (``[REDACTED:github_token]=x`` has a "token" key): ignore it.
                continue
            if not guards:
                spans.append((start, end, priority, kind))
            else:
                for s, e in _subtract(start, end, guards, guard_starts):
                    # Leftovers between placeholders: keep only real content so
                    # separators like ", " do not become placeholders.
                    piece = text[s:e]
                    if len(piece.strip()) > 2 and any(c.isalnum() for c in piece):
                        s += len(piece) - len(piece.lstrip())
                        e -= len(piece) - len(piece.rstrip())
                        spans.append((s, e, priority, kind))
            if first_only and spans:
                return spans
    return spans


def _merge(spans: list[_Span]) -> list[_Span]:
    """Overlapping matches become one placeholder named by the highest-priority
    rule, so ``token=ghp_…`` says ``github_token`` and nothing is half-covered."""
    spans.sort()
    merged: list[_Span] = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            m_start, m_end, m_prio, m_kind = merged[-1]
            if span[2] < m_prio:
                m_prio, m_kind = span[2], span[3]
            merged[-1] = (m_start, max(m_end, span[1]), m_prio, m_kind)
        else:
            merged.append(span)
    return merged


def _apply(text: str, merged: list[_Span], marks: list[int]) -> tuple[str, list[int]]:
    """Replace ``merged``; return the new text and where every placeholder made
    by this call now starts (``marks`` are those made by earlier passes)."""
    parts: list[str] = []
    moved: list[int] = []
    pos = shift = i = 0
    for start, end, _, kind in merged:
        while i < len(marks) and marks[i] < start:
            moved.append(marks[i] + shift)
            i += 1
        placeholder = f"[REDACTED:{kind}]"
        parts.append(text[pos:start])
        parts.append(placeholder)
        moved.append(start + shift)
        shift += len(placeholder) - (end - start)
        pos = end
    moved.extend(mark + shift for mark in marks[i:])
    parts.append(text[pos:])
    return "".join(parts), moved


# A redaction can expose context that was not there before: the ``]`` closing
# a placeholder is a word boundary, so ``ghp_…--password x`` only shows its
# ``--password`` flag once the token is gone, and a rejected match can hide an
# overlapping one (``--password Basic Basic dXNl…``) until the first is
# redacted. Re-running until nothing changes makes `redact` idempotent by
# construction; each pass removes at least one character of non-placeholder
# text, and in practice the second pass finds nothing. The cap only bounds
# deliberately chained input.
_MAX_PASSES = 8


def redact(text: str) -> Redaction:
    """Replace every detected secret in ``text`` with ``[REDACTED:<kind>]``.

    Text with nothing to redact comes back as the very same string object, so
    callers can cheaply tell whether anything changed.
    """
    spans = _find(text)
    if not spans:
        return Redaction(text, ())
    result, marks = _apply(text, _merge(spans), [])
    for _ in range(_MAX_PASSES - 1):
        spans = _find(result)
        if not spans:
            break
        result, marks = _apply(result, _merge(spans), marks)
    kinds = dict.fromkeys(result[m + 10 : result.index("]", m)] for m in marks)
    return Redaction(result, tuple(kinds))


def redact_tree(value: Any) -> tuple[Any, tuple[str, ...]]:
    """`redact` applied to every string inside JSON-like data (a memory's meta): the
    same value back when nothing was found, and the kinds of what was replaced."""
    kinds: dict[str, None] = {}
    strings: list[str] = []

    def gather(item: Any) -> None:
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                gather(key)
                gather(inner)
        elif isinstance(item, list | tuple):
            for inner in item:
                gather(inner)

    gather(value)
    # One scan of all the strings (one per line) answers the usual case, nothing to find,
    # at the cost of one call instead of one per string.
    if not strings or not contains_secret("\n".join(strings)):
        return value, ()

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            red = redact(item)
            kinds.update(dict.fromkeys(red.kinds))
            return red.text
        if isinstance(item, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return type(item)(walk(v) for v in item)
        return item

    result = walk(value)
    return (result, tuple(kinds)) if kinds else (value, ())


def contains_secret(text: str) -> bool:
    """Whether `redact` would change anything, without building the result."""
    return bool(_find(text, first_only=True))
