"""Fuzz: nothing a user types, imports or runs can break the store, the process or a secret.

Real processes over real SQLite files, fed seeded hostile and merely unusual input
(tests/fuzz_support.py makes it): the CLI's argv and stdin, import files, the REST API
(every route of its OpenAPI document), MCP over stdio (every tool of its tools/list) and
Claude Code hook payloads with transcript files. Invariants, family by family: no
traceback and no exception a command did not expect; CLI exit codes in {0, 1, 2} with one
error line; no 5xx; every request answered, exactly once, and a refused argument never
called an internal error; hooks exit 0 within their deadline, print nothing or Claude
Code's JSON, log at most one line and no crash; refused input leaves the store as it
was; every good import record is kept and every bad one reported at its line; no token
typed into text, names or meta is stored; whatever was stored, every read still works;
`PRAGMA integrity_check` is ok.

CI runs a bounded number of cases with seed 17 (about 35 s on two cores). A larger run
multiplies them, with another seed; a failure prints the seed and the case that replays it:

    ENGRAM_FUZZ_CASES=10 ENGRAM_FUZZ_SEED=$RANDOM .venv/bin/python -m pytest -q tests/test_fuzz.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from api_support import McpStdio, start_server
from conftest import run_cli, run_json
from fuzz_support import (
    BAD_BYTES,
    ODD_DATES,
    ODD_NUMBERS,
    ODD_TYPES,
    Failures,
    Hostile,
    Records,
    bad_line_is_blank,
    cases,
    cli_problems,
    db_env,
    engram_command,
    fuzz_env,
    integrity,
    nested_text,
    run_engram,
    shown,
    snapshot,
    store_of,
    stored_text,
    strict_json,
)

from engram.hooks.runner import BACKSTOP_GRACE_SECONDS, DEADLINES
from engram.model import PROVENANCES, STATUSES, TYPES

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
SEEDS = [  # a few memories for reads, recalls and ids to aim at
    {"content": "Deploys go through the release Makefile target only", "type": "decision",
     "project": "shop", "pinned": True, "tags": ["deploy"]},
    {"content": "Stripe refunds must use payment_intent, the charge argument was removed",
     "type": "constraint", "project": "shop", "files": ["shop/payments.py"]},
    {"content": "Tailwind classes are sorted by the prettier plugin", "type": "preference"},
    {"content": "The checkout tests run offline against stripe-mock", "type": "project_fact",
     "project": "shop", "status": "archived"},
    {"content": "[red]Markup[/red] in [/usr/local/bin] is text", "type": "bug_note"},
]


def seed_store(env: dict[str, str], db: Path | str) -> None:
    data = "".join(json.dumps(record) + "\n" for record in SEEDS).encode()
    proc = run_engram(env, ["--db", str(db), "--json", "import", "-"], stdin=data)
    assert proc.returncode == 0 and json.loads(proc.stdout)["imported"] == len(SEEDS), proc


def assert_store_sound(db: Path | str, secrets: list[str], failures: Failures) -> None:
    """After a family: the file is intact and holds none of the secrets it was given."""
    assert integrity(db) == "ok"
    text = stored_text(db)
    leaked = sorted({s for s in secrets if s in text})
    failures.add(-1, f"{len(secrets)} secrets given", [f"secret stored: {s}" for s in leaked])


def reads_survive(env: dict[str, str], db: Path | str, failures: Failures) -> None:
    """Whatever a family stored, every read path of the CLI still works on it."""
    ids = [row[0] for row in snapshot(db)][:3]
    reads: list[list[str]] = [
        ["list", "--limit", "1000"], ["--json", "list", "--limit", "1000"],
        ["list", "--status", "archived", "--status", "deleted", "--status", "superseded"],
        ["search", "deploy"], ["--json", "search", "fuzz record red", "--explain"],
        ["stats"], ["--json", "stats"], ["export"], ["export", "--format", "jsonl"],
        ["export", "--format", "markdown"], ["export", "--format", "claude-md"],
        *(["get", i] for i in ids), *(["--json", "history", i] for i in ids),
    ]
    for args in reads:
        proc = run_engram(env, ["--db", str(db), *args])
        problems = cli_problems(proc, json_out="--json" in args)
        if proc.returncode != 0:
            problems.append(f"a read failed: {proc.stderr.decode('utf-8', 'replace')[:300]}")
        failures.add(-1, f"engram {shown(args)}", problems)


# --- the CLI: argv and stdin ---------------------------------------------------------------------

ADD = {"--type": "type", "--project": "project", "--tags": "csv", "--files": "csv",
       "--problem": "text", "--solution": "text", "--importance": "unit",
       "--confidence": "unit", "--pinned": "flag", "--created-at": "date",
       "--event-at": "date", "--expires-at": "date", "--supersedes": "id",
       "--provenance": "provenance"}
SEARCH = {"-k": "int", "--project": "project", "--type": "type", "--tag": "text",
          "--files": "csv", "--since": "date", "--until": "date",
          "--include-superseded": "flag", "--include-archived": "flag", "--explain": "flag",
          "--all": "flag"}
LIST = {"--project": "project", "--type": "type", "--status": "status", "--tag": "text",
        "--provenance": "provenance", "--pinned": "flag", "--not-pinned": "flag",
        "--since": "date", "--until": "date", "--limit": "int", "--offset": "int",
        "--order": "order"}
UPDATE = {"--content": "text", "--type": "type", "--project": "project", "--tags": "csv",
          "--files": "csv", "--problem": "text", "--solution": "text",
          "--importance": "unit", "--confidence": "unit", "--event-at": "date",
          "--expires-at": "date", "--in-place": "flag"}
ID_COMMANDS = ("get", "history", "archive", "restore", "delete", "pin", "unpin", "confirm",
               "reject", "unconsolidate")
OTHERS: dict[str, dict[str, str]] = {
    "stats": {}, "gc": {"--dry-run": "flag"}, "reindex": {},
    "export": {"--format": "format", "-o": "path", "--project": "project"},
    "log": {"--since": "date", "--caller": "text", "--limit": "int"},
    "forget": {"--sweep": "flag", "--threshold": "unit", "--project": "project",
               "--dry-run": "flag"},
    "consolidate": {"--project": "project", "--similarity": "unit", "--min-age": "number",
                    "--dry-run": "flag"},
}


class CliCases:
    """One `engram` command line per case: a command, its arguments and options, each
    value either plausible or odd."""

    def __init__(self, rng: Hostile, scratch: Path) -> None:
        self.rng = rng
        self.scratch = scratch

    def value(self, kind: str, known: list[str]) -> str | bytes:
        rng = self.rng
        plausible = {"text": f"{rng.word()} notes", "project": "shop", "csv": "a,b",
                     "unit": "0.5", "int": "5", "number": "3", "date": "2026-03-01",
                     "type": rng.choice(TYPES), "status": rng.choice(STATUSES),
                     "provenance": rng.choice(PROVENANCES),
                     "order": rng.choice(("newest", "oldest", "importance")),
                     "format": rng.choice(("json", "jsonl", "markdown", "claude-md"))}
        if kind == "id":
            return rng.odd_id(known)
        if kind == "path":
            return rng.choice((str(self.scratch / f"out{rng.randrange(99)}.json"), "/dev/full",
                               str(self.scratch), "/nonexistent/dir/x.json", "",
                               str(self.scratch / "a\nb.json"),
                               os.fsencode(self.scratch) + b"/\xff.json", "/proc/version"))
        if rng.chance(0.4):
            return plausible[kind]
        odd = {"unit": ODD_NUMBERS, "int": ODD_NUMBERS, "number": ODD_NUMBERS,
               "date": ODD_DATES, "type": ODD_TYPES, "status": ("zombie", "", "ACTIVE"),
               "provenance": ("martian", "", "Human"), "order": ("random", ""),
               "format": ("yaml", "")}.get(kind)
        if odd and rng.chance(0.7):
            return rng.choice(odd)
        return rng.arg(plausible[kind], secrets=kind not in ("project", "csv"))

    def options(self, table: dict[str, str], known: list[str]) -> list[str | bytes]:
        out: list[str | bytes] = []
        for option in self.rng.sample(sorted(table), self.rng.randint(0, len(table))):
            out.append(option)
            if table[option] != "flag":
                out.append(self.value(table[option], known))
        return out

    def make(self, db: Path, known: list[str]) -> tuple[list[str | bytes], bytes]:
        rng = self.rng
        stdin = b""
        r = rng.random()
        if r < 0.22:
            text = self.value("text", known) if rng.chance(0.85) else "-"
            args: list[str | bytes] = ["add", text, *self.options(ADD, known)]
            if text == "-":
                stdin = self.stdin_text()
        elif r < 0.36:
            args = ["search", self.value("text", known), *self.options(SEARCH, known)]
        elif r < 0.46:
            args = ["list", *self.options(LIST, known)]
        elif r < 0.58:
            args = ["update", self.value("id", known), *self.options(UPDATE, known)]
        elif r < 0.78:
            command = rng.choice(ID_COMMANDS)
            args = [command, self.value("id", known)]
            if command == "delete" and rng.chance(0.5):
                args.append("--hard")
        elif r < 0.84:
            args = ["forget", *(self.value("id", known) for _ in range(rng.randint(0, 3))),
                    *self.options(OTHERS["forget"], known)]
        elif r < 0.95:
            command = rng.choice(sorted(set(OTHERS) - {"forget"}))
            args = [command, *self.options(OTHERS[command], known)]
        else:  # what a user mistypes
            args = rng.choice((["nosuch"], ["add"], ["add", "x", "--nope"], ["search"],
                               ["list", "--limit"], ["get", "a", "b"], ["--", "list"],
                               ["import"], ["add", "x", "--importance"], []))
        if rng.chance(0.3):  # --json, on the group or on the command
            args = ["--json", *args] if rng.chance(0.5) else [*args, "--json"]
        if not stdin and rng.chance(0.15):
            stdin = self.stdin_text()  # stdin nobody reads
        return ["--db", str(db), *args], stdin

    def stdin_text(self) -> bytes:
        rng = self.rng
        raw = rng.text().encode("utf-8", "surrogatepass")
        if rng.chance(0.4):
            cut = rng.randint(0, len(raw))
            raw = raw[:cut] + rng.choice(BAD_BYTES) + raw[cut:]
        if rng.chance(0.1):
            raw = b"\x00" * rng.choice((1, 1000)) + raw
        if rng.chance(0.05):
            raw = b"big " * 40_000  # past the content bound
        return raw


def test_cli_argv_and_stdin(tmp_path: Path, backend: str, store_target: str) -> None:
    env = fuzz_env(tmp_path / "home")
    db = store_of(backend, store_target, tmp_path / "memory.db")
    seed_store(env, db)
    rng = Hostile("cli")
    generate = CliCases(rng, tmp_path)
    failures = Failures("cli")
    before = snapshot(db)
    # Most of a case is argument parsing, the same on both engines: PostgreSQL runs a
    # sixth of them (each is a new process, ~3 s on a busy 2-core machine; the suite must
    # stay under 15 minutes on two cores).
    for case in range(cases(100 if backend == "sqlite" else 16)):
        args, stdin = generate.make(db, [row[0] for row in before])
        proc = run_engram(env, args, stdin=stdin, cwd=tmp_path)
        after = snapshot(db)
        problems = cli_problems(proc, json_out="--json" in args)
        if proc.returncode != 0 and after != before:
            problems.append(f"refused (exit {proc.returncode}) but the store changed")
        what = (f"engram {shown(args[2:])} stdin={shown(stdin, 120)} -> {proc.returncode} "
                f"{proc.stderr.decode('utf-8', 'replace')[-400:]!r}")
        failures.add(case, what, problems)
        before = after
    assert_store_sound(db, rng.secrets, failures)
    reads_survive(env, db, failures)
    failures.check()


# --- import files ------------------------------------------------------------------------------

def import_file(rng: Hostile, records: Records, array: bool) -> tuple[bytes, dict[int, str], int]:
    """(the file, the bad records' line numbers and defects, how many good records)."""
    lines: list[bytes] = []
    bad: dict[int, str] = {}
    good = 0
    for _ in range(rng.randint(1, 14)):
        if rng.chance(0.5):
            lines.append(json.dumps(records.good(), ensure_ascii=rng.chance(0.5)).encode())
            good += 1
            continue
        raw, why = records.bad(array=array)
        if not array and bad_line_is_blank(raw):
            continue
        lines.append(raw)
        bad[len(lines) + (1 if array else 0)] = why  # an array's first line is its "["
    if rng.chance(0.2) and not array:
        lines.insert(rng.randint(0, len(lines)), b"   ")  # skipped; renumber() counts it
    if array:
        body = b"[\n" + b",\n".join(lines) + b"\n]\n"
    else:
        body = b"\n".join(lines) + rng.choice((b"", b"\n", b"\r\n"))
    if rng.chance(0.1):
        body = b"\xef\xbb\xbf" + body  # a BOM
    return body, bad, good


def renumber(body: bytes, bad: dict[int, str], array: bool) -> dict[int, str]:
    """Line numbers of the bad records as they ended up in `body` (after inserted blanks)."""
    if array:
        return bad
    out = {}
    wanted = sorted(bad)
    content_lines = [i for i, line in enumerate(body.split(b"\n"), start=1)
                     if not bad_line_is_blank(line.removeprefix(b"\xef\xbb\xbf"))]
    for number in wanted:
        out[content_lines[number - 1]] = bad[number]
    return out


def on_engine(base: int, backend: str) -> int:
    """A family's cases on this engine: what the input does to a store is the same on both,
    so PostgreSQL (a server round trip per call) runs a third of them and the suite stays
    under 15 minutes on two cores."""
    return base if backend == "sqlite" else max(1, base // 3)

def test_import_files(tmp_path: Path, backend: str, store_target: str) -> None:
    env = fuzz_env(tmp_path / "home")
    db = store_of(backend, store_target, tmp_path / "memory.db")
    seed_store(env, db)
    rng = Hostile("import")
    records = Records(rng)
    failures = Failures("import")
    for case in range(cases(on_engine(24, backend))):
        array = rng.chance(0.35)
        body, bad, good = import_file(rng, records, array)
        bad = renumber(body, bad, array)
        total = len(snapshot(db))
        path = tmp_path / f"import-{case}.{'json' if array else 'jsonl'}"
        path.write_bytes(body)
        via_stdin = rng.chance(0.3)
        proc = run_engram(env, ["--db", str(db), "--json", "import",
                                "-" if via_stdin else str(path)],
                          stdin=body if via_stdin else b"")
        problems = cli_problems(proc, json_out=True, per_record=True)
        stored = len(snapshot(db))
        if proc.returncode != (1 if bad else 0):  # 1: a record was refused (the rest kept)
            problems.append(f"exit {proc.returncode} for a readable file with {len(bad)} bad"
                            " records")
        else:
            result = json.loads(proc.stdout)
            reported = {e["line"]: e["error"] for e in result["errors"]}
            if result["imported"] != good or stored - total != good:
                problems.append(f"{good} good records, imported {result['imported']} "
                                f"(duplicates {result['duplicates']}), store grew "
                                f"{stored - total}")
            if set(reported) != set(bad):
                problems.append(f"bad lines {sorted(bad)} ({sorted(set(bad.values()))}), "
                                f"reported {sorted(reported)}: {shown(reported, 600)}")
            stderr_lines = proc.stderr.decode("utf-8", "replace").splitlines()
            if len(stderr_lines) != len(bad) or not all(
                    line.startswith(f"line {n}: ") for line, n in zip(stderr_lines,
                                                                      sorted(bad), strict=False)):
                problems.append(f"stderr is not one 'line N: …' per bad record: "
                                f"{shown(stderr_lines, 600)}")
        failures.add(case, f"{path.name} ({shown(body, 400)})", problems)
    for args in (["import", str(tmp_path)], ["import", str(tmp_path / "missing.jsonl")],
                 ["import", "/proc/self/mem"]):
        before = snapshot(db)
        proc = run_engram(env, ["--db", str(db), *args])
        problems = cli_problems(proc)
        if proc.returncode not in (1, 2) or snapshot(db) != before:  # 2: click's dir_okay
            problems.append(f"exit {proc.returncode}, store changed: {snapshot(db) != before}")
        failures.add(-1, shown(args), problems)
    # what was imported exports and imports again, exactly
    exported = run_engram(env, ["--db", str(db), "export", "--format", "jsonl"])
    again = run_engram(env, ["--db", str(tmp_path / "copy.db"), "--json", "import", "-"],
                       stdin=exported.stdout)
    result = json.loads(again.stdout)
    if result["errors"] or result["imported"] != len(snapshot(db)):
        failures.add(-1, "export | import", [f"round trip: {shown(result, 600)}"])
    assert_store_sound(db, rng.secrets, failures)
    reads_survive(env, db, failures)
    failures.check()


# --- REST ----------------------------------------------------------------------------------------

def schema_value(rng: Hostile, schema: dict[str, Any], spec: dict[str, Any],
                 known: list[str], wild: float = 0.3, name: str = "") -> Any:
    """A value shaped by the schema (OpenAPI's, or a tool's input schema); each value is
    anything at all with probability `wild`, so that a low `wild` also reaches the work
    behind the validation."""
    if "$ref" in schema:
        ref = schema["$ref"].rsplit("/", 1)[1]
        schema = spec.get("components", {}).get("schemas", {}).get(ref, {})
    if rng.chance(wild):
        return rng.value()
    if "anyOf" in schema:
        return schema_value(rng, rng.choice(schema["anyOf"]), spec, known, wild, name)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = schema.get("required", [])
        picked = rng.sample(sorted(props), rng.randint(0, len(props) if wild > 0.1
                                                         else min(3, len(props))))
        out = {key: schema_value(rng, props[key], spec, known, wild, key)
               for key in dict.fromkeys([*picked, *(r for r in required
                                                     if rng.chance(1 - wild / 2))])}
        if rng.chance(wild / 3):
            out[rng.choice(("colour", "", "__proto__"))] = rng.value()
        return out
    if kind == "array":
        return [schema_value(rng, schema.get("items", {}), spec, known, wild, name)
                for _ in range(rng.randint(0, 3))]
    if kind == "string":
        if known and (name.endswith("id") or name == "supersedes") and rng.chance(0.8):
            return rng.choice(known)
        if rng.chance(wild * 2):
            return rng.text()
        return f"{rng.word()} {rng.unique_words(3)}"
    if kind == "integer":
        return rng.choice((0, 1, 5, 50, -1, 10**6, 2**63) if rng.chance(wild * 2) else (3, 10))
    if kind == "number":
        return rng.choice((0, 0.5, 1, -0.1, 1.5))
    if kind == "boolean":
        return rng.choice((True, False))
    return rng.value()


def query_value(rng: Hostile, param: dict[str, Any], known: list[str]) -> str | bytes:
    schema = param.get("schema", {})
    r = rng.random()
    if r < 0.3 and "enum" in schema:
        return str(rng.choice(schema["enum"]))
    if r < 0.5:
        kind = schema.get("type")
        plausible = {"integer": "5", "boolean": rng.choice(("true", "false", "1"))}.get(
            kind, rng.choice((rng.word(), "shop", "2026-03-01", rng.choice(TYPES))))
        return plausible
    return rng.choice((rng.choice(ODD_NUMBERS), rng.choice(ODD_DATES), rng.text(),
                       *BAD_BYTES, rng.choice(known) if known else ""))


def encode(value: str | bytes) -> str:
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return quote(raw, safe="")


def rest_request(rng: Hostile, spec: dict[str, Any], port: int, known: list[str]
                 ) -> tuple[str, str, dict[str, str], bytes | None]:
    method, path, op = rng.choice([(m.upper(), p, op) for p, ops in spec["paths"].items()
                                   for m, op in ops.items()])
    if rng.chance(0.03):
        method = rng.choice(("PUT", "OPTIONS", "HEAD", "TRACE", "PATCH", "DELETE"))
    if "{memory_id}" in path:
        raw = rng.odd_id(known)
        segment = rng.choice(("..", "%", "%zz", "%00", "%ff%fe", "a%2Fb")) \
            if rng.chance(0.08) else encode(raw)
        path = path.replace("{memory_id}", segment)
    query = []
    for param in op.get("parameters", []):
        if param["in"] == "query" and rng.chance(0.5):
            for _ in range(rng.choice((1, 1, 1, 2))):
                query.append(f"{param['name']}={encode(query_value(rng, param, known))}")
    if rng.chance(0.08):
        query.append(f"{encode(rng.text(allow_huge=False))}={encode(rng.text())}")
    url = path + ("?" + "&".join(query) if query else "")
    headers: dict[str, str] = {}
    if rng.chance(0.1):
        headers["Origin"] = rng.choice((f"http://127.0.0.1:{port}", f"http://localhost:{port}",
                                        "null", "https://evil.example", "http://localhost:5173",
                                        "file://", "http://127.0.0.1", "x" * 3000))
    if rng.chance(0.05):
        headers["Host"] = rng.choice((f"attacker.example:{port}", f"localhost:{port}",
                                      f"[::1]:{port}", "127.0.0.1", f"127.0.0.1:{port}"))
    if rng.chance(0.05):
        headers["Sec-Fetch-Site"] = rng.choice(("cross-site", "same-origin", "none", "?"))
    if rng.chance(0.05):
        headers["Authorization"] = rng.choice(("Bearer x", "Basic Zm9vOmJhcg==",
                                               "Bearer " + "a" * 5000, "Bearer"))
    body: bytes | None = None
    wants_body = "requestBody" in op or rng.chance(0.05)
    if wants_body:
        headers["Content-Type"] = "application/json" if rng.chance(0.85) else rng.choice((
            "text/plain", "application/json; charset=utf-16", "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x", "application/jsonx", "*/*"))
        r = rng.random()
        schema = (op.get("requestBody", {}).get("content", {}).get("application/json", {})
                  .get("schema", {}))
        if r < 0.65:
            wild = rng.choice((0.02, 0.1, 0.3))
            body = json.dumps(schema_value(rng, schema, spec, known, wild),
                              ensure_ascii=rng.chance(0.5)).encode("utf-8", "surrogatepass")
        else:
            body = rng.choice((
                b"", b"{", b"{not json", b"null", b"[]", b"5", b'"x"', b"\xff\xfe{}",
                b'{"content": "a", "content": 5}', b'{"content": NaN}',
                b"\xef\xbb\xbf{}", b'{"records": [' + nested_text(50_000).encode() + b"]}",
                nested_text(100_000, "array").encode(), b"x" * (1024 * 1024 + 1),
                b'{"content": "' + b"y" * 1_000_000 + b'"}',
                json.dumps({"content": "x", "meta": json.loads(nested_text(100))}).encode(),
                '{"content": "caf\u00e9"}'.encode("utf-16"),
                b'{"content": "a\\ud800b"}',
                b'{"content": "x", "importance": ' + b"9" * 5000 + b"}",
            ))
    return method, url, headers, body


def test_rest_routes(tmp_path: Path, backend: str, store_target: str) -> None:
    db = store_of(backend, store_target, tmp_path / "home" / "memory.db")
    server = start_server(tmp_path / "home", ENGRAM_UPKEEP="off", **db_env(db))
    rng = Hostile("rest")
    failures = Failures("rest")
    try:
        port = int(server.url.rsplit(":", 1)[1])
        with httpx.Client(base_url=server.url, timeout=30) as http:
            seeded = http.post("/v1/import", json={"records": SEEDS})
            assert seeded.status_code == 200 and seeded.json()["imported"] == len(SEEDS)
            spec = http.get("/openapi.json").json()
            before = snapshot(db)
            for case in range(cases(on_engine(1500, backend))):
                method, url, headers, body = rest_request(rng, spec, port,
                                                          [row[0] for row in before])
                what = f"{method} {shown(url, 300)} {headers} body={shown(body, 300)}"
                try:
                    response = http.request(method, url, headers=headers, content=body)
                except httpx.InvalidURL:
                    continue  # longer than any client sends (httpx caps URLs at 64 KiB)
                except httpx.HTTPError as exc:
                    failures.add(case, what, [f"not answered ({type(exc).__name__}: {exc})"])
                    if server.proc.poll() is not None:
                        break
                    continue
                after = snapshot(db)
                problems = []
                if response.status_code >= 500:
                    problems.append(f"{response.status_code} {response.text[:300]}")
                if response.status_code >= 400 and after != before:
                    problems.append(f"refused ({response.status_code}) but the store changed")
                if (400 <= response.status_code < 500 and url.startswith("/v1")
                        and method != "HEAD"):
                    try:
                        error = response.json()
                        shaped = isinstance(error.get("error"), str) and isinstance(
                            error.get("message"), str)
                    except (ValueError, AttributeError):
                        shaped = False
                    if not shaped:
                        problems.append(f"{response.status_code} without the error body: "
                                        f"{response.text[:200]!r}")
                failures.add(case, what, problems)
                before = after
            if server.proc.poll() is not None:
                failures.add(-1, "the server", ["exited during the fuzz"])
            # whatever was stored, every read of the API and the dashboard still answers
            for path in ("/v1/memories?limit=500", "/v1/memories?status=archived&limit=500",
                         "/v1/search?q=deploy", "/v1/search?q=fuzz%20red&explain=true",
                         "/v1/context?task=deploy", "/v1/export?format=json",
                         "/v1/export?format=markdown", "/v1/stats", "/v1/overview",
                         "/v1/review", "/v1/conflicts", "/v1/vocabulary", "/"):
                response = http.get(path)
                if response.status_code != 200:
                    failures.add(-1, f"GET {path}", [f"read {response.status_code}"])
    finally:
        server.stop()
    log = server.log()
    if "Traceback" in log:
        failures.add(-1, "server log", [f"a traceback: {log[log.index('Traceback'):][:1500]}"])
    assert_store_sound(db, rng.secrets, failures)
    reads_survive(fuzz_env(tmp_path / "home", **db_env(db)), db, failures)
    failures.check()


# --- MCP over stdio -----------------------------------------------------------------------------

INITIALIZE = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "fuzz", "version": "1"}}}
INTERNAL_ERROR = -32603
UNEXPECTED = "unexpected server error"


def reply_due(line: bytes) -> tuple[str, set[Any]]:
    """("one", the ids the reply may carry), ("none", ∅) or ("maybe", ids), by JSON-RPC 2.0
    as engram.mcp.wire documents it: a request (an object with an `id`) is answered with its
    id when that is a string or an integer, else null; what cannot be read is answered
    with null; a notification is not answered, nor is a reply nobody asked for. A message
    too large to read is answered with null. Bytes that are not UTF-8 around no `id` may be
    either unreadable (answered, null) or a notification (not answered)."""
    if len(line) > 1024 * 1024:
        found = re.search(rb'^\{"jsonrpc": "2.0", "method": "[^"]*", "id": (\d+|"[^"\\]*")', line)
        return "one", {None, json.loads(found.group(1)) if found else None}
    try:
        message = json.loads(line.decode("utf-8"))
    except RecursionError:  # too deep for Python's json, not for a server that skims it
        found = re.search(rb'"id"\s*:\s*(-?\d+|"[^"\\]*")', line)
        return "one", {None, json.loads(found.group(1)) if found else None}
    except UnicodeDecodeError:
        try:
            message = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return "maybe", {None}
        if not isinstance(message, dict):
            return "one", {None}
        if "id" not in message:
            return "maybe", {None}
        request_id = message["id"]
        return "one", {None, request_id if isinstance(request_id, str | int) else None}
    except ValueError:
        return "one", {None}
    if not isinstance(message, dict):
        return "one", {None}
    if "id" not in message:
        return "none", set()
    if "method" not in message and ("result" in message or "error" in message):
        return "none", set()
    request_id = message["id"]
    valid = isinstance(request_id, str) or (isinstance(request_id, int)
                                            and not isinstance(request_id, bool))
    return "one", {request_id if valid else None}


class McpCases:
    def __init__(self, rng: Hostile, tools: list[dict[str, Any]]) -> None:
        self.rng = rng
        self.tools = tools

    def arguments(self, tool: dict[str, Any], known: list[str]) -> Any:
        rng = self.rng
        if rng.chance(0.05):
            return rng.choice(([], "x", 5, None, [{"id": "a"}]))
        wild = rng.choice((0.02, 0.1, 0.3))
        arguments = schema_value(rng, tool["inputSchema"], {}, known, wild)
        if isinstance(arguments, dict) and "id" in arguments and rng.chance(wild * 2):
            odd = rng.odd_id(known)  # JSON carries text: bytes arrive as U+FFFD
            arguments["id"] = odd.decode("utf-8", "replace") if isinstance(odd, bytes) else odd
        return arguments

    def message(self, case: int, known: list[str]) -> bytes:
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            return rng.choice((b"{not json", b"\xff\xfe{}", b"[]", b"[1]", b'"x"', b"null",
                               b"{}", b'{"jsonrpc": "2.0", "id": 1,', b"5",
                               b'{"jsonrpc":"2.0","id":"' + b"d" * 10 + b'","method":"ping",'
                               b'"params":' + nested_text(60_000, "array").encode() + b"}"))
        method = rng.choice(("tools/call",) * 6 + (
            "tools/list", "ping", "resources/list", "resources/read", "prompts/list",
            "prompts/get", "resources/templates/list", "completion/complete", "nope",
            "initialize", "logging/setLevel", ""))
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        r = rng.random()
        if r < 0.9:
            message["id"] = rng.choice((case, f"c{case}"))
        elif r < 0.95:
            message["id"] = rng.choice((None, 1.5, True, {"n": case}, [case]))
        if method == "tools/call":
            tool = rng.choice(self.tools) if rng.chance(0.95) else {
                "name": rng.choice(("memory_nope", "", "MEMORY_SAVE")), "inputSchema": {}}
            params: Any = {"name": tool["name"], "arguments": self.arguments(tool, known)}
        elif method == "resources/read":
            params = {"uri": rng.choice(("memory://stats", "memory://recent",
                                         "memory://project/shop", "memory://project/",
                                         "memory://project/" + "p" * 300,
                                         "memory://project/%ff", "memory://x", "", 5))}
        elif method == "prompts/get":
            params = {"name": rng.choice(("recall", "context-load", "nope")),
                      "arguments": rng.choice(({}, {"topic": rng.text()}, {"task": rng.text()},
                                               {"topic": 5}, ["topic"]))}
        else:
            params = {rng.choice(("cursor", "level", "ref", "_meta")): rng.value()
                      for _ in range(rng.randint(0, 2))}
        if rng.chance(0.08):
            params = rng.choice(([], [1, 2], "params", 5, None, True))
        if rng.chance(0.9):
            message["params"] = params
        line = json.dumps(message, ensure_ascii=rng.chance(0.5)).encode("utf-8",
                                                                        "surrogatepass")
        if rng.chance(0.01):
            line = line[:-1] + b', "pad": "' + b"z" * (1024 * 1024 + 10) + b'"}'
        return line


def test_mcp_stdio(tmp_path: Path, backend: str, store_target: str) -> None:
    home = tmp_path / "home"
    db = store_of(backend, store_target, home / "memory.db")
    env = fuzz_env(home, ENGRAM_PROJECT="shop", **db_env(db))
    seed_store(env, db)
    rng = Hostile("mcp")
    failures = Failures("mcp")
    peer = McpStdio(env, tmp_path / "mcp.stderr")
    try:
        peer.send(json.dumps(INITIALIZE).encode())
        assert (peer.receive() or {}).get("id") == "init"
        peer.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        peer.send(b'{"jsonrpc": "2.0", "id": "tools", "method": "tools/list"}')
        tools = (peer.receive() or {})["result"]["tools"]
        assert len(tools) >= 10
        generate = McpCases(rng, tools)
        before = snapshot(db)
        for case in range(cases(on_engine(1000, backend))):
            line = generate.message(case, [row[0] for row in before])
            expect, ids = reply_due(line)
            what = shown(line, 500)
            peer.send(line)
            probe = f"probe{case}"
            if expect != "one":  # whatever comes back must be followed by the probe's reply
                peer.send(json.dumps({"jsonrpc": "2.0", "id": probe, "method": "ping"}).encode())
            reply = peer.receive()
            if reply is not None and expect == "maybe" and reply["id"] in ids:
                follow = peer.receive()  # the line was answered: the probe's reply is next
                if follow is None or follow.get("id") != probe:
                    failures.add(case, what, [f"{shown(follow)} instead of the probe's reply"])
                    break
            elif reply is not None and expect != "one":
                ids = {probe}
            if reply is None:
                failures.add(case, what, ["no reply" if expect == "one" else "no probe reply"])
                break
            problems = []
            if reply["id"] not in ids:
                problems.append(f"a reply with id {shown(reply['id'])}, expected one of {ids}")
                failures.add(case, what, problems)
                break  # out of step from here on
            error = reply.get("error")
            result = reply.get("result")
            refused = error is not None or (isinstance(result, dict) and result.get("isError"))
            if error is not None and (error.get("code") == INTERNAL_ERROR
                                      or not error.get("message")):
                problems.append(f"error {shown(error)}")
            if isinstance(result, dict) and UNEXPECTED in json.dumps(result):
                problems.append(f"an unexpected error as a result: {shown(result)}")
            after = snapshot(db)
            if refused and after != before:
                problems.append(f"refused ({shown(error or result)}) but the store changed")
            failures.add(case, what, problems)
            before = after
        peer.send(b'{"jsonrpc": "2.0", "id": "last", "method": "tools/call", "params": '
                  b'{"name": "memory_search", "arguments": {"query": "deploy fuzz"}}}')
        last = peer.receive()
        if last is None or last.get("id") != "last" or last["result"].get("isError"):
            failures.add(-1, "memory_search after the fuzz", [shown(last)])
        if peer.proc.poll() is not None:
            failures.add(-1, "engram mcp", ["exited during the fuzz"])
    finally:
        code, stderr = peer.close()
    if code != 0 or "Traceback" in stderr:
        failures.add(-1, "engram mcp", [f"exit {code}, stderr {stderr[-1500:]!r}"])
    assert_store_sound(db, rng.secrets, failures)
    reads_survive(env, db, failures)
    failures.check()


# --- hooks: payloads and transcripts -------------------------------------------------------------

PAYLOADS = {"SessionStart": "session_start.json", "UserPromptSubmit": "user_prompt_submit.json",
            "PostToolUse": "post_tool_use_bash.json", "Stop": "stop.json",
            "PreCompact": "pre_compact.json", "SessionEnd": "session_end.json"}
#: Claude Code's answers a hook may print (https://docs.claude.com/en/docs/claude-code/hooks).
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse")
MARGIN = 1.5  # Python's start-up before the hook's clock starts, on a loaded machine
#: Exceptions that mean code met a value it did not expect: a hook fails open on them,
#: but a payload or a transcript Claude Code could send is input, not a reason to crash.
#: HookTimeout too: nothing holds the store here, so a deadline reached is unbounded work.
CRASHES = ("RecursionError", "TypeError", "AttributeError", "KeyError", "IndexError",
           "UnicodeEncodeError", "UnicodeDecodeError", "OverflowError", "ZeroDivisionError",
           "AssertionError", "NameError", "UnboundLocalError", "OperationalError",
           "HookTimeout")


#: A line nested deeper than Python's json follows (RecursionError) is one unreadable line,
#: not the end of the session's capture.
DEEP_LINES = [b'{"type": "user", "message": ' + nested_text(100_000).encode() + b"}"]


#: With ask_agent_to_save on, a transcript_path that is not a regular file (/dev/zero, a
#: FIFO) is never read: reading it would last until the deadline, or block.
ENDLESS = ("/dev/zero",)


def transcript_lines(rng: Hostile, project: Path) -> bytes:
    """Claude Code's transcript, mutated: wrong types where messages, contents and blocks
    go, truncated and giant lines, bytes that are not UTF-8, deep nesting, huge numbers."""
    good = (FIXTURES / "transcript.jsonl").read_text().replace("/home/dev/shop", str(project))
    entries = [json.loads(line) for line in good.splitlines() if line.strip()]
    out: list[bytes] = []
    for entry in entries * rng.randint(1, 3):
        entry = json.loads(json.dumps(entry))
        r = rng.random()
        if r < 0.45:
            out.append(json.dumps(entry).encode())
            continue
        message = entry.get("message")
        if r < 0.6:
            entry["message"] = rng.choice((None, 5, "text", [], {}, [{"role": "user"}]))
        elif r < 0.75 and isinstance(message, dict):
            message["content"] = rng.choice((None, 5, {}, [5], ["text"], [None], [[]], [{}],
                                             [{"type": 5}], [{"type": "text", "text": 5}],
                                             [{"type": "tool_use", "input": "x", "id": 5}],
                                             [{"type": "tool_result", "content": {"a": 1},
                                               "tool_use_id": []}],
                                             [{"type": "tool_result", "content": [5, None]}],
                                             rng.text()))
        elif r < 0.85:
            key = rng.choice(("type", "timestamp", "uuid", "cwd", "toolUseResult",
                              "isSidechain", "sessionId", "parentUuid"))
            entry[key] = rng.value()
        else:
            out.append(rng.choice((
                json.dumps(entry).encode()[: rng.randint(1, 200)],  # truncated
                bytes(rng.randrange(256) for _ in range(300)).replace(b"\n", b" "),
                *DEEP_LINES,
                b'{"type": "user", "timestamp": ' + b"9" * 5000 + b"}",
                b'{"type": "user", "message": {"role": "user", "content": "'
                + b"g" * rng.choice((100_000, 2_000_000)) + b'"}}',
                b"[1, 2]", b"null", b'"text"', b"{", b"\xff\xfe", b"",
                json.dumps(entry).encode() + b"\xed\xa0\x80",
            )))
            continue
        out.append(json.dumps(entry).encode("utf-8", "surrogatepass"))
    if rng.chance(0.05):
        out.append(b'{"type": "assistant", "message": {"content": "' + b"G" * 9_000_000 + b'"}}')
    return b"\n".join(out) + rng.choice((b"\n", b""))


class HookCases:
    def __init__(self, rng: Hostile, project: Path, scratch: Path) -> None:
        self.rng = rng
        self.project = project
        self.scratch = scratch

    def make(self, case: int) -> tuple[str, bytes]:
        rng = self.rng
        event = rng.choice((*PAYLOADS, "PostToolUseFailure", "SubagentStop")) \
            if rng.chance(0.95) else rng.choice(("", "NoSuchEvent", "userpromptsubmit"))
        payload: dict[str, Any] = json.loads((FIXTURES / PAYLOADS.get(
            event, "stop.json")).read_text())
        payload["cwd"] = str(self.project)
        payload["session_id"] = f"fuzz-{case}"
        if event == "PostToolUseFailure":
            payload.update(tool_name="Bash", tool_use_id=f"t{case}",
                           tool_input={"command": "pytest -q"}, error="Exit code 1")
        transcript = self.scratch / f"transcript-{case}.jsonl"
        transcript.write_bytes(transcript_lines(rng, self.project))
        payload["transcript_path"] = str(transcript)
        if event == "UserPromptSubmit" and rng.chance(0.3):
            payload["prompt"] = rng.choice((rng.text(), "deploy " * 300_000, "why did the "
                                            "refund fail " + rng.secret()))
        if event == "PostToolUse" and rng.chance(0.3):
            payload.update(tool_name="Write", tool_input={
                "file_path": str(self.project / "memory" / "notes.md"),
                "content": rng.text()})
        for key in list(payload):
            r = rng.random()
            if r < 0.12:
                payload[key] = rng.value()
            elif r < 0.2:
                del payload[key]
            elif r < 0.24:
                payload[key] = rng.choice(("x" * 1_000_000, "\x00", "../../x",
                                           rng.secret() if key != "cwd" else "~",
                                           str(self.scratch), "/nonexistent", *ENDLESS))
        r = rng.random()
        if r < 0.06:
            return event, rng.choice((b"", b"{not json", b"[1, 2]", b"null", b"\xff\xfe{}",
                                      nested_text(100_000).encode(), b"{}" * 10,
                                      b'{"prompt": ' + b"9" * 5000 + b"}"))
        return event, json.dumps(payload, ensure_ascii=rng.chance(0.5)).encode(
            "utf-8", "surrogatepass")


def answered_event(event: str, stdin: bytes) -> str:
    """The event a hook answers: its argument, else the payload's hook_event_name."""
    if event or not readable_payload(stdin):
        return event
    name = json.loads(stdin).get("hook_event_name")
    return name if isinstance(name, str) else ""


def readable_payload(stdin: bytes) -> bool:
    """Whether stdin is a JSON object at all (what is not is refused before any work)."""
    try:
        return isinstance(json.loads(stdin), dict)
    except (ValueError, RecursionError):
        return False


def hook_output_problems(event: str, stdout: bytes) -> list[str]:
    if not stdout.strip():
        return []
    try:
        answer = strict_json(stdout.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return [f"stdout is not JSON ({exc})"]
    if not isinstance(answer, dict):
        return ["stdout is not a JSON object"]
    specific = answer.get("hookSpecificOutput")
    if specific is not None:
        if (event in CONTEXT_EVENTS and set(answer) == {"hookSpecificOutput"}
                and isinstance(specific, dict) and specific.get("hookEventName") == event
                and isinstance(specific.get("additionalContext"), str)):
            return []
    elif (answer.get("decision") == "block" and isinstance(answer.get("reason"), str)
          and event in ("Stop", "SubagentStop")):
        return []
    return [f"not Claude Code's shape for {event}: {shown(answer)}"]


def test_hook_payloads_and_transcripts(tmp_path: Path, backend: str, store_target: str
                                       ) -> None:
    home = tmp_path / "home"
    db = store_of(backend, store_target, home / "memory.db")
    env = fuzz_env(home, **db_env(db))
    seed_store(env, db)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    home.mkdir(exist_ok=True)  # Stop may ask the agent to save: that answer is checked too
    (home / "config.toml").write_text("[hooks]\nask_agent_to_save = true\n")
    rng = Hostile("hooks")
    generate = HookCases(rng, project, scratch)
    failures = Failures("hooks")
    log = home / "logs" / "hooks.log"
    for case in range(cases(on_engine(60, backend))):
        event, stdin = generate.make(case)
        logged = log.read_text(errors="replace").splitlines() if log.exists() else []
        started = time.monotonic()
        proc = run_engram(env, ["hook", event], stdin=stdin, cwd=project, timeout=60)
        elapsed = time.monotonic() - started
        problems = hook_output_problems(answered_event(event, stdin), proc.stdout)
        if proc.returncode != 0:
            problems.append(f"exit {proc.returncode}")
        if proc.stderr.strip():
            problems.append(f"stderr {proc.stderr[-500:]!r}")
        limit = DEADLINES.get(event, 8.0) + BACKSTOP_GRACE_SECONDS + MARGIN
        if elapsed > limit:
            problems.append(f"took {elapsed:.1f} s (limit {limit:.1f} s)")
        new = (log.read_text(errors="replace").splitlines() if log.exists() else [])[
            len(logged):]
        if len(new) > 1:
            problems.append(f"{len(new)} log lines: {shown(new, 600)}")
        if readable_payload(stdin):
            problems += [f"logged a crash: {line[:300]}" for line in new
                         if any(f" {name}: " in line for name in CRASHES)]
        failures.add(case, f"hook {event!r} stdin={shown(stdin, 300)} "
                           f"transcript=scratch/transcript-{case}.jsonl", problems)
    assert_store_sound(db, rng.secrets, failures)
    logs = "\n".join(p.read_text(errors="replace") for p in (home / "logs").glob("*.log*"))
    failures.add(-1, "logs", [f"secret logged: {s}" for s in rng.secrets if s in logs])
    reads_survive(env, db, failures)
    failures.check()


# --- found by the fuzz ---------------------------------------------------------------------------


def test_usage_errors_stay_one_line_whatever_was_typed(cli_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    """click repeated a typed newline or terminal escape in its usage errors."""
    for args in (["list", "extra\narg", "\x1b[2J"], ["list", "--li\nmit"],
                 ["add", "x", "y\n\nz"], ["bench", "nope\nnope"]):
        proc = run_cli(cli_env, "--db", str(tmp_path / "memory.db"), *args)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.split("\n")
        assert len(lines) == 5 and lines[-1] == "", proc.stderr  # Usage, Try, blank, Error
        assert lines[3].startswith("Error: ") and "\x1b" not in proc.stderr, proc.stderr


def test_serve_answers_a_kept_alive_connection_without_waiting(tmp_path: Path) -> None:
    """`engram serve` bound a socket without naming TCP, so asyncio left Nagle on: every
    request after the first on a connection waited ~40 ms for the client's delayed ACK."""
    server = start_server(tmp_path / "home")
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            timings = []
            for _ in range(21):
                started = time.monotonic()
                assert http.get("/health").status_code == 200
                timings.append(time.monotonic() - started)
    finally:
        server.stop()
    assert sorted(timings)[10] < 0.02, timings  # the median: 0.4 ms, 44 ms with the stall


def test_forget_archives_every_id_given_or_none(cli_env: dict[str, str], store_target: str
                                               ) -> None:
    """`forget A B` archived A, then refused B with exit 1: a refusal must change nothing."""
    db = store_target
    keep = run_json(cli_env, "--db", db, "add", "The first memory stays active")["id"]
    old = run_json(cli_env, "--db", db, "add", "Builds use the old toolchain")["id"]
    run_cli(cli_env, "--db", db, "update", old, "--content", "Builds use the new toolchain",
            check=True)
    for bad in ("nosuchid00", "a b", old):  # unknown, not an id, superseded
        proc = run_cli(cli_env, "--db", db, "forget", keep, bad)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
        assert run_json(cli_env, "--db", db, "get", keep)["status"] == "active"
    assert run_cli(cli_env, "--db", db, "forget", keep).returncode == 0
    assert run_json(cli_env, "--db", db, "get", keep)["status"] == "archived"


def test_a_lone_surrogate_in_a_hook_payload_costs_nothing(cli_env: dict[str, str],
                                                         tmp_path: Path) -> None:
    """JSON.stringify writes a lone surrogate for a string cut between the halves of a
    pair: a prompt holding one lost its recall, a tool error holding one lost its record."""
    home = Path(cli_env["ENGRAM_HOME"])
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    run_cli(cli_env, "add", "Stripe refunds must use payment_intent", "--project", "shop",
            check=True)
    prompt = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
              "prompt": "how do the stripe refunds work \ud83d now"}
    proc = run_cli(cli_env, "hook", "UserPromptSubmit", input=json.dumps(prompt))
    assert "payment_intent" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    failure = {"session_id": "s2", "cwd": str(project), "tool_name": "Bash",
               "hook_event_name": "PostToolUseFailure", "tool_input": {"command": "pytest"}}
    escaped = json.dumps({**failure, "tool_use_id": "t1", "error": "cut \ud83d"}).encode()
    raw = json.dumps({**failure, "tool_use_id": "t2", "error": "bytes \udcff"},
                     ensure_ascii=False).encode("utf-8", "surrogateescape")  # not UTF-8
    for stdin in (escaped, raw):
        proc = subprocess.run([*engram_command(), "hook", "PostToolUseFailure"], env=cli_env,
                              input=stdin, capture_output=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout == b"", proc
    failures = json.loads((home / "sessions" / "s2.json").read_text())["failures"]
    assert failures["t1"]["error"] == "cut \ufffd" and failures["t2"]["error"] == "bytes \ufffd"
    assert not (home / "logs" / "hooks.log").exists()
