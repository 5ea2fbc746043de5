"""The SQLite store under real conditions: pragmas, migrations, concurrent writers, SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import engram
from engram.store.sqlite.migrations import SCHEMA_VERSION, migrate
from engram.text import index_terms


def test_store_is_one_wal_file_with_full_sync(store_path):
    with engram.open(store_path, embedder="fake") as mem:
        mem.save("Primary database is Postgres 16")
        db = mem.store._db
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert store_path.exists()


def test_default_location_follows_engram_home(tmp_path, monkeypatch):
    monkeypatch.delenv("ENGRAM_DB", raising=False)
    monkeypatch.setenv("ENGRAM_HOME", str(tmp_path / "elsewhere"))
    with engram.open(embedder="none") as mem:
        assert mem.path == str(tmp_path / "elsewhere" / "memory.db")
    monkeypatch.setenv("ENGRAM_DB", str(tmp_path / "named.db"))
    with engram.open(embedder="none") as mem:
        assert mem.path == str(tmp_path / "named.db")


def make_v1_store(path: Path) -> None:
    """A store exactly as the first schema version wrote it."""
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, target=1)
    db.execute(
        "INSERT INTO memories (id, content, type, project, tags, files, importance, confidence,"
        " provenance, pinned, status, created_at, updated_at, norm)"
        " VALUES ('oldmemory1', 'Payments run through Stripe webhooks', 'decision', 'shop',"
        " '[\"billing\"]', '[]', 0.7, 0.9, 'human', 1, 'active',"
        " '2025-01-01T00:00:00.000000+00:00', '2025-01-01T00:00:00.000000+00:00',"
        " 'payments run through stripe webhooks')"
    )
    db.execute(
        "INSERT INTO memories_fts(rowid, terms) VALUES (1, ?)",
        (index_terms("Payments run through Stripe webhooks billing"),),
    )
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def test_store_from_an_older_schema_upgrades_in_place(tmp_path):
    path = tmp_path / "v1.db"
    make_v1_store(path)
    with engram.open(path, embedder="fake") as mem:
        assert mem.store.upgraded_from == 1
        old = mem.get("oldmemory1")
        assert (old.type, old.project, old.tags, old.pinned) == (
            "decision",
            "shop",
            ("billing",),
            True,
        )
        assert old.access_count == 1 and old.meta == {}
        assert mem.search("stripe").results[0].memory.id == "oldmemory1"
        assert mem.reindex() == 1
        assert mem.search("how do we take card payments").results[0].memory.id == "oldmemory1"
        mem.save("Refunds are manual for now", project="shop")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


WRITER = textwrap.dedent(
    """
    import sys, engram
    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mem = engram.open(path, embedder="fake")
    for i in range(count):
        result = mem.save(f"writer {name} remembers item {i}", project=name)
        print(result.memory.id, flush=True)
    """
)


def test_three_processes_writing_at_once_lose_nothing(store_path):
    engram.open(store_path, embedder="fake").close()  # create the schema once
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store_path), name, "300"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta", "gamma")
    ]
    ids = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        ids += out.split()
    assert len(ids) == len(set(ids)) == 900
    with sqlite3.connect(store_path) as db:
        assert db.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 900
        assert db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 900
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with engram.open(store_path, embedder="fake") as mem:
        assert mem.count(project="beta", include_global=False) == 300
        assert mem.search("writer gamma remembers item 299").results[0].memory.project == "gamma"


def test_sigkill_mid_batch_loses_no_acknowledged_memory(store_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store_path), "victim", "100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acknowledged = []
    assert proc.stdout is not None
    for line in proc.stdout:
        acknowledged.append(line.strip())
        if len(acknowledged) == 150:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    acknowledged += [line.strip() for line in proc.stdout.read().splitlines() if line.strip()]
    with sqlite3.connect(store_path) as db:
        stored = {row[0] for row in db.execute("SELECT id FROM memories")}
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert set(acknowledged) <= stored
    assert len(stored) >= 150


def test_readers_see_other_processes_writes(store_path):
    with engram.open(store_path, embedder="fake") as reader:
        reader.save("Frontend is Next.js")
        assert reader.search("next.js").results  # loads the vector cache
        subprocess.run(
            [sys.executable, "-c", WRITER, str(store_path), "other", "3"],
            check=True,
            capture_output=True,
        )
        hits = reader.search("writer other remembers item 2", project="other").results
        assert hits[0].memory.content == "writer other remembers item 2"
        assert hits[0].signals["cosine"] is not None  # found through the refreshed vectors
        export = json.loads(reader.export("json"))
        assert len(export) == 4


def test_every_field_reads_back_as_written(store_path):
    """Rows become Memory objects without the dataclass's __init__: nothing may shift."""
    from datetime import UTC, datetime, timedelta

    from engram.model import Memory

    when = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
    memory = Memory(
        id="roundtrip1", content="Deploys go through the staging VPN", type="decision",
        project="billing", tags=("ops", "vpn"), files=("deploy/staging.sh",),
        problem="deploys failed off-VPN", solution="connect first", importance=0.9,
        confidence=0.6, provenance="user", pinned=True, status="archived",
        supersedes="older00001", superseded_by="newer00001", created_at=when,
        updated_at=when + timedelta(hours=1), event_at=when - timedelta(days=2),
        expires_at=when + timedelta(days=30), access_count=7,
        last_accessed_at=when + timedelta(minutes=5), meta={"confirmed_at": when.isoformat()},
    )
    with engram.open(store_path, embedder="none") as mem:
        mem.store.insert(memory, index_terms(memory.content), None)
    with engram.open(store_path, embedder="none") as mem:
        loaded = mem.store.get("roundtrip1")
        assert loaded == memory
        assert loaded.pinned is True and loaded.tags == ("ops", "vpn")
        assert loaded.evolve(importance=0.1).importance == 0.1  # still a frozen dataclass
        assert mem.store.get_many(["roundtrip1"])["roundtrip1"] == memory


def test_document_frequencies_follow_writes_within_one_percent(store_path):
    """Keyword search weighs terms by how many memories hold them; counting a common term
    walks its whole posting list, so a store keeps the counts until 1% of it has changed.
    A store under 100 memories is exact after every write."""
    with engram.open(store_path, embedder="fake") as mem:
        store = mem.store
        term = index_terms("refunds")
        mem.save("Stripe refunds go through payment_intent", type="constraint")
        assert store.document_frequency([term])[1][term] == 1
        mem.save("Refunds over 500 EUR need a second approval", type="constraint")
        assert store.document_frequency([term]) == (2, {term: 2})  # small: exact
        mem.save_many([{"content": f"Unrelated note number {n} about the billing page"}
                       for n in range(300)])
        total, counts = store.document_frequency([term])
        assert (total, counts[term]) == (302, 2)
        mem.save("Partial refunds keep the original invoice", type="decision")
        mem.save("Refunds are logged in the audit table", type="decision")
        assert store.document_frequency([term])[1][term] == 2  # 2 changes of 302: kept
        for n in range(2):
            mem.save(f"Refunds batch {n} runs nightly", type="project_fact")
        assert store.document_frequency([term]) == (306, {term: 6})  # 4 > 1%: counted again


def test_a_save_after_another_process_deleted_the_newest_is_found_by_its_vector(store_path):
    """Another process deletes the newest memory and saves one: the new row takes the
    deleted one's rowid, never its change number, so a process holding the vectors in
    memory reads it (before, it kept the deleted row's vector under that rowid)."""
    import numpy as np

    from engram.model import Memory
    from engram.store.base import Filters
    from engram.store.sqlite import SQLiteStore

    def unit(i: int) -> np.ndarray:
        vector = np.zeros(8, dtype=np.float32)
        vector[i] = 1.0
        return vector

    reader = SQLiteStore(store_path)
    writer = SQLiteStore(store_path)
    try:
        for i in range(3):
            reader.insert(Memory(id=f"old{i}", content=f"note {i}"), f"note {i}", unit(i))
        assert reader.vector_search(unit(2), Filters(), 1)[0].memory_id == "old2"  # loaded
        writer.delete("old2")
        writer.insert(Memory(id="new0", content="fresh note"), "fresh note", unit(5))
        found = reader.vector_search(unit(5), Filters(), 1)
        assert found[0].memory_id == "new0" and found[0].score > 0.99
    finally:
        reader.close()
        writer.close()
