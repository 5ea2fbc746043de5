"""The SQLite store's keyword half: FTS5 searches, their ranking, and the counts they use.

Searches rank by FTS5's own bm25 (the PostgreSQL store computes the same score). An OR
search with common words stops early (`_rare_first`): it ranks only the rows holding a rarer
phrase when bm25's own bound shows no other row can reach the top, and falls back to the
full ranking otherwise, so the answer is always the full ranking's. A large store ranks
large match sets itself (`_exact_ranked`, exact_rank.py): FTS5 lists them unranked and bm25
is computed from a keyword index of row lengths and repeated tokens (keyword_index.py), the
same scores FTS5 gives, for a fraction of FTS5's per-row cost. Document frequencies are cached
while the store changes little, and the index's segments are merged as writes pile them
up. `SQLiteStore` inherits these methods (store.py holds the connection, its
lock and the side thread's read connection `_keyword_db`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from ...errors import StoreUnavailableError
from ...text.fts import fts_phrases, fts_query
from ..base import Candidate, Filters
from .connection import _rollback
from .errors import SQLError
from .exact_rank import ExactRankMethods, _idf, _varint
from .rows import where_clause

#: Memories written between two merges of the keyword index's segments.
TIDY_AFTER = 256
_TIDIED_KEY = "keyword_index_tidied_seq"
#: FTS5's bm25 constant k1 + 1: the most one phrase's occurrences in a row can add, per
#: unit of the phrase's idf (`_rare_first`).
_BM25_CEILING = 2.2
#: How far a rare phrase's idf must clear the common phrases' bound for `_rare_first` to
#: try (a failed try costs about half the full query).
_TRY_MARGIN = 1.3


def _df_of(quoted: str, terms: dict[str, str], df: dict[str, int]) -> int:
    """The cached document frequency of a quoted phrase (the largest of its terms')."""
    return max((df.get(t, 0) for t, q in terms.items() if q == quoted), default=0)


class KeywordMethods(ExactRankMethods):
    """Keyword search, its ranking and early stop, document frequencies and index tidying
    (the store's attributes both halves read are declared on ExactRankMethods)."""

    _depth: int
    _df_total: int

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
