"""The store under hostile conditions: other local users, a full disk, a damaged file, a
deadline. Real SQLite files, real `engram` subprocesses, a real full filesystem (tmpfs in
a private mount namespace) where the machine allows one."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import run_cli, write_lock_held

import engram
from engram.config import open_private, write_private
from engram.errors import StoreError, StoreUnavailableError
from engram.store.deadline import bounded

ENGRAM = str(Path(sys.executable).with_name("engram"))
SECRET = "ghp_" + "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB1234"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def with_umask(mask: int):
    return lambda: os.umask(mask)


# --- files are the user's alone ------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077], ids=oct)
def test_everything_engram_writes_is_private(cli_env, tmp_path, umask):
    """Under the usual umask (022) a fresh home, the store, its -wal/-shm, the hook log
    and session state are owner-only; a stricter umask stays stricter."""
    home = Path(cli_env["ENGRAM_HOME"])
    proc = subprocess.run([ENGRAM, "add", "Deploys go out with make ship"], env=cli_env,
                          capture_output=True, text=True, preexec_fn=with_umask(umask))
    assert proc.returncode == 0, proc.stderr
    session = {"session_id": "s-1", "cwd": str(tmp_path), "source": "startup"}
    for event, stdin in (("SessionStart", json.dumps(session)), ("UserPromptSubmit", "{")):
        subprocess.run([ENGRAM, "hook", event], env=cli_env, input=stdin, text=True,
                       capture_output=True, preexec_fn=with_umask(umask), check=True)
    # A reader keeps the -wal and -shm files in place while we look.
    reader = sqlite3.connect(home / "memory.db")
    reader.execute("SELECT COUNT(*) FROM memories").fetchone()
    try:
        folders = [home, home / "logs", home / "sessions"]
        files = [home / "memory.db", home / "memory.db-wal", home / "memory.db-shm",
                 home / "logs" / "hooks.log", home / "sessions" / "s-1.json"]
        assert {str(p): mode(p) for p in folders} == {str(p): 0o700 for p in folders}
        assert {str(p): mode(p) for p in files} == {str(p): 0o600 for p in files}
    finally:
        reader.close()


def test_a_store_an_older_engram_left_readable_is_tightened_on_open(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    db = home / "memory.db"
    with sqlite3.connect(db) as old:  # as an older Engram left it: 0644 in a 0755 home
        old.execute("PRAGMA journal_mode = WAL")
        old.execute("CREATE TABLE t (x)")
    keep_wal = sqlite3.connect(db)  # an old process still has it open: -wal and -shm stay
    keep_wal.execute("SELECT * FROM t").fetchall()
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        os.chmod(path, 0o644)
    try:
        with engram.open(db, embedder="none") as mem:
            mem.save("a memory")
        assert mode(home) == 0o700
        assert {s: mode(Path(f"{db}{s}")) for s in ("", "-wal", "-shm")} == {
            "": 0o600, "-wal": 0o600, "-shm": 0o600}
    finally:
        keep_wal.close()


def test_a_store_in_a_folder_of_the_users_leaves_that_folder_alone(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    os.chmod(project, 0o755)
    with engram.open(project / "team.db", embedder="none") as mem:
        mem.save("a memory")
    assert mode(project) == 0o755
    assert mode(project / "team.db") == 0o600


def test_a_new_folder_for_the_store_is_private(tmp_path):
    db = tmp_path / "new" / "nested" / "memory.db"
    with engram.open(db, embedder="none") as mem:
        mem.save("a memory")
    assert mode(db.parent) == 0o700 and mode(db.parent.parent) == 0o700


def test_write_private_creates_0600_and_tightens_an_existing_file(tmp_path):
    fresh = tmp_path / "export.jsonl"
    write_private(fresh, "{}\n")
    assert mode(fresh) == 0o600 and fresh.read_text() == "{}\n"
    old = tmp_path / "old-export.json"
    old.write_text("previous")
    os.chmod(old, 0o644)
    write_private(old, b"[]")
    assert mode(old) == 0o600 and old.read_bytes() == b"[]"
    with open_private(tmp_path / "log", "a") as handle:
        handle.write("one\n")
    with open_private(tmp_path / "log", "a") as handle:
        handle.write("two\n")
    assert (tmp_path / "log").read_text() == "one\ntwo\n"


def test_write_private_never_changes_a_device(tmp_path):
    before = os.stat("/dev/null")
    write_private("/dev/null", "nothing")
    assert os.stat("/dev/null").st_mode == before.st_mode


def test_setup_backups_are_private(cli_env, tmp_path):
    env = dict(cli_env)
    home = Path(env["HOME"])
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {"x": {"url": "https://x"}}}\n')
    proc = subprocess.run([ENGRAM, "setup", "--agent", "cursor", "--json"], env=env,
                          capture_output=True, text=True, preexec_fn=with_umask(0o022))
    assert proc.returncode == 0, proc.stderr
    [backup] = [Path(p) for p in json.loads(proc.stdout)["backups"]]
    assert mode(backup) == 0o600
    assert mode(backup.parent) == 0o700 and mode(backup.parent.parent) == 0o700


def test_the_hook_log_is_redacted(cli_env, tmp_path):
    """A failing hook logs the payload's session id: a secret there is redacted."""
    env = dict(cli_env)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store folder should be")
    env["ENGRAM_DB"] = str(blocker / "sub" / "memory.db")
    payload = {"session_id": f"token={SECRET}", "cwd": str(tmp_path), "source": "startup"}
    proc = run_cli(env, "hook", "SessionStart", input=json.dumps(payload))
    assert proc.returncode == 0 and proc.stdout == ""
    log = Path(env["ENGRAM_HOME"]) / "logs" / "hooks.log"
    [line] = log.read_text().splitlines()
    assert "SessionStart" in line and "StoreError" in line
    assert SECRET not in line and "REDACTED" in line
    assert mode(log) == 0o600


def test_the_worker_log_is_redacted(cli_env, tmp_path):
    """The warm worker logs a request it cannot answer; a secret in it is redacted."""
    env = dict(cli_env)
    env.pop("ENGRAM_HOOK_WORKER")
    env["ENGRAM_EMBEDDER"] = "none"
    log = tmp_path / "worker.log"
    client = ("import json, sys\nfrom engram.hooks import client\n"
              "request = json.loads(sys.argv[1])\n"
              "try:\n    print(json.dumps(client.call(request, 5)))\n"
              "except client.WorkerError as exc:\n    print('error', exc)\n")
    call = lambda request: subprocess.run(  # noqa: E731
        [sys.executable, "-c", client, json.dumps(request)], env=env, capture_output=True,
        text=True, timeout=30).stdout
    with open(log, "wb") as handle:
        worker = subprocess.Popen([sys.executable, "-m", "engram.worker"], env=env,
                                  stderr=handle)
    try:
        deadline = time.monotonic() + 30
        while call({"op": "ping"}).strip() in ("", "null") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "error" in call({"op": f"token={SECRET}"})
    finally:
        call({"op": "stop"})
        worker.wait(timeout=15)
    text = log.read_text()
    assert "unknown op" in text and "REDACTED" in text and SECRET not in text


# --- a full disk ---------------------------------------------------------------------------


def _fill(mem) -> int:
    """Cap the store at its current size (SQLite answers SQLITE_FULL past it, as on a
    full disk) and return that size in pages."""
    pages = mem.store._db.execute("PRAGMA page_count").fetchone()[0]
    mem.store._db.execute(f"PRAGMA max_page_count = {pages}")
    return pages


def test_a_full_disk_is_a_store_unavailable_error_and_loses_nothing(store_path):
    mem = engram.open(store_path, embedder="none")
    mem.lifecycle.upkeep_mode = "off"
    saved = [mem.save(f"memory {i} about the deploy pipeline").memory.id for i in range(20)]
    _fill(mem)
    with pytest.raises(StoreUnavailableError, match="is full") as caught:
        for i in range(200):
            mem.save(f"another memory {i} " + "with a long body " * 200)
    assert not isinstance(caught.value, sqlite3.Error)
    # Reads still answer, the store holds exactly what was acknowledged, and it is sound.
    assert mem.search("deploy pipeline", k=50).results
    assert mem.store.integrity_check() == "ok"
    stored = {m.id for m in mem.list(limit=1000)}
    assert set(saved) <= stored
    # Once there is room again, the same connection writes (no transaction left open).
    mem.store._db.execute("PRAGMA max_page_count = 1073741823")
    assert mem.save("written after space was freed").memory.id
    mem.close()


def test_a_full_disk_fails_an_import_whole_not_halfway(store_path):
    mem = engram.open(store_path, embedder="none")
    mem.lifecycle.upkeep_mode = "off"
    mem.save("the one memory before")
    _fill(mem)
    records = [(i + 1, {"content": f"imported {i} " + "padding " * 100}) for i in range(300)]
    with pytest.raises(StoreUnavailableError):
        mem.import_records(records)
    assert mem.count() == 1
    assert mem.store.integrity_check() == "ok"
    mem.close()


def _namespace_runner() -> list[str] | None:
    """`unshare` with a private mount namespace (mapped to root in a user namespace), in
    which a tmpfs can be mounted without touching the machine; None if not allowed."""
    unshare = shutil.which("unshare")
    if unshare is None or not sys.platform.startswith("linux"):
        return None
    probe = subprocess.run([unshare, "--mount", "--map-root-user", "true"],
                           capture_output=True)
    return [unshare, "--mount", "--map-root-user"] if probe.returncode == 0 else None


def test_a_full_disk_is_one_line_from_the_cli_and_silent_in_hooks(cli_env, tmp_path):
    """A real full filesystem: a 2 MB tmpfs holding the store, filled to the last block."""
    runner = _namespace_runner()
    if runner is None:
        pytest.skip("no private mount namespace here (unshare --mount --map-root-user)")
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    env = dict(cli_env)
    env["ENGRAM_DB"] = str(disk / "memory.db")
    env["ENGRAM_UPKEEP"] = "off"
    hook_payload = json.dumps({"session_id": "s-full", "cwd": str(tmp_path),
                               "prompt": "How do deploys go out to production?"})
    script = textwrap.dedent(f"""\
        set -u
        mount -t tmpfs -o size=2m tmpfs {disk} || exit 97
        {ENGRAM} add "Deploys go out with make ship" > {out}/seed.out 2>&1 || exit 98
        dd if=/dev/zero of={disk}/filler bs=4k 2>/dev/null
        {ENGRAM} add "$BIG" > {out}/add.out 2> {out}/add.err; echo $? > {out}/add.rc
        {ENGRAM} --json list > {out}/list.out 2> {out}/list.err; echo $? > {out}/list.rc
        echo "$HOOK" | {ENGRAM} hook UserPromptSubmit > {out}/hook.out 2> {out}/hook.err
        echo $? > {out}/hook.rc
        """)
    env["BIG"] = "a memory too big for the space left " * 300
    env["HOOK"] = hook_payload
    proc = subprocess.run([*runner, "sh", "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr,
                                  (out / "seed.out").read_text() if (out / "seed.out").exists()
                                  else "")
    read = lambda name: (out / name).read_text()  # noqa: E731
    for command in ("add", "list"):
        assert read(f"{command}.rc").strip() == "1"
        assert read(f"{command}.out") == ""
        err = read(f"{command}.err")
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("error: ") and "is full" in err
    assert read("hook.rc").strip() == "0"
    assert read("hook.out") == "" and read("hook.err") == ""
    [line] = (Path(env["ENGRAM_HOME"]) / "logs" / "hooks.log").read_text().splitlines()
    assert "UserPromptSubmit" in line and "StoreUnavailableError" in line and "full" in line


# --- damaged stores --------------------------------------------------------------------------


def test_a_file_that_is_not_a_store_is_a_store_error(tmp_path):
    path = tmp_path / "memory.db"
    path.write_bytes(b"this is a text file, not SQLite " * 200)
    with pytest.raises(StoreError, match="damaged or is not an Engram store") as caught:
        engram.open(path, embedder="none")
    assert not isinstance(caught.value, StoreUnavailableError)
    assert path.read_bytes().startswith(b"this is a text file")  # left as it was


def test_a_store_damaged_inside_is_a_store_error_on_read(tmp_path):
    path = tmp_path / "memory.db"
    with engram.open(path, embedder="none") as mem:
        mem.lifecycle.upkeep_mode = "off"
        mem.import_records([(i + 1, {"content": f"memory number {i} about kafka " * 20})
                            for i in range(400)])
    size = path.stat().st_size
    with open(path, "r+b") as handle:  # overwrite pages past the schema with noise
        handle.seek(size // 3)
        handle.write(os.urandom(size // 3))
    with pytest.raises(StoreError) as caught, engram.open(path, embedder="none") as mem:
        mem.search("kafka", k=5)
        list(mem.store.iter_all())
        mem.store.integrity_check()
        raise AssertionError("a damaged store read back without an error")
    assert not isinstance(caught.value, sqlite3.Error)


def test_a_closed_store_raises_a_store_error(store_path):
    mem = engram.open(store_path, embedder="none")
    mem.close()
    with pytest.raises(StoreError):
        mem.count()


# --- deadlines -------------------------------------------------------------------------------


@pytest.fixture
def write_locked(store_path):
    """Another process holds the store's write lock (as a reindex or big import does)."""
    with engram.open(store_path, embedder="none") as mem:
        mem.save("Refunds go through the payment_intent API")
    with write_lock_held(store_path):
        yield store_path


def test_a_deadline_bounds_the_wait_for_a_locked_store(write_locked):
    started = time.monotonic()
    mem = engram.open(write_locked, embedder="none", deadline=started + 0.8)
    mem.lifecycle.upkeep_mode = "off"
    assert mem.search("refunds").results  # reads go on beside the writer (WAL)
    with pytest.raises(StoreUnavailableError, match="busy"):
        mem.save("a memory that has to wait for the lock")
    elapsed = time.monotonic() - started
    assert 0.6 < elapsed < 1.5
    mem.close()


def test_stores_opened_in_a_bounded_block_inherit_its_deadline(write_locked):
    started = time.monotonic()
    with bounded(started + 0.5):
        mem = engram.open(write_locked, embedder="none")
    mem.lifecycle.upkeep_mode = "off"
    with pytest.raises(StoreUnavailableError):
        mem.save("a memory that has to wait for the lock")
    assert time.monotonic() - started < 1.3
    mem.close()
    # Outside the block there is no deadline: a store opened now would wait the full
    # busy timeout, which is what long-lived servers want.
    unbounded = engram.open(write_locked, embedder="none")
    assert unbounded.store._db.deadline is None
    unbounded.close()


def test_a_statement_running_at_the_deadline_is_interrupted(store_path):
    with engram.open(store_path, embedder="none") as mem:
        mem.save("a memory")
    started = time.monotonic()
    mem = engram.open(store_path, embedder="none", deadline=started + 0.5)
    endless = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)"
               " SELECT COUNT(*) FROM n")
    with pytest.raises(StoreUnavailableError, match="time allowed"):
        mem.store._db.execute(endless).fetchone()
    assert time.monotonic() - started < 1.5
    mem.close()


def test_values_sqlite_cannot_bind_are_validation_errors_not_crashes(store_path):
    """The store's own boundary, below the service's validation: whatever reaches it, an
    Engram error comes out (REST answers it 4xx, the CLI one line), never a bare one."""
    from engram.errors import ValidationError
    from engram.store.base import Filters
    from engram.store.sqlite import SQLiteStore

    store = SQLiteStore(store_path)
    with pytest.raises(ValidationError, match="surrogates"):
        store.get("\udc80abc")
    with pytest.raises(ValidationError, match="too large"):
        store.list(Filters(), limit=2**70)
    store.close()
    with pytest.raises(StoreError, match="embedded null"):
        SQLiteStore(str(store_path) + "\x00.db")


def test_two_processes_opening_a_new_store_at_the_same_instant_both_open(tmp_path):
    """Both switch the new file to WAL at once; SQLite tells the loser "busy" without
    waiting (its busy handler cannot run there), so the open retries within its timeout."""
    import threading

    import numpy  # noqa: F401 - loaded already, as in a long-lived process: opens race closer

    for trial in range(20):
        path = tmp_path / f"new-{trial}.db"
        go = threading.Barrier(2)
        failures: list[BaseException] = []

        def open_it(path: Path, go: threading.Barrier, failures: list[BaseException]) -> None:
            go.wait()
            try:
                engram.open(path, embedder="fake").close()
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                failures.append(exc)

        threads = [threading.Thread(target=open_it, args=(path, go, failures))
                   for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == [], (trial, failures)
