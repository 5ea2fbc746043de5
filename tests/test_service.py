"""The service's rules: validation, redaction, dedup, versioning, lifecycle, exchange."""

from __future__ import annotations

import json

import pytest

import engram
from engram.errors import ConflictError, NotFoundError, ValidationError
from engram.exchange import parse
from engram.store.base import Filters


@pytest.fixture
def mem(any_mem):
    """The service's rules hold on every engine under test (SQLite, PostgreSQL)."""
    return any_mem


def count_rows(mem) -> int:
    return mem.store.count(Filters(statuses=()))


def raw_store(target: str) -> bytes:
    """Everything the engine keeps, as bytes: the SQLite file and its WAL, or every row of
    every PostgreSQL table as text."""
    if not target.startswith("postgresql://"):
        from pathlib import Path

        path = Path(target)
        wal = path.with_name(path.name + "-wal")
        return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    import psycopg

    with psycopg.connect(target) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        return "\n".join(str(row) for t in tables
                          for row in conn.execute(f'SELECT * FROM "{t}"')).encode()


# --- validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "hint"),
    [
        ({"type": "fact"}, "type", "project_fact, decision"),
        ({"importance": 1.5}, "importance", "between 0 and 1"),
        ({"importance": "high"}, "importance", "between 0 and 1"),
        ({"confidence": -0.1}, "confidence", "between 0 and 1"),
        ({"provenance": "robot"}, "provenance", "human"),
        ({"tags": 42}, "tags", "list of text"),
        ({"files": [1, 2]}, "files", "list of text"),
        ({"event_at": "last tuesday-ish"}, "event_at", "ISO 8601"),
        ({"pinned": "maybe"}, "pinned", "true or false"),
        ({"expires_at": "2020-01-01"}, "expires_at", "later than created_at"),
        ({"colour": "red"}, "colour", "not a memory field"),
    ],
)
def test_bad_field_is_named_and_nothing_is_written(mem, fields, field, hint):
    with pytest.raises(ValidationError) as info:
        mem.save("A perfectly good memory", **fields)
    assert info.value.field == field
    assert hint in str(info.value)
    assert "\n" not in str(info.value)
    assert count_rows(mem) == 0


def test_empty_content_is_rejected(mem):
    for content in ("", "   ", None):
        with pytest.raises(ValidationError, match="content"):
            mem.save(content)
    assert count_rows(mem) == 0


def test_save_and_get_round_trip_every_field(mem, clock):
    result = mem.save(
        "Use pnpm, not npm, in this monorepo",
        type="preference",
        project="shopfront",
        tags=["Tooling", "#pnpm"],
        files=["./package.json"],
        importance=0.9,
        confidence=0.7,
        provenance="agent",
        pinned=True,
        event_at="2026-03-01T10:00:00Z",
        problem="npm created a second lockfile",
        solution="pnpm only",
        meta={"session_id": "s1"},
    )
    got = mem.get(result.memory.id)
    assert got.content == "Use pnpm, not npm, in this monorepo"
    assert (got.type, got.project, got.layer) == ("preference", "shopfront", "rule")
    assert got.tags == ("tooling", "pnpm")
    assert got.files == ("package.json",)
    assert (got.importance, got.confidence, got.provenance, got.pinned) == (0.9, 0.7, "agent", True)
    assert got.event_at.isoformat() == "2026-03-01T10:00:00+00:00"
    assert got.created_at == clock.now
    assert (got.problem, got.solution) == ("npm created a second lockfile", "pnpm only")
    assert got.meta == {"session_id": "s1"}
    assert got.access_count == 1  # opening on purpose is a use


def test_confidence_defaults_by_provenance(mem):
    human = mem.save("Deploys happen on Tuesdays", provenance="human").memory
    hook = mem.save("npm run build works", provenance="hook").memory
    assert human.confidence > hook.confidence


def test_ids_resolve_by_unambiguous_prefix(mem):
    memory = mem.save("The API gateway is Kong").memory
    assert mem.get(memory.id[:6]).id == memory.id
    with pytest.raises(NotFoundError):
        mem.get("zzzzzzzz")


# --- redaction on the write path ------------------------------------------------------


def test_secrets_are_redacted_before_storing_and_embedding(mem, store_target):
    token = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
    result = mem.save(f"CI uses the token {token} for releases", solution=f"export GH={token}")
    assert "[REDACTED:github_token]" in result.memory.content
    assert "github_token" in result.redacted
    raw = raw_store(store_target)
    assert b"CI uses the token" in raw and token.encode() not in raw
    assert token not in mem.get(result.memory.id).solution


# --- dedup and conflicts --------------------------------------------------------------


def test_same_text_is_a_duplicate_and_merges_tags_and_files(mem):
    first = mem.save("Auth is Clerk, not custom JWT.", project="shop", tags=["auth"])
    second = mem.save(
        "auth is  clerk, not custom JWT", project="shop", tags=["security"], files=["src/auth.ts"]
    )
    assert second.duplicate and second.memory.id == first.memory.id
    assert mem.get(first.memory.id).tags == ("auth", "security")
    assert mem.get(first.memory.id).files == ("src/auth.ts",)
    assert count_rows(mem) == 1


def test_same_text_in_another_project_is_not_a_duplicate(mem):
    a = mem.save("Tests run with pytest -q", project="api")
    b = mem.save("Tests run with pytest -q", project="worker")
    assert not b.duplicate and a.memory.id != b.memory.id


def test_negation_or_number_change_is_never_a_duplicate(mem):
    a = mem.save("We use React 17 in the storefront", project="shop", type="project_fact")
    b = mem.save("We use React 19 in the storefront", project="shop", type="project_fact")
    assert not b.duplicate
    assert a.memory.id in [c.memory.id for c in b.conflicts]
    c = mem.save("Auth is Clerk", project="shop", type="decision")
    d = mem.save("Auth is not Clerk", project="shop", type="decision")
    assert not d.duplicate and c.memory.id != d.memory.id


# --- versioning -----------------------------------------------------------------------


def test_supersede_chain_history_and_reactivation(mem):
    v1 = mem.save("We use React 17", project="shop").memory
    v2 = mem.save("We use React 18", project="shop", supersedes=v1.id).memory
    v3 = mem.update(v2.id, content="We use React 19")
    assert v3.id != v2.id and v3.supersedes == v2.id
    assert [m.id for m in mem.history(v1.id)] == [v1.id, v2.id, v3.id]
    assert [m.id for m in mem.history(v3.id)] == [v1.id, v2.id, v3.id]
    assert mem.get(v1.id).status == "superseded" and mem.get(v1.id).content == "We use React 17"
    found = [r.memory.id for r in mem.search("React version", project="shop").results]
    assert found == [v3.id]
    found = mem.search("React", project="shop", include_superseded=True).results
    assert {r.memory.id for r in found} == {v1.id, v2.id, v3.id}
    mem.delete(v3.id, hard=True)
    assert mem.get(v2.id).status == "active" and mem.get(v2.id).superseded_by is None
    with pytest.raises(NotFoundError):
        mem.get(v3.id)


def test_deleting_a_middle_version_joins_the_chain(mem):
    v1 = mem.save("Cache TTL is 60s").memory
    v2 = mem.update(v1.id, content="Cache TTL is 120s")
    v3 = mem.update(v2.id, content="Cache TTL is 300s")
    mem.delete(v2.id, hard=True)
    assert [m.content for m in mem.history(v3.id)] == ["Cache TTL is 60s", "Cache TTL is 300s"]
    assert mem.get(v1.id).status == "superseded"


def test_no_cycles_and_no_superseding_an_old_version(mem):
    v1 = mem.save("Queue is SQS").memory
    v2 = mem.update(v1.id, content="Queue is RabbitMQ")
    with pytest.raises(ConflictError):
        mem.save("Queue is Kafka", supersedes=v1.id)
    with pytest.raises(ConflictError):
        mem.update(v1.id, content="Queue is NATS")
    with pytest.raises(NotFoundError):
        mem.save("Queue is Redis streams", supersedes="nosuchid00")
    assert [m.id for m in mem.history(v2.id)] == [v1.id, v2.id]


def test_in_place_edit_keeps_the_id_and_reindexes(mem):
    memory = mem.save("Deploy with flyctl deplyo").memory
    fixed = mem.update(memory.id, content="Deploy with flyctl deploy", in_place=True)
    assert fixed.id == memory.id and fixed.supersedes is None
    assert mem.search("flyctl deploy").results[0].memory.id == memory.id
    assert mem.history(memory.id) == [mem.get(memory.id, track=False)]


def test_metadata_update_is_not_a_new_version(mem):
    memory = mem.save("Staging is on Render").memory
    updated = mem.update(memory.id, tags=["infra"], importance=0.8)
    assert updated.id == memory.id and updated.tags == ("infra",)


# --- lifecycle ------------------------------------------------------------------------


def test_archive_restore_soft_delete_pin_confirm_reject(mem):
    memory = mem.save("Logs go to Loki").memory
    assert mem.archive(memory.id).status == "archived"
    assert not mem.search("Loki").results
    assert mem.search("Loki", include_archived=True).results
    assert mem.restore(memory.id).status == "active"
    assert mem.delete(memory.id).status == "deleted"
    assert not mem.search("Loki").results
    assert mem.restore(memory.id).status == "active"
    assert mem.pin(memory.id).pinned and not mem.unpin(memory.id).pinned
    confidence = memory.confidence
    assert mem.confirm(memory.id).confidence == pytest.approx(min(1.0, confidence + 0.1))
    for _ in range(20):
        mem.confirm(memory.id)
    assert mem.get(memory.id).confidence == 1.0
    for _ in range(20):
        mem.reject(memory.id)
    assert mem.get(memory.id).confidence == 0.0


def test_list_filters_and_paging(mem, clock):
    for i in range(5):
        mem.save(f"Fact number {i} about billing", project="billing", type="project_fact")
        clock.advance(hours=1)
    mem.save("Global preference: tabs are evil", type="preference")
    assert len(mem.list(project="billing")) == 6  # global memories belong to every project
    assert len(mem.list(project="billing", include_global=False)) == 5
    assert len(mem.list(types=["preference"])) == 1
    page = mem.list(project="billing", limit=2, offset=1, order="oldest")
    assert [m.content for m in page] == [
        "Fact number 1 about billing",
        "Fact number 2 about billing",
    ]


def test_search_does_not_change_later_rankings(mem):
    for text in ("Redis caches sessions", "Redis is the job queue", "Redis runs on port 6380"):
        mem.save(text)
    before = [(r.memory.id, r.score) for r in mem.search("redis").results]
    for _ in range(5):
        mem.search("redis job queue")
    after = [(r.memory.id, r.score) for r in mem.search("redis").results]
    assert before == after
    assert all(m.access_count == 0 for m in mem.list())


# --- exchange -------------------------------------------------------------------------


def test_export_import_round_trips_every_field(mem, tmp_path, clock):
    a = mem.save(
        "Use uv for Python envs",
        type="preference",
        tags=["py"],
        pinned=True,
        event_at="2026-01-02T03:04:05Z",
        meta={"k": 1},
    ).memory
    b = mem.update(a.id, content="Use uv (not poetry) for Python envs")
    mem.save("Old idea", type="open_question")
    mem.archive(mem.list(types=["open_question"])[0].id)
    exported = json.loads(mem.export("json"))
    other = engram.open(tmp_path / "other.db", embedder="fake", clock=clock)
    result = other.import_records(parse(json.dumps(exported)))
    assert result.imported == 3 and not result.errors
    again = json.loads(other.export("json"))
    key = lambda d: d["id"]  # noqa: E731
    assert sorted(again, key=key) == sorted(exported, key=key)
    assert [m.id for m in other.history(b.id)] == [a.id, b.id]
    other.close()


def test_import_reports_bad_lines_and_keeps_good_ones(mem):
    text = "\n".join(
        [
            json.dumps({"content": "First good", "type": "decision"}),
            "{not json",
            json.dumps({"content": "Bad type", "type": "nope"}),
            json.dumps({"content": "first GOOD."}),
            json.dumps({"type": "decision"}),
            json.dumps({"content": "Second good", "created_at": "2025-05-05T00:00:00Z"}),
        ]
    )
    result = mem.import_records(parse(text))
    assert result.imported == 2 and result.duplicates == 1
    assert [e["line"] for e in result.errors] == [2, 3, 5]
    assert result.ids[0] == result.ids[3] and result.ids[1] is None
    second = mem.get(result.ids[5])
    assert second.created_at.year == 2025


def test_one_import_batch_dedups_within_each_project_only(mem):
    """Near-duplicates inside one import batch merge with an earlier record of their
    own project, never with one of another project (the fake embedder ignores word
    order, so these four texts share one vector; their normalised texts differ)."""
    records = [
        ("cache keys include the tenant id", "shop"),
        ("the tenant id cache keys include", "blog"),
        ("include the tenant id cache keys", "shop"),
        ("tenant id cache keys include the", "blog"),
    ]
    text = "\n".join(json.dumps({"content": c, "project": p}) for c, p in records)
    result = mem.import_records(parse(text))
    assert (result.imported, result.duplicates) == (2, 2)
    assert result.ids[2] == result.ids[0] and result.ids[3] == result.ids[1]
    assert result.ids[0] != result.ids[1]
    assert mem.get(result.ids[1]).project == "blog"


def test_export_formats(mem):
    mem.save("Never commit .env files", type="constraint", project="shop")
    mem.save("Old", type="todo")
    mem.archive(mem.list(types=["todo"])[0].id)
    claude = mem.export("claude-md")
    assert "Current code beats old memory" in claude
    assert "Never commit .env files" in claude and "Old" not in claude.split("Constraints")[1]
    assert "## shop" in mem.export("markdown")
    lines = mem.export("jsonl").splitlines()
    assert len(lines) == 2 and all(json.loads(line)["id"] for line in lines)
    with pytest.raises(ValidationError, match="format"):
        mem.export("yaml")


# --- embedders ------------------------------------------------------------------------


def test_vectors_from_another_model_never_mix_until_reindex(store_target, clock):
    store_path = store_target
    with engram.open(store_path, embedder="fake", clock=clock) as first:
        first.save("Payments go through Stripe")
    with engram.open(store_path, embedder="none", clock=clock) as keyword_only:
        assert keyword_only.search("Stripe payments").results
        keyword_only.save("Emails go through Postmark")
    from engram.embedders.fake import FakeEmbedder

    class Other(FakeEmbedder):
        name = "another-model"

    with engram.open(store_path, embedder=Other(), clock=clock) as other:
        assert not other.vectors_enabled and "reindex" in other.stats()["note"]
        assert other.search("Stripe").mode == "keyword"
        assert other.reindex() == 2
        assert other.vectors_enabled
        assert other.stats()["embedder"].startswith("another-model")
        assert other.stats()["vectors"] == 2


def test_deleting_a_wrong_edit_brings_back_the_version_it_replaced(mem):
    """A fact's newest version deleted (soft or hard) leaves the fact: the version it
    replaced is current again; restoring the deleted one makes it the newest again."""
    first = mem.save("The deploy freeze starts Thursday", type="project_fact").memory
    wrong = mem.update(first.id, content="The deploy freeze starts Sunday")
    mem.delete(wrong.id)
    assert mem.get(first.id).status == "active" and mem.get(wrong.id).status == "deleted"
    assert [r.memory.id for r in mem.search("deploy freeze", k=3).results] == [first.id]
    mem.restore(wrong.id)
    assert mem.get(first.id).status == "superseded" and mem.get(wrong.id).status == "active"
    mem.archive(wrong.id)  # archiving (fading) a fact does not resurface its old version
    assert mem.get(first.id).status == "superseded"
    mem.restore(wrong.id)
    mem.delete(wrong.id, hard=True)
    assert mem.get(first.id).status == "active"
