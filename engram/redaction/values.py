"""Value heuristics shared by the context-dependent rules.

Whether a value after a secret-naming key is a literal credential or a placeholder, a
variable, a type, a colour, a hash or a word: the precision half of redaction.
"""

from __future__ import annotations

from functools import lru_cache

from .lazy_regex import _Re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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
      (?:(?:fake|dummy|sample|example|test|own|api|access|secret)[-_ ]?)*
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
_CAMEL_SPLIT = _Re(r"(?<=[a-z0-9])(?=[A-Z])")


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


# Keys published in vendors' samples and docs are public: keeping them hides nothing.
# Google API keys from firebase-android-sdk's samples and the passwords of Microsoft's
# nuget.config reference (the lists gitleaks allowlists, MIT, gitleaks/gitleaks
# cmd/generate/config/rules/gcp.go and nuget.go).
_PUBLISHED_KEYS = frozenset({
    "33f!!lloppa", "hal+9ooo_da!sY",
    "AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
    "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM", "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
    "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0", "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
    "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c", "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
    "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY", "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
    "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ", "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
    "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU", "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
    "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE", "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
})


def _published(value: str) -> bool:
    return value.strip("\"'`") in _PUBLISHED_KEYS


def _is_placeholder(value: str) -> bool:
    """Values that name, template, truncate or mask a secret rather than contain one."""
    return _is_placeholder_head(value[:_WINDOW])


@lru_cache(maxsize=4096)  # keyed on a bounded head so the cache never pins big texts
def _is_placeholder_head(value: str) -> bool:
    v = value.strip()
    if not any(c.isalnum() for c in v):
        return True  # empty, ``***``, ``{``, ``(``: nothing to leak
    if _published(v):
        return True
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
    if "..." in v or "\u2026" in v or "***" in v or "####" in v or low.endswith(("xxx", "here")):
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


_HELD_KEY = _Re(r"(.)\1{4,}")


def _fake(value: str) -> bool:
    """Masks a person typed as a sample: ``ghp_xxxx…``, ``AIzaaaaa…``, ``glc_1111…``
    (after a short prefix, one or two characters repeated). Only for keys and tokens:
    ``aaaaaaaa`` is a real password."""
    head = value[:_WINDOW]
    if len(head) < 16:
        return False
    tail = head[4:]
    most = max(tail.count(c) for c in set(tail))
    runs = sum(len(m.group(0)) for m in _HELD_KEY.finditer(tail))
    # ``0000…0000TUVWXYZ``; ``5555555dAAAAA7777777…aaaa``: keys held down, not generated
    return len(set(tail)) <= 2 or most * 10 >= len(tail) * 6 or runs * 2 >= len(tail)


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
    if family == "password" and len(value.strip()) < 4:
        return None  # ``value="abc"``: a stand-in, not a password anyone uses
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
