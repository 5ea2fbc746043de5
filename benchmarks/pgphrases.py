"""A/B of a PostgreSQL store's keyword statistics with the phrase registry (`phrase_df`,
schema v6: each asked phrase's df kept by the writes) against counting every phrase with
the index on each search, in one process on one store.

The store is one `benchmarks.scale` built (its database stays on the server after the
run). The queries are the scale bench's own (same seed, same generator order). First one
keyword-only pass registers the queries' phrases (timed: the first ask of a phrase costs
its count once). Then per query both variants run once, in an order rotated from query to
query, hybrid then keyword-only; each search's ids and scores are compared between the
variants, and the statistics statement (corpus, words' df, phrases' df) is timed.

    python -m benchmarks.pgphrases --db postgresql://…/engram_scale_1000000 --size 1000000
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import click

from .metrics import load_average, percentile
from .synthetic import Generator, scale_queries


def measure(url: str, size: int, seed: int, queries: int, passes: int,
            embedder: str = "bundled") -> dict[str, Any]:
    import engram
    from engram.store.postgres.keywords import PHRASE_REGISTRY_MAX

    texts = scale_queries(seed, size, queries)
    variants = {"count": 0, "registry": PHRASE_REGISTRY_MAX}
    names = list(variants)
    times: dict[str, dict[str, list[float]]] = {n: {"hybrid": [], "keyword": []} for n in names}
    stats_ms: dict[str, list[float]] = {n: [] for n in names}
    different = 0
    loads = [load_average()]
    now = datetime.now(UTC)  # a fixed clock: both variants' scores are comparable
    with engram.open(url, embedder=embedder, clock=lambda: now) as mem:
        mem.lifecycle.upkeep_mode = "off"
        store = mem.store
        rows = store._rows
        clock = {"stats": 0.0}

        def timed(sql: str, params: Any = ()) -> Any:
            t0 = time.perf_counter()
            try:
                return rows(sql, params)
            finally:
                if "FROM corpus c WHERE c.id = 1" in sql:
                    clock["stats"] += (time.perf_counter() - t0) * 1000

        store._rows = timed  # type: ignore[method-assign]
        for text in texts[:5]:
            mem.search(text)  # the model, caches and both connections warm
        registered_before = store._rows("SELECT COUNT(*) FROM phrase_df")[0][0]
        t0 = time.perf_counter()
        first = []
        for text in texts:  # the first ask of every phrase: counted and registered
            t1 = time.perf_counter()
            mem.search(text, pools="keyword")
            first.append((time.perf_counter() - t1) * 1000)
        registering_s = time.perf_counter() - t0
        registered = store._rows("SELECT COUNT(*) FROM phrase_df")[0][0]
        loads.append(load_average())
        for _ in range(passes):
            for i, text in enumerate(texts):
                order = names[i % len(names):] + names[:i % len(names)]
                for pools, kwargs in (("hybrid", {}), ("keyword", {"pools": "keyword"})):
                    answers = {}
                    for name in order:
                        store.phrase_registry_max = variants[name]
                        clock["stats"] = 0.0
                        t1 = time.perf_counter()
                        response = mem.search(text, **kwargs)
                        times[name][pools].append((time.perf_counter() - t1) * 1000)
                        stats_ms[name].append(clock["stats"])
                        answers[name] = [(r.memory.id, r.score) for r in response.results]
                    different += answers["registry"] != answers["count"]
            loads.append(load_average())
        store.phrase_registry_max = PHRASE_REGISTRY_MAX
        store._rows = rows  # type: ignore[method-assign]
    table = {name: {f"{pools}_{q}_ms": round(percentile(times[name][pools], q), 2)
                    for pools in ("hybrid", "keyword") for q in (50, 95)}
             | {"statistics_mean_ms": round(sum(stats_ms[name]) / len(stats_ms[name]), 2),
                "statistics_p50_ms": round(percentile(stats_ms[name], 50), 2),
                "keyword_mean_ms": round(sum(times[name]["keyword"])
                                         / len(times[name]["keyword"]), 2)}
             for name in names}
    return {"size": size, "queries": len(texts), "passes": passes, "variants": table,
            "registering": {"phrases_before": registered_before, "phrases": registered,
                            "first_pass_s": round(registering_s, 2),
                            "first_pass_keyword_p50_ms": round(percentile(first, 50), 2)},
            "answers_different": different, "load": loads}


def ingest(server: str, rows: int, registry: int, seed: int = 7) -> dict[str, Any]:
    """What keeping the registry costs a write: a fresh database filled chunk by chunk
    (512 rows a transaction, `store.insert` as scale's bulk fill, no vectors: the store's
    own work only, so the share is an upper bound), the registry holding `registry` of the
    texts' most frequent word pairs; chunks alternate between keeping the registry and
    skipping its statement, and each chunk's time is kept."""
    from collections import Counter

    import engram
    from engram.service.records import prepare
    from engram.store.postgres import keywords

    from .pg import postgres_database

    url = postgres_database(server, "pgphrases_ingest")
    gen = Generator.for_store(seed, rows)
    records = list(gen.memories(rows))
    times: dict[str, list[float]] = {"without": [], "with": []}
    loads = [load_average()]
    with engram.open(url, embedder="none") as mem:
        mem.lifecycle.upkeep_mode = "off"
        store = mem.store
        now = mem.clock()
        prepared = [prepare(dict(r), now=now)[0] for r in records]
        terms = [mem.index_terms_of(m) for m in prepared]
        pairs: Counter[str] = Counter()
        for text in terms:
            words = text.split()
            pairs.update(set(zip(words, words[1:], strict=False)))
        phrases = [" ".join(p) for p, _ in pairs.most_common(registry)]
        for i in range(0, len(phrases), 1000):
            store._register_phrases(phrases[i:i + 1000])
        execute = store._execute
        skip = {"on": False}

        def maybe(sql: str, params: Any = ()) -> Any:
            if skip["on"] and sql is keywords._PHRASE_WRITES:
                return None
            return execute(sql, params)

        store._execute = maybe  # type: ignore[method-assign]
        chunk = 512
        for n, start in enumerate(range(0, len(prepared), chunk)):
            name = ("without", "with")[n % 2]
            skip["on"] = name == "without"
            t0 = time.perf_counter()
            with store.transaction():
                for memory, text in zip(prepared[start:start + chunk],
                                        terms[start:start + chunk], strict=True):
                    store.insert(memory, text, None)
            times[name].append((time.perf_counter() - t0) * 1000 / len(terms[start:start + chunk]))
        store._execute = execute  # type: ignore[method-assign]
        registered = store._rows("SELECT COUNT(*) FROM phrase_df")[0][0]
        size = store._rows("SELECT pg_total_relation_size('phrase_df')")[0][0]
    loads.append(load_average())
    return {"rows": rows, "registry": registered, "registry_bytes": size,
            "ms_per_row": {k: {"p50": round(percentile(v, 50), 4),
                               "mean": round(sum(v) / len(v), 4)} for k, v in times.items()},
            "load": loads}


def ingest_in_place(url: str, batches: int, size: int, embedder: str = "bundled",
                    seed: int = 99) -> dict[str, Any]:
    """End to end on a built store: batches of `size` new memories through `save_many`
    (the embedder included), alternating keeping the registry and skipping its statement,
    each batch rolled back once its statistics are written, so the store is left as it
    was. The statement's own time is kept too."""
    import engram
    from engram.store.postgres import keywords

    class Undo(Exception):
        pass

    gen = Generator(seed, projects=8)
    records = list(gen.memories(batches * size))
    times: dict[str, list[float]] = {"without": [], "with": []}
    statement: dict[str, list[float]] = {"without": [], "with": []}
    loads = [load_average()]
    with engram.open(url, embedder=embedder) as mem:
        mem.lifecycle.upkeep_mode = "off"
        store = mem.store
        registered = store._rows("SELECT COUNT(*) FROM phrase_df")[0][0]
        execute = store._execute
        state = {"skip": False, "ms": 0.0}

        def maybe(sql: str, params: Any = ()) -> Any:
            if sql is not keywords._PHRASE_WRITES:
                return execute(sql, params)
            if state["skip"]:
                return None
            t0 = time.perf_counter()
            try:
                return execute(sql, params)
            finally:
                state["ms"] += (time.perf_counter() - t0) * 1000

        store._execute = maybe  # type: ignore[method-assign]
        try:
            for n in range(batches):
                name = ("without", "with")[n % 2]
                state["skip"], state["ms"] = name == "without", 0.0
                chunk = [dict(r) for r in records[n * size:(n + 1) * size]]
                t0 = time.perf_counter()
                try:
                    with store.transaction():
                        mem.save_many(chunk)
                        store._write_statistics()  # as the commit would
                        raise Undo
                except Undo:
                    pass
                times[name].append((time.perf_counter() - t0) * 1000 / size)
                statement[name].append(state["ms"] / size)
        finally:
            store._execute = execute  # type: ignore[method-assign]
    loads.append(load_average())
    return {"batches": batches, "batch": size, "registry": registered,
            "ms_per_memory": {k: {"p50": round(percentile(v, 50), 3),
                                  "mean": round(sum(v) / len(v), 3)} for k, v in times.items()},
            "statement_ms_per_memory": {k: round(sum(v) / len(v), 4)
                                        for k, v in statement.items()},
            "load": loads}


@click.command()
@click.option("--db", "url", required=True, metavar="URL", help="The store's database.")
@click.option("--size", default=1_000_000, show_default=True, type=int,
              help="The store's size as scale built it (for its queries).")
@click.option("--seed", default=7, show_default=True, type=int)
@click.option("--queries", default=200, show_default=True, type=int)
@click.option("--passes", default=1, show_default=True, type=int)
@click.option("--embedder", default="bundled", show_default=True)
@click.option("--ingest", "ingest_rows", default=0, type=int, metavar="ROWS",
              help="Instead: the write cost of the registry over ROWS rows in a new database"
                   " (--db is then the server's admin database).")
@click.option("--registry", default=20_000, show_default=True, type=int,
              help="With --ingest: phrases registered.")
@click.option("--ingest-batches", default=0, type=int, metavar="N",
              help="Instead: N batches of 100 saves into the store at --db, end to end,"
                   " with and without the registry's statement, each rolled back.")
def command(url: str, size: int, seed: int, queries: int, passes: int, embedder: str,
            ingest_rows: int, registry: int, ingest_batches: int) -> None:
    """A/B: phrase df from the registry or counted with the index, one process."""
    if ingest_batches:
        click.echo(json.dumps(ingest_in_place(url, ingest_batches, 100, embedder), indent=2))
        return
    if ingest_rows:
        click.echo(json.dumps(ingest(url, ingest_rows, registry, seed), indent=2))
        return
    click.echo(json.dumps(measure(url, size, seed, queries, passes, embedder), indent=2))


if __name__ == "__main__":
    command()
