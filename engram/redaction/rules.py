"""The rule table: every detector, in priority order."""

from __future__ import annotations

import re

from .assignments import _ASSIGNMENT, _CLI_FLAG, _check_assignment, _check_cli, _check_xml
from .format_checks import (
    _RUN,
    _RUN_HEAD,
    _check_basic,
    _check_basic_header,
    _check_bearer,
    _check_bearer_header,
    _check_discord,
    _check_header_other,
    _check_private_key,
    _check_url_password,
    _check_user_pass,
    _check_vendor,
)
from .rule import _W, Verdict, _after, _fixed, _not_placeholder, _random, _Rule, _with_digit
from .values import _fake, _has_classes, _is_placeholder, _machine_made, _random_letters

# Anthropic's documented keys: `sk-ant-api03-` or `sk-ant-admin01-`, 93 characters, `AA`.
# Those two versions are checked to the letter (a near miss is a sample); others, as any
# prefixed key.
_ANTHROPIC_VERSIONED = re.compile(r"sk-ant-(?:api03|admin01)-")
_ANTHROPIC_EXACT = re.compile(rf"sk-ant-(?:api03|admin01)-[{_W}]{{93}}AA")
_anthropic_random = _random("anthropic_key")


_GAP_WORDS = re.compile(r"[a-z]{2,}")
_PATH_LIKE = re.compile(r"(^|/)[A-Za-z]{2,}[/.]|^[./~]")  # ``projects/acme/…``, ``src/x.py``


def _check_mentioned(m: re.Match[str], text: str) -> Verdict:
    """A generated-looking run (upper and lower case and digits, not a hash) named a key,
    token or password by the words just before it."""
    gap = m.group("gap")
    if "=" in gap or len(_GAP_WORDS.findall(gap)) < 2:
        return None  # ``publicToken = "…"``: code, which the assignment rules judge
    start, end = m.span("v")
    value = text[start:end].rstrip(".")
    if not (_machine_made(value) and _has_classes(value, 3)) or _fake(value) or (
        _is_placeholder(value) or _PATH_LIKE.search(value)
    ):
        return None
    return "secret", start, start + len(value)


def _anthropic(m: re.Match[str], text: str) -> Verdict:
    if _ANTHROPIC_VERSIONED.match(m.group(0)) and not _ANTHROPIC_EXACT.match(m.group(0)):
        return None  # a key run on into more characters is still the key
    return _anthropic_random(m, text)


_HEADER = r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?"

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
        check=_anthropic,
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
    _Rule("azure_storage_key", r"SharedAccessSignature=(?P<v>[^;\s\"']+)", "v"),
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
    # "here's a token for it, zone:read only: Xq7vR2…": a key handed over in a sentence
    *(
        _Rule(  # one literal each: an alternation at the start would defeat sre's fast scan
            "secret",
            word + r"s?\b(?P<gap>[^\n]{0,80}?)"
            r"[\s:(\[][\"'`]?(?P<v>[a-z0-9_\-+/=.]{20,})(?![a-z0-9_\-+/=.])",
            "v",
            _check_mentioned,
            lower=True,
            trigger=word,
        )
        for word in ("token", "key", "secret", "credential", "password", "passphrase")
    ),
)
