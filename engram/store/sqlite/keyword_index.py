"""What FTS5's bm25 reads of a row, kept beside FTS5 so that a large store ranks its
keyword matches without FTS5 ranking every one of them.

FTS5's `bm25()` does work for every matching row (it decodes the row's positions and
looks its length up) plus, once per statement, a walk of each phrase's whole doclist for
its idf; in a large store a common word matches tens of thousands of rows, and listing
them unranked costs a fraction of ranking them (RESULTS.md, "keyword index"). bm25 of a
row needs only the row's length, how often
each phrase occurs in it, and statistics of the whole index. Lengths and occurrences come
from this index: every row's token count, and the tokens it holds more than once (most
hold a token once: then a matching row holds the phrase once). The statistics come from
FTS5's own records (row count, token total) and exact phrase counts, cached while the
index's structure record says nothing changed. `ExactRankMethods._exact_ranked`
(exact_rank.py) puts these together with FTS5's arithmetic, operation for operation, so
the scores are FTS5's own bit for bit (tests compare them with `bm25()`).

Rows are tokenized as FTS5's unicode61 tokenizer does for ASCII text (runs of ASCII
letters and digits, lower-cased); a row with any other character is marked unknown, and
a search whose matches include one is ranked by FTS5. The index follows the store by its
change number (`seq`): rows written since the last look, by any process, are read again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

_TOKEN_RE = re.compile(r"[0-9a-z]+")


def ascii_tokens(text: str) -> list[str] | None:
    """FTS5 unicode61's tokens of `text` if it is ASCII, else None (not reproduced here)."""
    if not text.isascii():
        return None
    return _TOKEN_RE.findall(text.lower())


class KeywordIndex:
    """Per rowid: token count, unknown flag, and the tokens held more than once."""

    def __init__(self) -> None:
        self.seq = -1  # the store's change number the rows were read at
        self._vocab: dict[str, int] = {}
        self.lengths = np.zeros(0, dtype=np.int32)  # -1: never read
        self.unknown = np.zeros(0, dtype=bool)
        self._start = np.zeros(0, dtype=np.int64)  # into _token/_tf, per rowid
        self._count = np.zeros(0, dtype=np.int32)
        self._token = np.zeros(1024, dtype=np.int32)
        self._tf = np.zeros(1024, dtype=np.int32)
        self._used = 0

    def _cover(self, top: int) -> None:
        if top <= len(self.lengths):
            return
        size = max(top, 2 * len(self.lengths), 1024)
        for name in ("lengths", "unknown", "_start", "_count"):
            old = getattr(self, name)
            new = np.full(size, -1 if name == "lengths" else 0, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def _room(self, extra: int) -> None:
        if self._used + extra <= len(self._token):
            return
        size = max(self._used + extra, 2 * len(self._token))
        for name in ("_token", "_tf"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[: self._used] = old[: self._used]
            setattr(self, name, new)

    def put(self, rows: Iterable[tuple[int, str]]) -> None:
        """(Re)read rows: (rowid, the terms FTS5 indexes for it). A rewritten row's old
        repeats are left unused (a rebuild reclaims them)."""
        rowids: list[int] = []
        lengths: list[int] = []
        unknown: list[bool] = []
        counts: list[int] = []
        tokens: list[int] = []
        tfs: list[int] = []
        vocab = self._vocab
        for rowid, text in rows:
            found = ascii_tokens(text or "")
            rowids.append(rowid)
            if found is None:
                lengths.append(0)
                unknown.append(True)
                counts.append(0)
                continue
            lengths.append(len(found))
            unknown.append(False)
            repeated = [(t, n) for t, n in Counter(found).items() if n > 1]
            counts.append(len(repeated))
            for token, n in repeated:
                code = vocab.get(token)
                if code is None:
                    code = vocab[token] = len(vocab)
                tokens.append(code)
                tfs.append(n)
        if not rowids:
            return
        keys = np.asarray(rowids, dtype=np.int64)
        self._cover(int(keys.max()) + 1)
        self._room(len(tokens))
        count = np.asarray(counts, dtype=np.int32)
        starts = self._used + np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        self._token[self._used : self._used + len(tokens)] = tokens
        self._tf[self._used : self._used + len(tfs)] = tfs
        self._used += len(tokens)
        self.lengths[keys] = lengths
        self.unknown[keys] = unknown
        self._start[keys] = starts
        self._count[keys] = count

    def trim(self) -> None:
        """Drop the spare room (after a full read): rows past the largest rowid read, and
        repeats past the last (the arrays grow by doubling)."""
        self._token = self._token[: self._used].copy()
        self._tf = self._tf[: self._used].copy()
        top = int(np.flatnonzero(self.lengths >= 0)[-1]) + 1 if (self.lengths >= 0).any() else 0
        for name in ("lengths", "unknown", "_start", "_count"):
            setattr(self, name, getattr(self, name)[:top].copy())

    def nbytes(self) -> int:
        arrays = (self.lengths, self.unknown, self._start, self._count, self._token, self._tf)
        return sum(a.nbytes for a in arrays)

    def known(self, rowids: np.ndarray) -> bool:
        """Whether every row of `rowids` was read and is ASCII (tokens as FTS5's)."""
        if not len(rowids):
            return True
        if int(rowids.max()) >= len(self.lengths) or int(rowids.min()) < 0:
            return False
        return not bool(self.unknown[rowids].any() or (self.lengths[rowids] < 0).any())

    def token_tf(self, token: str, rowids: np.ndarray) -> np.ndarray:
        """How often each row of `rowids` holds `token`, if more than once; else 1."""
        out = np.ones(len(rowids), dtype=np.int64)
        code = self._vocab.get(token)
        if code is None or not len(rowids):
            return out
        count = self._count[rowids]
        has = np.flatnonzero(count)
        if not len(has):
            return out
        spans = count[has].astype(np.int64)
        # Every repeat of every row at once: start, start + 1, ... per row, concatenated.
        offsets = np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
        entries = np.repeat(self._start[rowids[has]], spans) + offsets
        hit = self._token[entries] == code
        owner = np.repeat(has, spans)[hit]
        out[owner] = self._tf[entries[hit]]
        return out

    def repeated(self, tokens: Sequence[str], rowids: np.ndarray) -> np.ndarray:
        """Rows of `rowids` (each holding the phrase `tokens`) that may hold it more than
        once: its count there needs the row's text.

        Two instances start at different positions, so the first instance's first token
        and the second's last one lie outside the other: the phrase's first and last
        tokens then occur more often than the phrase holds them ("e 2 e" twice needs
        "e" three times at least, overlapping as in "e 2 e 2 e")."""
        held = Counter(tokens)
        mask = self.token_tf(tokens[0], rowids) > held[tokens[0]]
        return mask & (self.token_tf(tokens[-1], rowids) > held[tokens[-1]])


def phrase_count(tokens: Sequence[str], text_tokens: Sequence[str]) -> int:
    """Occurrences of the token sequence `tokens` in `text_tokens` (overlapping, as FTS5
    counts a phrase's instances)."""
    n = len(tokens)
    if not n:
        return 0
    first = tokens[0]
    target = list(tokens)
    return sum(1 for i, t in enumerate(text_tokens)
               if t == first and list(text_tokens[i : i + n]) == target)
