"""The SQLite store's exact ranking of large keyword match sets.

Above a few thousand matches, FTS5's `bm25()` costs about 1.5 µs for every matching row. So
a large store asks FTS5 only to list the matches unranked, and computes bm25 here in numpy.
It uses FTS5's own statistics (its totals record, exact per-phrase row counts) and a
keyword index of each row's length and repeated tokens (keyword_index.py), with FTS5's
arithmetic in FTS5's order, so the scores are FTS5's own bit for bit. `KeywordMethods`
(keywords.py) inherits these methods and falls back to FTS5's ranking wherever they return
None.
"""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...text.fts import fts_phrases, fts_query
from ..base import Filters
from .connection import _rollback
from .rows import HIGH_SEQ_SQL

if TYPE_CHECKING:  # numpy loads with the keyword index, not for keyword-only hooks
    import threading

    import numpy as np

    from .keyword_index import KeywordIndex

#: Seconds to list one row of a phrase's doclist (`_matching`; measured at 1M memories):
#: `_bm25` lists a phrase alone when that costs less than the whole expression did.
LISTED_ROW_S = 6e-8
#: A server's keyword index build (`build_keyword_index(yielding=True)`): rows read per
#: step, and how long the store must have seen no search before a step.
BUILD_BATCH = 500
BUILD_IDLE_S = 0.05
#: Matches (estimated) beyond which an OR search is left to FTS5: listing each phrase's
#: rows for hundreds of thousands of matches costs about what FTS5's ranking does.
EXACT_RANK_MAX_OR = 150_000
#: The meta key naming the token of the keyword index saved beside the store.
KEYWORD_FILE_KEY = "keyword_index_file"
#: A server that loaded the saved index and read this many rows changed since saves it
#: again, so the next start reads fewer.
RESAVE_ROWS = 10_000


def _idf(hits: int, rows: int) -> float:
    """FTS5's bm25 idf of a phrase in `hits` of `rows` rows (floored as FTS5 does)."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else 1e-6


def _varint(data: bytes) -> int:
    """The first SQLite varint of `data` (FTS5's totals record starts with its row count)."""
    return _varints(data, 1)[0]


def _matching(db: Any, match: str) -> np.ndarray:
    """The rowids matching an FTS5 expression, ascending, unranked: one string from
    SQLite, parsed by numpy (a row at a time through Python cost ~5x more)."""
    import numpy as np

    (listed,) = db.execute("SELECT group_concat(rowid) FROM memories_fts"
                           " WHERE memories_fts MATCH ?", (match,)).fetchone()
    return np.fromstring(listed or "", dtype=np.int64, sep=",")


def _varints(data: bytes, count: int) -> list[int]:
    """The first `count` SQLite varints of `data` (FTS5's totals record: the row count,
    then each column's token total)."""
    out: list[int] = []
    at = 0
    while len(out) < count:
        value = 0
        for i in range(9):
            byte = data[at] if at < len(data) else 0
            at += 1
            if i == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


class _Terms:
    """bm25's parts for a set of rows: per phrase its idf and occurrences per row, as a
    lower and an upper bound (equal where known); `bounded` marks rows where they differ."""

    def __init__(self, k1: float, norm: np.ndarray) -> None:
        self.k1 = k1
        self.norm = norm  # k1 (1 - b + b D / avgdl) per row
        self.parts: list[tuple[float, np.ndarray, np.ndarray, list[str]]] = []
        self.bounded: np.ndarray | None = None

    def add(self, idf: float, low: np.ndarray, high: np.ndarray, tokens: list[str]) -> None:
        self.parts.append((idf, low, high, tokens))
        differ = low != high
        if differ.any():
            self.bounded = differ if self.bounded is None else self.bounded | differ

    def sums(self, high: bool) -> np.ndarray:
        """Each row's bm25 (before FTS5's negation), FTS5's operations in its order."""
        import numpy as np

        k1, norm = self.k1, self.norm
        score = np.zeros(len(norm), dtype=np.float64)
        for idf, low, top, _tokens in self.parts:
            freq = top if high else low
            score = score + idf * ((freq * (k1 + 1.0)) / (freq + norm))
        return score

    def count(self, db: Any, rows: np.ndarray, which: np.ndarray) -> None:
        """Count the bounded phrases in the text of the rows `which` marks."""
        import numpy as np

        from .keyword_index import ascii_tokens, phrase_count

        if self.bounded is None:
            return
        at = np.flatnonzero(which & self.bounded)
        for start in range(0, len(at), 500):
            part = at[start : start + 500]
            chunk = rows[part].tolist()
            texts = dict(db.execute(
                "SELECT id, c0 FROM memories_fts_content WHERE id IN"
                f" ({','.join('?' * len(chunk))})", chunk).fetchall())
            for i, rowid in zip(part.tolist(), chunk, strict=True):
                words = ascii_tokens(texts.get(rowid) or "") or []
                for _idf, low, high, tokens in self.parts:
                    if low[i] != high[i]:
                        low[i] = high[i] = phrase_count(tokens, words)
        self.bounded[at] = False


class ExactRankMethods:
    """Ranking large match sets from the keyword index, and building that index."""

    _db: Any
    _lock: threading.RLock
    _df: dict[str, int]
    _df_seq: int
    _keyword_index: KeywordIndex | None
    _keyword_lock: threading.Lock
    _keyword_key: tuple[bytes, bytes] | None
    _keyword_hits: dict[str, int]
    _keyword_same: dict[str, bool]
    _keyword_thread: threading.Thread | None
    _searched: float
    _index: Any
    ephemeral: bool
    path: str
    exact_rank_min_matches: int

    def _exact_ranked(
        self, db: Any, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[tuple[str, float]] | None:
        """The `limit` best matches under a status filter, ranked by FTS5's bm25 computed
        here from the keyword index (keyword_index.py) instead of by FTS5 for every
        match; None where that does not apply or does not pay (FTS5 ranks then).

        FTS5 lists the matches unranked (cheap: no positions decoded, no lengths looked
        up). bm25 per row is, in FTS5's order of operations, the sum over the
        expression's phrases of idf x (f (k1 + 1)) / (f + k1 (1 - b + b D / avgdl)),
        negated; f is the phrase's occurrences in the row, D the row's tokens, avgdl the
        index's tokens per row, idf log((rows - hits + 0.5) / (hits + 0.5)) floored at
        1e-6, with the row and token totals from FTS5's own record and the hits counted
        as FTS5 counts them (cached while FTS5's structure record is unchanged). f is 1
        for a row holding a one-token phrase unless the index lists the token as
        repeated there (then its count); a longer phrase is bounded by its tokens' counts
        and counted in the row's text only where that could change the top rows
        (`_ranked_by`). Every step is the same IEEE operation as FTS5's C, in its order,
        so the scores are equal.
        """
        if not filters.statuses or filters != Filters(statuses=filters.statuses):
            return None
        index = self._keyword_index
        if index is None:
            self._keyword_index_if_due()
            return None
        from .keyword_index import ascii_tokens

        by_group = fts_phrases(groups)
        phrases = [quoted for group in by_group for _term, quoted in group]
        if not phrases:
            return None
        tokens_of: dict[str, list[str]] = {}
        for quoted in phrases:
            found = ascii_tokens(quoted[1:-1].replace('""', '"'))
            if not found:
                return None  # not ASCII: FTS5's tokens are not reproduced here
            tokens_of[quoted] = found
        match = fts_query(groups, mode)
        ranked: list[tuple[str, float]] | None = None
        with self._keyword_lock:
            db.execute("BEGIN")  # one snapshot: statistics, rows and matches agree
            try:
                records = dict(db.execute(
                    "SELECT id, block FROM memories_fts_data WHERE id IN (1, 10)").fetchall())
                totals = records.get(1)
                if totals is None:
                    return None
                key = (bytes(totals), bytes(records.get(10) or b""))
                if key != self._keyword_key:
                    self._keyword_key, self._keyword_hits, self._keyword_same = key, {}, {}
                hits = self._keyword_hits
                counted = set(hits)
                for quoted in tokens_of:
                    if quoted not in hits:
                        hits[quoted] = db.execute(
                            "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                            (quoted,)).fetchone()[0]
                # Too few matches for this to pay, or an OR of common words (listing each
                # phrase's rows costs about what FTS5's ranking does): FTS5 ranks.
                sizes = [sum(hits[q] for _t, q in group) for group in by_group]
                if mode == "and":
                    wanted = min(sizes) >= self.exact_rank_min_matches
                else:
                    wanted = self.exact_rank_min_matches <= sum(sizes) <= EXACT_RANK_MAX_OR
                if wanted:
                    self._sync_keyword_index(db, index)
                    started = time.perf_counter()
                    rows = _matching(db, match)
                    listing = time.perf_counter() - started
                    if not len(rows):
                        ranked = []
                    elif index.known(rows):
                        terms = self._bm25_terms(db, index, by_group, mode, match, tokens_of,
                                                 rows, totals, listing)
                        ranked = self._ranked_by(db, terms, rows, filters.statuses, limit)
                fresh = {q: n for q, n in hits.items() if q not in counted}
            finally:
                _rollback(db)
        # Exact counts just taken serve the store's document frequencies too (the
        # coverage weights ask for the same terms next).
        terms_of = {quoted: term for group in by_group for term, quoted in group}
        with self._lock:
            for quoted, n in fresh.items():
                if self._df_seq >= 0 and (term := terms_of.get(quoted)) is not None:
                    self._df[term] = n
        return ranked

    def _keyword_index_if_due(self) -> None:
        """Give a large store its keyword index as the process's build mode says (as the
        vector lists: a long-running process on a thread, `inline` at once, a short-lived
        one never -- FTS5 ranks there): the one a process saved beside the store if it
        is this store's (`_load_keyword_index`), else built from every row. A bulk import
        (`build_vector_lists`) does not build it for a process about to exit."""
        from .ann_index import ann_min_rows, build_mode

        mode = build_mode()
        if mode == "never" or self.ephemeral or self._keyword_thread is not None:
            return
        with self._lock:
            # Not before the vector index is loaded (the same search loads it): reading
            # every row's terms holds the GIL for seconds, and the load, a worker's
            # warm-up, would wait behind it.
            if self._index is None and self._db.execute(
                    "SELECT EXISTS (SELECT 1 FROM vectors)").fetchone()[0]:
                return
        total, _ = self.document_frequency([])
        if total < ann_min_rows():
            return
        if mode == "inline":
            if not self._load_keyword_index():
                self.build_keyword_index()
            return
        import threading

        def build() -> None:
            try:
                if not self._load_keyword_index(catch_up=True):
                    self.build_keyword_index(yielding=True)
            except Exception as exc:  # noqa: BLE001 -- FTS5 ranks without it
                import logging

                logging.getLogger("engram.store").warning("keyword index not built: %s", exc)

        self._keyword_thread = threading.Thread(target=build, name="engram-keyword-index",
                                                daemon=True)
        self._keyword_thread.start()

    def _bm25_terms(self, db: Any, index: KeywordIndex, by_group: list[list[tuple[str, str]]],
                    mode: str, match: str, tokens_of: dict[str, list[str]], rows: np.ndarray,
                    totals: bytes, listing: float) -> _Terms:
        """The parts of FTS5's bm25() of each of `rows` (sorted rowids matching `match`,
        listed in `listing` seconds): per phrase in the expression's order, its idf and
        its occurrences in each row, known or bounded (`_Terms`)."""
        import numpy as np

        k1, b = 1.2, 0.75
        total_rows, total_tokens = _varints(totals, 2)
        avgdl = float(total_tokens) / float(total_rows)
        hits = self._keyword_hits  # every phrase counted (`_exact_ranked`)
        live = {q for q in tokens_of if hits[q]}
        lengths = index.lengths[rows].astype(np.float64)
        terms = _Terms(k1, k1 * (1 - b + b * lengths / avgdl))
        for group in by_group:
            alive = [q for _t, q in group if q in live]
            # A group's alternatives mostly hold the same rows ("cachego", "cach go": the
            # index writes both): then every match holds each of them.
            whole = mode == "and" and self._same_rows(db, alive)
            for _term, quoted in group:
                if quoted not in live:
                    continue  # in no row: adds 0.0 to every sum
                n_hit = hits[quoted]
                idf = math.log((total_rows - n_hit + 0.5) / (n_hit + 0.5))
                if idf <= 0.0:
                    idf = 1e-6
                if whole or (mode == "or" and len(live) == 1):
                    members = np.arange(len(rows))  # every match holds it
                elif mode == "or" or n_hit * LISTED_ROW_S < listing:
                    # The rows holding it, those among the matches: listing them costs
                    # less than evaluating the whole expression again.
                    held = _matching(db, quoted)
                    at = np.minimum(np.searchsorted(rows, held), len(rows) - 1)
                    members = at[rows[at] == held]
                else:  # the matches holding it
                    members = np.searchsorted(rows, _matching(db, f"({match}) AND {quoted}"))
                tokens = tokens_of[quoted]
                low = np.zeros(len(rows), dtype=np.float64)
                high = np.zeros(len(rows), dtype=np.float64)
                if len(tokens) == 1:
                    low[members] = high[members] = index.token_tf(tokens[0], rows[members])
                else:
                    # Once, unless the index says it may be more (then at most as often as
                    # its rarest token: each instance starts at another position).
                    low[members] = high[members] = 1.0
                    again = members[index.repeated(tokens, rows[members])]
                    if len(again):
                        high[again] = np.min([index.token_tf(t, rows[again])
                                              for t in set(tokens)], axis=0)
                terms.add(idf, low, high, tokens)
        return terms

    def _same_rows(self, db: Any, phrases: list[str]) -> bool:
        """Whether these phrases are held by exactly the same rows (each counted in
        `_keyword_hits`): as many rows hold all of them as each one. Kept with the hits."""
        if len(phrases) < 2:
            return True
        key = "\0".join(sorted(phrases))
        same = self._keyword_same.get(key)
        if same is None:
            hits = {self._keyword_hits[q] for q in phrases}
            same = len(hits) == 1 and db.execute(
                "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                (" AND ".join(phrases),)).fetchone()[0] == hits.pop()
            self._keyword_same[key] = same
        return same

    def _ranked_by(self, db: Any, terms: _Terms, rows: np.ndarray,
                   statuses: tuple[str, ...], limit: int) -> list[tuple[str, float]]:
        """The first `limit` rows with an allowed status in bm25 order (rowid on ties).

        Rows whose count of a phrase is only bounded are counted in their text when
        their best possible score could reach the `2 x limit`-th best lower bound: the
        others rank below each of those. Past them (too few allowed), every row is
        counted."""
        import numpy as np

        fetch = min(len(rows), 2 * limit)
        low = terms.sums(high=False)
        if terms.bounded is not None:
            theta = np.partition(low, len(low) - fetch)[len(low) - fetch]
            terms.count(db, rows, terms.sums(high=True) >= theta)
            low = terms.sums(high=False)
        order = np.lexsort((rows, -low))
        exact = len(rows) if terms.bounded is None or not terms.bounded.any() else fetch
        kept = self._allowed(db, rows[order[:exact]], -low[order[:exact]], statuses, limit)
        if len(kept) < limit and exact < len(rows):
            terms.count(db, rows, terms.bounded)  # every row, in its text
            low = terms.sums(high=False)
            order = np.lexsort((rows, -low))
            kept = self._allowed(db, rows[order], -low[order], statuses, limit)
        return kept

    @staticmethod
    def _allowed(db: Any, rows: np.ndarray, scores: np.ndarray, statuses: tuple[str, ...],
                 limit: int) -> list[tuple[str, float]]:
        """The first `limit` of `rows` (in rank order) whose memory has one of `statuses`,
        with their bm25: the statuses read a few more rows than needed at a time."""
        kept: list[tuple[str, float]] = []
        start, step = 0, 2 * limit
        while len(kept) < limit and start < len(rows):
            chunk = rows[start : start + step].tolist()
            found = {r: (i, s) for r, i, s in db.execute(
                "SELECT rowid, id, status FROM memories WHERE rowid IN"
                f" ({','.join('?' * len(chunk))})", chunk).fetchall()}
            for rowid, score in zip(chunk, scores[start : start + step].tolist(), strict=True):
                row = found.get(rowid)
                if row is not None and row[1] in statuses:
                    kept.append((row[0], score))
            start += step
            step = min(4 * step, 5000)
        return kept[:limit]

    def _sync_keyword_index(self, db: Any, index: KeywordIndex) -> int:
        """Read into `index` the rows written since it last looked (by any process); how
        many."""
        cursor = db.execute(
            "SELECT m.rowid, m.seq, c.c0 FROM memories m"
            " JOIN memories_fts_content c ON c.id = m.rowid WHERE m.seq > ?", (index.seq,))
        top = index.seq
        read = 0
        while batch := cursor.fetchmany(20_000):
            index.put((r[0], r[2]) for r in batch)
            top = max(top, max(r[1] for r in batch))
            read += len(batch)
        index.seq = top
        return read

    def build_keyword_index(self, yielding: bool = False) -> None:
        """Read every row into a keyword index (`_exact_ranked` ranks with it from now).

        `yielding` (a build on a server's thread): reading the rows is Python work that
        holds the GIL for seconds, and a search on another thread would wait for it at
        every step; so the build reads a few hundred rows at a time, each in a short
        snapshot of its own, and waits while searches come in (`_searched`, stamped by
        every keyword and vector search) until the store has been idle a moment.
        """
        from .keyword_index import KeywordIndex

        index = KeywordIndex()
        # Read on a connection of its own: a build on a thread holds neither the store's
        # connection nor the side thread's.
        import contextvars

        from .connection import BUSY_TIMEOUT_MS, connect

        # An empty context: no deadline but the store's own (a hook's does not bound it).
        db = None if self.ephemeral else contextvars.Context().run(
            connect, self.path, BUSY_TIMEOUT_MS)
        try:
            with (self._lock if db is None else nullcontext()):
                reader = self._db if db is None else db
                if not yielding:
                    reader.execute("BEGIN")
                    try:
                        self._sync_keyword_index(reader, index)
                    finally:
                        _rollback(reader)
                else:
                    # Rows changed from here on have a larger change number: the first
                    # search reads them again, whatever this read of them saw.
                    (start,) = reader.execute(
                        "SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()
                    last = -1
                    while True:
                        while time.monotonic() - self._searched < BUILD_IDLE_S:
                            time.sleep(BUILD_IDLE_S)
                        batch = reader.execute(
                            "SELECT m.rowid, c.c0 FROM memories m"
                            " JOIN memories_fts_content c ON c.id = m.rowid"
                            " WHERE m.rowid > ? ORDER BY m.rowid LIMIT ?",
                            (last, BUILD_BATCH)).fetchall()
                        if not batch:
                            break
                        index.put(batch)
                        last = batch[-1][0]
                    index.seq = start
        finally:
            if db is not None:
                db.close()
        index.trim()
        self._keyword_index = index
        self._save_keyword_index(index)

    def _keyword_index_path(self) -> Path | None:
        return None if self.ephemeral or self.path == ":memory:" else Path(
            f"{self.path}.keywords")

    def _save_keyword_index(self, index: KeywordIndex) -> None:
        """Save the index beside the store for the next process, under a new token that
        the store's meta table then names (keyword_index.py): best effort (a read-only
        folder or store keeps it in memory only)."""
        import secrets

        from .migrations import SCHEMA_VERSION

        path = self._keyword_index_path()
        if path is None:
            return
        token = secrets.token_hex(8)
        try:
            index.save(path, token, SCHEMA_VERSION)
            self.set_meta(KEYWORD_FILE_KEY, token)
        except Exception as exc:  # noqa: BLE001 -- never fail a search for a cache file
            import logging

            logging.getLogger("engram.store").warning("keyword index not saved: %s", exc)

    def _load_keyword_index(self, catch_up: bool = False) -> bool:
        """Adopt the index saved beside the store if this store's meta table names its
        token; rows changed since its change number are read at the next search, or,
        with `catch_up` (a server's thread), here on a connection of its own, and the
        file saved again when they were many (RESAVE_ROWS)."""
        from .keyword_index import KeywordIndex
        from .migrations import SCHEMA_VERSION

        path = self._keyword_index_path()
        if path is None or not path.exists():
            return False
        token = self.get_meta(KEYWORD_FILE_KEY)
        if token is None:
            return False
        with self._lock:
            (seq,) = self._db.execute(HIGH_SEQ_SQL).fetchone()
        index = KeywordIndex.load(path, token, SCHEMA_VERSION, seq)
        if index is None:
            return False
        if catch_up and index.seq < seq:
            import contextvars

            from .connection import BUSY_TIMEOUT_MS, connect

            db = contextvars.Context().run(connect, self.path, BUSY_TIMEOUT_MS)
            try:
                db.execute("BEGIN")
                try:
                    read = self._sync_keyword_index(db, index)
                finally:
                    _rollback(db)
            finally:
                db.close()
            if read >= RESAVE_ROWS:
                index.trim()
                self._save_keyword_index(index)
        self._keyword_index = index
        return True
