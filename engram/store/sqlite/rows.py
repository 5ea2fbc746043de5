"""Rows of the SQLite store: the column list, row parsing, float16 vectors, and the
WHERE clause every listing and search shares (with postgres/sql.py its counterpart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import Memory, from_iso, stored_memory, stored_meta, stored_strings, to_iso
from ..base import Filters

if TYPE_CHECKING:
    import numpy as np

#: The meta key holding the highest change number a delete removed.
DELETED_SEQ_KEY = "deleted_seq"
#: Above every row's change number and every deleted row's (the meta table keeps the
#: highest a delete removed, so a number is never given twice): the store's last change.
HIGH_SEQ_SQL = (
    "SELECT MAX(COALESCE((SELECT MAX(seq) FROM memories), 0), COALESCE((SELECT"
    f" CAST(value AS INTEGER) FROM meta WHERE key = '{DELETED_SEQ_KEY}'), 0))")

COLUMNS = (
    "id, content, type, project, tags, files, problem, solution, importance, confidence,"
    " provenance, pinned, status, supersedes, superseded_by, created_at, updated_at,"
    " event_at, expires_at, access_count, last_accessed_at, meta, owner, scope"
)


def row_to_memory(row: tuple) -> Memory:
    """`COLUMNS` are Memory's fields in order; only the JSON, flag and times convert."""
    return stored_memory((
        *row[:4],
        stored_strings(row[4]),
        stored_strings(row[5]),
        *row[6:11],
        bool(row[11]),
        *row[12:15],
        from_iso(row[15]),
        from_iso(row[16]),
        from_iso(row[17]),
        from_iso(row[18]),
        row[19],
        from_iso(row[20]),
        stored_meta(row[21]),
        row[22],
        row[23] or "team",
    ))


def half_bytes(vector: np.ndarray) -> bytes:
    """Vectors are stored as float16: half the disk, cosine error around 1e-3."""
    import numpy as np

    return vector.astype(np.float16).tobytes()


def timestamps(texts: list[str]) -> np.ndarray:
    """Seconds since the epoch of stored timestamps, for the vector index's time filter.

    numpy parses what `to_iso` writes (UTC, "+00:00") in one call, half the time of
    `from_iso` row by row; anything else takes `from_iso`. Below 2^53 microseconds from
    1970 (years 1685-2255) both divide the same exact float by 10^6, so the results are
    identical; further out, a float64 no longer holds the microseconds exactly.
    """
    import numpy as np

    if all(text.endswith("+00:00") for text in texts):
        try:
            micros = np.array([text[:-6] for text in texts], dtype="datetime64[us]")
        except ValueError:
            micros = None
        if micros is not None:
            whole = micros.astype(np.int64)
            if not len(whole) or int(np.abs(whole).max()) < 2**53:
                return whole / 1e6
    return np.array([from_iso(text).timestamp() for text in texts])  # type: ignore[union-attr]


def when_ts(memory: Memory) -> float:
    return memory.when.timestamp()


def where_clause(
    filters: Filters, alias: str = "m", *, status_index: bool = True
) -> tuple[str, list[Any]]:
    """Compile filters to SQL; every value is a bound parameter.

    `status_index=False` writes `+status` so SQLite will not pick the status index
    where a rowid lookup is far cheaper.
    """
    clauses: list[str] = []
    params: list[Any] = []
    a = alias
    if filters.viewer is not None:
        clauses.append(f"({a}.scope = 'team' OR {a}.owner = ?)")
        params.append(filters.viewer)
    if filters.statuses:
        status = f"{a}.status" if status_index else f"+{a}.status"
        clauses.append(f"{status} IN ({','.join('?' * len(filters.statuses))})")
        params.extend(filters.statuses)
    if filters.project is not None:
        if filters.include_global:
            clauses.append(f"({a}.project = ? OR {a}.project IS NULL)")
        else:
            clauses.append(f"{a}.project = ?")
        params.append(filters.project)
    if filters.types:
        clauses.append(f"{a}.type IN ({','.join('?' * len(filters.types))})")
        params.extend(filters.types)
    if filters.provenances:
        clauses.append(f"{a}.provenance IN ({','.join('?' * len(filters.provenances))})")
        params.extend(filters.provenances)
    if filters.pinned is not None:
        clauses.append(f"{a}.pinned = ?")
        params.append(int(filters.pinned))
    for tag in filters.tags:
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({a}.tags) WHERE value = ?)")
        params.append(tag)
    if filters.files:
        ors = []
        for path in filters.files:
            ors.append("value = ? OR value LIKE ? ESCAPE '\\' OR ? LIKE '%/' || value")
            like = "%/" + path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.extend([path, like, path])
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({a}.files) WHERE {' OR '.join(ors)})")
    if filters.since is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) >= ?")
        params.append(to_iso(filters.since))
    if filters.until is not None:
        clauses.append(f"COALESCE({a}.event_at, {a}.created_at) < ?")
        params.append(to_iso(filters.until))
    if filters.ids is not None:
        clauses.append(f"{a}.id IN ({','.join('?' * len(filters.ids)) or 'NULL'})")
        params.extend(filters.ids)
    return (" AND ".join(clauses) or "1"), params
