"""The PostgreSQL store's keyword half: tsquery matches ranked by FTS5's BM25 in SQL.

Both engines must rank alike, so the score is FTS5's bm25 (k1 = 1.2, b = 0.75, its idf
floor) computed from per-document term counts and corpus statistics (documents, total
terms, each term's document frequency) that every write keeps current: a transaction
gathers its changes to them and writes them once before it commits. The df of a phrase
alternative ("fast api" of FastAPI) is counted with the index the first time a search asks
for it, then kept by the writes like a word's (`phrase_df`): counting it means rechecking
on the heap every row that holds all its words. An OR search with
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
from .sql import WRITE_LOCK, phrase_pattern, tsquery_term, where_clause

K1, B = 1.2, 0.75
#: Phrases `phrase_df` holds at most (the oldest registered leave first).
PHRASE_REGISTRY_MAX = 20_000
#: A transaction's written rows (their terms before and after, -1 / +1) against the
#: registered phrases: each phrase whose tsquery matches a row's tsvector (computed as the
#: `terms_tsv` column is) gains or loses it. Candidates are the phrases whose first two
#: lexemes the row holds at adjacent positions (as any row the chain matches does); the
#: tsvectors are computed once (MATERIALIZED). Nothing is computed while none is registered.
_PHRASE_WRITES = (
    "WITH c AS MATERIALIZED (SELECT c.i, to_tsvector('simple', c.t) AS v, c.s FROM"
    " unnest(%s::text[], %s::int[]) WITH ORDINALITY AS c(t, s, i)"
    " WHERE EXISTS (SELECT 1 FROM phrase_df)),"
    " at AS MATERIALIZED (SELECT c.i, l.lexeme, p.pos FROM c CROSS JOIN LATERAL unnest(c.v)"
    " AS l CROSS JOIN LATERAL unnest(l.positions) AS p(pos)),"
    " pairs AS (SELECT DISTINCT a.i, a.lexeme || ' ' || b.lexeme AS pair FROM at a"
    " JOIN at b ON b.i = a.i AND b.pos = a.pos + 1),"
    " hits AS (SELECT p.phrase, SUM(c.s) AS n FROM pairs JOIN phrase_df p ON p.pair ="
    " pairs.pair JOIN c ON c.i = pairs.i WHERE c.v @@ p.query GROUP BY p.phrase)"
    " UPDATE phrase_df p SET df = p.df + hits.n FROM hits"
    " WHERE p.phrase = hits.phrase AND hits.n <> 0")
#: A phrase's df counted with the index (`q.t`: its tsquery text), every row holding all
#: its words rechecked on the heap.
_PHRASE_COUNT = "(SELECT COUNT(*) FROM memories WHERE terms_tsv @@ to_tsquery('simple', q.t))"
#: Memories holding a word (or a hundredth of the store) from which an OR search ranks
#: the rows with its rarer words first (keyword_search).
COMMON_DF = 500


class KeywordMethods:
    """Keyword search and its BM25 statistics."""

    _readings: threading.local  # `one_reading`'s counts, per thread
    #: Phrases `phrase_df` may hold; 0: none registered, every phrase counted by the index.
    phrase_registry_max = PHRASE_REGISTRY_MAX

    def _count_terms(self, old: Counter[str] | None, new: Counter[str] | None,
                     old_terms: str | None = None, new_terms: str | None = None) -> None:
        """Corpus statistics BM25 needs (documents, total terms, each term's document
        frequency, each registered phrase's), gathered over the transaction and written
        once before it commits. `old_terms` / `new_terms`: the row's terms before and
        after, whose registered phrases gain or lose it (_write_statistics)."""
        before, after = old or Counter(), new or Counter()
        self._pending_docs += (new is not None) - (old is not None)
        self._pending_terms += sum(after.values()) - sum(before.values())
        self._pending_df.update({term: -1 for term in set(before) - set(after)})
        self._pending_df.update({term: 1 for term in set(after) - set(before)})
        if old_terms != new_terms:
            for text, sign in ((old_terms, -1), (new_terms, 1)):
                if text:
                    self._pending_texts.append(text)
                    self._pending_signs.append(sign)

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
        if self._pending_texts:
            self._execute(_PHRASE_WRITES, (self._pending_texts, self._pending_signs))
        self._reset_statistics()

    def _reset_statistics(self) -> None:
        self._pending_docs = self._pending_terms = 0
        self._pending_df: Counter[str] = Counter()
        self._pending_texts: list[str] = []
        self._pending_signs: list[int] = []

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
            n = max(0, min(df[phrase], docs))
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
        phrase's is read from `phrase_df` or counted once. The counts are those
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
        `term_df`, a registered phrase's in `phrase_df`; a phrase not registered yet is
        counted by the index and registered (_register_phrases), or only counted inside
        a write transaction, whose own rows `phrase_df` holds only once it commits."""
        memo: dict[str, Any] | None = getattr(self._readings, "memo", None)
        if memo is not None and "" in memo and all(p in memo for p in phrases):
            docs, total_terms = memo[""]
            return self._idf_inputs(docs, total_terms, memo, phrases)
        words = [p for p in phrases if " " not in p]
        multi = [p for p in phrases if " " in p]
        registry = bool(multi) and self.phrase_registry_max > 0 and not (
            self._depth and self.holds_lock())
        docs, total_terms, word_df, phrase_df = self._rows(
            "SELECT c.docs, c.terms, (SELECT jsonb_object_agg(term, df) FROM term_df"
            " WHERE term = ANY(%s)), ARRAY(SELECT " + (
                "(SELECT df FROM phrase_df WHERE phrase = q.p)" if registry
                else _PHRASE_COUNT) +
            " FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS q(p, t, i) ORDER BY q.i)"
            " FROM corpus c WHERE c.id = 1",
            (words, multi, [tsquery_term(p) for p in multi]))[0]
        phrase_df = dict(zip(multi, phrase_df, strict=True))
        unknown = [p for p, n in phrase_df.items() if n is None]
        if unknown:
            phrase_df.update(self._register_phrases(unknown))
        df = {**(word_df or {}), **phrase_df}
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

    def _register_phrases(self, phrases: list[str]) -> dict[str, int]:
        """The df of phrases `phrase_df` does not hold yet, counted by the index and
        registered, so that every later write keeps them (_write_statistics).

        Registering holds the write lock, so no write commits between the count and the
        registration that would miss the phrase; it is only tried (a search never waits
        behind a writer): while another process writes, the phrases are counted, not
        registered, and the next search registers them. A full registry forgets its
        oldest phrases first; a phrase asked for again is counted again once."""
        terms = [tsquery_term(p) for p in phrases]
        with self._connection() as conn, conn.transaction():
            if not conn.execute("SELECT pg_try_advisory_xact_lock(%s)",
                                (WRITE_LOCK,)).fetchone()[0]:
                return dict(conn.execute(
                    f"SELECT q.p, {_PHRASE_COUNT} FROM unnest(%s::text[], %s::text[])"
                    " AS q(p, t)", (phrases, terms)).fetchall())
            conn.execute(
                "DELETE FROM phrase_df WHERE id IN (SELECT id FROM phrase_df ORDER BY id"
                " LIMIT GREATEST(0, (SELECT COUNT(*) FROM phrase_df) + %s - %s))",
                (len(phrases), self.phrase_registry_max))
            # Only a chain of one lexeme per word (as the query reads back): a word the
            # parser splits further is counted each time, never registered.
            pairs = [" ".join(p.split()[:2]) for p in phrases]
            conn.execute(
                "INSERT INTO phrase_df (phrase, pair, query, df) SELECT q.p, q.pair, r.query,"
                " (SELECT COUNT(*) FROM memories WHERE terms_tsv @@ r.query)"
                " FROM unnest(%s::text[], %s::text[], %s::text[]) AS q(p, t, pair)"
                " CROSS JOIN LATERAL (SELECT to_tsquery('simple', q.t) AS query) r"
                " WHERE r.query::text = q.t ON CONFLICT (phrase) DO NOTHING",
                (phrases, terms, pairs))
            found = dict(conn.execute(
                "SELECT q.p, COALESCE((SELECT df FROM phrase_df WHERE phrase = q.p),"
                f" {_PHRASE_COUNT}) FROM unnest(%s::text[], %s::text[]) AS q(p, t)",
                (phrases, terms)).fetchall())
        return {p: int(found[p]) for p in phrases}

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
