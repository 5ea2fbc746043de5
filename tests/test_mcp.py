"""`engram mcp` as agents use it: a real server subprocess driven by the official SDK client,
over stdio and over streamable HTTP on 127.0.0.1 (token, Origin and bind checks included)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from engram.mcp.auth import BindRefused, check_bind, is_loopback
from engram.netguard import AccessRule
from engram.netguard import bearer_matches as token_matches


@pytest.fixture
def mem(any_mem):
    """This module's service tests run on every engine under test (SQLite, PostgreSQL)."""
    return any_mem


ENGRAM = Path(sys.executable).with_name("engram")
TOKEN = "test-token-0123456789"
PROJECT = "webapp"
FAST = "fake"  # the deterministic test embedder: quick to start

TOOLS = {
    "memory_save", "memory_search", "memory_get", "memory_update", "memory_history",
    "memory_archive", "memory_restore", "memory_delete", "memory_pin", "memory_confirm",
    "memory_reject", "memory_context", "memory_checkpoint", "memory_open_questions",
    "memory_verified_commands", "memory_stats", "memory_export",
}
READ_ONLY = {"memory_search", "memory_get", "memory_history", "memory_context",
             "memory_open_questions", "memory_verified_commands", "memory_stats", "memory_export"}


def server_env(home: Path, embedder: str = FAST, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_HOME=str(home / "engram"), ENGRAM_EMBEDDER=embedder,
               HOME=str(home / "userhome"), ENGRAM_PROJECT=PROJECT, NO_COLOR="1", **extra)
    return env


# --- the scenario every transport must pass -----------------------------------------------

async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A successful call: returns its structured content, after checking the readable text."""
    result = await client.call_tool(name, arguments)
    text = result.content[0].text if result.content else ""
    assert not result.is_error, f"{name}({arguments}) failed: {text}"
    assert text.strip(), f"{name} returned no readable text"
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def fails(client: Client, name: str, arguments: dict[str, Any]) -> str:
    """A refused call: an isError result (never a crash), returning its message."""
    result = await client.call_tool(name, arguments)
    assert result.is_error, f"{name}({arguments}) should have failed"
    return result.content[0].text


async def check_listing(client: Client) -> None:
    tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    by_name = {t.name: t for t in tools}
    for name, tool in by_name.items():
        assert tool.description and len(tool.description) > 40, name
        assert tool.annotations is not None, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
    assert by_name["memory_delete"].annotations.destructive_hint is True
    assert by_name["memory_save"].annotations.destructive_hint is False
    assert "supersedes" in by_name["memory_save"].input_schema["properties"]
    assert by_name["memory_save"].input_schema["required"] == ["content"]
    assert "current code beats old memory" in by_name["memory_search"].description.lower()
    assert not by_name["memory_save"].description.startswith(" ")

    resources = {str(r.uri) for r in (await client.list_resources()).resources}
    assert resources == {"memory://stats", "memory://recent"}
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["memory://project/{name}"]
    prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert set(prompts) == {"recall", "context-load"}
    assert [a.name for a in prompts["recall"].arguments] == ["topic"]
    assert [a.name for a in prompts["context-load"].arguments] == ["task"]


async def check_every_tool(client: Client) -> None:
    # saving: all structured fields, the ENGRAM_PROJECT default, provenance "agent"
    saved = await call(client, "memory_save", {
        "content": "We deploy with GitHub Actions to Fly.io because Heroku was too slow.",
        "type": "decision", "tags": ["deploy", "ci"], "files": ["./.github/workflows/deploy.yml"],
        "importance": 0.8, "confidence": 0.9, "event_at": "2026-03-01",
    })
    decision = saved["memory"]
    assert saved["duplicate"] is False
    assert decision["project"] == PROJECT and decision["provenance"] == "agent"
    assert decision["type"] == "decision" and decision["tags"] == ["deploy", "ci"]
    assert decision["files"] == [".github/workflows/deploy.yml"]
    assert decision["importance"] == 0.8 and decision["confidence"] == 0.9
    assert decision["event_at"].startswith("2026-03-01")
    again = await call(client, "memory_save", {"content": decision["content"], "type": "decision"})
    assert again["duplicate"] is True and again["id"] == decision["id"]
    bug = (await call(client, "memory_save", {
        "content": "Login fails with 500 when the session cookie is stale.", "type": "bug_note",
        "problem": "stale cookie", "solution": "clear the cookie on 401", "project": "api",
    }))["memory"]
    assert bug["project"] == "api" and bug["solution"] == "clear the cookie on 401"
    glob = (await call(client, "memory_save", {"content": "User prefers tabs over spaces.",
                                               "type": "preference", "project": ""}))["memory"]
    assert glob["project"] is None
    command = (await call(client, "memory_save", {
        "content": "Run the test suite with `make test-fast`.",
        "type": "verified_command"}))["memory"]
    question = (await call(client, "memory_save", {
        "content": "Should we move from Postgres 15 to 17?", "type": "open_question"}))["memory"]
    secret = await call(client, "memory_save", {
        "content": "Staging key is AKIAZ3MHQLP4QW7RT2XN for the deploy bot.",
        "type": "project_fact"})
    assert "AKIAZ3MHQLP4QW7RT2XN" not in secret["memory"]["content"] and secret["redacted"]

    # a fact that changed: supersedes keeps the chain
    newer = (await call(client, "memory_save", {
        "content": "We deploy with GitHub Actions to Render now; Fly.io was dropped.",
        "type": "decision", "supersedes": decision["id"]}))["memory"]
    assert newer["supersedes"] == decision["id"]

    # searching (newest version only), with filters
    found = await call(client, "memory_search", {"query": "how do we deploy", "k": 5})
    ids = [r["memory"]["id"] for r in found["results"]]
    assert newer["id"] in ids and decision["id"] not in ids
    only_bugs = await call(client, "memory_search", {"query": "login cookie", "types": ["bug_note"],
                                                     "project": "api"})
    assert [r["memory"]["type"] for r in only_bugs["results"]] == ["bug_note"]
    await call(client, "memory_search", {"query": "deploy", "since": "2020-01-01",
                                         "until": "now", "files": [".github/workflows/deploy.yml"]})
    every = await call(client, "memory_search", {"query": "how do we deploy", "min_score": 0})
    assert every["cut"] == 0 and len(every["results"]) >= len(found["results"])

    got = await call(client, "memory_get", {"id": bug["id"]})
    assert got["memory"]["content"] == bug["content"]
    prefix = await call(client, "memory_get", {"id": bug["id"][:6]})
    assert prefix["memory"]["id"] == bug["id"]

    updated = await call(client, "memory_update", {
        "id": bug["id"], "content": "Login fails with 500 when the session cookie expired."})
    assert updated["new_version"] is True and updated["previous_id"] == bug["id"]
    tagged = await call(client, "memory_update", {"id": updated["memory"]["id"], "tags": ["auth"]})
    assert tagged["new_version"] is False and tagged["memory"]["tags"] == ["auth"]
    history = await call(client, "memory_history", {"id": bug["id"]})
    assert [m["id"] for m in history["versions"]] == [bug["id"], updated["memory"]["id"]]

    archived = await call(client, "memory_archive", {"id": glob["id"]})
    assert archived["memory"]["status"] == "archived"
    restored = await call(client, "memory_restore", {"id": glob["id"]})
    assert restored["memory"]["status"] == "active"
    pinned = await call(client, "memory_pin", {"id": glob["id"]})
    assert pinned["memory"]["pinned"] is True
    unpinned = await call(client, "memory_pin", {"id": glob["id"], "pinned": False})
    assert unpinned["memory"]["pinned"] is False
    confirmed = await call(client, "memory_confirm", {"id": command["id"]})
    assert confirmed["memory"]["confidence"] > command["confidence"]
    rejected = await call(client, "memory_reject", {"id": command["id"]})
    assert rejected["memory"]["confidence"] < confirmed["memory"]["confidence"]

    pack = await call(client, "memory_context", {"task": "fix the deploy workflow",
                                                 "files": [".github/workflows/deploy.yml"],
                                                 "budget": 800})
    assert "Current code beats old memory" in pack["text"]
    assert newer["id"] in pack["memory_ids"] and pack["tokens"] <= 800

    checkpoint = await call(client, "memory_checkpoint", {
        "summary": "Moved deploys to Render.", "problem": "Fly.io builds timed out",
        "solution": "switched the workflow to Render", "files": ["deploy.yml"],
        "concepts": ["deploy"], "session_id": "s-1"})
    assert checkpoint["memory"]["type"] == "task_summary"
    assert checkpoint["memory"]["project"] == PROJECT
    second = await call(client, "memory_checkpoint", {
        "summary": "Moved deploys to Render; docs too.", "session_id": "s-1"})
    assert second["memory"]["id"] == checkpoint["memory"]["id"]

    questions = await call(client, "memory_open_questions", {})
    assert [m["id"] for m in questions["memories"]] == [question["id"]]
    commands = await call(client, "memory_verified_commands", {"project": PROJECT})
    assert [m["id"] for m in commands["memories"]] == [command["id"]]

    stats = await call(client, "memory_stats", {})
    assert stats["total"] >= 8 and stats["by_type"]["decision"] == 2
    exported = await call(client, "memory_export", {"format": "jsonl"})
    lines = [json.loads(line) for line in exported["text"].splitlines()]
    assert {newer["id"], decision["id"]} <= {m["id"] for m in lines}
    markdown = await call(client, "memory_export", {"format": "markdown", "project": "api"})
    assert "session cookie expired" in markdown["text"]

    # a delete is soft (restorable), as `engram delete`; a hard one needs confirm: true
    deleted = await call(client, "memory_delete", {"id": glob["id"]})
    assert deleted["deleted"] is True and deleted["hard"] is False
    assert deleted["id"] == glob["id"] and deleted["memory"]["status"] == "deleted"
    restored = await call(client, "memory_restore", {"id": glob["id"]})
    assert restored["memory"]["status"] == "active"
    refused = await fails(client, "memory_delete", {"id": glob["id"], "hard": True})
    assert "confirm" in refused and "restorable" in refused
    assert (await call(client, "memory_get", {"id": glob["id"]}))["memory"]["id"] == glob["id"]
    deleted = await call(client, "memory_delete", {"id": glob["id"], "hard": True,
                                                   "confirm": True})
    assert deleted["id"] == glob["id"] and deleted["hard"] is True
    assert "no memory" in await fails(client, "memory_get", {"id": glob["id"]})


async def check_bad_arguments(client: Client) -> None:
    message = await fails(client, "memory_save", {"content": "x", "importance": 7})
    assert "importance" in message and "between 0 and 1" in message
    message = await fails(client, "memory_save", {"content": "x", "type": "banana"})
    assert "banana" in message and "decision" in message
    message = await fails(client, "memory_save", {"type": "decision"})
    assert "content" in message and "required" in message
    message = await fails(client, "memory_save", {"content": "x", "importance": "very"})
    assert "importance" in message and "validation error" not in message
    assert "no memory" in await fails(client, "memory_get", {"id": "zzzzzzzzzz"})
    assert "no memory" in await fails(client, "memory_update", {"id": "zzzzzzzzzz",
                                                               "content": "y"})
    assert "since" in await fails(client, "memory_search", {"query": "x", "since": "the dawn"})
    assert "k" in await fails(client, "memory_search", {"query": "x", "k": 0})
    assert "min_score" in await fails(client, "memory_search", {"query": "x", "min_score": -1})
    assert "budget" in await fails(client, "memory_context", {"task": "x", "budget": 1})
    assert "format" in await fails(client, "memory_export", {"format": "pdf"})
    assert "nothing to update" in await fails(client, "memory_update", {"id": "zzzzzzzzzz"})
    # an unknown tool is a protocol error (the spec's "Unknown tools"), not a tool result
    with pytest.raises(MCPError) as unknown:
        await client.call_tool("memory_nope", {})
    assert unknown.value.code == -32602 and "memory_save" in unknown.value.message
    with pytest.raises(MCPError) as missing:
        await client.get_prompt("recall", {})
    assert missing.value.code == -32602 and "topic" in missing.value.message
    # the server still answers
    assert (await call(client, "memory_stats", {}))["total"] >= 8
    assert (await call(client, "memory_search", {"query": "deploy"}))["results"]


async def check_resources_and_prompts(client: Client) -> None:
    stats = (await client.read_resource("memory://stats")).contents[0]
    assert json.loads(stats.text)["total"] >= 8
    recent = (await client.read_resource("memory://recent")).contents[0].text
    assert "Render" in recent and "Current code beats old memory" in recent
    project = (await client.read_resource(f"memory://project/{PROJECT}")).contents[0].text
    assert "Render" in project and "session cookie" not in project  # that one is in "api"
    empty = (await client.read_resource("memory://project/nothing-here")).contents[0].text
    assert "No memories" in empty

    recall = await client.get_prompt("recall", {"topic": "deploy"})
    text = recall.messages[0].content.text
    assert "Render" in text and "Current code beats old memory" in text
    loaded = await client.get_prompt("context-load", {"task": "change the deploy workflow"})
    assert "change the deploy workflow" in loaded.messages[0].content.text


async def scenario(client: Client) -> None:
    await check_listing(client)
    await check_every_tool(client)
    await check_bad_arguments(client)
    await check_resources_and_prompts(client)


# --- stdio -------------------------------------------------------------------------------

def test_stdio_server_with_the_bundled_model(tmp_path: Path) -> None:
    """What an agent config runs: `engram mcp`, real model, the whole tool surface, over the
    initialize handshake that today's agents (Claude Code, Codex, Cursor) speak."""
    params = StdioServerParameters(command=str(ENGRAM), args=["mcp"],
                                   env=server_env(tmp_path, embedder="bundled"))

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            await scenario(client)

    anyio.run(main)


OPENING = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}


def _discover(version: str = "2026-07-28") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}}}


def _initialize(protocol: str) -> dict[str, Any]:
    return {**OPENING, "params": {**OPENING["params"], "protocolVersion": protocol}}


def _start_exchange(env: dict[str, str], opening: dict[str, Any],
                    sdk_answers: bool = False) -> subprocess.Popen:
    """A real `engram mcp` sent `opening`; `sdk_answers`: after a blank line, so the
    server does not answer it early and the SDK does."""
    proc = subprocess.Popen([str(ENGRAM), "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    proc.stdin.write((b"\n" if sdk_answers else b"") + json.dumps(opening).encode() + b"\n")
    proc.stdin.flush()
    return proc


def _finish_exchange(proc: subprocess.Popen, then_list: bool = True) -> tuple[dict, dict]:
    """The answer to the opening request, then (`then_list`) to tools/list, read as the
    client reads them (line by line)."""
    try:
        assert proc.stdin is not None and proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        second: dict = {}
        if then_list:
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                             b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            proc.stdin.flush()
            second = json.loads(proc.stdout.readline())
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
    return first, second


def _stdio_exchange(env: dict[str, str], protocol: str = "2025-06-18") -> tuple[dict, dict]:
    """initialize, initialized, tools/list over a real `engram mcp`: the two answers."""
    return _finish_exchange(_start_exchange(env, _initialize(protocol)))


def test_stdio_answers_initialize_at_once_even_in_the_first_session(tmp_path: Path) -> None:
    """The SDK takes most of a second to load; `initialize` is answered before it loads,
    from the first session ever on; the SDK's own answer (the same) is dropped."""
    env = server_env(tmp_path)
    first, tools = _stdio_exchange(env)
    assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "engram"
    assert tools["id"] == 2 and tools["result"]["tools"]  # one answer each, in order
    cache = tmp_path / "engram" / "cache" / "mcp-initialize.json"
    assert not cache.exists()  # the SDK agreed: nothing to keep

    # An answer the last session kept (the SDK disagreed with the early one) wins.
    from engram.mcp.early import CACHE_NAME, FIRST_LINE_BYTES, _versions

    assert cache.name == CACHE_NAME
    kept = {"versions": _versions(), "results": {"initialize 2025-06-18": {
        **first["result"], "serverInfo": {**first["result"]["serverInfo"],
                                          "title": "answered early"}}}}
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps(kept))
    again, tools = _stdio_exchange(env)
    assert again["result"]["serverInfo"]["title"] == "answered early"  # the kept answer
    assert tools["id"] == 2 and tools["result"]["tools"]  # the SDK's own answer was dropped
    other, _ = _stdio_exchange(env, protocol="2024-11-05")  # another version: no kept one
    assert other["result"]["serverInfo"]["title"] == "Engram"
    from engram.netguard import DEFAULT_MAX_BODY

    assert FIRST_LINE_BYTES > DEFAULT_MAX_BODY  # an over-long first line is refused as usual
    cache.write_text("{not json")  # a broken cache costs nothing
    fresh, tools = _stdio_exchange(env)
    assert fresh["result"] == first["result"] and tools["result"]["tools"]


def test_the_early_answers_are_the_sdks(tmp_path: Path) -> None:
    """What `engram mcp` sends before the SDK loads is what the SDK itself answers, for
    every protocol version it speaks (and one it does not), initialize and discover."""
    from mcp.server.runner import HANDSHAKE_PROTOCOL_VERSIONS
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from engram.mcp import early
    from engram.mcp.early import PROTOCOL_VERSIONS, static_result

    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == PROTOCOL_VERSIONS
    assert tuple(MODERN_PROTOCOL_VERSIONS) == early.MODERN_VERSIONS
    openings = [_initialize(v) for v in [*PROTOCOL_VERSIONS, "1999-01-01"]]
    openings += [_discover(v) for v in MODERN_PROTOCOL_VERSIONS]
    env = server_env(tmp_path)
    started = [_start_exchange(env, opening, sdk_answers=True) for opening in openings]
    for opening, proc in zip(openings, started, strict=True):
        sdk, _ = _finish_exchange(proc, then_list=False)
        params = opening["params"]
        version = params.get("protocolVersion") or params["_meta"][
            "io.modelcontextprotocol/protocolVersion"]
        assert static_result(opening["method"], version) == sdk["result"], version
    assert not (tmp_path / "engram" / "cache").exists()


def test_an_early_answer_the_sdk_disagrees_with_is_replaced_next_time(tmp_path: Path) -> None:
    from engram.mcp.early import Early

    early = Early(source=None, request_id=1, answered_id=1,  # type: ignore[arg-type]
                  protocol="initialize 2025-06-18", cache=tmp_path / "cache" / "x.json",
                  key="versions", sent={"said": "early"})
    early.check({"id": 1, "result": {"said": "early"}})
    assert not early.cache.exists()  # the same: nothing to keep
    early.check({"id": 1, "result": {"said": "sdk"}})
    stored = json.loads(early.cache.read_text())
    assert stored == {"versions": "versions",
                      "results": {"initialize 2025-06-18": {"said": "sdk"}}}


@pytest.mark.parametrize("ending", ["stdin closed", "SIGTERM"])
def test_every_search_is_audited_when_the_server_stops_cleanly(tmp_path: Path,
                                                                ending: str) -> None:
    """The audit rows are written after the replies, a batch a second; a clean stop (the
    client closes stdin, or sends SIGTERM) writes the ones still queued."""
    import signal

    import engram

    env = server_env(tmp_path)
    proc = _start_exchange(env, _initialize("2025-06-18"))
    assert proc.stdin is not None and proc.stdout is not None
    searches = 7
    try:
        assert json.loads(proc.stdout.readline())["id"] == 1
        lines = [b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
        lines += [json.dumps({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                              "params": {"name": "memory_search",
                                         "arguments": {"query": f"deploy {i}"}}}).encode()
                  for i in range(searches)]
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(searches)]
        assert sorted(a["id"] for a in answers) == [10 + i for i in range(searches)]
        assert not any(a["result"].get("isError") for a in answers)
        if ending == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        else:
            proc.stdin.close()
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
    with engram.open(tmp_path / "engram" / "memory.db", embedder=FAST) as mem:
        recalls = mem.recalls(caller="mcp", limit=100)
    assert sorted(r["query"] for r in recalls) == [f"deploy {i}" for i in range(searches)]


def test_stdio_honours_db_option(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"
    params = StdioServerParameters(command=str(ENGRAM), args=["--db", str(db), "mcp"],
                                   env=server_env(tmp_path))

    async def main() -> None:
        async with Client(params) as client:
            await call(client, "memory_save", {"content": "Stored in the --db file."})

    anyio.run(main)
    assert db.exists()
    assert not (tmp_path / "engram" / "memory.db").exists()


# --- streamable HTTP ------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(proc: subprocess.Popen[str], port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}: {proc.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the HTTP server did not start listening")


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `engram mcp --http` with a token for the whole module; yields its URL."""
    home = tmp_path_factory.mktemp("http")
    port = free_port()
    proc = subprocess.Popen([str(ENGRAM), "mcp", "--http", "--port", str(port)],
                            env=server_env(home, ENGRAM_TOKEN=TOKEN),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(proc, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def with_http_client(url: str, headers: dict[str, str], body: Any) -> None:
    async with (create_mcp_http_client(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http)) as client):
        await body(client)


def test_http_server_with_token(http_server: str) -> None:
    """Streamable HTTP with the bearer token; the SDK's default negotiation (newest protocol)."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    anyio.run(with_http_client, http_server, headers, scenario)


INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}},
}).encode()


def post(url: str, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, data=INITIALIZE, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(2000).decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_http_token_is_enforced_on_loopback(http_server: str) -> None:
    status, body = post(http_server, {})
    assert status == 401 and "token" in body
    assert post(http_server, {"Authorization": "Bearer wrong"})[0] == 401
    assert post(http_server, {"Authorization": TOKEN})[0] == 401  # scheme required
    status, body = post(http_server, {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200 and "engram" in body


def test_http_refuses_foreign_origin(http_server: str) -> None:
    """The REST API's rule: a browser page may call only from the server's own origin."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    status, body = post(http_server, {**auth, "Origin": "http://evil.example"})
    assert status == 403 and "origin" in body.lower()
    assert json.loads(body)["error"]["code"] == -32600  # a JSON-RPC error, as MCP's are
    assert post(http_server, {**auth, "Origin": "http://localhost.evil.example"})[0] == 403
    assert post(http_server, {**auth, "Origin": "http://localhost:5173"})[0] == 403
    assert post(http_server, {**auth, "Origin": "http://127.0.0.1:8080"})[0] == 403
    own = http_server.rsplit("/", 1)[0]  # http://127.0.0.1:<port>
    assert post(http_server, {**auth, "Origin": own})[0] == 200


def test_http_refuses_public_bind_without_token(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(ENGRAM), "mcp", "--http", "--host", "0.0.0.0", "--port", str(free_port())],
        env=server_env(tmp_path), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode != 0
    assert "ENGRAM_TOKEN" in proc.stderr and "0.0.0.0" in proc.stderr
    assert proc.stderr.startswith("error:")


# --- the rules, in-process -------------------------------------------------------------------

def test_bind_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("[::1]") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert not is_loopback("example.com")
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", "a-token")
    with pytest.raises(BindRefused, match="ENGRAM_TOKEN"):
        check_bind("0.0.0.0", None)
    with pytest.raises(BindRefused):
        check_bind("::", "")


def test_origin_and_token_rules() -> None:
    rule = AccessRule(bind_host="127.0.0.1")
    host = "127.0.0.1:3457"
    assert rule.origin_allowed(None, host) and rule.origin_allowed("http://127.0.0.1:3457", host)
    assert rule.origin_allowed("https://127.0.0.1:3457/", host)
    assert not rule.origin_allowed("http://localhost:3000", host)  # another port: another origin
    assert not rule.origin_allowed("http://evil.example", host)
    assert not rule.origin_allowed("null", host)
    assert not rule.origin_allowed("http://127.0.0.1.evil.example", host)
    assert not rule.origin_allowed("file://localhost", host)
    listed = AccessRule(cors_origins=["http://localhost:5173"])
    assert listed.origin_allowed("http://localhost:5173", host)
    assert token_matches("Bearer abc", "abc") and token_matches("bearer abc", "abc")
    assert not token_matches("Bearer abd", "abc") and not token_matches(None, "abc")
    assert not token_matches("Basic abc", "abc")


def test_searches_are_recorded_as_mcp_recalls(tmp_path: Path) -> None:
    """The audit log sees MCP searches as caller "mcp" (service.search's extension point)."""
    import engram
    from engram.mcp.server import build_server

    mem = engram.open(tmp_path / "memory.db", embedder=FAST)
    callers: list[str] = []
    mem.lifecycle.record_recall = lambda caller, query, response: callers.append(caller)
    mem.save("We use SQLite with WAL.", type="decision", project="p")
    server = build_server(mem, default_project="p")

    async def main() -> None:
        async with Client(server) as client:
            found = await call(client, "memory_search", {"query": "sqlite"})
            assert found["results"]
            await client.get_prompt("recall", {"topic": "sqlite"})

    anyio.run(main)
    mem.close()
    assert callers == ["mcp", "mcp"]


def guard_status(token: str | None, headers: dict[str, str]) -> int:
    """Run GuardMiddleware over a stub app that answers 200; return the status sent."""
    from engram.mcp.auth import GuardMiddleware

    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = {"Host": "127.0.0.1:3457", **headers}
    scope = {"type": "http", "method": "GET",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    anyio.run(GuardMiddleware(app, token), scope, receive, send)
    return sent[0]["status"]


def test_guard_without_token_checks_host_and_origin() -> None:
    assert guard_status(None, {}) == 200
    assert guard_status(None, {"Origin": "http://127.0.0.1:3457"}) == 200
    assert guard_status(None, {"Origin": "http://localhost:3000"}) == 403
    assert guard_status(None, {"Origin": "https://evil.example"}) == 403
    assert guard_status(None, {"Host": "attacker.example:3457"}) == 421  # DNS rebinding
    assert guard_status("t", {}) == 401
    assert guard_status("t", {"Authorization": "Bearer t"}) == 200


def test_without_engram_project_saves_are_global(tmp_path: Path) -> None:
    import engram
    from engram.mcp.server import build_server

    mem = engram.open(tmp_path / "memory.db", embedder=FAST)

    async def main() -> None:
        async with Client(build_server(mem, default_project=None)) as client:
            saved = await call(client, "memory_save", {"content": "Tabs, not spaces."})
            assert saved["memory"]["project"] is None
            saved = await call(client, "memory_save", {"content": "Use ruff.", "project": "x"})
            assert saved["memory"]["project"] == "x"

    anyio.run(main)
    mem.close()


def test_an_agents_folder_names_the_project_of_its_saves_as_the_hooks_name_it(
        tmp_path: Path) -> None:
    """Claude Code starts `engram mcp` in the project's folder: without ENGRAM_PROJECT,
    a save with no project goes to that folder's project (the git root's name, which is
    what the hooks use), and the tool says so."""
    from engram.hooks.state import project_for

    repo = tmp_path / "shopfront"
    (repo / "src" / "cart").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = server_env(tmp_path)
    del env["ENGRAM_PROJECT"]
    params = StdioServerParameters(command=str(ENGRAM), args=["mcp"], env=env,
                                   cwd=str(repo / "src" / "cart"))

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            project_help = tools["memory_save"].input_schema["properties"]["project"]
            assert "'shopfront'" in json.dumps(project_help)
            saved = await call(client, "memory_save", {"content": "Prices are in cents."})
            assert saved["memory"]["project"] == "shopfront"
            saved = await call(client, "memory_save", {"content": "Tabs.", "project": ""})
            assert saved["memory"]["project"] is None  # global, on purpose

    anyio.run(main)
    assert project_for(str(repo / "src" / "cart"), {}) == "shopfront"  # the hooks' name
