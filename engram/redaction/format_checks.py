"""Checks for the rules that match a known format by shape: private keys, URLs with a
password, Authorization headers, ``curl -u``, Discord tokens and vendor prefixes."""

from __future__ import annotations

import binascii
import re

from .lazy_regex import _Re
from .rule import Verdict, _original
from .values import _WORDS_ONLY, _fake, _has_classes, _is_placeholder, _random_letters

_PRIVATE_KEY_BODY = _Re(
    r"(?:\s|\\[nr])*"  # newlines, real or JSON-escaped
    r"(?:[A-Za-z][A-Za-z-]*:[^\n\\]*(?:\n|\\n)(?:\s|\\[nr])*){0,4}"  # Proc-Type:, Version:
    r"[A-Za-z0-9+/=]{20}"
)


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
