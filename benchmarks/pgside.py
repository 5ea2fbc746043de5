"""A/B of a PostgreSQL store's hybrid search with its keyword half beside the vector half
(`PostgresStore.side_runner`) and without, in one process on one store.

The store is one `benchmarks.scale` built (its database stays on the server after the
run) or, with `--build N`, a small one filled here the way scale's bulk fill does. The
queries are the scale bench's own (same seed, same generator order). Per query, every
variant runs once, in an order rotated from query to query, so load drifts fall on all
variants alike; each search's ids and scores are compared with the first variant's.

Variants: `before` (keyword half inline, the keyword statistics read in two or more
statements per keyword search and again for the coverage weights, as before), `stats`
(inline, statistics in one statement, once per keyword pool: `one_reading`), `side`
(as `stats`, the keyword half beside the vector half).

    python -m benchmarks.pgside --db postgresql://…/engram_scale_100000 --size 100000
"""

from __future__ import annotations

import json
import math
import time
from datetime import UTC, datetime
from typing import Any

import click

from .metrics import load_average, percentile
from .synthetic import Generator, scale_queries


def _statistics_before(self: Any, phrases: list[str]) -> tuple[int, float, dict[str, int]]:
    """The keyword statistics as read before this change: the corpus row, the words'
    df, then one count per phrase (a round trip each)."""
    from engram.store.postgres.sql import tsquery_term

    docs, total_terms = self._rows("SELECT docs, terms FROM corpus WHERE id = 1")[0]
    words = [p for p in phrases if " " not in p]
    df = dict(self._rows("SELECT term, df FROM term_df WHERE term = ANY(%s)", (words,))) \
        if words else {}
    for phrase in phrases:
        if " " in phrase:
            df[phrase] = self._rows(
                "SELECT COUNT(*) FROM memories WHERE terms_tsv @@ to_tsquery('simple', %s)",
                (tsquery_term(phrase),))[0][0]
    self.known_docs = int(docs)
    docs = max(int(docs), 1)
    return docs, max(total_terms / docs, 1e-9), {p: int(df.get(p, 0)) for p in phrases}


class _RoundTrips:
    """Statements sent by psycopg connections (execute, and BEGIN/COMMIT of a
    transaction block), counted by patching the connection class."""

    def __init__(self) -> None:
        import psycopg

        self.count = 0
        execute, transaction = psycopg.Connection.execute, psycopg.Connection.transaction
        counter = self

        def counted_execute(conn: Any, *args: Any, **kwargs: Any) -> Any:
            counter.count += 1
            return execute(conn, *args, **kwargs)

        def counted_transaction(conn: Any, *args: Any, **kwargs: Any) -> Any:
            counter.count += 2
            return transaction(conn, *args, **kwargs)

        psycopg.Connection.execute = counted_execute  # type: ignore[method-assign]
        psycopg.Connection.transaction = counted_transaction  # type: ignore[method-assign]


def _build(server: str, size: int, seed: int, embedder: str) -> str:
    """A store of `size` memories filled as scale's bulk fill does (no import)."""
    import engram

    from .pg import postgres_database
    from .scale import _bulk_fill

    url = postgres_database(server, f"side_{size}")
    gen = Generator.for_store(seed, size)
    with engram.open(url, embedder=embedder) as mem:
        mem.lifecycle.upkeep_mode = "off"
        _bulk_fill(mem, list(gen.memories(size)), mem.embedder, False)
    return url


def measure(url: str, size: int, seed: int, queries: int, passes: int,
            embedder: str = "bundled") -> dict[str, Any]:
    import contextlib

    import engram
    from engram import retrieval
    from engram.store.postgres.keywords import KeywordMethods

    texts = scale_queries(seed, size, queries)
    after, reading = KeywordMethods._statistics, retrieval._one_reading
    trips = _RoundTrips()
    variants = {  # beside, statistics, one reading per pool
        "before": (False, _statistics_before, lambda store: contextlib.nullcontext()),
        "stats": (False, after, reading),
        "side": (True, after, reading),
    }
    names = list(variants)
    times: dict[str, dict[str, list[float]]] = {n: {"hybrid": [], "keyword": []} for n in names}
    sent: dict[str, dict[str, int]] = {n: {"hybrid": 0, "keyword": 0} for n in names}
    different = 0
    loads = [load_average()]
    # A fixed clock: every variant's scores are comparable, decay included.
    now = datetime.now(UTC)
    with engram.open(url, embedder=embedder, clock=lambda: now) as mem:
        mem.lifecycle.upkeep_mode = "off"
        store = mem.store
        for text in texts[:5]:
            mem.search(text)  # the model, caches and both connections warm
        store.parallel_min_rows = 0
        mem.search(texts[0])
        for _ in range(passes):
            for i, text in enumerate(texts):
                order = names[i % len(names):] + names[:i % len(names)]
                for pools, kwargs in (("hybrid", {}), ("keyword", {"pools": "keyword"})):
                    answers = {}
                    for name in order:
                        beside, statistics, scope = variants[name]
                        store.parallel_min_rows = 0 if beside else math.inf
                        KeywordMethods._statistics = statistics  # type: ignore[method-assign]
                        retrieval._one_reading = scope
                        start_trips = trips.count
                        t0 = time.perf_counter()
                        response = mem.search(text, **kwargs)
                        times[name][pools].append((time.perf_counter() - t0) * 1000)
                        sent[name][pools] += trips.count - start_trips
                        answers[name] = [(r.memory.id, r.score) for r in response.results]
                    different += sum(1 for a in answers.values() if a != answers[names[0]])
            loads.append(load_average())
    KeywordMethods._statistics = after  # type: ignore[method-assign]
    retrieval._one_reading = reading
    rows = {}
    for name in names:
        rows[name] = {
            f"{pools}_{q}_ms": round(percentile(times[name][pools], q), 2)
            for pools in ("hybrid", "keyword") for q in (50, 95)
        } | {f"{pools}_round_trips": round(sent[name][pools] / len(times[name][pools]), 1)
             for pools in ("hybrid", "keyword")}
    return {"size": size, "queries": len(texts), "passes": passes, "variants": rows,
            "answers_different": different, "load": loads}


@click.command()
@click.option("--db", "url", required=True, metavar="URL",
              help="The store's database, or with --build the server's admin database.")
@click.option("--size", default=100_000, show_default=True, type=int,
              help="The store's size as scale built it (for its queries).")
@click.option("--build", is_flag=True, help="Fill a new store of --size memories first.")
@click.option("--seed", default=7, show_default=True, type=int)
@click.option("--queries", default=200, show_default=True, type=int)
@click.option("--passes", default=2, show_default=True, type=int)
@click.option("--embedder", default="bundled", show_default=True)
def command(url: str, size: int, build: bool, seed: int, queries: int, passes: int,
            embedder: str) -> None:
    """A/B: the keyword half beside the vector half or not, one process, one store."""
    if build:
        url = _build(url, size, seed, embedder)
    click.echo(json.dumps(measure(url, size, seed, queries, passes, embedder), indent=2))


if __name__ == "__main__":
    command()
