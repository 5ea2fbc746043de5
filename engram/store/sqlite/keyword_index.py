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

A process that built it saves it beside the database (`<db>.keywords`, `save`), so the
next one loads it instead of reading every row's terms again, and reads only the rows
changed since. The file names a random token that the
saving process also writes into the store's meta table: a database file that does not
hold that token (another store, a copy made before the save, a restored backup of it)
is not the one the file was read from, and its rows are read afresh. A file holding the
token holds every row as it was at the file's change number or later: a row changed
since has a larger change number (never reused, `SQLiteStore._next_seq`) and is read
again.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

#: The saved file's layout; a file of another format is ignored (and rebuilt).
FORMAT = 1

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

    # --- files --------------------------------------------------------------------------

    def save(self, path: Path, token: str, schema: int) -> None:
        """Write atomically (after `trim`), with the store's `token` and schema version."""
        from ...config import tighten

        vocab = sorted(self._vocab, key=self._vocab.__getitem__)
        meta = {"format": FORMAT, "seq": int(self.seq), "token": token, "schema": schema,
                "used": int(self._used)}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                 vocab=np.frombuffer("\n".join(vocab).encode(), dtype=np.uint8),
                 lengths=self.lengths, unknown=self.unknown, start=self._start,
                 count=self._count, token=self._token[: self._used],
                 tf=self._tf[: self._used])
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        try:
            tmp.write_bytes(buffer.getvalue())
            tighten(tmp)  # the repeated words are the memories' own: keep them private
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path, token: str, schema: int, seq: int) -> KeywordIndex | None:
        """The index saved at `path` if it was saved from this store (`token`, `schema`)
        at a change number it has reached (`seq`, the store's highest), else None. Rows
        changed since the file's change number are for the caller to read again."""
        try:
            with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as saved:
                meta = json.loads(saved["meta"].tobytes().decode())
                if (meta.get("format") != FORMAT or meta.get("token") != token
                        or meta.get("schema") != schema or not 0 <= int(meta["seq"]) <= seq):
                    return None
                words = saved["vocab"].tobytes().decode()
                index = cls()
                index.lengths = saved["lengths"].astype(np.int32)
                index.unknown = saved["unknown"].astype(bool)
                index._start = saved["start"].astype(np.int64)
                index._count = saved["count"].astype(np.int32)
                index._token = saved["token"].astype(np.int32)
                index._tf = saved["tf"].astype(np.int32)
            index._vocab = {w: i for i, w in enumerate(words.split("\n"))} if words else {}
            index._used = int(meta["used"])
            index.seq = int(meta["seq"])
            rows = len(index.lengths)
            if (any(len(a) != rows for a in (index.unknown, index._start, index._count))
                    or len(index._token) != index._used or len(index._tf) != index._used
                    or (rows and (int((index._start + index._count).max()) > index._used
                                  or int(index._start.min()) < 0))
                    or (index._used and (int(index._token.max()) >= len(index._vocab)
                                         or int(index._token.min()) < 0))):
                return None
        except Exception:  # noqa: BLE001 -- any unreadable file (zip, npy, json) is rebuilt
            return None
        return index

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
