"""Hostile and unusual input over the wire: MCP (stdio and HTTP) and the REST API.

Real servers in subprocesses (`engram mcp`, `engram mcp --http`, `engram serve`) driven
with raw bytes: every request is answered, nothing is a 5xx or a traceback, refused input
leaves the store as it was, and both HTTP servers apply one Host/Origin rule. Failures of
the store itself are raised from a stub (a monkeypatched service method) behind a real
uvicorn on 127.0.0.1 and a real MCP client session.

The fuzz runs 300 cases on stdio and 100 over HTTP, times ENGRAM_FUZZ_CASES (the same
multiplier as tests/test_fuzz.py); a larger run:
ENGRAM_FUZZ_CASES=20 .venv/bin/python -m pytest -q tests/test_protocol_hardening.py
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from api_support import McpStdio, Server, engram_command, server_env, start_server

from engram.errors import StoreUnavailableError

SCALE = max(1, int(os.environ.get("ENGRAM_FUZZ_CASES", "1") or 1))
STDIO_CASES = 300 * SCALE
HTTP_CASES = 100 * SCALE
REPLY_TIMEOUT = 15.0
INITIALIZE = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "fuzz", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


# --- a generator of MCP messages, well-formed and not -------------------------------------

METHODS = ["ping", "tools/list", "tools/call", "tools/call", "tools/call", "resources/list",
           "resources/read", "resources/templates/list", "prompts/list", "prompts/get",
           "completion/complete", "logging/setLevel", "initialize", "nope", "", "TOOLS/LIST"]
TOOL_ARGUMENTS = {
    "memory_save": ["content", "type", "project", "tags", "files", "importance", "event_at",
                    "supersedes"],
    "memory_search": ["query", "k", "project", "types", "since", "until", "files"],
    "memory_get": ["id"], "memory_update": ["id", "content", "tags", "in_place"],
    "memory_delete": ["id", "hard", "confirm"], "memory_pin": ["id", "pinned"],
    "memory_context": ["task", "files", "budget"], "memory_export": ["format", "project"],
    "memory_checkpoint": ["summary", "session_id", "concepts"],
    "memory_open_questions": ["limit"], "memory_stats": [], "memory_nope": ["x"],
}
URIS = ["memory://stats", "memory://recent", "memory://project/web", "memory://project/",
        "memory://project/" + "p" * 300, "memory://nothing", "http://x", "", "memory://"]


class Fuzz:
    """Seeded, so a failure replays: the same seed gives the same messages."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def value(self, depth: int = 0) -> Any:
        r = self.rng.random()
        scalars = [None, True, False, 0, -1, 7, 1.5, 2**70, -(2**63), "", "x", "deploy",
                   "yesterday", "2026-03-01", "decision", "é漢字🙂", "a" * 300,
                   "\u0000nul", "<b>[red]x[/red]</b>", "../../etc/passwd", "   "]
        if depth > 3 or r < 0.6:
            return self.rng.choice(scalars)
        if r < 0.8:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        if r < 0.97:
            return {self.rng.choice(["a", "k", "", "content", "id"]): self.value(depth + 1)
                    for _ in range(self.rng.randint(0, 3))}
        return nested(self.rng.choice([10, 63, 70, 300]))

    def params(self, method: str) -> Any:
        r = self.rng.random()
        if r < 0.12:
            return self.rng.choice([[], [1, 2], "params", 5, None, True])
        if method == "tools/call":
            name = self.rng.choice([*TOOL_ARGUMENTS, "", None])
            names = TOOL_ARGUMENTS.get(name) if isinstance(name, str) else None
            arguments: Any = {key: self.value() for key in
                              self.rng.sample(names, self.rng.randint(0, len(names)))} \
                if names else {}
            if self.rng.random() < 0.1:
                arguments = self.value()
            params: dict[str, Any] = {"name": name, "arguments": arguments}
        elif method == "resources/read":
            params = {"uri": self.rng.choice([*URIS, None, 5])}
        elif method == "prompts/get":
            params = {"name": self.rng.choice(["recall", "context-load", "nope", None]),
                      "arguments": self.rng.choice([{}, {"topic": self.rng.choice(
                          ["deploy", "", "x" * 20_000, 5])}, {"task": "fix"}, {"zz": "y"},
                          ["topic"]])}
        else:
            params = {key: self.value() for key in
                      self.rng.sample(["cursor", "level", "ref", "_meta", "x"],
                                      self.rng.randint(0, 2))}
        if r > 0.9 and params:
            params.pop(self.rng.choice(list(params)))
        return params

    def message(self, number: int) -> bytes:
        """One line (without its newline)."""
        r = self.rng.random()
        if r < 0.03:
            return self.rng.choice([b"{not json", b"\xff\xfe{}", b"[]", b"[1, 2]", b'"x"',
                                    b"null", b"{}", b'{"jsonrpc": "2.0", "id": 1,',
                                    b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":NaN}'
                                    % number])
        method = self.rng.choice(METHODS)
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if self.rng.random() < 0.05:
            message["jsonrpc"] = self.rng.choice(["1.0", 2.0, None])
        if self.rng.random() < 0.05:
            message["method"] = self.rng.choice([5, None, ["ping"]])
        ids: list[Any] = [number, f"req-{number}", f"req-{number}", number]
        rare_ids: list[Any] = [None, 1.5, True, {"n": number}, [number]]
        r = self.rng.random()
        if r < 0.85:
            message["id"] = self.rng.choice(ids)
        elif r < 0.93:
            message["id"] = self.rng.choice(rare_ids)
        # else: no id, a notification
        if self.rng.random() < 0.9:
            message["params"] = self.params(method)
        line = json.dumps(message, ensure_ascii=self.rng.random() < 0.5).encode()
        if self.rng.random() < 0.03:  # a lone surrogate escape in some string
            line = line.replace(b'"2.0"', b'"2.0", "s": "a\\ud800b"', 1)
        return line


def expected_reply(line: bytes) -> tuple[bool, Any]:
    """(whether a reply is due, the id it must carry), by the rule the server documents
    (engram.mcp.wire): a message with an `id` member is a request and is answered, with
    that id when it is a string or an integer; one without is a notification and is not;
    what is not one JSON object is answered with id null; a stray reply is not answered."""
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=lambda c: 1 / 0)
    except (ValueError, ZeroDivisionError):
        return True, None
    if not isinstance(message, dict):
        return True, None
    if "id" not in message:
        return False, None
    if "method" not in message and ("result" in message or "error" in message):
        return False, None
    request_id = message["id"]
    valid_id = isinstance(request_id, str) or (isinstance(request_id, int)
                                               and not isinstance(request_id, bool))
    return True, request_id if valid_id else None


# --- MCP over stdio -----------------------------------------------------------------------

def store_rows(home: Path) -> tuple[str, int]:
    with sqlite3.connect(home / "memory.db") as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        count = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    return integrity, count


def test_stdio_answers_every_request_it_can_parse(tmp_path: Path) -> None:
    """The issue's fuzz, as a test: every message that calls for a reply gets exactly one,
    with its own id (or null when none can be read); notifications get none."""
    peer = McpStdio(server_env(tmp_path, ENGRAM_PROJECT="web"), tmp_path / "mcp.stderr")
    assert peer.request(INITIALIZE)["id"] == "init"
    peer.send(json.dumps(INITIALIZED).encode())
    fuzz = Fuzz(seed=17)
    failures: list[str] = []
    answered = 0
    for number in range(STDIO_CASES):
        line = fuzz.message(number)
        wants_reply, request_id = expected_reply(line)
        peer.send(line)
        if wants_reply:
            reply = peer.receive(REPLY_TIMEOUT)
            if reply is None:
                failures.append(f"no reply to {line[:200]!r}")
                break
            answered += 1
            if reply["id"] != request_id:
                failures.append(f"reply id {reply['id']!r}, expected {request_id!r}: "
                                f"{line[:200]!r}")
                break  # the conversation is out of step from here on
            if "error" in reply and not reply["error"].get("message"):
                failures.append(f"an error without a message: {reply} for {line[:200]!r}")
        else:  # nothing may come back: the next reply must be the probe's
            probe = peer.request({"jsonrpc": "2.0", "id": f"probe-{number}", "method": "ping"})
            if probe["id"] != f"probe-{number}":
                failures.append(f"a reply to a notification {line[:200]!r}: {probe}")
                break
    code, stderr = peer.close()
    assert not failures, "\n".join(failures[:20])
    assert answered > STDIO_CASES // 2
    assert code == 0 and "Traceback" not in stderr, stderr[-3000:]
    assert store_rows(tmp_path)[0] == "ok"


def test_stdio_refuses_malformed_requests_with_json_rpc_errors(tmp_path: Path) -> None:
    peer = McpStdio(server_env(tmp_path, ENGRAM_PROJECT="web"), tmp_path / "mcp.stderr")
    peer.request(INITIALIZE)
    peer.send(json.dumps(INITIALIZED).encode())

    def ask(raw: bytes) -> dict[str, Any]:
        peer.send(raw)
        reply = peer.receive(REPLY_TIMEOUT)
        assert reply is not None, raw[:100]
        return reply

    # the case: params that are an array (JSON-RPC allows it; MCP does not)
    reply = ask(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}')
    assert reply["id"] == 1 and reply["error"]["code"] == -32602
    assert "params must be an object" in reply["error"]["message"]
    assert ask(b"{not json")["error"]["code"] == -32700
    assert ask(b"\xff\xfe not utf-8")["error"]["code"] == -32700
    batch = ask(b"[]")
    assert batch["id"] is None and batch["error"]["code"] == -32600
    null_id = ask(b'{"jsonrpc":"2.0","id":null,"method":"ping"}')
    assert null_id["id"] is None and null_id["error"]["code"] == -32600
    bad_method = ask(b'{"jsonrpc":"2.0","id":"m","method":5}')
    assert bad_method["id"] == "m" and bad_method["error"]["code"] == -32600
    no_name = ask(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}')
    assert no_name["id"] == 2 and no_name["error"]["code"] == -32602
    assert "name" in no_name["error"]["message"]
    unknown = ask(b'{"jsonrpc":"2.0","id":3,"method":"tools/call",'
                  b'"params":{"name":"memory_nope","arguments":{}}}')
    assert unknown["error"]["code"] == -32602 and "memory_save" in unknown["error"]["message"]
    surrogate = ask(b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":'
                    b'"memory_save","arguments":{"content":"a\\ud800b"}}}')
    assert surrogate["id"] == 4 and surrogate["error"]["code"] == -32602
    # tool arguments nested past the bound are refused before anything parses them
    deep = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "memory_save", "arguments": {"content": "x", "tags": nested(70)}}}
    reply = ask(json.dumps(deep).encode())
    assert reply["id"] == 5 and reply["error"]["code"] == -32602
    assert "params.arguments.tags" in reply["error"]["message"]
    deeper = ('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":'
              + "[" * 50_000 + "]" * 50_000 + '},"id":"late"}')
    assert ask(deeper.encode())["id"] == "late"  # the id is found after the deep part too
    huge = ask(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "ping",
                           "params": {"x": "y" * 1_100_000}}).encode())
    assert huge["error"]["code"] == -32600 and "larger than" in huge["error"]["message"]
    # prompts and resources: a bad argument is invalid params naming it, never "internal"
    missing = ask(b'{"jsonrpc":"2.0","id":7,"method":"prompts/get",'
                  b'"params":{"name":"recall","arguments":{}}}')
    assert missing["error"]["code"] == -32602 and "topic" in missing["error"]["message"]
    long_project = ask(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "resources/read",
                                   "params": {"uri": "memory://project/" + "p" * 300}}).encode())
    assert long_project["error"]["code"] == -32602
    assert long_project["error"]["data"]["field"] == "project"
    # a tool's argument errors stay tool errors the model can read (SEP-1303)
    tool = ask(b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_save",'
               b'"arguments":{"content":"x","importance":"very"}}}')
    assert tool["result"]["isError"] is True
    assert "importance" in tool["result"]["content"][0]["text"]
    # and after all that, the server still works
    saved = peer.request({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "memory_save", "arguments": {"content": "The server survived the fuzz."}}})
    assert saved["result"]["isError"] is False
    code, stderr = peer.close()
    assert code == 0 and "Traceback" not in stderr, stderr[-3000:]
    integrity, count = store_rows(tmp_path)
    assert integrity == "ok" and count == 1  # only the one good save changed the store


# --- MCP over HTTP ------------------------------------------------------------------------

def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def mcp_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`engram mcp --http` without a token on loopback; yields its base URL."""
    home = tmp_path_factory.mktemp("mcp-http")
    port = free_port()
    with (home / "stderr").open("wb") as stderr:
        proc = subprocess.Popen([*engram_command(), "mcp", "--http", "--port", str(port)],
                                env=server_env(home), stdout=subprocess.DEVNULL, stderr=stderr)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{base}/mcp", timeout=1)
            break
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, (
                home / "stderr").read_text()
            time.sleep(0.1)
    yield base
    proc.terminate()
    proc.wait(timeout=15)
    assert "Traceback" not in (home / "stderr").read_text()


ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def http_session(base: str) -> dict[str, str]:
    response = httpx.post(f"{base}/mcp", content=json.dumps(INITIALIZE), headers=ACCEPT)
    assert response.status_code == 200, response.text
    headers = {**ACCEPT, "Mcp-Session-Id": response.headers["mcp-session-id"],
               "MCP-Protocol-Version": "2025-06-18"}
    httpx.post(f"{base}/mcp", content=json.dumps(INITIALIZED), headers=headers)
    return headers


def json_rpc_replies(response: httpx.Response) -> list[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()]
    return [response.json()] if response.content else []


def test_http_answers_every_request_it_can_parse(mcp_http: str) -> None:
    headers = http_session(mcp_http)
    fuzz = Fuzz(seed=2676)
    failures: list[str] = []
    with httpx.Client(timeout=REPLY_TIMEOUT) as client:
        for number in range(HTTP_CASES):
            line = fuzz.message(number)
            wants_reply, request_id = expected_reply(line)
            response = client.post(f"{mcp_http}/mcp", content=line, headers=headers)
            if response.status_code >= 500:
                failures.append(f"{response.status_code} for {line[:200]!r}")
                continue
            replies = [r for r in json_rpc_replies(response) if "id" in r]
            if wants_reply and [r["id"] for r in replies] != [request_id]:
                failures.append(f"{response.status_code} {replies} for {line[:200]!r} "
                                f"(expected one reply with id {request_id!r})")
            if not wants_reply and replies:
                failures.append(f"a reply to a notification {line[:200]!r}: {replies}")
    assert not failures, "\n".join(failures[:20])


def test_http_refuses_malformed_messages_like_stdio(mcp_http: str) -> None:
    headers = http_session(mcp_http)

    def post(raw: bytes) -> httpx.Response:
        return httpx.post(f"{mcp_http}/mcp", content=raw, headers=headers, timeout=30)

    array = post(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}')
    assert array.status_code == 400
    assert array.json() == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32602, "message": "Invalid params: params must be an object, not an array"}}
    assert post(b"{not json").json()["error"]["code"] == -32700
    deep = post(('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":'
                 + "[" * 50_000 + "]" * 50_000 + "}}").encode())
    assert deep.status_code == 400 and deep.json()["id"] == 2
    too_big = post(b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"'
                   + b"y" * 1_100_000 + b'"}}')
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == -32600
    fine = post(b'{"jsonrpc":"2.0","id":4,"method":"ping"}')
    assert fine.status_code == 200 and json_rpc_replies(fine)[0]["id"] == 4


# --- one Host/Origin rule for REST and MCP over HTTP ---------------------------------------

@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("rest"))
    yield running
    running.stop()


def origin_cases(port: int) -> list[tuple[dict[str, str], bool]]:
    own = f"http://127.0.0.1:{port}"
    return [
        ({}, True),
        ({"Origin": own}, True),
        ({"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}"}, True),
        ({"Origin": "http://localhost:5173"}, False),  # MCP accepted this one before
        ({"Origin": "http://127.0.0.1:1"}, False),
        ({"Origin": "https://evil.example"}, False),
        ({"Origin": "null"}, False),
        ({"Host": f"attacker.example:{port}"}, False),  # DNS rebinding
        ({"Host": f"attacker.example:{port}", "Origin": f"http://attacker.example:{port}"},
         False),
        ({"Sec-Fetch-Site": "cross-site"}, False),
    ]


def test_rest_and_mcp_share_one_host_and_origin_rule(rest: Server, mcp_http: str) -> None:
    rest_port = int(rest.url.rsplit(":", 1)[1])
    mcp_port = int(mcp_http.rsplit(":", 1)[1])
    before = httpx.get(f"{rest.url}/v1/stats").json()["total"]

    def rest_write(number: int, headers: dict[str, str]) -> int:
        return httpx.post(f"{rest.url}/v1/memories", headers=headers,
                          json={"content": f"Origin probe number {number} of the rule"}
                          ).status_code

    def mcp_initialize(number: int, headers: dict[str, str]) -> int:
        return httpx.post(f"{mcp_http}/mcp", content=json.dumps(INITIALIZE),
                          headers={**ACCEPT, **headers}).status_code

    allowed_writes = 0
    for port, call in ((rest_port, rest_write), (mcp_port, mcp_initialize)):
        for number, (headers, allowed) in enumerate(origin_cases(port)):
            status = call(number, headers)
            assert (status < 400) is allowed, (port, headers, status)
            if not allowed:
                assert status in (403, 421), (port, headers, status)
            allowed_writes += allowed and port == rest_port
    after = httpx.get(f"{rest.url}/v1/stats").json()["total"]
    assert after - before == allowed_writes == 3  # no refused write reached the store


# --- REST: bounded bodies and one status per kind of error --------------------------------

def test_rest_bounds_every_body_before_parsing(rest: Server) -> None:
    with rest.client() as api:
        before = api.get("/v1/stats").json()["total"]
        deep = ('{"records":[' + '{"meta":' * 50_000 + "1" + "}" * 50_000 + "]}").encode()
        response = api.post("/v1/import", content=deep,
                            headers={"content-type": "application/json"})
        assert response.status_code == 422, response.text
        assert response.json()["field"] == "records"
        assert "records[0].meta" in response.json()["message"]
        for body in ({"content": "x", "meta": nested(65)},
                     {"records": [{"content": "x", "tags": nested(70)}]}):
            path = "/v1/memories" if "content" in body else "/v1/import"
            refused = api.post(path, json=body)
            assert refused.status_code == 422, refused.text
        assert api.post("/v1/memories", content=b"x" * 1_100_000,
                        headers={"content-type": "application/json"}).status_code == 413
        assert api.post("/v1/memories", content=b'{"content": "x"}',
                        headers={"content-type": "text/plain"}).status_code == 415
        assert api.get("/v1/stats").json()["total"] == before  # refused input left no trace
    assert "Traceback" not in rest.log()


@pytest.mark.parametrize(("request_kwargs", "field"), [
    ({"json": {"content": "x", "importance": 7}}, "importance"),  # the service's refusal
    ({"json": {"content": "x", "importance": "high"}}, "importance"),  # the model's
    ({"json": {"content": "x", "colour": "red"}}, "colour"),
    ({"json": {"content": "x", "created_at": "soon"}}, "created_at"),
    ({"json": {"content": "x", "meta": nested(65)}}, "meta"),  # the Guard's
])
def test_rest_answers_every_refused_value_with_422_and_one_body_shape(
        rest: Server, request_kwargs: dict[str, Any], field: str) -> None:
    with rest.client() as api:
        response = api.post("/v1/memories", **request_kwargs)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "invalid" and body["field"] == field
    assert body["message"].startswith(field)


# --- the store unavailable, a bug: stubs behind real servers --------------------------------

class Uvicorn:
    """An app on 127.0.0.1 in a thread: a real HTTP server around an in-process service."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="critical", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def unavailable(*args: Any, **kwargs: Any) -> Any:
    raise StoreUnavailableError("database or disk is full")


def crash(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("secret internals /home/user/.engram/memory.db line 42")


def test_rest_answers_503_when_the_store_is_unavailable_and_500_without_details_for_a_bug(
        mem: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.api import create_app

    memory_id = mem.save("A memory to read while the disk is full").memory.id
    with Uvicorn(create_app(mem)) as url:
        monkeypatch.setattr(mem, "save", unavailable)
        monkeypatch.setattr(mem, "search", unavailable)
        for response in (httpx.post(f"{url}/v1/memories", json={"content": "x"}),
                         httpx.get(f"{url}/v1/search", params={"q": "disk"})):
            assert response.status_code == 503, response.text
            assert response.headers["retry-after"] == "5"
            body = response.json()
            assert body["error"] == "store_unavailable" and "disk is full" in body["message"]
        assert httpx.get(f"{url}/v1/memories/{memory_id}").status_code == 200  # others work
        monkeypatch.setattr(mem, "stats", crash)
        bug = httpx.get(f"{url}/v1/stats")
        assert bug.status_code == 500
        assert bug.json() == {"error": "internal",
                              "message": "unexpected server error (see the server log)"}
        spec = httpx.get(f"{url}/openapi.json").json()
        answers = spec["paths"]["/v1/memories"]["post"]["responses"]
        assert {"400", "404", "409", "413", "415", "422", "503"} <= set(answers)
        assert "Retry-After" in answers["503"]["headers"]


def test_mcp_reports_an_unavailable_store_as_a_tool_error_and_a_bug_without_details(
        mem: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from engram.mcp.server import build_server

    server = build_server(mem, default_project="web")
    monkeypatch.setattr(mem, "save", unavailable)
    monkeypatch.setattr(mem, "list", unavailable)
    monkeypatch.setattr(mem, "search", crash)

    async def main() -> None:
        async with Client(server) as client:
            saved = await client.call_tool("memory_save", {"content": "x"})
            text = saved.content[0].text
            assert saved.is_error and "unavailable" in text and "disk is full" in text
            assert "try again" in text
            with pytest.raises(MCPError) as resource:
                await client.read_resource("memory://recent")
            assert resource.value.code == -32010 and "disk is full" in resource.value.message
            assert resource.value.data == {"retryable": True}
            found = await client.call_tool("memory_search", {"query": "x"})
            assert found.is_error and "secret internals" not in found.content[0].text
            with pytest.raises(MCPError) as prompt:
                await client.get_prompt("recall", {"topic": "x"})
            assert prompt.value.code == -32603 and "secret internals" not in prompt.value.message

    anyio.run(main)
