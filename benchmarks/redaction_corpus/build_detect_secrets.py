"""Rebuild detect_secrets.jsonl: Yelp/detect-secrets' plugin test cases (Apache-2.0).

A second, independent corpus kept as a held-out check: Engram's rules were tuned on
gitleaks' samples, not on these. The cases are read from ``tests/plugins/*_test.py`` with
``ast`` (nothing from the checkout is executed): every ``pytest.mark.parametrize`` list of
``(line, should_flag)`` tuples or of bare lines (all flagged), and keyword_test.py's
``(line, expected_secret)`` tables, whose lines are positives when any language table
expects a secret and negatives when none does.

Left out, and counted on stderr: masked samples (a run of five or more ``x``/``X``/``Z``,
e.g. ``AP6xxxxxxxxxx``, ``AKIAZZZZZZZZZZZZZZZZ``: Engram keeps masks on purpose), lines
with no letter or digit, and the high-entropy-string plugin, whose positives are bare
random strings with no context (Engram keeps hashes and ids without context on purpose).

    git --git-dir /path/to/detect-secrets.git archive HEAD tests | tar -x -C /tmp/ds
    python benchmarks/redaction_corpus/build_detect_secrets.py /tmp/ds \\
        > benchmarks/redaction_corpus/detect_secrets.jsonl
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import sys
from pathlib import Path
from typing import Any

SKIP_FILES = {"high_entropy_strings_test.py", "base_test.py", "ip_public_test.py"}
MASK = re.compile(r"[xX]{5}|Z{5}")


class Unsupported(Exception):
    pass


def _eval(node: ast.AST, names: dict[str, Any]) -> Any:
    """Literal values, module constants, ``+`` and ``str.format`` of those."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unsupported(node.id)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, names) for e in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _eval(node.left, names) + _eval(node.right, names)
    if isinstance(node, ast.Subscript):
        return _eval(node.value, names)[_eval(node.slice, names)]
    if isinstance(node, ast.Slice):
        return slice(*(None if p is None else _eval(p, names)
                       for p in (node.lower, node.upper, node.step)))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        template = _eval(node.func.value, names)
        args = [_eval(a, names) for a in node.args]
        kwargs = {k.arg: _eval(k.value, names) for k in node.keywords if k.arg}
        return template.format(*args, **kwargs)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    raise Unsupported(type(node).__name__)


def _constants(tree: ast.Module) -> dict[str, Any]:
    names: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and isinstance(stmt.value, (ast.List, ast.Tuple)):
                # a table: keep the rows that evaluate (LONG_LINE calls base64 and randint)
                rows = (_safe(e, names) for e in stmt.value.elts)
                names[target.id] = tuple(r for r in rows if r is not None)
            elif isinstance(target, ast.Name):
                with contextlib.suppress(Unsupported, TypeError, KeyError, IndexError):
                    names[target.id] = _eval(stmt.value, names)
    return names


def _parametrize_cases(tree: ast.Module, names: dict[str, Any]) -> list[tuple[str, bool]]:
    cases: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parametrize" and len(node.args) >= 2):
            continue
        params = [p.strip() for p in str(_safe(node.args[0], names) or "").split(",")]
        if not params or params[0] not in ("line", "payload", "file_content"):
            continue
        flag_at = next((i for i, p in enumerate(params) if p == "should_flag"), None)
        if not isinstance(node.args[1], (ast.List, ast.Tuple)):
            continue
        for element in node.args[1].elts:
            value = _safe(element, names)
            if isinstance(value, str):
                cases.append((value, True))
            elif isinstance(value, tuple) and value and isinstance(value[0], str):
                flag = value[flag_at] if flag_at is not None and flag_at < len(value) else True
                if isinstance(flag, bool):
                    cases.append((value[0], flag))
    return cases


def _safe(node: ast.AST, names: dict[str, Any]) -> Any:
    try:
        return _eval(node, names)
    except (Unsupported, TypeError, KeyError, IndexError, ValueError):
        return None


def _keyword_cases(names: dict[str, Any]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for name, table in names.items():
        if name.endswith("_TEST_CASES") and isinstance(table, tuple):
            out.extend(c for c in table if isinstance(c, tuple) and len(c) == 2)
    return out


def build(root: Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    records: dict[tuple[str, str], dict[str, Any]] = {}
    dropped = {"masked": 0, "no letter or digit": 0}

    def add(plugin: str, text: str, positive: bool, secret: str | None) -> None:
        if not any(c.isalnum() for c in text):
            dropped["no letter or digit"] += 1
            return
        if positive and MASK.search(text):
            dropped["masked"] += 1
            return
        label = "tp" if positive else "fp"
        records.setdefault((label, text), {
            "source": "detect-secrets", "provider": plugin, "rule": plugin,
            "layout": "keyword" if plugin == "keyword" else "literal",
            "label": label, "text": text, "secret": secret,
        })

    for path in sorted((root / "tests" / "plugins").glob("*_test.py")):
        if path.name in SKIP_FILES:
            continue
        plugin = path.name[: -len("_test.py")]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        if plugin == "keyword":
            expected: dict[str, set[str | None]] = {}
            for line, secret in _keyword_cases(names):
                expected.setdefault(line, set()).add(secret)
            for line, secrets in expected.items():
                found = sorted(s for s in secrets if s)
                add(plugin, line, bool(found), found[0] if found else None)
            continue
        for text, flag in _parametrize_cases(tree, names):
            add(plugin, text, flag, None)
    # A line some test expects flagged is a secret, whatever another test says.
    positives = {text for label, text in records if label == "tp"}
    out = [r for (label, text), r in records.items() if label == "tp" or text not in positives]
    return out, dropped


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    records, dropped = build(Path(argv[0]))
    for r in records:
        sys.stdout.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    tps = sum(r["label"] == "tp" for r in records)
    print(f"{len(records)} samples: {tps} true positives, {len(records) - tps} false positives;"
          f" left out: {dropped}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
