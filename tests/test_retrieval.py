"""Retrieval quality on a coding-assistant set, with the real bundled model.

Each case is something a user relies on: a paraphrase with no shared words finds the
memory, an exact identifier or error string finds its memory first, a keyword trap does
not fool the ranking, superseded facts stay hidden, temporal phrases filter by date,
and Russian text is found by Russian queries.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import Clock

import engram


@pytest.fixture
def mem(any_mem):
    """This module's service tests run on every engine under test (SQLite, PostgreSQL)."""
    return any_mem


NOW = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)

MEMORIES = [
    ("auth", "Auth is Clerk, not custom JWT", "decision", "shop", 40),
    ("push-rule", "Never push to main without running the tests", "constraint", "shop", 40),
    (
        "push-tests",
        "Unit tests for push notifications live in apps/mobile/push.test.ts",
        "project_fact",
        "shop",
        40,
    ),
    ("pnpm", "Use pnpm, never npm or yarn, in this monorepo", "preference", None, 60),
    (
        "econn",
        "ECONNREFUSED 127.0.0.1:5432 in CI means the Postgres service container is not up"
        " yet; add a pg_isready wait loop",
        "bug_note",
        "shop",
        20,
    ),
    (
        "ts2345",
        "TS2345 on useQuery generics: pass the selector type explicitly",
        "bug_note",
        "shop",
        25,
    ),
    (
        "getUser",
        "getUserById returns null for soft-deleted users; check deleted_at first",
        "project_fact",
        "shop",
        30,
    ),
    (
        "migrate",
        "Run database migrations with: pnpm prisma migrate deploy",
        "verified_command",
        "shop",
        10,
    ),
    (
        "deploy-billing",
        "Billing is deployed with flyctl deploy --remote-only",
        "verified_command",
        "billing",
        5,
    ),
    ("tailwind", "Styling uses Tailwind; do not add CSS modules", "constraint", "shop", 50),
    (
        "flaky",
        "The checkout e2e test is flaky on Safari because of a race in the cart drawer",
        "bug_note",
        "shop",
        3,
    ),
    ("cache", "Product pages are cached for 60 seconds at the edge", "project_fact", "shop", 15),
    (
        "failed-prisma",
        "Tried upgrading Prisma to 6: migrations failed with P3009, rolled back",
        "failed_attempt",
        "shop",
        1,
    ),
    ("question", "Should carts expire after 30 days or 90 days?", "open_question", "shop", 8),
    ("todo-a11y", "Add aria labels to the icon buttons in the header", "todo", "shop", 2),
    (
        "ru-db",
        "База данных для аналитики — ClickHouse, отчёты строятся по ночам",
        "decision",
        "analytics",
        12,
    ),
    (
        "ru-deploy",
        "Деплой на прод только через GitHub Actions, вручную не выкатываем",
        "constraint",
        "analytics",
        12,
    ),
    ("logs", "Logs are shipped to Grafana Loki with a 14 day retention", "project_fact", None, 35),
    ("standup", "Met with Dana: agreed to drop IE11 support", "episode", "shop", 0),
]

CASES = [
    # paraphrases with (almost) no shared words
    ("what authentication provider do we rely on", "auth"),
    ("which package manager should I install dependencies with", "pnpm"),
    ("where do application logs end up", "logs"),
    ("how long is the storefront page cache", "cache"),
    # exact identifiers and error strings
    ("ECONNREFUSED 127.0.0.1:5432", "econn"),
    ("TS2345", "ts2345"),
    ("getUserById", "getUser"),
    ("P3009", "failed-prisma"),
    ("push.test.ts", "push-tests"),
    # keyword traps
    ("can I push my branch before the tests pass", "push-rule"),
    ("where are the push notification tests", "push-tests"),
    # commands
    ("how do I run the migrations", "migrate"),
    # Russian
    ("какая база данных для аналитики", "ru-db"),
    ("как выкатывать на прод", "ru-deploy"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory, bundled):
    path = tmp_path_factory.mktemp("retrieval") / "memory.db"
    clock = Clock(NOW)
    mem = engram.open(path, embedder=bundled, clock=clock)
    ids = {}
    for key, content, kind, project, days_ago in MEMORIES:
        ids[key] = mem.save(
            content, type=kind, project=project, event_at=NOW - timedelta(days=days_ago)
        ).memory.id
    old = mem.save("We use React 17 in the storefront", type="project_fact", project="shop").memory
    ids["react17"] = old.id
    ids["react19"] = mem.update(old.id, content="We use React 19 in the storefront").id
    yield mem, ids
    mem.close()


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_expected_memory_ranks_first(store, query, expected):
    mem, ids = store
    results = mem.search(query, k=5).results
    assert results, query
    assert results[0].memory.id == ids[expected], [r.memory.content for r in results[:3]]


def test_superseded_fact_is_hidden_and_newest_answers(store):
    mem, ids = store
    results = mem.search("which React version does the storefront use", k=10).results
    found = [r.memory.id for r in results]
    assert found[0] == ids["react19"] and ids["react17"] not in found
    with_old = mem.search("React version", k=10, include_superseded=True).results
    assert ids["react17"] in [r.memory.id for r in with_old]


def test_temporal_phrases_filter_by_event_date(store):
    mem, ids = store
    response = mem.search("what bugs did we note in the last 4 days", k=10)
    assert response.temporal_phrase
    found = {r.memory.id for r in response.results}
    assert ids["flaky"] in found
    assert ids["econn"] not in found and ids["ts2345"] not in found
    yesterday = mem.search("what did we try yesterday", k=5)
    assert [r.memory.id for r in yesterday.results][:1] == [ids["failed-prisma"]]


def test_project_and_type_filters(store):
    mem, ids = store
    billing = mem.search("how do we deploy", project="billing", k=5).results
    assert billing[0].memory.id == ids["deploy-billing"]
    assert all(r.memory.project in ("billing", None) for r in billing)
    constraints = mem.search("rules for styling and pushing", types=["constraint"], k=10).results
    assert {r.memory.type for r in constraints} == {"constraint"}
    assert {ids["tailwind"], ids["push-rule"]} <= {r.memory.id for r in constraints}


def test_files_boost_memories_about_touched_files(store):
    mem, ids = store
    plain = mem.search("tests", k=10).results
    boosted = mem.search("tests", k=10, files=["apps/mobile/push.test.ts"]).results
    rank = lambda results: [r.memory.id for r in results].index(ids["push-tests"])  # noqa: E731
    assert rank(boosted) <= rank(plain)
    assert boosted[0].memory.id == ids["push-tests"]


def test_explain_shows_every_signal(store):
    mem, _ = store
    result = mem.search("auth provider", k=1).results[0]
    for signal in (
        "relevance",
        "keyword_evidence",
        "query_coverage",
        "bm25",
        "vector_evidence",
        "cosine",
        "decay_factor",
        "confidence_factor",
        "importance_factor",
        "pinned_factor",
        "type_factor",
        "project_factor",
        "files_factor",
    ):
        assert signal in result.signals


def test_a_rule_that_reads_like_a_date_is_still_found(store):
    mem, _ = store
    saved = mem.save("Never deploy on Saturday mornings", type="constraint", project="shop")
    response = mem.search("never deploy on Saturday", k=3)
    assert response.results[0].memory.id == saved.memory.id
    assert response.temporal_phrase is None and response.notes
    mem.delete(saved.memory.id, hard=True)


# --- keyword scoring: how much of the query a memory holds (fake embedder, keyword pool) --


def test_a_memory_holding_every_query_word_beats_a_terse_one_holding_one(mem):
    """BM25 length normalisation alone ranks the terse memory with the rare word first."""
    for i in range(6):
        mem.save(f"Worker pool {i} retries failed jobs with backoff")
    terse = mem.save("Redis, again.").memory.id
    full = mem.save("Redis worker drops queued jobs on restart").memory.id
    ranked = [r.memory.id for r in mem.search("redis worker jobs", pools="keyword").results]
    assert ranked[:2] == [full, terse]


def test_query_words_side_by_side_rank_above_the_same_words_apart(mem):
    apart = mem.save("Games night moved; the video of the demo is in the drive").memory.id
    together = mem.save("Sam plays video games on the team laptop at night").memory.id
    ranked = [r.memory.id for r in mem.search("video games", pools="keyword").results]
    assert ranked[:2] == [together, apart]


def test_term_evidence_factors_and_missing_terms():
    from engram.ranking import Weights, term_evidence
    from engram.store.base import Candidate
    from engram.text import query_terms

    groups = query_terms("support group meeting")
    pool = [Candidate("one-word", 2.7), Candidate("all-apart", 2.0), Candidate("phrase", 2.0),
            Candidate("unknown", 2.5)]
    terms = {"one-word": "support", "all-apart": "group x meet y support",
             "phrase": "support group meet"}
    weights = Weights(coverage=1.0, adjacency=1.0)
    ranked = term_evidence(pool, groups, terms, weights)
    out = {c.memory_id: c.score for c in ranked}
    assert out["one-word"] == pytest.approx(2.7 * (1 + 1 / 3))  # 1 of 3 words, none adjacent
    assert out["all-apart"] == pytest.approx(2.0 * 2)  # all 3 words, no adjacent pair
    assert out["phrase"] == pytest.approx(2.0 * 2 * 2)  # all 3, both pairs side by side
    assert [c.memory_id for c in ranked] == ["phrase", "all-apart", "one-word", "unknown"]
    assert out["unknown"] == 2.5  # terms not loaded: score kept
    off = term_evidence(pool, groups, terms, Weights(coverage=0, adjacency=0))
    assert [c.score for c in off] == [2.7, 2.0, 2.0, 2.5]


# --- the kind of memory a query asks for (text.intent) -------------------------------------


@pytest.mark.parametrize(("query", "types"), [
    ("what did we decide last week", {"decision"}),
    ("which todos did we note down this month", {"todo"}),
    ("what broke last month", {"bug_note", "episode"}),
    ("what have we tried that didn't work", {"failed_attempt"}),
    ("open questions about the mobile app", {"open_question"}),
    ("что мы решили про кэш", {"decision"}),
    ("how do we deploy the storefront", set()),
    ("what happened with the warehouse", set()),
])
def test_asked_types(query, types):
    from engram.text.intent import asked_types

    assert asked_types(query) == types


def test_a_query_asking_for_decisions_ranks_the_decision_first(mem, clock):
    """Once "last week" has narrowed the candidates, "what did we decide" has only its kind."""
    week = clock.now - timedelta(days=8)
    for text, kind in [
        ("Bumped the Node version in CI to 22", "task_summary"),
        ("Refunds are issued as separate credit notes referencing the invoice", "decision"),
        ("Flaky checkout e2e test: retry once on timeout", "bug_note"),
    ]:
        mem.save(text, type=kind, event_at=week)
    results = mem.search("what did we decide last week", k=3).results
    assert results[0].memory.type == "decision"
    assert results[0].signals["asked_type_factor"] > 1.0
    assert results[1].signals["asked_type_factor"] == 1.0


# --- what people write in chats: told afterwards, questions that hold no answer, "when" ---


def test_a_period_also_admits_what_was_told_shortly_after_it(mem):
    """An event is often recorded after it happened (a message past midnight, "yesterday
    I…"): a period asked about admits memories up to two days after it, ranked below
    one recorded inside the period at equal relevance."""
    inside = mem.save("Shipped the billing export to production",
                      event_at=datetime(2026, 3, 10, 12, tzinfo=UTC)).memory.id
    told = mem.save("Last night we shipped the invoice export to production",
                    event_at=datetime(2026, 3, 11, 1, 30, tzinfo=UTC)).memory.id
    later = mem.save("Shipped the search export to production",
                     event_at=datetime(2026, 3, 15, 9, tzinfo=UTC)).memory.id
    response = mem.search("what did we ship to production on March 10", k=10)
    assert response.temporal_phrase and response.until == datetime(2026, 3, 11, tzinfo=UTC)
    found = [r.memory.id for r in response.results]
    assert found[:2] == [inside, told] and later not in found
    assert response.results[1].signals["told_after_factor"] < 1.0
    assert "told_after_factor" not in response.results[0].signals
    # An end the caller sets is exact.
    exact = mem.search("what did we ship to production", k=10,
                       since=datetime(2026, 3, 10, tzinfo=UTC),
                       until=datetime(2026, 3, 11, tzinfo=UTC))
    assert [r.memory.id for r in exact.results] == [inside]


def test_what_was_told_after_a_period_alone_does_not_stop_the_search_anywhere(mem):
    """A period holding no match is still read as words of the question, even when a
    memory recorded just after it would match."""
    rule = mem.save("Never deploy on Saturday mornings", type="constraint").memory.id
    response = mem.search("never deploy on Saturday", k=3)
    assert response.results[0].memory.id == rule and response.temporal_phrase is None


@pytest.mark.parametrize(("content", "asks"), [
    ("elise: What about Kate?", True),
    ("Kate: how r u??", True),
    ("Kate: how was it? [shares a photo of a beach]", False),
    ("Kate: Great! How was the trip?", False),
    ("Kate: How was it? I went skiing.", False),
    ("Kate: ok", False),
])
def test_only_asks(content, asks):
    from engram.ranking import only_asks

    assert only_asks(content) is asks


def test_a_memory_that_only_asks_ranks_below_one_that_answers(mem):
    asking = mem.save("Kate: what about your trip to Lisbon?").memory.id
    answering = mem.save("Kate: the trip to Lisbon was lovely, we rode the old tram").memory.id
    results = mem.search("Kate trip to Lisbon", k=5).results
    factor = {r.memory.id: r.signals["only_asks_factor"] for r in results}
    assert factor[asking] < 1.0 and factor[answering] == 1.0
    assert results[0].memory.id == answering
    # Asked about questions, a question is an answer: no penalty.
    asked = mem.search("what did Kate ask about the Lisbon trip", k=5).results
    assert {r.signals["only_asks_factor"] for r in asked} == {1.0}
    # An open question kept on purpose is never lowered.
    kept = mem.save("Should the Lisbon trip export use UTC?", type="open_question").memory.id
    found = {r.memory.id: r for r in mem.search("Lisbon trip export", k=5).results}
    assert found[kept].signals["only_asks_factor"] == 1.0


@pytest.mark.parametrize(("query", "when"), [
    ("When did Nebraas get covid?", True),
    ("In what month were they both sick?", True),
    ("how long ago did we migrate", True),
    ("since when is the flag on", True),
    ("What did Kate eat?", False),
])
def test_asks_when(query, when):
    from engram.text.intent import asks_when

    assert asks_when(query) is when


@pytest.mark.parametrize(("text", "timed"), [
    ("I got this today", True),
    ("when I got covid about a year ago", True),
    ("It will be in 8 months!", True),
    ("see you on Friday", True),
    ("back in 2019", True),
    ("in May we moved", True),
    ("may I ask", False),
    ("I like cheese tarts", False),
])
def test_states_time(text, timed):
    from engram.text.intent import states_time

    assert states_time(text) is timed


def test_a_when_question_prefers_a_memory_that_says_when(mem):
    dated = mem.save("Nebraas: I got covid about a year ago and it knocked me out").memory.id
    plain = mem.save("Nebraas: covid knocked me out badly, I was in bed all the time").memory.id
    results = {r.memory.id: r for r in mem.search("When did Nebraas get covid?", k=5).results}
    assert results[dated].signals["states_time_factor"] == 1.0
    assert results[plain].signals["states_time_factor"] < 1.0
    assert list(results)[0] == dated
    other = mem.search("did Nebraas get covid", k=5).results
    assert {r.signals["states_time_factor"] for r in other} == {1.0}
