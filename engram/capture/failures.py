"""What went wrong, in one line: the error a person would quote, not the first line printed.

A test run's first line is its progress dots (`F....`), a build's is a banner; the line
worth keeping is pytest's `E   KeyError: 'charge'`, TypeScript's `error TS2345: …`, the
last line of a traceback, rustc's `error[E0308]: mismatched types`. Tried in order of
how specific they are; the first kind found wins, and its first occurrence is kept.
"""

from __future__ import annotations

import re

MAX_ERROR_CHARS = 240

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PATTERNS: list[re.Pattern[str]] = [
    re.compile(r"^E\s{2,}(?P<m>\S.*)$", re.MULTILINE),  # pytest assertion detail
    re.compile(r"^FAILED \S+(?: - (?P<m>.+))?$", re.MULTILINE),  # pytest summary line
    re.compile(r"panicked at [^\n]*:\n(?P<m>.+)$", re.MULTILINE),  # Rust test panic message
    re.compile(r"^(?P<m>\S*\(\d+,\d+\): error TS\d+: .+|.*\berror TS\d+: .+)$", re.MULTILINE),
    # MSBuild's `File.cs(35,59): error CS0246: …` (C#, F#, VB), without the project suffix
    re.compile(r"^\s*(?P<m>\S*\(\d+,\d+\): (?:fatal )?error [A-Z]+\d+: .+?)(?: \[[^\]]+\])?$",
               re.MULTILINE),
    re.compile(r"^\s*Error Message:\s*\n\s*(?P<m>\S.+)$", re.MULTILINE),  # dotnet test, NUnit
    re.compile(r"^(?P<m>error(?:\[E\d+\])?: .+)$", re.MULTILINE),  # rustc, cargo
    # sbt / Maven: `[error] /src/Order.scala:14:50: could not find …` (the path shortened)
    re.compile(r"^\[(?:error|ERROR)\]\s+(?:\S*/)?(?P<m>[^\s/]+:\[?\d+[,:]\d+\]?:? .+)$",
               re.MULTILINE),
    re.compile(r"^\s*(?P<m>\*\* \(\w+(?:\.\w+)*\) .+)$", re.MULTILINE),  # Elixir
    re.compile(r"^(?P<m>\S+?:\d+(?::\d+)?: (?:fatal )?error: .+)$", re.MULTILINE),  # cc/go/swift
    # pyright: `  /src/app/convert.py:184:17 - error: Type of "x" is unknown (reportUnknown…)`
    re.compile(r"^\s*(?:\S*/)?(?P<m>[^\s/]+:\d+:\d+ - error: .+)$", re.MULTILINE),
    re.compile(r"^\s*(?P<m>\S+_test\.go:\d+: .+)$", re.MULTILINE),  # go test detail
    # Ansible's `fatal: [host]: FAILED! => {"msg": …}`; molecule's and other runners' CRITICAL
    re.compile(r"^(?:fatal|failed): \[[^\]]+\]: FAILED! => (?P<m>.+)$", re.MULTILINE),
    re.compile(r"^(?:CRITICAL|FATAL)\s+(?P<m>\S.+)$", re.MULTILINE),
    re.compile(r"^==\d+==\s*ERROR: (?P<m>.+)$", re.MULTILINE),  # ASan, LSan, TSan
    re.compile(r"^\s*(?P<m>\*\* [A-Z ]+ FAILED \*\*)$", re.MULTILINE),  # xcodebuild
    re.compile(r"^\s*(?P<m>● .+)$", re.MULTILINE),  # jest / vitest test title
    # R's testthat: `Failure (test-mod_commune.R:6:5): the test's name` and what failed
    re.compile(r"^(?P<m>(?:Failure|Error) \([^)\n]+:\d+(?::\d+)?\): .+\n\S.*)$", re.MULTILINE),
    # dbt: `Database Error in model x (…)` and the database's words on the next line
    re.compile(r"^(?:\d\d:\d\d:\d\d\s+)?\s*(?P<m>(?:Database|Compilation|Runtime) Error in [^\n]+"
               r"\n\s*(?:\d\d:\d\d:\d\d\s+)?\S[^\n]*|Failure in test [^\n]+)$", re.MULTILINE),
    re.compile(r"^==> X (?P<m>\S+.*?)(?:\s+\d+\.\d+s\b.*)?$", re.MULTILINE),  # munit
    # ExUnit: `  1) test name (Module)` then `Assertion with == failed`
    re.compile(r"^\s*\d+\) (?P<m>test .+?)(?: \([\w.]+\))?\n(?:.*\n){0,2}?\s*Assertion with",
               re.MULTILINE),
    re.compile(r"^\s*┃ \[[A-Z]\] \S (?P<m>.+)$", re.MULTILINE),  # credo's issue lines
    re.compile(r"^\s*\d+:\d+\s+error\s+(?P<m>.+)$", re.MULTILINE),  # eslint, stylelint
    # formatters' verdicts: prettier's "[warn] Code style issues found in 3 files. …",
    # black's and ruff's "would reformat src/app.py"
    re.compile(r"^(?:\[warn\]\s*)?(?P<m>Code style issues .+|[Ww]ould reformat .+)$",
               re.MULTILINE),
    # a browser's or a webview's console: "Unhandled Promise Rejection: updater.check not …"
    re.compile(r"^\s*(?P<m>(?:Unhandled|Uncaught) (?:Promise )?(?:Rejection|Exception|\w*Error)\b"
               r".*)$", re.MULTILINE),
    re.compile(r"^\s*(?P<m>(?:AssertionError|Expected|expected).{4,})$", re.MULTILINE),
    re.compile(r"^\s*(?P<m>[\w.$]*(?:Error|Exception|Failure)\b(?::.*)?)$", re.MULTILINE),
    re.compile(r"^\s*(?P<m>(?:fatal|error|ERROR|Error|npm ERR!|FAIL|BUILD FAILED)\b:?.*\S)$",
               re.MULTILINE),
    re.compile(r"^\s*(?P<m>(?:\S.*)?\b(?:not found|No such file or directory|Permission denied|"
               r"rejected|refused|conflict|cannot|can't|failed|Failed)\b.*?)\s*$", re.MULTILINE),
]
_NOISE_RE = re.compile(
    r"^(?:exit code \d+|error: exit code|=+|-+|\s*\d+ (?:passed|failed|errors?)\b.*|[.FEsx]+"
    r"|test result: FAILED.*|.*\bfailed=0\b.*|all checks passed!?|no (?:issues|problems) found\.?"
    r"(?:\s+\[\s*\d+%\])?|npm (?:warn|notice)\b.*|checking formatting\W*"
    r"|.*\b0 (?:\S+ )?(?:failed|failures|errors?)\b.*)$",  # "1 chart(s) linted, 0 chart(s) failed"
    re.IGNORECASE,
)
_TRACEBACK_RE = re.compile(r"Traceback \(most recent call last\):")


def _clean(line: str) -> str:
    line = " ".join(_ANSI_RE.sub("", line).split())
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 1] + "…"


# The last two patterns catch any line saying "error" or "failed": fine for a command's
# output, too loose for a person's own sentences.
_STRICT = len(_PATTERNS) - 2


def pasted_error(text: str) -> str:
    """The error line of a log or trace a person pasted into a message ('' when the message
    holds none): only its lines after the first, and only an unmistakable error line."""
    pasted = text.split("\n", 1)[1] if "\n" in text else ""
    return _telling(pasted, _PATTERNS[:_STRICT]) if pasted.strip() else ""


def error_line(output: str) -> str:
    """The most telling error line of a failed command's output ('' when there is none)."""
    if not output:
        return ""
    found = _telling(output, _PATTERNS)
    if found:
        return found
    text = _prepared(output)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not _NOISE_RE.match(ln)]
    return _clean((useful or lines or [""])[0])


def _prepared(output: str) -> str:
    text = _ANSI_RE.sub("", output)
    if text.count("\\n") > text.count("\n"):  # a JSON-escaped message kept as text
        text = text.replace("\\n", "\n")
    return text[len("Error: "):] if text.startswith("Error: ") else text


def _telling(output: str, patterns: list[re.Pattern[str]]) -> str:
    text = _prepared(output)
    trace = list(_TRACEBACK_RE.finditer(text))
    if trace:
        tail = text[trace[-1].end():].splitlines()
        for number in range(len(tail) - 1, -1, -1):
            line = tail[number]
            if re.match(r"^[\w.]*(Error|Exception|Exit|Interrupt)\b", line.strip()):
                # a message that goes on indented on the next line ("… returned 500)\n
                # Code: 252. DB::Exception: Too many parts …") says what went wrong
                more = tail[number + 1].strip() if number + 1 < len(tail) else ""
                if more and tail[number + 1][:1].isspace() and not more.startswith("File "):
                    return _clean(f"{line.strip()} {more}")
                return _clean(line.strip())
    for pattern in patterns:
        for match in pattern.finditer(text):
            found = (match.group("m") or match.group(0)).strip()
            if found and not _NOISE_RE.match(found):
                if found.endswith(":"):  # "error during build:" — the next line says what
                    following = text[match.end():].lstrip("\n").split("\n", 1)[0].strip()
                    found = f"{found} {following}".strip()
                return _clean(found)
    return ""


# A compiler's or linter's diagnostic (tsc's TS2304, rustc's E0369, an ESLint rule's id,
# flake8/ruff codes, mypy's error codes): fixed with no word of why, it is the routine
# edit-build loop, not a problem anyone needs to know about later.
_DIAGNOSTIC_RE = re.compile(
    r"\berror (TS|CS)\d{4,5}\b|\berror\[E\d{4}\]|"
    r"(^|[\s'\"(])@?[a-z][\w-]*/[a-z]+(-[a-z]+)+['\")]*\s*$|"  # plugin/rule-name
    r"\s(no|prefer)(-[a-z]+)+['\")]*\s*$|"  # ESLint's own rules: no-undef
    r"^\S+:\d+:\d+: [A-Z]{1,3}\d{3,4}\b|"  # path:1:2: F401
    r"\[[a-z]+(-[a-z]+)+\]\s*$")  # mypy: [attr-defined]


def is_diagnostic(error: str) -> bool:
    return bool(_DIAGNOSTIC_RE.search(error))
