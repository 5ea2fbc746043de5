"""Key classification for generic assignments: which secret family a key names."""

from __future__ import annotations

from functools import lru_cache

from .lazy_regex import _Re
from .values import _CAMEL_SPLIT, _words

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
    if "csrf" in segments or "xsrf" in segments:
        return None  # an anti-forgery token rides in every page of its session: no credential
    for i in range(len(segments) - 1, -1, -1):
        family = _anchor(segments, i)
        if family is None:
            continue
        allowed = _TRAILING_OK_AFTER_SECRET if segments[i].endswith("secret") else _TRAILING_OK
        if all(s in allowed or s.isdigit() for s in segments[i + 1 :]):
            return family
        return None
    return None
