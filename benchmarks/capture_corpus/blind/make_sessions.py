"""Writes the `blind/` half of the capture corpus with the `written/` half's builder.

The sessions in `sessions/NAME.py` were written and labelled without reading the extractor
(`engram/capture`, `engram/hooks`), so they are not shaped to fit it: do not tune the
extractor on them. Each script plays its session through the same `Session` builder as the
written half (imported from `../written/make_sessions.py` by path) and holds its gold items.

Run `python benchmarks/capture_corpus/blind/make_sessions.py [NAME ...]` to regenerate every
`NAME.jsonl` and `NAME.gold.json` here; the output is deterministic (seeded per session).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SESSIONS = HERE / "sessions"
WRITTEN = HERE.parent / "written" / "make_sessions.py"

_spec = importlib.util.spec_from_file_location("written_make_sessions", WRITTEN)
_builder = importlib.util.module_from_spec(_spec)
assert _spec.loader
sys.modules[_spec.name] = _builder
_spec.loader.exec_module(_builder)

Session = _builder.Session
Call = _builder.Call
load = _builder.load


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    sys.modules.setdefault("make_sessions", sys.modules[__name__])
    only = set(argv)
    for path in sorted(SESSIONS.glob("*.py")):
        if path.stem.startswith("_") or (only and path.stem.replace("_", "-") not in only):
            continue
        module = load(path)
        session = module.build()
        name = session.name
        (HERE / f"{name}.jsonl").write_text("\n".join(session.lines()) + "\n", encoding="utf-8")
        gold = {"source": "written", "licence": "Apache-2.0 (this repository)", **module.GOLD}
        (HERE / f"{name}.gold.json").write_text(
            json.dumps(gold, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"{name}: {len(session.entries)} entries, {len(gold.get('items', []))} gold items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
