"""A shared server's users: `engram users` on the store, and a real `engram serve` that
asks every request for one of their tokens, on each engine under test."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_support import Server, engram_command, server_env, start_server
from conftest import backends, stop_worker

import engram
from engram.service.users import hash_token


def users_cli(home: Path, db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*engram_command(), "--db", db, "users", *args],
                          env=server_env(home), capture_output=True, text=True, timeout=60)


@pytest.fixture(params=backends())
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A home and a store (a file, or a new PostgreSQL database) with no users yet."""
    if request.param == "postgres":
        import pg_support

        yield tmp_path / "home", pg_support.fresh_url()
    else:
        yield tmp_path / "home", str(tmp_path / "shared.db")


def test_users_are_added_listed_rotated_and_removed_with_tokens_kept_hashed(shared):
    home, db = shared
    added = users_cli(home, db, "add", "alice", "--role", "admin", "--json")
    assert added.returncode == 0, added.stderr
    alice = json.loads(added.stdout)
    assert alice["name"] == "alice" and alice["role"] == "admin"
    assert alice["token"].startswith("engram_") and len(alice["token"]) > 40
    bob = json.loads(users_cli(home, db, "add", "bob", "--json").stdout)
    assert bob["role"] == "writer" and bob["token"] != alice["token"]

    again = users_cli(home, db, "add", "bob")
    assert again.returncode == 1 and "already exists" in again.stderr
    assert "Traceback" not in again.stderr
    bad = users_cli(home, db, "add", "bob smith")
    assert bad.returncode == 1 and "name" in bad.stderr
    assert users_cli(home, db, "add", "carol", "--role", "owner").returncode == 2

    listed = json.loads(users_cli(home, db, "list", "--json").stdout)
    assert [(u["name"], u["role"]) for u in listed] == [("alice", "admin"), ("bob", "writer")]
    assert "token" not in json.dumps(listed)

    with engram.open(db, embedder="none") as mem:  # only the hash is stored
        assert mem.users.authenticate(bob["token"]).name == "bob"
        assert mem.store.user_by_token(hash_token(bob["token"])) == ("bob", "writer")
        assert mem.store.user_by_token(bob["token"]) is None

    rotated = json.loads(users_cli(home, db, "rotate", "bob", "--json").stdout)
    with engram.open(db, embedder="none") as mem:
        assert mem.users.authenticate(bob["token"]) is None
        assert mem.users.authenticate(rotated["token"]).role == "writer"

    assert users_cli(home, db, "remove", "bob").returncode == 0
    gone = users_cli(home, db, "remove", "bob")
    assert gone.returncode == 1 and "no user named 'bob'" in gone.stderr
    with engram.open(db, embedder="none") as mem:
        assert mem.users.authenticate(rotated["token"]) is None
        assert [u["name"] for u in mem.users.list()] == ["alice"]


def _serve(home: Path, db: str, *args: str) -> Server:
    server = start_server(home, *args, ENGRAM_DB=db)
    server.db = db
    return server


def test_a_server_with_users_asks_every_request_for_a_users_token(shared):
    home, db = shared
    server = _serve(home, db)
    try:
        with server.client() as anonymous:  # no users yet: a single-user loopback server
            assert anonymous.get("/v1/memories").status_code == 200
        tokens = {name: json.loads(users_cli(home, db, "add", name, "--role", role,
                                             "--json").stdout)["token"]
                  for name, role in (("ann", "admin"), ("wes", "writer"), ("rea", "reader"))}
        with server.client() as anonymous:  # the server sees the new users at once
            refused = anonymous.get("/v1/memories")
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert anonymous.get("/health").status_code == 200  # liveness stays open
        with server.client("engram_not-a-real-token") as stranger:
            assert stranger.get("/v1/memories").status_code == 401

        with server.client(tokens["wes"]) as writer:
            saved = writer.post("/v1/memories", json={"content": "Auth is Clerk, not JWT",
                                                      "type": "decision"})
            assert saved.status_code == 201, saved.text
            memory_id = saved.json()["id"]
            assert writer.patch(f"/v1/memories/{memory_id}",
                                json={"tags": ["auth"]}).status_code == 200
            forbidden = writer.delete(f"/v1/memories/{memory_id}", params={"hard": "true"})
            assert forbidden.status_code == 403 and forbidden.json()["error"] == "forbidden"
        with server.client(tokens["rea"]) as reader:
            assert reader.get("/v1/search", params={"q": "auth"}).status_code == 200
            assert reader.get(f"/v1/memories/{memory_id}").status_code == 200
            refused = reader.post("/v1/memories", json={"content": "readers cannot write"})
            assert refused.status_code == 403 and "reader" in refused.json()["message"]
            assert reader.delete(f"/v1/memories/{memory_id}").status_code == 403
        with server.client(tokens["ann"]) as admin:
            assert admin.delete(f"/v1/memories/{memory_id}",
                                params={"hard": "true"}).status_code == 200
        with engram.open(db, embedder="none") as mem:
            assert mem.count() == 0  # only the writer's save happened, and the admin's delete
            assert mem.count(status="deleted") == 0

        users_cli(home, db, "remove", "wes")
        with server.client(tokens["wes"]) as removed:
            assert removed.get("/v1/memories").status_code == 401
    finally:
        server.stop()


def test_a_store_with_users_may_be_served_beyond_loopback(tmp_path: Path):
    home, db = tmp_path / "home", str(tmp_path / "shared.db")
    refused = subprocess.run([*engram_command(), "--db", db, "serve", "--host", "0.0.0.0",
                              "--port", "0"], env=server_env(home), capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 1 and "engram users add" in refused.stderr
    token = json.loads(users_cli(home, db, "add", "ann", "--json").stdout)["token"]
    server = _serve(home, db, "--host", "0.0.0.0")
    try:
        port = server.url.rsplit(":", 1)[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}",
                          headers={"Authorization": f"Bearer {token}"}) as client:
            assert client.get("/v1/memories").status_code == 200
        address = _own_address()
        if address is None:
            pytest.skip("this machine has no address but loopback")
        with httpx.Client(base_url=f"http://{address}:{port}",
                          headers={"Authorization": f"Bearer {token}"}) as client:
            refused = client.get("/v1/memories")  # a token in clear text from the network
            assert refused.status_code == 403 and refused.json()["error"] == "insecure"
    finally:
        server.stop()
    server = _serve(home, db, "--host", "0.0.0.0", "--allow-insecure")
    try:
        port = server.url.rsplit(":", 1)[1]
        with httpx.Client(base_url=f"http://{address}:{port}",
                          headers={"Authorization": f"Bearer {token}"}) as client:
            assert client.get("/v1/memories").status_code == 200
    finally:
        server.stop()


def _own_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    import socket

    for target in ("10.255.255.255", "192.0.2.255"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect((target, 9))  # no packet is sent: this only picks a route
            except OSError:
                continue
            address = probe.getsockname()[0]
            if not address.startswith("127.") and address != "0.0.0.0":
                return address
    return None


def test_mcp_over_http_knows_the_stores_users_and_their_roles(tmp_path: Path):
    """`engram mcp --http` on a store with users: a user's token opens a session; a reader
    may search but not save; a writer may save."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from test_mcp import free_port, wait_listening

    home, db = tmp_path / "home", str(tmp_path / "shared.db")
    tokens = {name: json.loads(users_cli(home, db, "add", name, "--role", role,
                                         "--json").stdout)["token"]
              for name, role in (("wes", "writer"), ("rea", "reader"))}
    port = free_port()
    proc = subprocess.Popen([*engram_command(), "--db", db, "mcp", "--http", "--port", str(port)],
                            env=server_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    outcomes: dict[str, object] = {}

    async def session(name: str, body) -> None:
        headers = {"Authorization": f"Bearer {tokens[name]}"} if name in tokens else {}
        async with (create_mcp_http_client(headers=headers) as http,
                    Client(streamable_http_client(url, http_client=http)) as client):
            await body(client)

    async def writer(client) -> None:
        saved = await client.call_tool("memory_save", {"content": "CI runs on Buildkite",
                                                       "type": "project_fact"})
        mine = await client.call_tool("memory_save", {
            "content": "I prefer two-space indents in the Buildkite pipeline yaml",
            "type": "preference"})
        outcomes["writer saved"] = not saved.is_error and not mine.is_error

    async def reader(client) -> None:
        found = await client.call_tool("memory_search", {"query": "Buildkite pipeline"})
        text = found.content[0].text
        outcomes["reader found"] = "CI runs on Buildkite" in text and "two-space" not in text
        try:
            refused = await client.call_tool("memory_save", {"content": "readers cannot"})
            outcomes["reader saved"] = not refused.is_error
        except Exception as exc:  # the guard answers with a JSON-RPC error
            outcomes["reader refused"] = "reader" in str(exc)

    try:
        wait_listening(proc, port)
        anyio.run(session, "wes", writer)
        anyio.run(session, "rea", reader)
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=hello, headers=accept).status_code == 401  # no token
        assert httpx.post(url, json=hello, headers={
            **accept, "Authorization": f"Bearer {tokens['rea']}"}).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert outcomes == {"writer saved": True, "reader found": True, "reader refused": True}
    with engram.open(db, embedder="none") as mem:
        assert sorted((m.owner, m.scope) for m in mem.list()) == [
            ("wes", "personal"), ("wes", "team")]


def test_a_personal_memory_never_reaches_another_user(shared):
    """Two writers on one server: team memories are shared, personal ones stay their
    owner's through every read path, and a save is never folded into another's memory."""
    home, db = shared
    tokens = {name: json.loads(users_cli(home, db, "add", name, "--json").stdout)["token"]
              for name in ("alice", "bob")}
    server = _serve(home, db)
    try:
        with server.client(tokens["alice"]) as alice:
            team = alice.post("/v1/memories", json={
                "content": "Auth is Clerk, not custom JWT: rotating keys by hand broke prod",
                "type": "decision", "project": "shop"}).json()["memory"]
            mine = alice.post("/v1/memories", json={
                "content": "I like terse commit messages about the shop checkout",
                "type": "preference", "project": "shop"}).json()["memory"]
            secret_plan = alice.post("/v1/memories", json={
                "content": "Shop checkout rewrite plan, not shared yet", "type": "todo",
                "project": "shop", "scope": "personal"}).json()["memory"]
            assert (team["owner"], team["scope"]) == ("alice", "team")
            assert (mine["owner"], mine["scope"]) == ("alice", "personal")  # by type
            assert secret_plan["scope"] == "personal"
            page = alice.get("/v1/memories", params={"limit": 50}).json()
            seen = {m["id"] for m in page["items"]}
            assert {team["id"], mine["id"], secret_plan["id"]} <= seen

        personal = {mine["id"], secret_plan["id"]}
        with server.client(tokens["bob"]) as bob:
            found = bob.get("/v1/search", params={"q": "shop checkout commit plan Clerk"}).json()
            assert team["id"] in {r["memory"]["id"] for r in found["results"]}
            assert not personal & {r["memory"]["id"] for r in found["results"]}
            page = bob.get("/v1/memories", params={"limit": 50}).json()
            listed = {m["id"] for m in page["items"]}
            assert team["id"] in listed and not personal & listed
            for memory_id in personal:
                assert bob.get(f"/v1/memories/{memory_id}").status_code == 404
                assert bob.get(f"/v1/memories/{memory_id[:6]}").status_code == 404
                assert bob.get(f"/v1/memories/{memory_id}/history").status_code == 404
                assert bob.patch(f"/v1/memories/{memory_id}",
                                 json={"content": "taken over"}).status_code == 404
            exported = bob.get("/v1/export").text
            assert "terse commit" not in exported and "rewrite plan" not in exported
            assert "Clerk" in exported
            context = bob.get("/v1/context", params={"project": "shop",
                                                      "task": "checkout commits"}).json()
            assert "terse commit" not in json.dumps(context)
            assert "terse commit" not in json.dumps(bob.get("/v1/overview").json())
            counted = bob.post("/v1/used", json={"ids": [*personal, team["id"]]}).json()
            assert counted == {"counted": 1}  # another's personal memory is not even counted
            # the same words as alice's personal memory are bob's own memory, not a merge
            twin = bob.post("/v1/memories", json={
                "content": "I like terse commit messages about the shop checkout",
                "type": "preference", "project": "shop"}).json()
            assert twin["duplicate"] is False and twin["memory"]["owner"] == "bob"
    finally:
        server.stop()
    with engram.open(db, embedder="none") as mem:  # the store's own owner sees everything
        assert mem.count(project="shop") == 4
        assert "api:bob" in {r["caller"] for r in mem.recalls()}  # who asked


def test_consolidation_never_merges_across_owners_or_scopes(tmp_path: Path, clock):
    from datetime import timedelta

    from engram.service.users import acting_as

    with engram.open(tmp_path / "m.db", embedder="fake", clock=clock) as mem:
        mem.lifecycle.upkeep_mode = "off"
        for owner in ("alice", "bob"):
            with acting_as(owner):
                for day in range(3):
                    mem.save(f"Deploy of the shop failed on day {day}: the migration lock "
                             f"timed out again", type="bug_note", project="shop",
                             scope="personal", created_at=clock() - timedelta(days=60 + day))
        report = mem.consolidate(min_age_days=1, similarity=0.1)
        assert report.created, "the three look-alike notes of each owner were merged"
        for new in report.created:
            sources = [mem.get(i, track=False) for i in new.meta["consolidated_from"]]
            assert {s.owner for s in sources} == {new.owner}
            assert new.scope == "personal"
        assert {new.owner for new in report.created} == {"alice", "bob"}


def test_several_users_saving_and_searching_at_once_lose_nothing(shared):
    """The load benchmark, bounded: writers and readers at once on a real server with the
    bundled model; every acknowledged save stored once with its owner, no personal memory
    in another user's results, no failed request."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.teams import run

    _, db = shared
    result = run(users=4, rounds=6, db=None if db.endswith(".db") else db)
    assert result["errors"] == 0 and result["lost"] == 0, result
    assert result["acknowledged"] == 2 * 6 == result["stored"]
    assert result["wrong_owner"] == 0 and result["personal_leaks"] == 0


def test_engram_serve_also_speaks_mcp_at_slash_mcp_with_the_same_users(tmp_path: Path):
    """One process for a team: REST, the dashboard and MCP over HTTP, one set of users."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    home, db = tmp_path / "home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "wes", "--json").stdout)["token"]
    server = _serve(home, db)
    found: dict[str, object] = {}

    async def agent() -> None:
        async with (create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
                    Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as c):
            saved = await c.call_tool("memory_save", {"content": "Releases go out on Tuesdays",
                                                      "type": "constraint"})
            found["saved"] = not saved.is_error

    try:
        anyio.run(agent)
        with server.client(token) as api:  # the REST side sees what the agent saved
            hits = api.get("/v1/search", params={"q": "releases Tuesdays"}).json()["results"]
            found["owner"] = hits[0]["memory"]["owner"]
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "1"}}}
        refused = httpx.post(f"{server.url}/mcp", json=hello,
                             headers={"Accept": "application/json, text/event-stream"})
        found["anonymous"] = refused.status_code
    finally:
        server.stop()
    assert found == {"saved": True, "owner": "wes", "anonymous": 401}


def test_each_user_has_a_rate_limit_across_rest_and_mcp(tmp_path: Path):
    home, db = tmp_path / "home", str(tmp_path / "shared.db")
    tokens = {n: json.loads(users_cli(home, db, "add", n, "--json").stdout)["token"]
              for n in ("busy", "calm")}
    server = _serve(home, db, "--rate-limit", "30")  # a burst of 6, then one each 2 s
    try:
        with server.client(tokens["busy"]) as busy:
            statuses = [busy.get("/v1/stats").status_code for _ in range(8)]
            assert statuses[:6] == [200] * 6 and statuses[-1] == 429
            limited = busy.get("/v1/stats")
            assert limited.json()["error"] == "rate_limited"
            assert int(limited.headers["retry-after"]) >= 1
            hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "test", "version": "1"}}}
            over_mcp = httpx.post(f"{server.url}/mcp", json=hello, headers={
                "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {tokens['busy']}"})
            assert over_mcp.status_code == 429  # one allowance for both doors
        with server.client(tokens["calm"]) as calm:  # another user is not slowed down
            assert calm.get("/v1/stats").status_code == 200
        schema = httpx.get(f"{server.url}/openapi.json").json()
        assert "429" in schema["paths"]["/v1/search"]["get"]["responses"]
    finally:
        server.stop()


def test_the_cli_acts_on_a_team_server_with_engram_url_as_it_does_locally(shared, cli_env):
    """ENGRAM_URL + ENGRAM_TOKEN: the memory commands go to the server, same arguments,
    same JSON as on a local store, the server's refusals as the usual one-line errors."""
    from conftest import run_cli, run_json

    home, db = shared
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    server = _serve(home, db)
    remote = dict(cli_env, ENGRAM_URL=server.url, ENGRAM_TOKEN=token)
    local = dict(cli_env, ENGRAM_DB=str(Path(cli_env["ENGRAM_HOME"]) / "local.db"))
    try:
        for env in (remote, local):
            saved = run_json(env, "add", "Deploys go through ArgoCD, never kubectl apply",
                             "--type", "constraint", "--project", "infra", "--tags", "deploy")
            again = run_json(env, "add", "Deploys go through ArgoCD, never kubectl apply",
                             "--type", "constraint", "--project", "infra")
            assert again["duplicate"] is True and again["id"] == saved["id"]
            found = run_json(env, "search", "how do we deploy", "--project", "infra")
            assert found["results"][0]["memory"]["id"] == saved["id"]
            assert run_json(env, "get", saved["id"])["content"].startswith("Deploys go")
            newer = run_json(env, "update", saved["id"], "--content",
                             "Deploys go through ArgoCD (since March), never kubectl apply")
            assert [v["id"] for v in run_json(env, "history", newer["id"])] == [
                saved["id"], newer["id"]]
            assert run_json(env, "pin", newer["id"])["pinned"] is True
            listed = run_json(env, "list", "--project", "infra")
            assert [m["id"] for m in listed] == [newer["id"]]
            assert run_json(env, "archive", newer["id"])["status"] == "archived"
            assert run_json(env, "restore", newer["id"])["status"] == "active"
            exported = run_cli(env, "export", "--format", "jsonl").stdout
            assert "ArgoCD" in exported
            partial = run_cli(env, "import", "-", "--json",
                              input='{"content": "Staging is k3s"}\nnot json\n')
            assert partial.returncode == 1  # a refused record, as with a local store
            imported = json.loads(partial.stdout)
            assert imported["imported"] == 1 and imported["errors"][0]["line"] == 2
            missing = run_cli(env, "get", "zzzzzzzzzz")
            assert missing.returncode == 1 and "no memory" in missing.stderr
            assert "Traceback" not in missing.stderr
        with engram.open(db, embedder="none") as mem:  # the remote saves are ada's, on the server
            assert {m.owner for m in mem.list(limit=100)} == {"ada"}

        refused = run_cli(dict(remote, ENGRAM_TOKEN="engram_wrong"), "list")
        assert refused.returncode == 1 and "refused the token" in refused.stderr
    finally:
        server.stop()
    gone = run_cli(remote, "search", "deploy")  # the server is down: one clear line
    assert gone.returncode == 1 and "cannot reach the Engram server" in gone.stderr
    assert "Traceback" not in gone.stderr


def test_an_agent_over_stdio_uses_a_team_server_with_engram_url(tmp_path: Path):
    """`engram mcp` over stdio with ENGRAM_URL: the whole tool surface an agent uses, on
    the server (the same scenario the local MCP tests run)."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from test_mcp import ENGRAM, scenario
    from test_mcp import server_env as mcp_env

    home, db = tmp_path / "home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "agent", "--role", "admin",
                                 "--json").stdout)["token"]
    server = start_server(home, ENGRAM_DB=db, ENGRAM_PROJECT="mcp-test")
    env = dict(mcp_env(tmp_path / "client"), ENGRAM_URL=server.url, ENGRAM_TOKEN=token)

    async def main() -> None:
        async with Client(StdioServerParameters(command=str(ENGRAM), args=["mcp"], env=env),
                          mode="legacy") as client:
            await scenario(client)

    try:
        anyio.run(main)
    finally:
        server.stop()
    assert not (tmp_path / "client" / "engram" / "memory.db").exists()  # nothing local
    with engram.open(db, embedder="none") as mem:
        assert mem.count() > 0 and {m.owner for m in mem.list(limit=500)} == {"agent"}


def test_setup_url_points_every_client_at_the_server_and_doctor_checks_it(tmp_path: Path,
                                                                         cli_env):
    """`engram setup --url --token` writes Engram's own config (private); the CLI and
    `engram doctor` then use the server without any environment variable."""
    import stat

    from conftest import run_cli, run_json

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    server = _serve(home, db)
    try:
        done = run_cli(cli_env, "setup", "--agent", "codex", "--url", server.url,
                       "--token", token)
        assert done.returncode == 0, done.stderr
        config = Path(cli_env["ENGRAM_HOME"]) / "config.toml"
        assert stat.S_IMODE(config.stat().st_mode) == 0o600 and token in config.read_text()
        saved = run_json(cli_env, "add", "The VPN needs the new cert from IT")
        assert saved["memory"]["owner"] == "ada"  # it went to the server, as ada
        assert not (Path(cli_env["ENGRAM_HOME"]) / "memory.db").exists()
        report = json.loads(run_cli(cli_env, "doctor", "--json").stdout)  # other checks
        status = {c["name"]: c["status"] for c in report["checks"]}    # may fail here
        assert (status["server"], status["server token"], status["server clock"]) == (
            "ok", "ok", "ok")

        run_cli(cli_env, "setup", "--agent", "codex", "--url", server.url, "--token",
                "engram_stale")
        report = json.loads(run_cli(cli_env, "doctor", "--json").stdout)
        assert {c["name"]: c["status"] for c in report["checks"]}["server token"] == "fail"
        assert run_cli(cli_env, "setup", "--agent", "codex", "--url", "off").returncode == 0
        assert "[server]" not in config.read_text()
        local = run_json(cli_env, "add", "Back on the local store")
        assert local["memory"]["owner"] is None
    finally:
        server.stop()
    refused = run_cli(cli_env, "setup", "--url", "ftp://x")
    assert refused.returncode == 1 and "http://" in refused.stderr


def test_saves_made_while_the_server_is_down_wait_in_the_outbox_and_arrive_once(
        tmp_path: Path, cli_env):
    """The server is down: `engram add` queues (exit 0, secrets redacted on disk); the
    next command that reaches the server sends the queue first, in order; sending again
    (a reply lost on the way) stores nothing twice."""
    from conftest import run_cli, run_json
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    port = free_port()
    client = dict(cli_env, ENGRAM_URL=f"http://127.0.0.1:{port}", ENGRAM_TOKEN=token)
    outbox = Path(cli_env["ENGRAM_HOME"]) / "outbox.jsonl"

    first = run_json(client, "add", "Staging DB moved to db2 (DB_PASSWORD=Xk9mQ2vpL7wR4tZ8)",
                     "--type", "project_fact", "--project", "infra")
    second = run_json(client, "add", "The deploy freeze starts Thursday", "--project", "infra")
    assert first["queued"] is True and second["queued"] is True
    assert oct(outbox.stat().st_mode & 0o777) == "0o600"
    assert "Xk9mQ2vpL7wR4tZ8" not in outbox.read_text() and first["redacted"]
    assert [json.loads(line)["id"] for line in outbox.read_text().splitlines()] == [
        first["id"], second["id"]]
    gone = run_cli(client, "sync")
    assert gone.returncode == 1 and "cannot reach" in gone.stderr

    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    try:
        kept = outbox.read_text()
        found = run_json(client, "search", "deploy freeze")  # sends the queue first
        assert found["results"] and outbox.read_text() == ""
        outbox.write_text(kept)  # as if the server got them but the replies were lost
        assert run_json(client, "sync") == {"sent": 2, "queued": 0, "server": client[
            "ENGRAM_URL"]}
    finally:
        server.stop()
    with engram.open(db, embedder="none") as mem:
        stored = mem.list(project="infra", limit=10)
        assert sorted(m.id for m in stored) == sorted([first["id"], second["id"]])
        assert {m.owner for m in stored} == {"ada"}
        assert all("Xk9mQ2vpL7wR4tZ8" not in m.content for m in stored)


def test_claude_code_hooks_recall_from_and_capture_to_the_team_server(tmp_path: Path,
                                                                     cli_env):
    """With a team server set, UserPromptSubmit injects what the server recalls for this
    user, PostToolUse captures a passing command there; with the server down the hooks
    still exit 0 and the capture waits in the outbox."""
    from conftest import run_cli
    from test_hooks import FIXTURES
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    port = free_port()
    env = dict(cli_env, ENGRAM_URL=f"http://127.0.0.1:{port}", ENGRAM_TOKEN=token,
               ENGRAM_HOOK_DEADLINE="60")

    def fixture(name: str, **changes: object) -> str:
        data = json.loads((FIXTURES / name).read_text())
        return json.dumps({**data, "cwd": str(project), **changes})

    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    try:
        with server.client(token) as api:
            refunds = api.post("/v1/memories", json={
                "content": "Stripe refunds must use payment_intent; the charge argument is gone",
                "type": "constraint", "project": "shop"}).json()["id"]
            for other in ("The CSS build uses PostCSS with nesting", "Deploys run on Fridays "
                          "only after the freeze", "The search page paginates by cursor"):
                api.post("/v1/memories", json={"content": other, "project": "shop"})
        asked = run_cli(env, "hook", "UserPromptSubmit", input=fixture("user_prompt_submit.json"))
        assert asked.returncode == 0, asked.stderr
        assert "payment_intent" in json.loads(asked.stdout)["hookSpecificOutput"][
            "additionalContext"]
        with engram.open(db, embedder="none") as mem:  # handing it to the agent is a use
            assert mem.get(refunds, track=False).access_count == 1
        ran = run_cli(env, "hook", "PostToolUse", input=fixture("post_tool_use_bash.json"))
        assert ran.returncode == 0 and ran.stdout.strip() == ""
        with engram.open(db, embedder="none") as mem:
            [recipe] = mem.list(types=["verified_command"])
            assert "pytest -q tests/test_checkout.py" in recipe.content
            assert recipe.owner == "ada" and recipe.project == "shop"
    finally:
        server.stop()
    down = run_cli(env, "hook", "PostToolUse", input=fixture(
        "post_tool_use_bash.json", tool_input={"command": "ruff check .",
                                               "description": "Lint"}))
    assert down.returncode == 0 and "Traceback" not in down.stderr
    queued = (Path(cli_env["ENGRAM_HOME"]) / "outbox.jsonl").read_text()
    assert "ruff check ." in queued


def test_a_sessions_summary_made_while_the_server_is_down_waits_once_and_arrives(
        tmp_path: Path, cli_env):
    """Stop with the server down: the hook exits 0, the captured memories and the
    session's summary wait in the outbox; a later Stop of the same session replaces the
    waiting summary instead of queuing a second; `engram sync` delivers one summary."""
    from conftest import run_cli, run_json
    from test_hooks import FIXTURES
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text((FIXTURES / "transcript.jsonl").read_text().replace(
        "/home/dev/shop", str(project)))
    port = free_port()
    env = dict(cli_env, ENGRAM_URL=f"http://127.0.0.1:{port}", ENGRAM_TOKEN=token,
               ENGRAM_HOOK_DEADLINE="60")
    stop = {**json.loads((FIXTURES / "stop.json").read_text()), "cwd": str(project),
            "transcript_path": str(transcript)}
    for _ in range(2):
        done = run_cli(env, "hook", "Stop", input=json.dumps(stop))
        assert done.returncode == 0 and "Traceback" not in done.stderr
    queued = [json.loads(line) for line in
              (Path(cli_env["ENGRAM_HOME"]) / "outbox.jsonl").read_text().splitlines()]
    summaries = [r for r in queued if r.get("op") == "checkpoint"]
    assert len(summaries) == 1 and summaries[0]["session_id"] == stop["session_id"]
    assert len(queued) > 1  # the session's memories wait beside it

    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    try:
        assert run_json(env, "sync")["queued"] == 0
    finally:
        server.stop()
    with engram.open(db, embedder="none") as mem:
        [summary] = mem.list(types=["task_summary"], limit=10)
        assert summary.meta["session_id"] == stop["session_id"] and summary.owner == "ada"
        assert len(mem.list(limit=100)) == len(queued)  # nothing lost, nothing twice


def test_edits_made_while_the_server_is_down_are_replayed_never_over_a_newer_change(
        tmp_path: Path, cli_env):
    """Offline, `engram update` / `pin` / `archive` are queued (exit 0, said so). Back
    online, they apply in order; an update of a memory someone else changed meanwhile is
    not applied over it but saved beside the newer version, and a replay whose reply was
    lost changes nothing twice."""
    from conftest import run_cli, run_json
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    ada = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    bob = json.loads(users_cli(home, db, "add", "bob", "--json").stdout)["token"]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    client = dict(cli_env, ENGRAM_URL=url, ENGRAM_TOKEN=ada)
    outbox = Path(cli_env["ENGRAM_HOME"]) / "outbox.jsonl"
    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    try:
        freeze = run_json(client, "add", "The deploy freeze starts Thursday", "--project",
                          "infra")["id"]
        runbook = run_json(client, "add", "Runbooks live in the ops wiki", "--project",
                           "infra")["id"]
    finally:
        server.stop()

    edited = run_json(client, "update", freeze, "--content",
                      "The deploy freeze starts Wednesday (token=Xk9mQ2vpL7wR4tZ8Qa)")
    assert edited == {"queued": True, "action": "update", "id": freeze}
    pinned = run_cli(client, "pin", runbook)
    assert pinned.returncode == 0 and "queued" in pinned.stderr
    assert run_cli(client, "archive", runbook).returncode == 0
    assert "Xk9mQ2vpL7wR4tZ8Qa" not in outbox.read_text()  # redacted while it waits
    kept = outbox.read_text()

    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    try:
        with server.client(bob) as api:  # meanwhile, on the server, bob changed it
            newer = api.patch(f"/v1/memories/{freeze}",
                              json={"content": "The deploy freeze starts Friday"}).json()["id"]
        synced = run_json(client, "sync")
        assert synced["sent"] == 3 and synced["queued"] == 0
        assert any(newer in note and "review" in note for note in synced["notes"])
        outbox.write_text(kept)  # the replies were lost: the same edits again
        assert run_json(client, "sync")["queued"] == 0
    finally:
        server.stop()
    with engram.open(db, embedder="none") as mem:
        assert mem.get(newer, track=False).content == "The deploy freeze starts Friday"
        [mine] = [m for m in mem.list(project="infra", limit=20) if "Wednesday" in m.content]
        assert mine.id not in (freeze, newer) and "Xk9mQ2vpL7wR4tZ8Qa" not in mine.content
        book = mem.get(runbook, track=False)
        assert book.pinned and book.status == "archived"
        assert len([m for m in mem.list(project="infra", limit=20)
                    if "Wednesday" in m.content]) == 1  # not twice after the replay


class CountingProxy:
    """A TCP relay on 127.0.0.1 that counts the connections clients open through it."""

    def __init__(self, target_port: int) -> None:
        import threading

        self.target_port, self.accepted = target_port, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            self.accepted += 1
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.listener.close()


def test_hooks_through_the_warm_worker_share_one_connection_to_the_team_server(
        tmp_path: Path, cli_env):
    """Against a team server the warm worker answers the hooks and keeps one connection
    open for all of them: recall and capture both reach the server, over one TCP
    connection, instead of a new one (and TLS handshake) per hook process."""
    from conftest import run_cli
    from test_hooks import FIXTURES, _wait_for_worker
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    port = free_port()
    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    proxy = CountingProxy(port)
    env = dict(cli_env, ENGRAM_URL=f"http://127.0.0.1:{proxy.port}", ENGRAM_TOKEN=token,
               ENGRAM_HOOK_DEADLINE="60", ENGRAM_WORKER_IDLE="60")
    env.pop("ENGRAM_HOOK_WORKER")

    def fixture(name: str, **changes: object) -> str:
        data = json.loads((FIXTURES / name).read_text())
        return json.dumps({**data, "cwd": str(project), **changes})

    worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        with server.client(token) as api:
            api.post("/v1/memories", json={
                "content": "Stripe refunds must use payment_intent; the charge argument is gone",
                "type": "constraint", "project": "shop"})
            for other in ("The CSS build uses PostCSS with nesting", "Deploys run on Fridays "
                          "only after the freeze", "The search page paginates by cursor"):
                api.post("/v1/memories", json={"content": other, "project": "shop"})
        assert _wait_for_worker(env, worker)["served"] == 0
        for session in ("one", "two"):
            asked = run_cli(env, "hook", "UserPromptSubmit",
                            input=fixture("user_prompt_submit.json", session_id=session))
            assert asked.returncode == 0, asked.stderr
            assert "payment_intent" in json.loads(asked.stdout)["hookSpecificOutput"][
                "additionalContext"]
        ran = run_cli(env, "hook", "PostToolUse", input=fixture("post_tool_use_bash.json"))
        assert ran.returncode == 0 and ran.stdout.strip() == ""
        assert _wait_for_worker(env, worker)["served"] == 3
        recipes: list = []
        for _ in range(150):  # the capture is saved after the hook has its reply
            with engram.open(db, embedder="none") as mem:
                recipes = mem.list(types=["verified_command"])
            if recipes:
                break
            time.sleep(0.1)
        [recipe] = recipes
        assert "pytest -q tests/test_checkout.py" in recipe.content and recipe.owner == "ada"
        assert proxy.accepted == 1
    finally:
        stop_worker(env, worker)
        proxy.close()
        server.stop()


def test_engram_search_through_the_warm_worker_on_a_team_server(tmp_path: Path, cli_env):
    """With ENGRAM_URL set, the worker that serves the hooks answers `engram search` too,
    with what the command finds on the server itself."""
    from conftest import run_cli
    from test_hooks import _wait_for_worker
    from test_mcp import free_port

    home, db = tmp_path / "server-home", str(tmp_path / "shared.db")
    token = json.loads(users_cli(home, db, "add", "ada", "--json").stdout)["token"]
    port = free_port()
    server = start_server(home, "--port", str(port), ENGRAM_DB=db)
    env = dict(cli_env, ENGRAM_URL=f"http://127.0.0.1:{port}", ENGRAM_TOKEN=token,
               ENGRAM_WORKER_IDLE="60")
    env.pop("ENGRAM_HOOK_WORKER")
    worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        with server.client(token) as api:
            for text in ("Stripe refunds must use payment_intent", "Deploys run on Fridays",
                         "Refund webhooks are retried three times"):
                api.post("/v1/memories", json={"content": text, "project": "shop"})
        assert _wait_for_worker(env, worker)["served"] == 0

        def search(*extra: str) -> dict:
            proc = run_cli(env, "search", "refund", "--explain", "--json", *extra)
            assert proc.returncode == 0, proc.stderr
            data = json.loads(proc.stdout)
            data.pop("elapsed_ms")
            return data

        through_worker = search()
        assert _wait_for_worker(env, worker)["served"] == 1
        assert any("payment_intent" in r["memory"]["content"]
                   for r in through_worker["results"])
        assert through_worker == search("--no-worker")
    finally:
        stop_worker(env, worker)
        server.stop()
