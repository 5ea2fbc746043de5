"""Rebuild gitleaks.jsonl from a gitleaks checkout: its rules' own true/false-positive samples.

gitleaks (MIT, see LICENSE-gitleaks beside this file) validates every rule in
``cmd/generate/config/rules/*.go`` against samples written in Go: literal lines, and
secrets generated from a regex (``secrets.NewSecret(utils.AlphaNumeric("32"))``) then
laid out by ``utils.GenerateSampleSecrets`` in ~30 assignment syntaxes (INI, JSON, XML,
YAML, Go, Java, PHP, Makefile...). This script evaluates that Go with a small
interpreter (string literals, ``+``, ``append``, ``fmt.Sprintf``, the ``utils`` helpers,
slice and map literals), samples each regex with a seeded generator (as gitleaks' reggen
does, so reruns give the same file) and writes one JSON object per sample:

    {"source": "gitleaks", "provider": "asana", "rule": "asana-client-secret",
     "layout": "make - conditional assignment", "label": "tp", "text": "...",
     "secret": "..."}

``secret`` is the exact secret for generated layouts, the rule's capture for literal
samples when its regex runs under Python's ``re``, else null. A false-positive sample that
is also a true positive of another rule (gitleaks reuses one provider's keys as another
rule's negatives) is dropped: it is a secret. Statements the interpreter cannot run
(loops building base64 JWTs) are skipped and counted on stderr.

    git --git-dir /path/to/gitleaks.git archive HEAD cmd/generate | tar -x -C /tmp/gitleaks
    python benchmarks/redaction_corpus/build_gitleaks.py /tmp/gitleaks \\
        > benchmarks/redaction_corpus/gitleaks.jsonl
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import random
import re
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:  # Python 3.11+
    import re._constants as sre_c  # type: ignore[import-not-found]
    import re._parser as sre_p  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_constants as sre_c  # type: ignore[no-redef]
    import sre_parse as sre_p  # type: ignore[no-redef]

RULES_DIR = "cmd/generate/config/rules"

# utils.GenerateSampleSecrets' layouts, copied from cmd/generate/config/utils/generate.go
# ({i} identifier, {I} upper-cased identifier, {s} secret). The TODO layouts there are
# not part of gitleaks' validation and are left out here too.
LAYOUTS: dict[str, str] = {
    "ini - quoted1": '{i}Token="{s}"',
    "ini - quoted2": '{i}Token = "{s}"',
    "ini - unquoted1": "{i}Token={s}",
    "ini - unquoted2": "{i}Token = {s}",
    "json - string": '{\n    "{i}_token": "{s}"\n}',
    "json - escaped newline in string": '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "xml - element multiline": "<{i}Token>\n    {s}\n</{i}Token>",
    "yaml - singleline - unquoted": "{i}_token: {s}",
    "yaml - singleline - single quote": "{i}_token: '{s}'",
    "yaml - singleline - double quote": '{i}_token: "{s}"',
    "C#": 'string {i}Token = "{s}";',
    "go - normal": 'var {i}Token string = "{s}"',
    "go - short": '{i}Token := "{s}"',
    "go - backticks": "{i}Token := `{s}`",
    "java": 'String {i}Token = "{s}";',
    "kotlin - notype": 'var {i}Token = "{s}"',
    "php - string concat": '${i}Token .= "{s}"',
    "python - single quote": "{i}Token = '{s}'",
    "python - double quote": '{i}Token = "{s}"',
    "misc - comma operator": 'System.setProperty("{I}_TOKEN", "{s}")',
    "logstash": '  "{i}Token" => "{s}"',
    "make - recursive assignment": '{i}_TOKEN = "{s}"',
    "make - simple assignment": '{i}_TOKEN := "{s}"',
    "make - shell assignment": '{i}_TOKEN ::= "{s}"',
    "make - evaluated shell assignment": '{i}_TOKEN :::= "{s}"',
    "make - conditional assignment": '{i}_TOKEN ?= "{s}"',
}
SINGLE_LAYOUT = "sample - api_token"  # utils.GenerateSampleSecret: {i}_api_token = "{s}"


class Unsupported(Exception):
    """A Go construct this interpreter does not run; the statement is skipped."""


# --- Go tokens --------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<ws>[ \t\r]+)|(?P<nl>\n)|(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<raw>`[^`]*`)|(?P<str>"(?:\\.|[^"\\\n])*")|(?P<rune>'(?:\\.|[^'\\\n])+')
    |(?P<num>\d[\w.]*)|(?P<ident>[A-Za-z_]\w*)
    |(?P<op>\.\.\.|:=|==|!=|<=|>=|&&|\|\||\+\+|--|\+=|[-+*/%&|^!<>=(){}\[\],;:.])""",
    re.S | re.X,
)
_GO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
               "b": "\b", "f": "\f", "v": "\v"}


def _unquote(literal: str) -> str:
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _GO_ESCAPES:
            out.append(_GO_ESCAPES[e])
            i += 2
        elif e == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif e in "uU":
            width = 4 if e == "u" else 8
            out.append(chr(int(body[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:  # octal
            out.append(chr(int(body[i + 1 : i + 4], 8)))
            i += 4
    return "".join(out)


def tokenize(source: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup or ""
        if kind in ("ws", "comment"):
            if kind == "comment" and "\n" in m.group():
                tokens.append(("nl", "\n"))
            continue
        tokens.append((kind, m.group()))
    return tokens


# --- regex sampling (what gitleaks' reggen does, seeded) --------------------------------

_CATEGORIES = {
    sre_c.CATEGORY_DIGIT: "0123456789",
    sre_c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    sre_c.CATEGORY_SPACE: " ",
}
_PRINTABLE = [chr(c) for c in range(33, 127)]
_REPEAT_LIMIT = 1  # reggen's Generate(1): ``+``/``*`` repeat at most once more


def _class_chars(items: list[Any]) -> list[str]:
    chars: set[str] = set()
    negate = False
    for op, av in items:
        if op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.LITERAL:
            chars.add(chr(av))
        elif op is sre_c.RANGE:
            chars.update(chr(c) for c in range(av[0], av[1] + 1))
        elif op is sre_c.CATEGORY:
            if av not in _CATEGORIES:
                raise Unsupported(f"class category {av}")
            chars.update(_CATEGORIES[av])
    if negate:
        return [c for c in _PRINTABLE if c not in chars]
    return sorted(chars)


def _sample(items: Any, rng: random.Random, icase: bool) -> str:
    out: list[str] = []
    for op, av in items:
        if op is sre_c.LITERAL:
            out.append(chr(av))
        elif op is sre_c.NOT_LITERAL:
            out.append(rng.choice([c for c in _PRINTABLE if c != chr(av)]))
        elif op is sre_c.ANY:
            out.append(rng.choice(_PRINTABLE))
        elif op is sre_c.IN:
            out.append(rng.choice(_class_chars(av)))
        elif op is sre_c.CATEGORY:
            out.append(rng.choice(_CATEGORIES[av]))
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            if high == sre_c.MAXREPEAT:
                high = low + _REPEAT_LIMIT
            out.extend(_sample(sub, rng, icase) for _ in range(rng.randint(low, high)))
        elif op is sre_c.SUBPATTERN:
            out.append(_sample(av[-1], rng, icase))
        elif op is sre_c.BRANCH:
            out.append(_sample(rng.choice(av[1]), rng, icase))
        elif op is sre_c.AT:
            continue
        else:
            raise Unsupported(f"regex op {op}")
    return "".join(out)


class Sampler:
    """One seeded random stream per rule file, so rebuilding gives the same corpus."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(zlib.crc32(seed.encode()))

    def secret(self, regex: str, plausible: bool = False) -> str:
        parsed = sre_p.parse(_python_regex(regex))
        for _ in range(1000):
            value = _sample(parsed, self.rng, False)
            if not plausible or re.search(r"[1-9]", value):
                return value
        raise Unsupported(f"no plausible sample for {regex}")


def _python_regex(go: str) -> str:
    """The few RE2 spellings Python's ``re`` writes differently."""
    posix = {"alnum": "A-Za-z0-9", "alpha": "A-Za-z", "digit": "0-9", "lower": "a-z",
             "upper": "A-Z", "space": r"\s", "xdigit": "0-9A-Fa-f", "word": r"\w"}
    out = re.sub(r"\[:(\w+):\]", lambda m: posix.get(m.group(1), m.group()), go)
    out = out.replace(r"\z", r"\Z").replace("(?P<", "(?P<")
    return out


# --- the interpreter -------------------------------------------------------------------


class Sample(str):
    """A string produced by a layout helper; remembers its layout and secret."""

    layout: str
    secret: str | None

    def __new__(cls, text: str, layout: str, secret: str | None) -> Sample:
        obj = super().__new__(cls, text)
        obj.layout, obj.secret = layout, secret
        return obj


def layouts(identifier: str, secret: str) -> list[Sample]:
    out = []
    for name, template in LAYOUTS.items():
        text = (template.replace("{i}", identifier).replace("{I}", identifier.upper())
                .replace("{s}", secret))
        out.append(Sample(text, name, secret))
    return out


def _sprintf(fmt: str, *args: Any) -> str:
    values = iter(args)

    def one(m: re.Match[str]) -> str:
        if m.group() == "%%":
            return "%"
        return str(next(values))

    return re.sub(r"%%|%[-+ #0-9.]*[sdvq]", one, fmt)


def _semi_generic(identifiers: list[str], secret_regex: str, ci: bool) -> str:
    ids = "|".join(identifiers)
    head = rf"(?i)[\w.-]{{0,50}}?(?:{ids})" if ci else rf"[\w.-]{{0,50}}?(?i:{ids})"
    return (
        head + r"(?:[ \t\w.-]{0,20})[\s'" + '"' + r"]{0,3}"
        r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)" r"[\x60'" + '"' + r"\s=]{0,5}("
        + secret_regex + r")(?:[\x60'" + '"' + r"\s;]|\\[nr]|$)"
    )


def _unique(secret_regex: str, ci: bool) -> str:
    return ("(?i)" if ci else "") + r"\b(" + secret_regex + r")(?:[\x60'" + '"' + r"\s;]|\\[nr]|$)"


class Interpreter:
    def __init__(self, files: dict[str, str]) -> None:
        self.globals: dict[str, Any] = {}
        self.functions: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        self.skipped: list[str] = []
        self.sampler = Sampler("gitleaks")
        for name, source in sorted(files.items()):
            self._load(name, tokenize(source))

    # top level: ``var x = ...`` and ``func Name() ... { body }``
    def _load(self, filename: str, toks: list[tuple[str, str]]) -> None:
        i = 0
        while i < len(toks):
            kind, text = toks[i]
            if text == "func" and kind == "ident":
                name = toks[i + 1][1]
                j = i + 2
                while toks[j][1] != "{":
                    j += 1
                end = self._matching(toks, j)
                self.functions[name] = (filename, toks[j + 1 : end])
                i = end + 1
            elif text == "var" and kind == "ident":
                end = self._statement_end(toks, i)
                try:
                    self._run_statement(toks[i:end], self.globals, filename)
                except (Unsupported, KeyError, IndexError, ValueError) as exc:
                    self.skipped.append(f"{filename}: global: {exc}")
                i = end
            else:
                i += 1

    @staticmethod
    def _matching(toks: list[tuple[str, str]], open_at: int) -> int:
        depth = 0
        for j in range(open_at, len(toks)):
            t = toks[j][1]
            if toks[j][0] == "op" and t in "([{":
                depth += 1
            elif toks[j][0] == "op" and t in ")]}":
                depth -= 1
                if depth == 0:
                    return j
        raise Unsupported("unbalanced")

    @staticmethod
    def _statement_end(toks: list[tuple[str, str]], start: int) -> int:
        depth = 0
        for j in range(start, len(toks)):
            kind, t = toks[j]
            if kind == "op" and t in "([{":
                depth += 1
            elif kind == "op" and t in ")]}":
                depth -= 1
            elif depth == 0 and (kind == "nl" or t == ";"):
                prev = toks[j - 1][1] if j > start else ""
                if prev not in ("+", ",", "(", "{", "=", ":=", "&&", "||"):
                    return j
        return len(toks)

    def run_rules(self) -> Iterator[dict[str, Any]]:
        for name, (filename, body) in self.functions.items():
            if name[0].islower():
                continue
            yield from self._run_rule(name, filename, body)

    def _run_rule(self, name: str, filename: str, body: list[tuple[str, str]]) -> Iterator[Any]:
        scope: dict[str, Any] = {}
        i = 0
        while i < len(body):
            start, end = i, self._statement_end(body, i)
            stmt = [t for t in body[start:end] if t[0] != "nl"]
            i = end + 1
            if not stmt:
                continue
            if stmt[0][1] == "return":
                if len(stmt) > 3 and stmt[1][1] == "utils" and stmt[3][1].startswith("Validate"):
                    try:
                        args = self._call_args(stmt, 4, scope)
                    except (Unsupported, KeyError, StopIteration, IndexError) as exc:
                        self.skipped.append(f"{filename}:{name}: {exc}")
                        continue
                    yield {"function": name, "file": filename, "rule": scope.get("r", {}),
                           "tps": args[1], "fps": args[2]}
                continue
            if [t[1] for t in stmt[:2]] == ["var", "("]:  # var ( a = x \n b = y )
                group = body[start:end]
                close = self._matching(group, 1)
                inner, j = group[2:close], 0
                while j < len(inner):
                    k = self._statement_end(inner, j)
                    one = [t for t in inner[j:k] if t[0] != "nl"]
                    j = k + 1
                    if not one:
                        continue
                    try:
                        self._run_statement([("ident", "var"), *one], scope, filename)
                    except (Unsupported, KeyError, StopIteration, IndexError, ValueError) as exc:
                        self.skipped.append(f"{filename}:{name}: {exc}")
                continue
            try:
                self._run_statement(stmt, scope, filename)
            except (Unsupported, KeyError, StopIteration, IndexError, ValueError) as exc:
                self.skipped.append(f"{filename}:{name}: {exc}")

    def _run_statement(self, stmt: list[tuple[str, str]], scope: dict[str, Any],
                       filename: str) -> None:
        stmt = [t for t in stmt if t[0] != "nl"]
        texts = [t[1] for t in stmt]
        if texts[0] == "var":
            if "=" not in texts:
                scope[texts[1]] = []
                return
            target, at = texts[1], texts.index("=") + 1
        elif len(texts) > 2 and texts[1] in (":=", "="):
            target, at = texts[0], 2
        else:
            raise Unsupported(f"statement {' '.join(texts[:6])}")
        value, pos = self._expr(stmt, at, scope)
        scope[target] = value

    def _call_args(self, toks: list[tuple[str, str]], pos: int, scope: dict[str, Any]
                   ) -> list[Any]:
        args: list[Any] = []
        assert toks[pos][1] == "("
        pos += 1
        while toks[pos][1] != ")":
            value, pos = self._expr(toks, pos, scope)
            if toks[pos][1] == "...":
                value = _Spread(value)
                pos += 1
            args.append(value)
            if toks[pos][1] == ",":
                pos += 1
        return args

    def _expr(self, toks: list[tuple[str, str]], pos: int, scope: dict[str, Any]
              ) -> tuple[Any, int]:
        value, pos = self._primary(toks, pos, scope)
        while pos < len(toks) and toks[pos][1] == "+":
            right, pos = self._primary(toks, pos + 1, scope)
            value = _concat(value, right)
        return value, pos

    def _composite(self, toks: list[tuple[str, str]], pos: int, scope: dict[str, Any],
                   keyed: bool) -> tuple[Any, int]:
        assert toks[pos][1] == "{"
        end = self._matching(toks, pos)
        pos += 1
        items: list[Any] = []
        fields: dict[str, Any] = {}
        while pos < end:
            if toks[pos][1] == ",":
                pos += 1
                continue
            if keyed:
                key_tok = toks[pos]
                if toks[pos + 1][1] != ":":
                    raise Unsupported("composite without keys")
                key = _unquote(key_tok[1]) if key_tok[0] in ("str", "raw") else key_tok[1]
                try:
                    value, pos = self._expr(toks, pos + 2, scope)
                except (Unsupported, KeyError, ValueError):
                    value = None
                    depth = 0  # skip this field's value
                    while pos < end:
                        t = toks[pos][1]
                        if t in "([{":
                            depth += 1
                        elif t in ")]}":
                            depth -= 1
                        elif t == "," and depth == 0:
                            break
                        pos += 1
                fields[key] = value
            else:
                value, pos = self._expr(toks, pos, scope)
                items.append(value)
        return (fields if keyed else items), end + 1

    def _primary(self, toks: list[tuple[str, str]], pos: int, scope: dict[str, Any]
                 ) -> tuple[Any, int]:
        kind, text = toks[pos]
        if kind == "str":
            return _unquote(text), pos + 1
        if kind == "raw":
            return text[1:-1], pos + 1
        if kind == "num":
            return int(text) if text.isdigit() else text, pos + 1
        if text == "&":
            return self._primary(toks, pos + 1, scope)
        if text == "{":  # an element of a slice of structs
            return self._composite(toks, pos, scope, keyed=True)
        if text == "[" and [t[1] for t in toks[pos + 1 : pos + 4]] == ["]", "byte", "("]:
            value, end = self._expr(toks, pos + 4, scope)  # []byte(s): the same text
            return value, end + 1
        if text == "[":  # []string{...}, []*regexp.Regexp{...}
            j = pos
            while toks[j][1] != "{":
                j += 1
            return self._composite(toks, j, scope, keyed=False)
        if text == "map":
            j = pos
            while toks[j][1] != "{":
                j += 1
            return self._composite(toks, j, scope, keyed=True)
        if kind != "ident":
            raise Unsupported(f"token {text}")
        # qualified name a.b.c
        name, pos = text, pos + 1
        while pos + 1 < len(toks) and toks[pos][1] == "." and toks[pos + 1][0] == "ident":
            name += "." + toks[pos + 1][1]
            pos += 2
        if pos < len(toks) and toks[pos][1] == "{" and name in ("config.Rule",
                                                               "config.Allowlist"):
            return self._composite(toks, pos, scope, keyed=True)
        if pos < len(toks) and toks[pos][1] == "(":
            end = self._matching(toks, pos)
            args = self._call_args(toks, pos, scope)
            return self._call(name, args), end + 1
        if name in scope:
            return scope[name], pos
        if name in self.globals:
            return self.globals[name], pos
        if name in ("true", "false"):
            return name == "true", pos
        if name == "nil":
            return [], pos
        raise Unsupported(f"name {name}")

    def _call(self, name: str, args: list[Any]) -> Any:
        s = self.sampler
        simple = {
            "utils.Numeric": lambda n: f"[0-9]{{{n}}}",
            "utils.Hex": lambda n: f"[a-f0-9]{{{n}}}",
            "utils.AlphaNumeric": lambda n: f"[a-z0-9]{{{n}}}",
            "utils.AlphaNumericExtendedShort": lambda n: f"[a-z0-9_-]{{{n}}}",
            "utils.AlphaNumericExtended": lambda n: f"[a-z0-9=_\\-]{{{n}}}",
            "utils.AlphaNumericExtendedLong": lambda n: f"[a-z0-9\\/=_\\+\\-]{{{n}}}",
            "utils.Hex8_4_4_4_12": lambda: (
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
            "secrets.NewSecret": s.secret,
            "newPlausibleSecret": lambda r: s.secret(r, plausible=True),
            "fmt.Sprintf": _sprintf,
            "regexp.MustCompile": lambda r: r,
            "utils.GenerateSemiGenericRegex": _semi_generic,
            "utils.GenerateUniqueTokenRegex": _unique,
            "utils.MergeRegexps": lambda *rs: "|".join(rs),
            "utils.GenerateSampleSecrets": layouts,
            "utils.GenerateSampleSecret": lambda i, v: Sample(
                f'{i}_api_token = "{v}"', SINGLE_LAYOUT, v),
            "strings.Repeat": lambda v, n: v * n,
            "base64.StdEncoding.EncodeToString": lambda v: base64.b64encode(
                v.encode()).decode(),
            "strings.ToUpper": str.upper,
            "strings.ToLower": str.lower,
        }
        if name == "append":
            out = list(args[0])
            for arg in args[1:]:
                out.extend(arg.value if isinstance(arg, _Spread) else [arg])
            return out
        if name in simple:
            return simple[name](*args)
        raise Unsupported(f"call {name}")


class _Spread:
    def __init__(self, value: Any) -> None:
        self.value = value


def _concat(left: Any, right: Any) -> str:
    if isinstance(left, list) or isinstance(right, list):
        raise Unsupported("+ on a list")
    return str(left) + str(right)


# --- building the corpus ----------------------------------------------------------------


def _secret_of(regex: str | None, text: str, group: int | None) -> str | None:
    """The secret gitleaks would report for a literal sample, when ``re`` can run the rule."""
    if not regex:
        return None
    try:
        m = re.search(_python_regex(regex), text)
    except re.error:
        return None
    if not m:
        return None
    if group:
        return m.group(group)
    for value in m.groups():
        if value:
            return value
    return m.group()


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


class Matcher:
    """One rule as gitleaks applies it to a line: keywords, regex, secret group, entropy,
    and the rule's own allowlists (regexes on the secret, match or line; stop words).
    Path-based allowlists and rules Python's ``re`` cannot compile are left out."""

    def __init__(self, rule: dict[str, Any]) -> None:
        self.id = rule.get("RuleID") or "?"
        source = _python_regex(rule["Regex"])
        try:
            self.regex = re.compile(source)
        except re.error:
            # RE2 allows ``(?i)`` mid-pattern (case-insensitive from there on); Python only
            # at the start: the whole rule turns case-insensitive, a little looser.
            self.regex = re.compile("(?i)" + source.replace("(?i)", ""))
        self.group = rule.get("SecretGroup") if isinstance(rule.get("SecretGroup"), int) else 0
        entropy = rule.get("Entropy")
        self.entropy = float(entropy) if isinstance(entropy, (int, str)) else 0.0
        keywords = rule.get("Keywords")
        self.keywords = [k.lower() for k in keywords] if isinstance(keywords, list) else []
        self.allow: list[tuple[str, list[re.Pattern[str]], list[str]]] = []
        for allow in rule.get("Allowlists") or []:
            if not isinstance(allow, dict) or allow.get("Paths"):
                continue
            regexes = []
            for pattern in allow.get("Regexes") or []:
                with contextlib.suppress(re.error, TypeError):
                    regexes.append(re.compile(_python_regex(pattern)))
            stop = [w.lower() for w in allow.get("StopWords") or [] if isinstance(w, str)]
            target = allow.get("RegexTarget") if isinstance(allow.get("RegexTarget"), str) else ""
            self.allow.append((target or "secret", regexes, stop))

    def flags(self, text: str) -> bool:
        low = text.lower()
        if self.keywords and not any(k in low for k in self.keywords):
            return False
        for m in self.regex.finditer(text):
            secret = m.group(self.group) if self.group else next(
                (g for g in m.groups() if g), m.group())
            if not secret or (self.entropy and _entropy(secret) < self.entropy):
                continue
            if any(self._allowed(target, regexes, stop, secret, m.group(), text)
                   for target, regexes, stop in self.allow):
                continue
            return True
        return False

    @staticmethod
    def _allowed(target: str, regexes: list[re.Pattern[str]], stop: list[str], secret: str,
                 match: str, line: str) -> bool:
        subject = {"match": match, "line": line}.get(target, secret)
        if any(r.search(subject) for r in regexes):
            return True
        return any(w in secret.lower() for w in stop)


def _matchers(rules: list[dict[str, Any]]) -> list[Matcher]:
    out = []
    for rule in rules:
        if isinstance(rule.get("Regex"), str):
            with contextlib.suppress(re.error):
                out.append(Matcher(rule))
    return out


def _values(samples: Any) -> list[Any]:
    if isinstance(samples, dict):
        return list(samples.values())
    return list(samples or [])


def build(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    files = {p.stem: p.read_text(encoding="utf-8") for p in sorted((root / RULES_DIR).glob("*.go"))
             if not p.name.endswith("_test.go")}
    interp = Interpreter(files)
    records: list[dict[str, Any]] = []
    rules: list[dict[str, Any]] = []
    for found in interp.run_rules():
        if isinstance(found["rule"], dict):
            rules.append(found["rule"])
        rule = found["rule"] if isinstance(found["rule"], dict) else {}
        rule_id = rule.get("RuleID") or found["function"]
        regex = rule.get("Regex") if isinstance(rule.get("Regex"), str) else None
        group = rule.get("SecretGroup") if isinstance(rule.get("SecretGroup"), int) else None
        for label, samples in (("tp", found["tps"]), ("fp", found["fps"])):
            for text in _values(samples):
                if not isinstance(text, str) or not text.strip():
                    continue
                layout = getattr(text, "layout", "literal")
                secret = getattr(text, "secret", None)
                if label == "tp" and secret is None:
                    secret = _secret_of(regex, text, group)
                records.append({
                    "source": "gitleaks", "provider": found["file"], "rule": rule_id,
                    "layout": layout, "label": label, "text": str(text), "secret": secret,
                })
    # One record per (label, text); a negative that is some rule's positive is a secret.
    positives = {r["text"] for r in records if r["label"] == "tp"}
    seen: set[tuple[str, str]] = set()
    unique = []
    dropped = 0
    for r in records:
        key = (r["label"], r["text"])
        if key in seen:
            continue
        seen.add(key)
        if r["label"] == "fp" and r["text"] in positives:
            dropped += 1
            continue
        unique.append(r)
    # A negative of one rule that another rule flags (gitleaks lists real-format keys of
    # the wrong length, or the Firebase SDK's published keys, as one rule's negatives) is
    # not a negative for gitleaks as a whole: labelled ``fp_flagged`` and reported apart.
    matchers = _matchers(rules)
    flagged = 0
    for r in unique:
        if r["label"] == "fp" and any(m.flags(r["text"]) for m in matchers):
            r["label"] = "fp_flagged"
            flagged += 1
    notes = interp.skipped + [
        f"{dropped} false-positive samples are another rule's positives (dropped)",
        f"{flagged} false-positive samples are flagged by some rule (fp_flagged), "
        f"{len(matchers)} of {len(rules)} rules run under Python's re",
    ]
    return unique, notes


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    records, notes = build(Path(argv[0]))
    for note in notes:
        print("note:", note, file=sys.stderr)
    for r in records:
        sys.stdout.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    tps = sum(r["label"] == "tp" for r in records)
    providers = len({r["provider"] for r in records if r["label"] == "tp"})
    print(f"{len(records)} samples: {tps} true positives from {providers} providers, "
          f"{len(records) - tps} false positives", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
