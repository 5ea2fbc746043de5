"""Generic ``key = value`` detection: assignments, CLI flags and XML elements whose key
names a secret and whose value looks like a literal."""

from __future__ import annotations

import re

from .keys import _classify_key
from .lazy_regex import _Re
from .rule import Verdict, _after
from .values import (
    _IDENT,
    _PLAIN_WORD,
    _PROSE_WORDS,
    _TYPE_NAMES,
    _WINDOW,
    _WORDS_ONLY,
    _accepts,
    _fake,
    _is_code_reference,
    _is_placeholder,
    _machine_made,
    _secret_like,
)

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
    r"|,"  # ``setProperty("API_TOKEN", "...")``: checked to be quoted on both sides
    r"|[ \t]+(?:is|was)[ \t]+(?:now[ \t]+)?(?=\S*[0-9])(?=\S*[a-z]))"  # prose: "the password is …"
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
