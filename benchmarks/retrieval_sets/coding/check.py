"""Validate the coding-assistant retrieval set and print a summary.

Usage: python benchmarks/retrieval_sets/coding/check.py [directory]

Standard library only. Exits with status 1 and lists every problem found when the
set is malformed; otherwise prints counts per category, type, language and project.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import re
import sys
from pathlib import Path

TYPES = {
    "decision",
    "preference",
    "constraint",
    "verified_command",
    "bug_note",
    "failed_attempt",
    "todo",
    "open_question",
    "project_fact",
    "episode",
}
CATEGORIES = {
    "paraphrase",
    "identifier",
    "error",
    "trap",
    "supersede",
    "temporal",
    "filter",
    "generic-word",
    "multilingual",
    "crosslingual",
}
MIN_PER_CATEGORY = {c: 12 for c in CATEGORIES} | {"multilingual": 10, "crosslingual": 10}
LANGUAGES = {"en", "ru", "de", "fr", "es", "ja", "zh"}
MEMORY_FIELDS = {
    "id",
    "content",
    "type",
    "project",
    "tags",
    "files",
    "event_at",
    "supersedes",
    "language",
}
QUERY_FIELDS = {"id", "query", "relevant", "filters", "category", "forbidden"}
FILTER_FIELDS = {"type", "project", "since", "until"}
TODAY = dt.date(2026, 11, 25)
OLDEST = dt.date(2025, 5, 25)  # 18 months back
MIN_MEMORIES, MIN_QUERIES = 180, 120


def _date(value: object) -> dt.date | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _load(path: Path, errors: list[str]) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{n}: invalid JSON ({exc})")
            continue
        if not isinstance(row, dict):
            errors.append(f"{path.name}:{n}: not an object")
            continue
        rows.append(row)
    return rows


def _str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) and x for x in value)


def check(directory: Path) -> int:
    errors: list[str] = []
    mems = _load(directory / "memories.jsonl", errors)
    queries = _load(directory / "queries.jsonl", errors)

    # ---- memories
    by_id: dict[str, dict] = {}
    for m in mems:
        mid = m.get("id")
        if not isinstance(mid, str) or not re.fullmatch(r"m\d{3,}", mid):
            errors.append(f"memory id {mid!r} is not like 'm001'")
            continue
        if mid in by_id:
            errors.append(f"duplicate memory id {mid}")
        by_id[mid] = m
        extra = set(m) - MEMORY_FIELDS
        if extra:
            errors.append(f"{mid}: unknown fields {sorted(extra)}")
        if not isinstance(m.get("content"), str) or not m["content"].strip():
            errors.append(f"{mid}: empty content")
        if m.get("type") not in TYPES:
            errors.append(f"{mid}: invalid type {m.get('type')!r}")
        if "project" in m and (not isinstance(m["project"], str) or not m["project"]):
            errors.append(f"{mid}: project must be a non-empty string or absent")
        for field in ("tags", "files"):
            if field in m and not _str_list(m[field]):
                errors.append(f"{mid}: {field} must be a list of strings")
        if "event_at" in m:
            d = _date(m["event_at"])
            if d is None:
                errors.append(f"{mid}: event_at {m['event_at']!r} is not an ISO date")
            elif not OLDEST <= d <= TODAY:
                errors.append(f"{mid}: event_at {d} outside {OLDEST}..{TODAY}")
        if m.get("language", "en") not in LANGUAGES:
            errors.append(f"{mid}: language {m.get('language')!r} not in {sorted(LANGUAGES)}")
    superseded: dict[str, str] = {}
    for mid, m in by_id.items():
        old = m.get("supersedes")
        if old is None:
            continue
        if old not in by_id:
            errors.append(f"{mid}: supersedes unknown id {old}")
            continue
        if old == mid:
            errors.append(f"{mid}: supersedes itself")
        if old in superseded:
            errors.append(f"{old} is superseded twice ({superseded[old]}, {mid})")
        superseded[old] = mid
        d_new, d_old = _date(m.get("event_at")), _date(by_id[old].get("event_at"))
        if d_new and d_old and d_new <= d_old:
            errors.append(f"{mid} supersedes {old} but is not newer ({d_new} <= {d_old})")

    # ---- queries
    qids: set[str] = set()
    per_cat: collections.Counter[str] = collections.Counter()
    for q in queries:
        qid = q.get("id")
        if not isinstance(qid, str) or not re.fullmatch(r"q\d{3,}", qid):
            errors.append(f"query id {qid!r} is not like 'q001'")
            continue
        if qid in qids:
            errors.append(f"duplicate query id {qid}")
        qids.add(qid)
        extra = set(q) - QUERY_FIELDS
        if extra:
            errors.append(f"{qid}: unknown fields {sorted(extra)}")
        if not isinstance(q.get("query"), str) or not q["query"].strip():
            errors.append(f"{qid}: empty query")
        cat = q.get("category")
        if cat not in CATEGORIES:
            errors.append(f"{qid}: invalid category {cat!r}")
        else:
            per_cat[cat] += 1
        rel = q.get("relevant")
        if not _str_list(rel) or not rel:
            errors.append(f"{qid}: relevant must be a non-empty list of ids")
            rel = []
        if len(set(rel)) != len(rel):
            errors.append(f"{qid}: duplicate ids in relevant")
        forb = q.get("forbidden", [])
        if not isinstance(forb, list):
            errors.append(f"{qid}: forbidden must be a list")
            forb = []
        for rid in list(rel) + list(forb):
            if rid not in by_id:
                errors.append(f"{qid}: unknown memory id {rid}")
        if set(rel) & set(forb):
            errors.append(f"{qid}: ids both relevant and forbidden: {sorted(set(rel) & set(forb))}")
        for rid in rel:
            if rid in superseded:
                errors.append(f"{qid}: relevant {rid} is superseded by {superseded[rid]}")
        if cat in ("trap", "supersede") and not forb:
            errors.append(f"{qid}: a {cat} query needs forbidden ids")
        if cat == "supersede" and not any(f in superseded for f in forb):
            errors.append(f"{qid}: supersede query forbids no superseded memory")
        filters = q.get("filters", {})
        if not isinstance(filters, dict):
            errors.append(f"{qid}: filters must be an object")
            filters = {}
        if set(filters) - FILTER_FIELDS:
            errors.append(f"{qid}: unknown filters {sorted(set(filters) - FILTER_FIELDS)}")
        if cat == "filter" and not filters:
            errors.append(f"{qid}: a filter query needs filters")
        if "type" in filters and filters["type"] not in TYPES:
            errors.append(f"{qid}: filter type {filters['type']!r} invalid")
        for key in ("since", "until"):
            if key in filters and _date(filters[key]) is None:
                errors.append(f"{qid}: filter {key} {filters[key]!r} is not an ISO date")
        # every relevant memory must pass the query's filters
        for rid in rel:
            m = by_id.get(rid)
            if m is None:
                continue
            if "type" in filters and m["type"] != filters["type"]:
                errors.append(
                    f"{qid}: relevant {rid} is a {m['type']}, filter wants {filters['type']}"
                )
            if "project" in filters and m.get("project") != filters["project"]:
                errors.append(
                    f"{qid}: relevant {rid} is in {m.get('project')},"
                    f" filter wants {filters['project']}"
                )
            d = _date(m.get("event_at"))
            if "since" in filters and (d is None or d < _date(filters["since"])):
                errors.append(f"{qid}: relevant {rid} ({d}) is before since {filters['since']}")
            if "until" in filters and (d is None or d > _date(filters["until"])):
                errors.append(f"{qid}: relevant {rid} ({d}) is after until {filters['until']}")
        if cat == "multilingual":
            langs = {by_id[r].get("language", "en") for r in rel if r in by_id}
            if langs == {"en"}:
                errors.append(f"{qid}: multilingual query answered only by English memories")
        # crosslingual queries are not checked automatically: a German query can be
        # plain ASCII, so the language of a query cannot be told reliably here.

    if len(by_id) < MIN_MEMORIES:
        errors.append(f"only {len(by_id)} memories (need {MIN_MEMORIES})")
    if len(qids) < MIN_QUERIES:
        errors.append(f"only {len(qids)} queries (need {MIN_QUERIES})")
    for cat, need in sorted(MIN_PER_CATEGORY.items()):
        if per_cat[cat] < need:
            errors.append(f"category {cat}: {per_cat[cat]} queries (need {need})")

    # ---- summary
    langs = collections.Counter(m.get("language", "en") for m in by_id.values())
    non_en = sum(v for k, v in langs.items() if k != "en")
    print(f"memories: {len(by_id)}   queries: {len(qids)}   supersede pairs: {len(superseded)}")
    print("queries per category:")
    for cat in sorted(CATEGORIES):
        print(f"  {cat:14s} {per_cat[cat]:4d}")
    print("memories per type:")
    for t, n in sorted(
        collections.Counter(m["type"] for m in by_id.values() if m.get("type") in TYPES).items()
    ):
        print(f"  {t:16s} {n:4d}")
    print("memories per project:")
    for p, n in sorted(
        collections.Counter(m.get("project", "(global)") for m in by_id.values()).items()
    ):
        print(f"  {p:18s} {n:4d}")
    print(
        "memories per language: "
        + ", ".join(f"{k} {v}" for k, v in sorted(langs.items()))
        + f"  (non-English {100 * non_en / max(len(by_id), 1):.1f}%)"
    )
    dates = sorted(d for d in (_date(m.get("event_at")) for m in by_id.values()) if d)
    if dates:
        print(f"event_at: {len(dates)} dated, {dates[0]} .. {dates[-1]}")
    used = {r for q in queries for r in q.get("relevant", [])}
    print(
        f"memories that answer at least one query: {len(used & set(by_id))};"
        f" pure distractors: {len(set(by_id) - used)}"
    )
    if errors:
        print(f"\n{len(errors)} problem(s):", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    sys.exit(check(here))
