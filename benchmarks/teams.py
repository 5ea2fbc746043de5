"""A team server under load: several users saving and searching at once.

Starts a real `engram serve` on 127.0.0.1 (on a SQLite file, and with `--db URL` on
PostgreSQL), adds `--users` users (half writers saving team and personal memories, all
searching), runs them in threads at once for `--rounds` rounds each, then checks what a
team relies on: no request failed, every acknowledged save is in the store exactly once,
with its owner, and no user's search ever returned another user's personal memory.

    python -m benchmarks.teams [--users 6] [--rounds 40] [--embedded-postgres | --db URL]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click


def _engram() -> list[str]:
    exe = Path(sys.executable).with_name("engram")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "engram"]


def _env(home: Path, db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_HOME=str(home), ENGRAM_DB=db, ENGRAM_EMBEDDER="bundled",
               ENGRAM_UPKEEP="off", NO_COLOR="1")
    return env


def _add_user(env: dict[str, str], name: str, role: str) -> str:
    done = subprocess.run([*_engram(), "users", "add", name, "--role", role, "--json"],
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)["token"]


def _serve(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[str], str]:
    with log.open("w") as stderr:
        proc = subprocess.Popen(  # no rate limit: the load is the point
            [*_engram(), "serve", "--port", "0", "--json", "--rate-limit", "0"], env=env,
            stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    url = json.loads(proc.stdout.readline())["url"]
    import httpx

    for _ in range(300):
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"engram serve did not start: {log.read_text()}")


def run(users: int, rounds: int, db: str | None) -> dict[str, Any]:
    import httpx

    home = Path(tempfile.mkdtemp(prefix="engram-teams-"))
    target = db or str(home / "team.db")
    env = _env(home, target)
    names = [f"dev{i}" for i in range(users)]
    tokens = {n: _add_user(env, n, "writer" if i % 2 == 0 else "reader")
              for i, n in enumerate(names)}
    writers = names[::2]
    proc, url = _serve(env, home / "server.log")
    lock = threading.Lock()
    saved: dict[str, list[tuple[str, str]]] = {n: [] for n in names}  # (id, scope)
    latencies: dict[str, list[float]] = {"save": [], "search": []}
    errors: list[str] = []
    leaks: list[str] = []

    def user(name: str) -> None:
        try:
            rounds_of(name)
        except httpx.TransportError as exc:  # a dropped connection is a failed request too
            with lock:
                errors.append(f"{name}: {type(exc).__name__}: {exc}")

    def rounds_of(name: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[name]}"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
            for i in range(rounds):
                if name in writers:
                    scope = "personal" if i % 4 == 0 else "team"
                    body = {"content": f"{name} note {i}: the build of service {i % 7} needs "
                                       f"flag --retry={i % 5} on runner {i % 3}",
                            "type": "project_fact", "project": "load", "scope": scope}
                    t0 = time.perf_counter()
                    response = client.post("/v1/memories", json=body)
                    elapsed = time.perf_counter() - t0
                    with lock:
                        latencies["save"].append(elapsed)
                        if response.status_code != 201:
                            errors.append(f"save {response.status_code} {response.text[:300]}")
                        else:
                            saved[name].append((response.json()["id"], scope))
                t0 = time.perf_counter()
                response = client.get("/v1/search", params={"q": f"build flag runner {i % 3}",
                                                             "project": "load", "k": 20})
                elapsed = time.perf_counter() - t0
                with lock:
                    latencies["search"].append(elapsed)
                    if response.status_code != 200:
                        errors.append(f"search {response.status_code} {response.text[:300]}")
                        continue
                    for hit in response.json()["results"]:
                        memory = hit["memory"]
                        if memory["scope"] == "personal" and memory["owner"] != name:
                            leaks.append(f"{name} saw {memory['id']} of {memory['owner']}")

    threads = [threading.Thread(target=user, args=(n,)) for n in names]
    t0 = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - t0
    proc.terminate()
    proc.wait(timeout=30)

    import engram

    acknowledged = [(i, n) for n in names for i, _ in saved[n]]
    with engram.open(target, embedder="none") as mem:
        stored = {m.id: m for m in mem.list(project="load", limit=10_000)}
        lost = [i for i, _ in acknowledged if i not in stored]
        wrong_owner = [i for i, n in acknowledged if i in stored and stored[i].owner != n]
        total = mem.count(project="load")

    def p(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {
        "engine": "PostgreSQL" if db else "SQLite",
        "users": users, "writers": len(writers), "rounds": rounds,
        "requests": len(latencies["save"]) + len(latencies["search"]),
        "requests_per_s": round((len(latencies["save"]) + len(latencies["search"])) / wall, 1),
        "save_p50_ms": p(latencies["save"], 0.5), "save_p95_ms": p(latencies["save"], 0.95),
        "search_p50_ms": p(latencies["search"], 0.5),
        "search_p95_ms": p(latencies["search"], 0.95),
        "errors": len(errors), "error_samples": errors[:3],
        "acknowledged": len(acknowledged), "lost": len(lost),
        "stored": total, "wrong_owner": len(wrong_owner), "personal_leaks": len(leaks),
        "mean_search_ms": round(1000 * statistics.mean(latencies["search"]), 1),
    }


def render(rows: list[dict[str, Any]]) -> str:
    from benchmarks.report import markdown_table

    table = markdown_table(
        ["engine", "users (writers)", "requests", "req/s", "save p50 / p95 ms",
         "search p50 / p95 ms", "errors", "saves acknowledged / stored / lost",
         "wrong owner", "personal leaks"],
        [[r["engine"], f"{r['users']} ({r['writers']})", r["requests"],
          f"{r['requests_per_s']:.1f}",
          f"{r['save_p50_ms']} / {r['save_p95_ms']}",
          f"{r['search_p50_ms']} / {r['search_p95_ms']}", r["errors"],
          f"{r['acknowledged']} / {r['stored']} / {r['lost']}", r["wrong_owner"],
          r["personal_leaks"]] for r in rows])
    return table + "\n"


@click.command("teams")
@click.option("--users", default=6, show_default=True, type=click.IntRange(2, 64))
@click.option("--rounds", default=40, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--db", "dbs", multiple=True,
              help="Also run on this PostgreSQL URL (a database it may fill).")
@click.option("--embedded-postgres", is_flag=True,
              help="Also run on a private PostgreSQL from the embedded-postgres package.")
@click.option("--write/--no-write", default=True, help="Write RESULTS.md.")
def command(users: int, rounds: int, dbs: tuple[str, ...], embedded_postgres: bool,
            write: bool) -> None:
    """A team server under load: users saving and searching at once, nothing lost."""
    from benchmarks.pg import postgres_database, private_server
    from benchmarks.report import stamp, write_section

    if embedded_postgres:
        dbs = (*dbs, postgres_database(private_server(), "teams"))
    rows = [run(users, rounds, None)] + [run(users, rounds, db) for db in dbs]
    text = render(rows)
    click.echo(text)
    if write:
        write_section("teams", "## A team server under load\n\n" + stamp() + "\n" + text)
    if any(r["errors"] or r["lost"] or r["wrong_owner"] or r["personal_leaks"] for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    command()
