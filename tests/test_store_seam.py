"""The store seam: every rule above engram/store/ talks to the Store protocol only.

A second backend (PostgreSQL) can only be added behind a seam that holds: no module
outside the store package imports sqlite3, reaches into a store's private attributes or
writes SQL of its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import engram

PACKAGE = Path(engram.__file__).parent
_SQL_RE = re.compile(
    r"\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)"
    r"|PRAGMA\s+\w|json_extract\(|julianday\()"
)
_PRIVATE = {"_db", "_lock", "_ledger", "_index"}


def offenders(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
            found.append(f"{name}:{node.lineno} imports sqlite3")
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            found.append(f"{name}:{node.lineno} imports from sqlite3")
        elif isinstance(node, ast.Attribute) and node.attr in _PRIVATE and (
            "store" in ast.unparse(node.value)
        ):
            found.append(f"{name}:{node.lineno} reads {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            _SQL_RE.search(node.value)
        ):
            found.append(f"{name}:{node.lineno} writes SQL {node.value[:50]!r}")
    return found


def test_nothing_above_the_store_imports_sqlite3_reads_its_insides_or_writes_sql():
    above = [p for p in sorted(PACKAGE.rglob("*.py"))
             if p.relative_to(PACKAGE).parts[0] != "store"]
    assert len(above) > 50
    found = [o for p in above for o in offenders(p.read_text(encoding="utf-8"),
                                                  str(p.relative_to(PACKAGE)))]
    assert found == []


def test_the_scan_finds_each_kind_of_breach():
    source = (
        "import sqlite3\n"
        "from sqlite3 import Error\n"
        "with service.store._lock:\n"
        "    rows = service.store._db.execute('SELECT id FROM memories WHERE seq > ?')\n"
        "note = 'select the best memory for the prompt, then update the index'\n"
    )
    found = offenders(source, "sample.py")
    assert [f.split(" ", 1)[1].split(" ")[0] for f in found].count("reads") == 2
    assert sum("imports" in f for f in found) == 2
    assert sum("writes SQL" in f for f in found) == 1  # the English sentence is not SQL
