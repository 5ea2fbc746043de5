"""The PostgreSQL store's keyword half: tsquery matches ranked by FTS5's BM25 in SQL.

Both engines must rank alike, so the score is FTS5's bm25 (k1 = 1.2, b = 0.75, its idf
floor) computed from per-document term counts and corpus statistics (documents, total
terms, each term's document frequency) that every write keeps current: a transaction
gathers its changes to them and writes them once before it commits. An OR search with
common words ranks the rows holding a rarer word first and stops once no row with only
common words can reach the top (exact, as WAND). `PostgresStore` inherits these methods
(store.py holds the connection, `_rows`/`_execute` and the transaction).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..base import Candidate, Filters
from .sql import phrase_pattern, tsquery_term, where_clause

K1, B = 1.2, 0.75
#: Memories holding a word (or a hundredth of the store) from which an OR search ranks
#: the rows with its rarer words first (keyword_search).
COMMON_DF = 500


class KeywordMethods:
    """Keyword search and its BM25 statistics."""

    _readings: threading.local  # `one_reading`'s counts, per thread

    def _count_terms(self, old: Counter[str] | None, new: Counter[str] | None) -> None:
        """Corpus statistics BM25 needs (documents, total terms, each term's document
        frequency), gathered over the transaction and written once before it commits."""
        before, after = old or Counter(), new or Counter()
        self._pending_docs += (new is not None) - (old is not None)
        self._pending_terms += sum(after.values()) - sum(before.values())
        self._pending_df.update({term: -1 for term in set(before) - set(after)})
        self._pending_df.update({term: 1 for term in set(after) - set(before)})

    def _write_statistics(self) -> None:
        if self._pending_docs or self._pending_terms:
            self._execute("UPDATE corpus SET docs = docs + %s, terms = terms + %s WHERE id = 1",
                          (self._pending_docs, self._pending_terms))
        changed = sorted((t, n) for t, n in self._pending_df.items() if n)
        if changed:
            self._execute(
                "INSERT INTO term_df SELECT * FROM unnest(%s::text[], %s::bigint[])"
                " ON CONFLICT (term) DO UPDATE SET df = term_df.df + excluded.df",
                ([t for t, _ in changed], [n for _, n in changed]))
        self._reset_statistics()

    def _reset_statistics(self) -> None:
        self._pending_docs = self._pending_terms = 0
        self._pending_df: Counter[str] = Counter()

    def keyword_search(
        self, groups: list[tuple[str, ...]], mode: str, filters: Filters, limit: int
    ) -> list[Candidate]:
        """Matches of the tsquery, ranked in SQL by FTS5's BM25 from the stored term counts
        (a phrase alternative, rarer, is counted by reading the candidates' terms)."""
        joiner = {"and": " & ", "or": " | "}.get(mode.lower() if isinstance(mode, str) else "")
        if joiner is None:
            raise ValueError(f"keyword_search mode must be 'and' or 'or', not {mode!r}")
        phrases: list[str] = []
        parts = []
        for group in groups or ():
            alts = [a for a in dict.fromkeys(group or ()) if tsquery_term(a)]
            if not alts:
                continue
            phrases += [" ".join(a.split()) for a in alts]
            terms = [tsquery_term(a) for a in alts]
            parts.append(terms[0] if len(terms) == 1 else "(" + " | ".join(terms) + ")")
        if not parts:
            return []
        query = joiner.join(parts)
        phrases = list(dict.fromkeys(phrases))
        docs, average, df = self._statistics(phrases)
        idf = {}
        for phrase in phrases:
            # The counts come from statements a concurrent write may fall between: a
            # term can be counted in one more document than the corpus total just read.
            n = min(df[phrase], docs)
            value = math.log((docs - n + 0.5) / (n + 0.5))
            idf[phrase] = value if value > 0 else 1e-6  # FTS5's floor for common terms
        norm = f"{K1!r} * (1 - {B!r} + {B!r} * m.terms_len / %s)"
        terms_sql = " + ".join(
            f"%s * tf{i} * {K1 + 1!r} / NULLIF(tf{i} + {norm}, 0)" for i in range(len(phrases)))
        # A word's count is stored; a phrase ("snake case", from identifiers) is counted in
        # the candidate's terms, each occurrence between spaces, overlaps included.
        tfs = ", ".join(
            f"regexp_count(' ' || m.terms || ' ', %s)::float8 AS tf{i}" if " " in phrase
            else f"COALESCE((m.term_counts ->> %s)::float8, 0) AS tf{i}"
            for i, phrase in enumerate(phrases))
        tf_params = [phrase_pattern(p) if " " in p else p for p in phrases]
        where, params = where_clause(filters)
        score_params: list[Any] = []
        for phrase in phrases:
            score_params += [idf[phrase], average]

        def ranked(tsquery: str) -> list[tuple]:
            return self._rows(
                f"SELECT id, COALESCE({terms_sql}, 0) AS score FROM (SELECT m.id, m.rowid,"
                f" m.terms_len, {tfs} FROM memories m WHERE m.terms_tsv @@"
                f" to_tsquery('simple', %s) AND {where}) m ORDER BY score DESC, rowid LIMIT %s",
                (*score_params, *tf_params, tsquery, *params, limit))

        # Either of the query's words: scoring every memory with a common one ("deploy" in
        # 20K of 100K) took 200-400 ms. The rows with a rarer word are ranked first; a row
        # with only common words scores at most their idf x (k1 + 1) each, so once the
        # k-th score found beats that, no such row can enter the top k (exact, as WAND).
        common = {p for p in phrases if df[p] > max(COMMON_DF, docs // 100)} \
            if joiner == " | " else set()
        if common and len(common) < len(phrases):
            bound = sum(idf[p] * (K1 + 1) for p in common)
            rows = ranked(" | ".join(
                t for t in (tsquery_term(p) for p in phrases if p not in common) if t))
            if len(rows) == limit and rows[-1][1] is not None and float(rows[-1][1]) > bound:
                return [Candidate(r[0], float(r[1])) for r in rows]
        return [Candidate(r[0], float(r[1])) for r in ranked(query)]

    @contextmanager
    def one_reading(self) -> Iterator[None]:
        """Within the block, this thread reads each term's statistics once: a keyword
        pool's AND search, OR search and coverage weights ask for the same counts, and a
        phrase's is counted by the index (~5 ms on average at 100K). The counts are those
        of the block's first reading, as if its statements had run at one instant."""
        if getattr(self._readings, "memo", None) is not None:  # nested: the outer one
            yield
            return
        self._readings.memo = {}
        try:
            yield
        finally:
            self._readings.memo = None

    def _statistics(self, phrases: list[str]) -> tuple[int, float, dict[str, int]]:
        """(documents, average terms per document, df of each term or phrase), in one
        round trip (none if `one_reading` has them all): a word's df is kept in
        `term_df`, a phrase's is counted by the index."""
        memo: dict[str, Any] | None = getattr(self._readings, "memo", None)
        if memo is not None and "" in memo and all(p in memo for p in phrases):
            docs, total_terms = memo[""]
            return self._idf_inputs(docs, total_terms, memo, phrases)
        words = [p for p in phrases if " " not in p]
        multi = [p for p in phrases if " " in p]
        docs, total_terms, word_df, phrase_df = self._rows(
            "SELECT c.docs, c.terms, (SELECT jsonb_object_agg(term, df) FROM term_df"
            " WHERE term = ANY(%s)), ARRAY(SELECT (SELECT COUNT(*) FROM memories WHERE"
            " terms_tsv @@ to_tsquery('simple', q.t)) FROM unnest(%s::text[])"
            " WITH ORDINALITY AS q(t, i) ORDER BY q.i) FROM corpus c WHERE c.id = 1",
            (words, [tsquery_term(p) for p in multi]))[0]
        df = {**(word_df or {}), **dict(zip(multi, phrase_df, strict=True))}
        df = {p: int(df.get(p, 0)) for p in phrases}
        if memo is not None and "" not in memo:  # the block's first reading sets the corpus
            memo[""] = (docs, total_terms)
            memo.update(df)
        elif memo is not None:
            docs, total_terms = memo[""]
            memo.update({p: n for p, n in df.items() if p not in memo})
            df = {p: memo[p] for p in phrases}
        self.known_docs = int(docs)
        return self._idf_inputs(docs, total_terms, df, phrases)

    @staticmethod
    def _idf_inputs(docs: int, total_terms: int, df: dict[str, int], phrases: list[str]
                    ) -> tuple[int, float, dict[str, int]]:
        docs = max(int(docs), 1)
        return docs, max(total_terms / docs, 1e-9), {p: int(df[p]) for p in phrases}

    def terms_of(self, memory_ids: Sequence[str]) -> dict[str, str]:
        ids = list(memory_ids)
        if not ids:
            return {}
        return dict(self._rows("SELECT id, terms FROM memories WHERE id = ANY(%s)", (ids,)))

    def document_frequency(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        docs, _average, df = self._statistics(list(dict.fromkeys(terms)))
        return docs, df
