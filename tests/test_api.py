"""The REST API as a client sees it: a real `engram serve` on 127.0.0.1, driven over HTTP."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_support import Server, engram_command, server_env, start_server
from conftest import backends

import engram
from engram.guidance import INSTRUCTIONS

TOKEN = "s3cret-token-for-tests-0123456789"


@pytest.fixture(scope="module", params=backends())
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`engram serve` on each engine under test (its store: `server.db`)."""
    home = tmp_path_factory.mktemp("api")
    if request.param == "postgres":
        import pg_support

        url = pg_support.fresh_url()
        running = start_server(home, ENGRAM_DB=url)
        running.db = url
    else:
        running = start_server(home)
        running.db = str(home / "memory.db")
    yield running
    running.stop()


@pytest.fixture
def api(server: Server) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


def save(api: httpx.Client, content: str, **fields: object) -> dict:
    response = api.post("/v1/memories", json={"content": content, **fields})
    assert response.status_code == 201, response.text
    return response.json()


def assert_client_error(response: httpx.Response, status: int | None = None,
                        field: str | None = None) -> dict:
    """Every bad request: a 4xx JSON error that names the problem."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    if status is not None:
        assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["message"] and "Traceback" not in response.text
    if field is not None:
        assert body.get("field") == field, body
    return body


# --- endpoints ------------------------------------------------------------------------

def test_health_openapi_docs_and_dashboard_are_served_locally(api: httpx.Client) -> None:
    assert api.get("/health").json()["status"] == "ok"
    spec = api.get("/openapi.json").json()
    for path in ("/v1/memories", "/v1/memories/{memory_id}", "/v1/memories/{memory_id}/history",
                 "/v1/search", "/v1/context", "/v1/checkpoint", "/v1/import", "/v1/export",
                 "/v1/stats", "/v1/instructions", "/v1/review", "/v1/conflicts",
                 "/v1/overview"):
        assert path in spec["paths"], path
    docs = api.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and "/static/vendor/swagger-ui/" in docs.text
    assert api.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    page = api.get("/")
    assert page.status_code == 200 and "alpine" in page.text.lower()


def test_create_read_list_and_filter(api: httpx.Client) -> None:
    saved = save(api, "Deploys go through `make deploy`, never by hand",
                 type="verified_command", project="shop", tags=["deploy", "ci"],
                 files=["Makefile"], importance=0.9, confidence=0.7, provenance="human",
                 pinned=True, event_at="2026-01-05T10:00:00Z", meta={"source": "test"},
                 problem="manual deploys broke prod", solution="make deploy")
    memory = saved["memory"]
    assert saved["duplicate"] is False
    assert (memory["type"], memory["project"], memory["tags"]) == (
        "verified_command", "shop", ["deploy", "ci"])
    assert memory["pinned"] is True and memory["provenance"] == "human"
    assert memory["meta"] == {"source": "test"} and memory["solution"] == "make deploy"
    save(api, "The shop frontend uses Vue 3", type="project_fact", project="shop")
    save(api, "Payments service is written in Go", type="project_fact", project="payments",
         tags=["go"])

    got = api.get(f"/v1/memories/{memory['id']}").json()
    assert got["content"].startswith("Deploys go through") and got["access_count"] == 1
    untracked = api.get(f"/v1/memories/{memory['id']}", params={"track": "false"}).json()
    assert untracked["access_count"] == 1

    shop = api.get("/v1/memories", params={"project": "shop"}).json()
    assert shop["total"] == 2 and {m["project"] for m in shop["items"]} == {"shop"}
    by_type = api.get("/v1/memories", params={"type": "verified_command"}).json()
    assert [m["id"] for m in by_type["items"]] == [memory["id"]]
    tagged = api.get("/v1/memories", params={"tag": "go"}).json()
    assert [m["project"] for m in tagged["items"]] == ["payments"]
    pinned = api.get("/v1/memories", params={"pinned": "true"}).json()
    assert [m["id"] for m in pinned["items"]] == [memory["id"]]
    human = api.get("/v1/memories", params={"provenance": "human"}).json()
    assert [m["id"] for m in human["items"]] == [memory["id"]]
    dated = api.get("/v1/memories", params={"since": "2026-01-01", "until": "2026-01-31"})
    assert [m["id"] for m in dated.json()["items"]] == [memory["id"]]
    page = api.get("/v1/memories", params={"limit": 1, "offset": 1}).json()
    assert page["total"] >= 3 and len(page["items"]) == 1 and page["offset"] == 1
    both = api.get("/v1/memories", params=[("type", "project_fact"), ("type", "decision")])
    assert both.json()["total"] == 2
    comma = api.get("/v1/memories", params={"type": "project_fact,decision"}).json()
    assert comma["total"] == 2


def test_a_batch_of_memories_is_saved_in_one_request_in_order(api: httpx.Client) -> None:
    batch = [{"content": "Batch: the export endpoint streams rows", "type": "decision",
              "project": "batchshop"},
             {"content": "Batch: staging password is hunter2-Xk9mQ2vpL7wR4tZ8Qa",
              "type": "project_fact", "project": "batchshop"},
             {"content": "Batch: the export endpoint streams rows", "type": "decision",
              "project": "batchshop"}]
    response = api.post("/v1/memories/batch", json={"memories": batch})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["memory"]["type"] for r in results] == ["decision", "project_fact", "decision"]
    assert results[2]["duplicate"] and results[2]["memory"]["id"] == results[0]["memory"]["id"]
    assert "Xk9mQ2vpL7wR4tZ8" not in json.dumps(results) and results[1]["redacted"]
    too_many = api.post("/v1/memories/batch", json={"memories": [batch[0]] * 201})
    assert_client_error(too_many, 422)
    assert_client_error(api.post("/v1/memories/batch", json={"memories": []}), 422)


def test_update_versions_history_and_lifecycle_actions(api: httpx.Client) -> None:
    first = save(api, "We use React 17 in the admin app", type="decision", project="admin")
    old_id = first["id"]

    typo = api.patch(f"/v1/memories/{old_id}", params={"in_place": "true"},
                     json={"content": "We use React 17 in the admin app."})
    assert typo.status_code == 200 and typo.json()["id"] == old_id

    newer = api.patch(f"/v1/memories/{old_id}", json={"content": "We use React 19 in the admin app",
                                                    "tags": ["frontend"]})
    assert newer.status_code == 200, newer.text
    new = newer.json()
    assert new["id"] != old_id and new["supersedes"] == old_id and new["tags"] == ["frontend"]
    chain = api.get(f"/v1/memories/{old_id}/history").json()["items"]
    assert [m["id"] for m in chain] == [old_id, new["id"]]
    assert chain[0]["status"] == "superseded"
    stale = api.patch(f"/v1/memories/{old_id}", json={"content": "React 18 after all"})
    assert_client_error(stale, 409)

    assert api.post(f"/v1/memories/{new['id']}/pin").json()["pinned"] is True
    assert api.post(f"/v1/memories/{new['id']}/unpin").json()["pinned"] is False
    before = new["confidence"]
    confirmed = api.post(f"/v1/memories/{new['id']}/confirm").json()["confidence"]
    assert confirmed > before
    assert api.post(f"/v1/memories/{new['id']}/reject").json()["confidence"] < confirmed

    deleted = api.delete(f"/v1/memories/{new['id']}").json()  # as `engram delete`: restorable
    assert deleted["deleted"] is True and deleted["hard"] is False
    assert deleted["memory"]["status"] == "deleted"
    hits = api.get("/v1/search", params={"q": "React admin app"}).json()["results"]
    assert new["id"] not in [r["memory"]["id"] for r in hits]
    assert api.post(f"/v1/memories/{new['id']}/restore").json()["status"] == "active"
    assert api.post(f"/v1/memories/{new['id']}/archive").json()["status"] == "archived"
    assert api.post(f"/v1/memories/{new['id']}/restore").json()["status"] == "active"

    gone = api.delete(f"/v1/memories/{new['id']}", params={"hard": "true"}).json()
    assert gone["deleted"] is True
    assert_client_error(api.get(f"/v1/memories/{new['id']}"), 404)
    # deleting the newest version hands the chain back to its predecessor
    assert api.get(f"/v1/memories/{old_id}").json()["status"] == "active"


def test_search_context_checkpoint_and_instructions(api: httpx.Client, server: Server) -> None:
    target = save(api, "Flaky websocket tests were fixed by awaiting the server handshake",
                  type="bug_note", project="chat", files=["tests/test_ws.py"])["id"]
    save(api, "The chat service stores messages in PostgreSQL", project="chat")
    found = api.get("/v1/search", params={"q": "websocket handshake", "k": 3,
                                          "project": "chat", "explain": "true"}).json()
    assert found["results"][0]["memory"]["id"] == target
    assert "signals" in found["results"][0]
    assert not {"confidence", "type", "project"} & set(found["results"][0]["signals"])
    every = api.get("/v1/search", params={"q": "websocket handshake", "all": "true"}).json()
    assert every["cut"] == 0 and len(every["results"]) >= len(found["results"])
    assert_client_error(api.get("/v1/search", params={"q": "x", "min_score": -1}), 422)
    deadline = time.monotonic() + 5  # the audit row is written just after the reply
    while True:
        with engram.open(server.db, embedder="fake") as reader:
            audited = reader.recalls(caller="api")
        if any(r["caller"] == "api" and "websocket" in r["query"] for r in audited):
            break
        assert time.monotonic() < deadline, audited
        time.sleep(0.05)
    typed = api.get("/v1/search", params={"q": "websocket", "type": "decision"}).json()
    assert target not in [r["memory"]["id"] for r in typed["results"]]

    pack = api.get("/v1/context", params={"project": "chat", "task": "fix the websocket tests",
                                          "files": "tests/test_ws.py", "budget": 800}).json()
    assert target in pack["memory_ids"] and "handshake" in pack["text"]
    assert 0 < pack["tokens"] <= 800

    one = api.post("/v1/checkpoint", json={"summary": "Refactored the ws client",
                                           "project": "chat", "session_id": "sess-1",
                                           "files": ["ws.py"], "concepts": ["websocket"]})
    assert one.status_code == 201
    again = api.post("/v1/checkpoint", json={"summary": "Refactored the ws client and tests",
                                             "project": "chat", "session_id": "sess-1"}).json()
    assert again["id"] == one.json()["id"] and again["duplicate"] is True
    assert again["memory"]["provenance"] == "checkpoint"

    assert api.get("/v1/instructions").json()["text"] == INSTRUCTIONS


def test_import_export_and_stats(api: httpx.Client, server: Server) -> None:
    save(api, "Exported memory about the build cache", project="exp")
    for fmt, media in (("json", "application/json"), ("jsonl", "application/x-ndjson"),
                       ("markdown", "text/markdown"), ("claude-md", "text/markdown")):
        response = api.get("/v1/export", params={"format": fmt, "project": "exp"})
        assert response.status_code == 200 and response.headers["content-type"].startswith(media)
        assert "build cache" in response.text
    records = json.loads(api.get("/v1/export", params={"format": "json"}).text)
    assert any(r["content"] == "Exported memory about the build cache" for r in records)

    text = "\n".join([
        json.dumps({"content": "Imported: staging uses the eu-west-2 region", "project": "imp"}),
        "{not json",
        json.dumps({"content": "", "project": "imp"}),
    ])
    result = api.post("/v1/import", json={"text": text}).json()
    assert result["imported"] == 1 and [e["line"] for e in result["errors"]] == [2, 3]
    again = api.post("/v1/import", json={"records": [
        {"content": "Imported: staging uses the eu-west-2 region", "project": "imp"},
        {"content": "Imported: prod uses us-east-1", "project": "imp", "type": "project_fact"},
    ]}).json()
    assert again["duplicates"] == 1 and again["imported"] == 1
    assert_client_error(api.post("/v1/import", json={}), 422, "body")

    stats = api.get("/v1/stats").json()
    assert stats["total"] >= 3 and stats["by_project"]["imp"] == 2
    assert stats["path"] == server.db


def test_review_queue_and_conflicts(api: httpx.Client) -> None:
    hook = save(api, "Ran `pytest -x`: 2 failures in test_billing", provenance="hook",
                type="episode", project="rev")["id"]
    doubtful = save(api, "Billing totals are rounded per line", provenance="hook",
                    project="rev")["id"]
    save(api, "Agent saved this on purpose", project="rev")
    queue = api.get("/v1/review", params={"project": "rev"}).json()
    assert queue["total"] == 2 and {m["id"] for m in queue["items"]} == {hook, doubtful}

    approved = api.post(f"/v1/review/{hook}/approve").json()
    assert approved["meta"]["review"] == "approved" and approved["confidence"] > 0.6
    rejected = api.post(f"/v1/review/{doubtful}/reject").json()
    assert rejected["status"] == "archived" and rejected["meta"]["review"] == "rejected"
    assert api.get("/v1/review", params={"project": "rev"}).json()["total"] == 0

    older = save(api, "The admin API rate limit is 100 requests per minute", type="constraint",
                 project="limits")["id"]
    newer_save = save(api, "The admin API rate limit is 500 requests per minute",
                      type="constraint", project="limits")
    newer = newer_save["id"]
    assert [c["id"] for c in newer_save["conflicts"]] == [older]
    pairs = api.get("/v1/conflicts", params={"project": "limits"}).json()["items"]
    assert [(p["older"]["id"], p["newer"]["id"]) for p in pairs] == [(older, newer)]

    kept = api.post("/v1/conflicts/keep-both", json={"first_id": older, "second_id": newer})
    assert kept.status_code == 200
    assert api.get("/v1/conflicts", params={"project": "limits"}).json()["items"] == []
    linked = api.post("/v1/conflicts/supersede", json={"old_id": older, "new_id": newer}).json()
    assert linked["supersedes"] == older
    chain = api.get(f"/v1/memories/{newer}/history").json()["items"]
    assert [m["id"] for m in chain] == [older, newer]
    assert_client_error(api.post("/v1/conflicts/supersede",
                                 json={"old_id": older, "new_id": newer}), 409)

    overview = api.get("/v1/overview", params={"weeks": 4}).json()
    assert len(overview["weeks"]) == 4 and "rev" in overview["project_totals"]
    assert overview["by_type"] and overview["stats"]["total"] >= 5


# --- bad input ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "field"),
    [
        ("POST", "/v1/memories", {"content": b"{not json",
                                   "headers": {"content-type": "application/json"}}, 400, "body"),
        ("POST", "/v1/memories", {"content": b"{not json"}, 415, "body"),
        ("POST", "/v1/memories", {"content": b'{"content": "\xff"}',
                                   "headers": {"content-type": "application/json"}}, 400, "body"),
        ("POST", "/v1/memories", {"json": ["a list"]}, 422, None),
        ("POST", "/v1/memories", {"json": {}}, 422, "content"),
        ("POST", "/v1/memories", {"json": {"content": 5}}, 422, "content"),
        ("POST", "/v1/memories", {"json": {"content": "   "}}, 422, "content"),
        ("POST", "/v1/memories", {"json": {"content": "x", "type": "gossip"}}, 422, "type"),
        ("POST", "/v1/memories", {"json": {"content": "x", "colour": "red"}}, 422, "colour"),
        ("POST", "/v1/memories", {"json": {"content": "x", "importance": 7}}, 422, "importance"),
        ("POST", "/v1/memories", {"json": {"content": "x", "tags": "a"}}, 422, "tags"),
        ("POST", "/v1/memories", {"json": {"content": "x", "created_at": "soon"}}, 422,
         "created_at"),
        ("POST", "/v1/memories", {"json": {"content": "x", "supersedes": "nope123"}}, 404, None),
        ("POST", "/v1/memories",
         {"content": b'{"content": "\\ud800 lone surrogate"}',
          "headers": {"content-type": "application/json"}}, 422, "content"),
        ("POST", "/v1/memories",
         {"content": b'{"content": "x", "meta": {"v": NaN}}',
          "headers": {"content-type": "application/json"}}, 422, None),
        ("GET", "/v1/memories", {"params": {"limit": -1}}, 422, "limit"),
        ("GET", "/v1/memories", {"params": {"offset": 10**30}}, 422, "offset"),
        ("GET", "/v1/memories", {"params": {"type": "gossip"}}, 422, "type"),
        ("GET", "/v1/memories", {"params": {"status": "gone"}}, 422, "status"),
        ("GET", "/v1/memories", {"params": {"since": "the day after never"}}, 422, "since"),
        ("GET", "/v1/memories", {"params": {"pinned": "maybe"}}, 422, "pinned"),
        ("GET", "/v1/memories", {"params": {"since": "0001-01-01T00:00:00+01:00"}}, 422, "since"),
        ("POST", "/v1/memories", {"json": {"content": "x", "event_at": "9999-12-31T23:59-05:00"}},
         422, None),
        ("GET", "/v1/memories/no-such-id", {}, 404, None),
        ("GET", "/v1/memories/" + "x" * 65, {}, 422, "memory_id"),
        ("PATCH", "/v1/memories/no-such-id", {"json": {"content": "y"}}, 404, None),
        ("POST", "/v1/memories/no-such-id/pin", {}, 404, None),
        ("DELETE", "/v1/memories/no-such-id", {}, 404, None),
        ("GET", "/v1/search", {}, 422, "q"),
        ("GET", "/v1/search", {"params": {"q": "x", "k": 0}}, 422, "k"),
        ("GET", "/v1/search", {"params": {"q": "x", "k": "ten"}}, 422, "k"),
        ("GET", "/v1/context", {"params": {"budget": 10}}, 422, "budget"),
        ("GET", "/v1/export", {"params": {"format": "xml"}}, 422, "format"),
        ("POST", "/v1/checkpoint", {"json": {"project": "p"}}, 422, "summary"),
        ("POST", "/v1/import", {"json": {"text": "[]", "records": []}}, 422, "body"),
        ("GET", "/v1/nothing-here", {}, 404, None),
        ("PUT", "/v1/memories", {}, 405, None),
    ],
)
def test_bad_requests_get_a_4xx_json_error_naming_the_problem(
    api: httpx.Client, method: str, path: str, kwargs: dict, status: int, field: str | None
) -> None:
    assert_client_error(api.request(method, path, **kwargs), status, field)


def test_an_impossible_date_in_an_import_is_reported_for_its_record(api: httpx.Client) -> None:
    response = api.post("/v1/import", json={"records": [
        {"content": "Dates before year 1 in UTC do not exist",
         "created_at": "0001-01-01T00:00:00+01:00"},
        {"content": "A record next to a bad one still imports"}]})
    assert response.status_code == 200
    result = response.json()
    assert result["imported"] == 1 and result["ids"][0] is None
    assert result["errors"][0]["line"] == 1 and "created_at" in result["errors"][0]["error"]


def test_empty_patch_is_refused(api: httpx.Client) -> None:
    memory_id = save(api, "A memory nobody will change")["id"]
    assert_client_error(api.patch(f"/v1/memories/{memory_id}", json={}), 422, "body")


def test_request_bodies_are_capped(api: httpx.Client) -> None:
    big = {"content": "x" * (1_048_576 + 10)}
    assert_client_error(api.post("/v1/memories", json=big), 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap still holds
        yield b'{"content": "'
        for _ in range(40):
            yield b"y" * 32_768
        yield b'"}'

    assert_client_error(api.post("/v1/memories", content=chunks(),
                                 headers={"content-type": "application/json"}), 413)


def test_other_host_names_and_cross_site_writes_are_refused(api: httpx.Client) -> None:
    rebinding = api.get("/v1/stats", headers={"host": "attacker.example"})
    assert_client_error(rebinding, 421)
    memory_id = save(api, "A memory a web page should not be able to pin")["id"]
    forged = api.post(f"/v1/memories/{memory_id}/pin",
                      headers={"origin": "http://attacker.example"})
    assert_client_error(forged, 403)
    assert api.get(f"/v1/memories/{memory_id}").json()["pinned"] is False
    preflight = api.options("/v1/memories", headers={
        "origin": "http://attacker.example", "access-control-request-method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers


# --- security: token, bind, CORS ------------------------------------------------------

def test_token_is_enforced_on_loopback_and_cors_only_for_listed_origins(tmp_path: Path) -> None:
    server = start_server(tmp_path / "home", "--cors-origin", "http://localhost:5173",
                          ENGRAM_TOKEN=TOKEN)
    try:
        with server.client() as anonymous:
            assert anonymous.get("/health").status_code == 200
            missing = anonymous.get("/v1/stats")
            assert_client_error(missing, 401)
            assert missing.headers["www-authenticate"].startswith("Bearer")
            wrong = anonymous.get("/v1/stats", headers={"authorization": "Bearer nope"})
            assert_client_error(wrong, 401)
            preflight = anonymous.options("/v1/memories", headers={
                "origin": "http://localhost:5173", "access-control-request-method": "POST"})
            assert preflight.headers["access-control-allow-origin"] == "http://localhost:5173"
        with server.client(TOKEN) as client:
            assert client.get("/v1/stats").status_code == 200
            listed = client.post("/v1/memories", json={"content": "from the listed origin"},
                                 headers={"origin": "http://localhost:5173"})
            assert listed.status_code == 201
            assert listed.headers["access-control-allow-origin"] == "http://localhost:5173"
            # with a token, other host names are fine (e.g. behind a reverse proxy)
            assert client.get("/v1/stats", headers={"host": "memory.lan"}).status_code == 200
    finally:
        server.stop()


def test_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*engram_command(), "serve", "--host", "0.0.0.0", "--port", "0"],
        env=server_env(tmp_path), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert "ENGRAM_TOKEN" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_listens_beyond_loopback_with_a_token(tmp_path: Path) -> None:
    server = start_server(tmp_path / "home", "--host", "0.0.0.0", ENGRAM_TOKEN=TOKEN)
    try:
        with server.client() as anonymous:
            assert_client_error(anonymous.get("/v1/memories"), 401)
        with server.client(TOKEN) as client:
            assert client.get("/v1/memories").json()["total"] == 0
    finally:
        server.stop()


# --- fuzzing the whole schema ---------------------------------------------------------

@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("fuzz"))
    with running.client() as client:
        for i in range(3):
            save(client, f"Seed memory {i} about caching and deploys", project="fuzz",
                 provenance="hook")
    yield running
    running.stop()


def test_every_route_answers_only_what_the_openapi_document_declares(fuzz_server: Server) -> None:
    """Every operation, valid and invalid inputs (bounded): never a 5xx, and every answer
    (status, body, content type, headers) is one the OpenAPI document declares."""
    schemathesis = pytest.importorskip("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )
    from schemathesis.generation import GenerationMode

    checks = [not_a_server_error, status_code_conformance, response_schema_conformance,
              content_type_conformance, response_headers_conformance]
    schema = schemathesis.openapi.from_url(f"{fuzz_server.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    failures: list[str] = []
    seen: list[int] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(max_examples=6, deadline=None, derandomize=True, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def probe(case) -> None:  # noqa: ANN001 - schemathesis' Case
                response = case.call(base_url=fuzz_server.url, timeout=30)
                seen.append(response.status_code)
                try:
                    case.validate_response(response, checks=checks)
                except BaseException as exc:  # noqa: BLE001 - schemathesis' FailureGroup
                    failures.append(f"{case.method} {case.formatted_path} {case.query} "
                                    f"{case.body!r} -> {response.status_code}: "
                                    f"{str(exc)[:300]}")

            try:
                probe()
            except Unsatisfiable:  # no parameters to break: nothing negative to send
                assert mode is GenerationMode.NEGATIVE
    assert sum(200 <= s < 300 for s in seen) > 20  # the fuzz reached real work too
    assert sum(s == 422 for s in seen) > 20  # and refusals
    assert "Traceback" not in fuzz_server.log()
    assert not failures, "\n".join(failures[:20])
