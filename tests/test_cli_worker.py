"""`engram search` and `engram context` through the warm worker (engram/cli/warm.py): a
real worker process on a real SQLite store, the real `engram` command beside it, and the
same answers as in-process; every way the worker can be missing or wrong falls back."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli, stop_worker

import engram

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")

PING = "import json; from engram import worker; print(json.dumps(worker.ping()))"
SOCKET = "from engram.hooks import client; print(client.socket_path())"


@pytest.fixture
def env(cli_env: dict[str, str]) -> dict[str, str]:
    env = dict(cli_env, ENGRAM_WORKER_IDLE="60")
    env.pop("ENGRAM_HOOK_WORKER")  # the worker is what these tests are about
    return env


@pytest.fixture
def seeded(env: dict[str, str]) -> dict[str, str]:
    """Memories of kinds that do not decay: a score does not move between two searches."""
    with engram.open(Path(env["ENGRAM_HOME"]) / "memory.db", embedder="fake") as mem:
        return {
            "refund": mem.save("Stripe refunds must use payment_intent, the charge argument"
                               " was removed", type="constraint", project="shop").memory.id,
            "deploy": mem.save("Deploys go through the release Makefile target only",
                               type="decision", project="shop", pinned=True).memory.id,
            "css": mem.save("Tailwind classes are sorted by the prettier plugin",
                            type="preference", project="shop").memory.id,
            "gpu": mem.save("The ML project trains on four GPUs for the refund model",
                            type="project_fact", project="ml").memory.id,
            "old": mem.save("Refunds go through the charge argument", type="decision",
                            project="shop").memory.id,
        }


def ping(env: dict[str, str]) -> dict | None:
    out = subprocess.run([sys.executable, "-c", PING], env=env, capture_output=True,
                         text=True, timeout=30).stdout.strip()
    return json.loads(out) if out else None


def wait_for_worker(env: dict[str, str], timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = ping(env)
        if status:
            return status
        time.sleep(0.05)
    raise AssertionError("no worker came up")


@pytest.fixture
def worker(env: dict[str, str], seeded: dict[str, str]) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for_worker(env)
        yield proc
    finally:
        stop_worker(env, proc)


def socket_file(env: dict[str, str]) -> Path:
    return Path(subprocess.run([sys.executable, "-c", SOCKET], env=env, capture_output=True,
                               text=True, timeout=30, check=True).stdout.strip())


def search_json(env: dict[str, str], *args: str) -> dict:
    proc = run_cli(env, "search", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    data.pop("elapsed_ms")  # the one field that differs between two runs of one search
    return data


SEARCHES = [
    ("refund",),
    ("how do refunds work", "--explain"),
    ("refund", "--project", "shop", "--type", "constraint", "--type", "decision"),
    ("refund", "--all", "-k", "3"),
    ("refund", "--min-score", "0.01", "--include-superseded"),
    ("deploy", "--since", "2000-01-01", "--until", "2999-01-01", "--files", "Makefile"),
    ("nothing like this at all",),
]


@pytest.mark.parametrize("args", SEARCHES, ids=lambda a: " ".join(a))
def test_a_search_through_the_worker_is_the_search_in_process(env, seeded, worker, args):
    served = ping(env)["served"]
    through_worker = search_json(env, *args)
    assert ping(env)["served"] == served + 1  # the worker answered, not this process
    in_process = search_json(env, *args, "--no-worker")
    assert ping(env)["served"] == served + 1
    assert through_worker == in_process  # ids, order, scores, signals, notes, cut
    # the human form too (piped: one line per memory, the notes on stderr)
    shown = run_cli(env, "search", *args)
    here = run_cli(env, "search", *args, "--no-worker")
    assert shown.returncode == here.returncode == 0
    assert (shown.stdout, shown.stderr) == (here.stdout, here.stderr)


def test_the_worker_answers_for_the_store_the_command_names(env, seeded, worker, tmp_path):
    """--db names another store: its own worker, never this one's answers."""
    other = tmp_path / "other.db"
    with engram.open(other, embedder="fake") as mem:
        kafka = mem.save("The event bus is Kafka", type="decision").memory.id
    served = ping(env)["served"]
    env_off = dict(env, ENGRAM_HOOK_WORKER="off")  # no second worker outliving the test
    found = json.loads(run_cli(env_off, "--db", str(other), "search", "event bus",
                               "--json").stdout)
    assert [r["memory"]["id"] for r in found["results"]] == [kafka]
    found = json.loads(run_cli(env, "--db", str(other), "search", "refund", "--json").stdout)
    assert {r["memory"]["id"] for r in found["results"]} <= {kafka}
    assert ping(env)["served"] == served  # the home store's worker was not asked
    # that search started the other store's own worker, for the next one
    other_env = dict(env, ENGRAM_DB=str(other))
    try:
        assert wait_for_worker(other_env)["db"] == str(other)
        found = json.loads(run_cli(env, "--db", str(other), "search", "event bus",
                                   "--json").stdout)
        assert [r["memory"]["id"] for r in found["results"]] == [kafka]
        assert ping(other_env)["served"] == 1
    finally:
        stop_worker(other_env)


def test_context_through_the_worker_is_the_pack_in_process(env, seeded, worker, tmp_path):
    served = ping(env)["served"]
    args = ("refunds", "--project", "shop", "--budget", "400")
    through_worker = run_cli(env, "context", *args, "--json")
    in_process = run_cli(env, "context", *args, "--json", "--no-worker")
    assert through_worker.returncode == in_process.returncode == 0
    assert json.loads(through_worker.stdout) == json.loads(in_process.stdout)
    assert "payment_intent" in json.loads(through_worker.stdout)["text"]
    assert (run_cli(env, "context", *args).stdout
            == run_cli(env, "context", *args, "--no-worker").stdout)
    assert ping(env)["served"] == served + 2


def test_a_search_through_the_worker_imports_nothing_heavy(env, seeded, worker):
    os.makedirs(env["HOME"], exist_ok=True)
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom engram.cli import main\n"
         "try:\n    main(['search', 'payment_intent', '-k', '1'])\nexcept SystemExit:\n    pass\n"
         "heavy = ('numpy', 'onnxruntime', 'engram.service', 'engram.retrieval', "
         "'engram.store', 'sqlite3', 'httpx', 'rich')\n"
         "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)"],
        env=env, capture_output=True, text=True, timeout=60, cwd=env["HOME"])
    assert probe.stdout.startswith(seeded["refund"])
    assert probe.stderr.strip() == "[]"


def test_with_no_worker_the_search_answers_here_and_starts_one(env, seeded):
    env["ENGRAM_WORKER_IDLE"] = "20"
    try:
        found = search_json(env, "payment_intent")
        assert found["results"][0]["memory"]["id"] == seeded["refund"]
        status = wait_for_worker(env)  # started in the background for the next search
        assert status["served"] == 0
        assert search_json(env, "payment_intent") == found
        assert ping(env)["served"] == 1
    finally:
        stop_worker(env)


@pytest.mark.parametrize("how", ["--no-worker", "ENGRAM_HOOK_WORKER=off", "[hooks] worker"])
def test_the_escape_hatches_neither_ask_nor_start_a_worker(env, seeded, how):
    args = ["search", "payment_intent", "--json"]
    if how == "--no-worker":
        args.append(how)
    elif how.startswith("ENGRAM"):
        env["ENGRAM_HOOK_WORKER"] = "off"
    else:
        run_cli(env, "config", "set", "hooks.worker", "false", check=True)
    with fake_worker(socket_file(env), {"ok": True, "response": {}}) as fake:
        found = json.loads(run_cli(env, *args, check=True).stdout)
        assert found["results"][0]["memory"]["id"] == seeded["refund"]
        assert fake.accepted == 0
    time.sleep(0.5)
    assert not list((Path(env["ENGRAM_HOME"]) / "run").glob("spawn-*"))


def test_a_dead_workers_socket_file_falls_back_without_a_traceback(env, seeded):
    path = socket_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # the file stays, nobody listens: connecting is refused
    dead.close()
    env["ENGRAM_WORKER_IDLE"] = "20"
    try:
        proc = run_cli(env, "search", "payment_intent")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(seeded["refund"])
        assert "Traceback" not in proc.stderr and "error" not in proc.stderr
        wait_for_worker(env)  # a new worker took the place of the dead one
    finally:
        stop_worker(env)


@pytest.mark.parametrize("answer", [
    {"ok": False, "error": "ValueError: unknown op 'search'"},  # an older worker
    {"ok": True, "output": None},  # no response in it
    {"ok": True, "response": {"results": [{"memory": {}}]}},  # not a search's answer
    b"not json at all",
    None,  # closes without a word
], ids=["error", "no-response", "malformed", "garbage", "silent"])
def test_a_worker_that_answers_wrong_is_done_without(env, seeded, answer):
    in_process = search_json(env, "payment_intent", "--no-worker")
    with fake_worker(socket_file(env), answer) as fake:
        proc = run_cli(env, "search", "payment_intent", "--json")
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        found = json.loads(proc.stdout)
        found.pop("elapsed_ms")
        assert found == in_process
        human = run_cli(env, "search", "payment_intent")
        assert human.returncode == 0 and human.stdout.startswith(seeded["refund"])
        assert fake.accepted == 2


class _FakeWorker:
    """A socket that answers every request with one canned reply."""

    def __init__(self, path: Path, answer: object) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        self.path = path
        self.answer = answer
        self.accepted = 0
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            with conn:
                conn.recv(1 << 20)
                if self.answer is None:
                    continue
                reply = (self.answer if isinstance(self.answer, bytes)
                         else json.dumps(self.answer).encode())
                with contextlib.suppress(OSError):
                    conn.sendall(reply)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


@contextlib.contextmanager
def fake_worker(path: Path, answer: object) -> Iterator[_FakeWorker]:
    fake = _FakeWorker(path, answer)
    try:
        yield fake
    finally:
        fake.close()
