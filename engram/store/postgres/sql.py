"""The SQL the PostgreSQL store writes for Engram's shapes: filters, tsqueries, vector
casts, rows; and how its errors and URLs are shown."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import StoreError, StoreUnavailableError
from ...model import Memory, stored_memory, stored_meta, stored_strings
from ..base import Filters

MAX_HALFVEC_INDEX_DIM = 4_000
#: The transaction-level advisory lock every write holds to its COMMIT: one writer at a
#: time per database (store.py), and a phrase registered in `phrase_df` (keywords.py).
WRITE_LOCK = 0x656E6777  # "engw"


def redacted_url(url: str) -> str:
    """The URL without its password, for messages and `stats`."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


#: SQLSTATE classes of a condition that passes: connection lost or refused, out of disk or
#: connections, a statement cancelled (a deadline) or the server shutting down, a lock not
#: granted in time, a serialisation failure worth retrying.
_PASSING = ("08", "53", "57", "40", "55P03")


def translate_error(exc: Exception, url: str) -> StoreError:
    import psycopg

    message = str(exc).replace(url, redacted_url(url)).strip().splitlines()[0:1]
    text = message[0] if message else type(exc).__name__
    state = getattr(exc, "sqlstate", None)
    passing = state.startswith(_PASSING) if state else isinstance(exc, psycopg.OperationalError)
    if passing:
        return StoreUnavailableError(f"PostgreSQL unavailable: {text}")
    return StoreError(f"PostgreSQL error: {text}")


def row_to_memory(row: Sequence[Any]) -> Memory:
    return stored_memory((
        *row[:4],
        stored_strings(json.dumps(row[4])),
        stored_strings(json.dumps(row[5])),
        *row[6:11],
        bool(row[11]),
        *row[12:21],
        stored_meta(json.dumps(row[21])),
        row[22],
        row[23] or "team",
    ))


def where_clause(filters: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    """Filters as SQL; every value a bound parameter (the same meaning as SQLite's)."""
    a = alias
    clauses: list[str] = []
    params: list[Any] = []
    if filters.viewer is not None:
        clauses.append(f"({a}.scope = 'team' OR {a}.owner = %s)")
        params.append(filters.viewer)
    if filters.statuses:
        clauses.append(f"{a}.status = ANY(%s)")
        params.append(list(filters.statuses))
    if filters.project is not None:
        clauses.append(f"({a}.project = %s OR {a}.project IS NULL)" if filters.include_global
                       else f"{a}.project = %s")
        params.append(filters.project)
    if filters.types:
        clauses.append(f"{a}.type = ANY(%s)")
        params.append(list(filters.types))
    if filters.provenances:
        clauses.append(f"{a}.provenance = ANY(%s)")
        params.append(list(filters.provenances))
    if filters.pinned is not None:
        clauses.append(f"{a}.pinned = %s")
        params.append(bool(filters.pinned))
    for tag in filters.tags:
        clauses.append(f"{a}.tags ? %s")
        params.append(tag)
    if filters.files:
        ors = []
        for path in filters.files:
            ors.append("v = %s OR v LIKE %s ESCAPE '\\' OR %s LIKE '%%/' || v")
            like = "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.extend([path, like, path])
        clauses.append(f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({a}.files) v"
                       f" WHERE {' OR '.join(ors)})")
    if filters.since is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) >= %s")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) < %s")
        params.append(filters.until)
    if filters.ids is not None:
        clauses.append(f"{a}.id = ANY(%s)")
        params.append(list(filters.ids))
    return (" AND ".join(clauses) or "TRUE"), params


def vector_cast(dim: int) -> str:
    """The typed expression vectors of this dimension are indexed and searched as:
    pgvector's HNSW takes `halfvec` up to 4,000 dimensions (OpenAI's 3,072 included);
    beyond that searches are exact scans."""
    return f"halfvec({dim})"


def tsquery_term(alternative: str) -> str | None:
    words = [w for w in alternative.split() if w]
    if not words:
        return None
    quoted = ["'" + w.replace("\\", "\\\\").replace("'", "''") + "'" for w in words]
    return " <-> ".join(quoted) if len(quoted) > 1 else quoted[0]


def phrase_pattern(phrase: str) -> str:
    """A PostgreSQL regex matching `phrase` as whole terms (lookarounds, so occurrences may
    share a space), every character that is not a letter or digit escaped."""
    body = "".join(c if c.isalnum() or c == " " else "\\" + c for c in phrase)
    return f"(?<= ){body}(?= )"
