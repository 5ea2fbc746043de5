"""The SQLite store's keyword half: FTS5 searches, their ranking, and the counts they use.

Searches rank by FTS5's own bm25 (the PostgreSQL store computes the same score). An OR
search with common words stops early (`_rare_first`): it ranks only the rows holding a rarer
phrase when bm25's own bound shows no other row can reach the top, and falls back to the
full ranking otherwise, so the answer is always the full ranking's. A large store ranks
large match sets itself (`_exact_ranked`): FTS5 lists them unranked and bm25 is computed
from a keyword index of row lengths and repeated tokens (keyword_index.py), the same
scores FTS5 gives, for a fraction of FTS5's per-row cost. Document frequencies are cached
while the store changes little, and the index's segments are merged as writes pile them
up. `SQLiteStore` inherits these methods (store.py holds the connection, its
lock and the side thread's read connection `_keyword_db`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from contextlib import nullcontext, suppress
from typing import TYPE_CHECKING, Any

from ...errors import StoreUnavailableError
from ...text.fts import fts_phrases, fts_query
from ..base import Candidate, Filters
from .connection import _rollback
from .errors import SQLError
from .rows import where_clause

if TYPE_CHECKING:  # numpy loads with the keyword index, not for keyword-only hooks
    import threading

    import numpy as np

    from .keyword_index import KeywordIndex

#: Memories written between two merges of the keyword index's segments.
TIDY_AFTER = 256
_TIDIED_KEY = "keyword_index_tidied_seq"
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
#: FTS5's bm25 constant k1 + 1: the most one phrase's occurrences in a row can add, per
#: unit of the phrase's idf (`_rare_first`).
_BM25_CEILING = 2.2
#: How far a rare phrase's idf must clear the common phrases' bound for `_rare_first` to
#: try (a failed try costs about half the full query).
_TRY_MARGIN = 1.3


def _df_of(quoted: str, terms: dict[str, str], df: dict[str, int]) -> int:
    """The cached document frequency of a quoted phrase (the largest of its terms')."""
    return max((df.get(t, 0) for t, q in terms.items() if q == quoted), default=0)


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


class KeywordMethods:
    """Keyword search, its ranking and early stop, document frequencies and index tidying."""

    _db: Any
    _lock: threading.RLock
    _depth: int
    _df: dict[str, int]
    _df_seq: int
    _df_total: int
    _keyword_index: KeywordIndex | None
    _keyword_lock: threading.Lock
    _keyword_key: tuple[bytes, bytes] | None
    _keyword_hits: dict[str, int]
    _keyword_same: dict[str, bool]
    _keyword_thread: threading.Thread | None
    _searched: float
    _index: Any
    ephemeral: bool
    exact_rank_min_matches: int

    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]:
        self._searched = time.monotonic()  # a keyword index build waits (build_keyword_index)
        match = fts_query(groups, mode)
        if match is None:
            return []
        with self._keyword_db() as db:
            try:
                rows = None
                # Inside a write transaction FTS5's pending rows are in neither its
                # records nor the keyword index: FTS5 ranks them.
                outside = not (db is self._db and self._depth)
                if mode == "or" and outside:  # when it stops early, it ranks fewer rows
                    rows = self._rare_first(db, groups, filters, limit)
                if rows is None and outside:
                    rows = self._exact_ranked(db, groups, mode, filters, limit)
                if rows is None:
                    rows = self._ranked(db, match, filters, limit)
            except SQLError:
                # fts_query quotes every term, so this should not happen; a search never
                # fails because of what the user typed (a busy or full store still says so).
                return []
        return [Candidate(r[0], -float(r[1])) for r in rows]

    def _ranked(self, db: Any, match: str, filters: Filters, limit: int
                ) -> list[tuple[str, float]]:
        """The `limit` best rows of an FTS5 match under `filters`, in bm25 order."""
        if filters.statuses and filters == Filters(statuses=filters.statuses):
            rows = self._best_matches(match, filters.statuses, limit, db)
            if rows is not None:
                return rows
        where, params = where_clause(filters)
        return db.execute(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts"
            " JOIN memories m ON m.rowid = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND {where}"
            " ORDER BY bm25(memories_fts), m.rowid LIMIT ?",
            (match, *params, limit),
        ).fetchall()

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
        vector lists: a long-running process builds on a thread, `inline` at once, a
        short-lived one never -- FTS5 ranks there). Unlike the lists it is not saved,
        so a bulk import (`build_vector_lists`) does not read it for a process about to
        exit."""
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
            self.build_keyword_index()
            return
        import threading

        def build() -> None:
            try:
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

    def _sync_keyword_index(self, db: Any, index: KeywordIndex) -> None:
        """Read into `index` the rows written since it last looked (by any process)."""
        cursor = db.execute(
            "SELECT m.rowid, m.seq, c.c0 FROM memories m"
            " JOIN memories_fts_content c ON c.id = m.rowid WHERE m.seq > ?", (index.seq,))
        top = index.seq
        while batch := cursor.fetchmany(20_000):
            index.put((r[0], r[2]) for r in batch)
            top = max(top, max(r[1] for r in batch))
        index.seq = top

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

    def _rare_first(
        self, db: Any, groups: list[tuple[str, ...]], filters: Filters, limit: int
    ) -> list[tuple[str, float]] | None:
        """The `limit` best matches of an OR search, found among the rows holding one of
        its rarer phrases only; None when that is not shown to be the whole answer.

        Ranking every row with a common word was most of an OR search's time (a word in
        7% of 1M memories: ~100 ms). FTS5's bm25 sums over the expression's phrases
        idf x tf (k1 + 1) / (tf + k1 (1 - b + b len / average len)): each phrase adds
        less than idf x (k1 + 1). A row holding only common phrases therefore scores
        below B = the sum of that over the common phrases, and once the `limit`-th best
        row holding a rarer phrase scores above B, no other row can enter (exact, as
        WAND; the PostgreSQL store stops the same way). Those rows are ranked by FTS5
        with the whole expression: `whole NOT ((commons) NOT (rarer))` keeps only them,
        and phrases right of a NOT add nothing to bm25 (FTS5 clears their positions), so
        their scores are the whole query's, bit for bit. B needs the same statistics
        bm25 uses: the row count of FTS5's own totals and exact counts of the common
        phrases; the split is chosen from the cached document frequencies.
        """
        by_group = fts_phrases(groups)
        phrases = [pair for group in by_group for pair in group]
        distinct = dict(phrases)  # term -> quoted, first occurrence
        if len(set(distinct.values())) < 2:
            return None
        total, approx = self.document_frequency(list(distinct))
        live = sorted((q for q in set(distinct.values()) if _df_of(q, distinct, approx)),
                      key=lambda q: (_df_of(q, distinct, approx), q))
        if len(live) < 2 or total <= 0:
            return None
        all_rows = sum(_df_of(q, distinct, approx) for q in live)
        common: set[str] = set()
        for j in range(1, len(live)):
            rare = set(live[:j])
            # A group's alternatives mostly share their rows ("syncaccount", "sync account").
            rare_rows = sum(max((_df_of(q, distinct, approx) for _t, q in group
                                 if q in rare), default=0) for group in by_group)
            if rare_rows < 2 * limit:
                continue
            if 2 * rare_rows > all_rows:  # ranking the rarer rows costs about as much
                return None
            rest = set(live[j:])  # a phrase in no row adds nothing
            bound = _BM25_CEILING * sum(
                _idf(_df_of(q, distinct, approx), total) for _t, q in phrases if q in rest)
            # A row holding the weakest rare phrase once, at about the average length,
            # scores about its idf: worth trying when that clears the bound by a margin.
            if _idf(_df_of(live[j - 1], distinct, approx), total) > _TRY_MARGIN * bound:
                common = rest
                break
        if not common:
            return None
        rarer = [q for q in dict.fromkeys(distinct.values()) if q not in common]
        match = (f"({fts_query(groups, 'or')}) NOT (({' OR '.join(sorted(common))})"
                 f" NOT ({' OR '.join(rarer)}))")
        # One read transaction: the bound and the ranking see the same rows.
        db.execute("BEGIN")
        try:
            # The bound, from the statistics bm25 reads: FTS5's row count, exact counts.
            block = db.execute("SELECT block FROM memories_fts_data WHERE id = 1").fetchone()
            if block is None:
                return None
            rows_total = _varint(block[0])
            exact = {q: db.execute("SELECT COUNT(*) FROM memories_fts"
                                   " WHERE memories_fts MATCH ?", (q,)).fetchone()[0]
                     for q in common}
            bound = _BM25_CEILING * sum(_idf(exact[q], rows_total) for _t, q in phrases
                                        if q in common)
            found = self._ranked(db, match, filters, limit)
        finally:
            _rollback(db)  # read only: ends the snapshot
        # The margin covers rounding between bm25's sum and the bound's.
        if found is None or len(found) < limit or -found[limit - 1][1] <= bound * (1 + 1e-9):
            return None
        return found[:limit]

    def _best_matches(
        self, match: str, statuses: tuple[str, ...], limit: int, db: Any = None
    ) -> list[tuple[str, float]] | None:
        """The `limit` best matches with one of `statuses`, or None if that needs a full scan.

        Ranking and sorting inside the FTS5 query joins only the best few to `memories`
        to check their status: with common query words at 100K memories that is 20-30%
        less work than joining and sorting every match. `bm25()`, not the `rank` column:
        the same scores, but `ORDER BY rank` makes FTS5 sort every match itself where
        SQLite keeps only the best `LIMIT` (25% less time at 10K and 100K). Equal scores
        go to the older row, here and in the full scan alike. Exact: when too few of the
        best few have an allowed status, the caller falls back to filtering every match.
        """
        fetch = 2 * limit
        rows = (db or self._db).execute(
            "SELECT m.id, f.r, m.status FROM (SELECT rowid, bm25(memories_fts) AS r"
            " FROM memories_fts WHERE memories_fts MATCH ? ORDER BY r, rowid LIMIT ?) f"
            " JOIN memories m ON m.rowid = f.rowid ORDER BY f.r, f.rowid",
            (match, fetch),
        ).fetchall()
        kept = [(r[0], r[1]) for r in rows if r[2] in statuses]
        if len(kept) >= limit or len(rows) < fetch:
            return kept[:limit]
        return None

    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """The indexed terms of some memories, for explaining keyword matches."""
        ids = list(memory_ids)
        if not ids:
            return {}
        with self._lock:
            rows = self._db.execute(
                "SELECT m.id, f.terms FROM memories m JOIN memories_fts f ON f.rowid = m.rowid"
                f" WHERE m.id IN ({','.join('?' * len(ids))})",
                ids,
            ).fetchall()
        return dict(rows)

    def _tidy_keyword_index_if_due(self) -> None:
        """Merge the keyword index's small segments once TIDY_AFTER memories were written
        since the last merge (by any process: the mark is kept in the store).

        Every write transaction adds an FTS5 segment and each query looks a term up in
        every segment; FTS5's own automerge lets them pile up after many small writes or a
        big import. Bounded work (500 pages) and best effort: a busy store skips it and a
        later write tries again.
        """
        with suppress(StoreUnavailableError, SQLError):
            seq = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM memories").fetchone()[0]
            mark = self.get_meta(_TIDIED_KEY)
            if mark is not None and mark.isdigit() and seq - int(mark) < TIDY_AFTER:
                return
            if mark is None:  # a new store: start counting now
                self.set_meta(_TIDIED_KEY, str(seq))
                return
            self._db.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('merge', 500)")
            self.set_meta(_TIDIED_KEY, str(seq))

    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of documents, df per term), for IDF-weighted coverage.

        Counting a term's documents walks its whole posting list: for a common term that is
        most of a keyword search's time in a large store. So counts are kept until the store
        has changed by more than 1% of its documents since they were taken (any change, in
        a store under 100): IDF weights barely move in between, and a small store stays exact.
        """
        with self._lock:
            seq = self.last_change()
            if self._df_seq < 0 or not 0 <= seq - self._df_seq <= self._df_total // 100:
                self._df_total = self._db.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0]
                self._df, self._df_seq = {}, seq
            elif len(self._df) > 100_000:
                self._df = {}
            for term in dict.fromkeys(terms):
                if term in self._df:
                    continue
                quoted = '"' + term.replace('"', '""') + '"'
                try:
                    self._df[term] = self._db.execute(
                        "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?", (quoted,)
                    ).fetchone()[0]
                except SQLError:
                    self._df[term] = 0
            return self._df_total, {term: self._df[term] for term in terms}
