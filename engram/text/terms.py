"""Index terms for the FTS ``terms`` column and query term groups, analysed alike."""

from __future__ import annotations

from .analyzer import _Analyzer
from .tokenise import (
    _CHUNK_RE,
    _NUMERIC_JOIN_RE,
    _bigrams,
    _Chunk,
    _clean,
    _is_cjk,
    _is_plain_word,
    _lower,
)

#: More groups than this never AND-match anything and only slow FTS5 down.
MAX_QUERY_GROUPS = 32

#: Terms of an ASCII run of word characters, by (the text's Latin language, run). They
#: depend on nothing else (contractions, the stop list and the stemmer follow the Latin
#: language; identifier atoms are stemmed as English), and the same words recur from
#: memory to memory, so most of the indexing work is a look-up here. Bounded, so a
#: long-lived server's memory stays small; cleared when full rather than kept in LRU
#: order, as refilling costs less than the bookkeeping would.
_RUN_TERMS: dict[tuple[str, str], tuple[str, ...]] = {}
_RUN_TERMS_MAX = 20_000


def index_terms(text: str) -> str:
    """Space-separated FTS-safe terms for the ``terms`` column (see the package docstring)."""
    if not isinstance(text, str) or not text:
        return ""
    analyzer = _Analyzer(text)
    terms: list[str] = []
    memo = _RUN_TERMS
    for raw in _CHUNK_RE.findall(analyzer.text):
        if not raw.isascii():
            terms.extend(_run_terms(analyzer, raw))
            continue
        key = (analyzer.latin, raw)
        found = memo.get(key)
        if found is None:
            found = _run_terms(analyzer, raw)
            if len(memo) >= _RUN_TERMS_MAX:
                memo.clear()
            memo[key] = found
        terms.extend(found)
    return " ".join(terms)


def _run_terms(analyzer: _Analyzer, raw: str) -> tuple[str, ...]:
    """The index terms of one run of word characters, empty ones dropped."""
    return tuple(t for chunk in analyzer.split(raw) for t in _chunk_terms(analyzer, chunk) if t)


def _chunk_terms(analyzer: _Analyzer, chunk_text: str) -> list[str]:
    """The index terms of one chunk; may hold empty strings (_run_terms drops them)."""
    if _is_plain_word(chunk_text):
        return analyzer.word_stems(_lower(chunk_text)) or []
    if _is_cjk(chunk_text):
        return _bigrams(chunk_text)
    chunk = _Chunk(chunk_text)
    if len(chunk.atoms) == 1:
        return analyzer.word_stems(chunk.atoms[0]) or []
    if len(chunk.atoms) > 1:
        wholes = chunk.wholes()
        if wholes and wholes[0] in analyzer.stop_latin:  # "e.g", "i.e"
            return []
        return [*wholes, *(_clean(analyzer.code_stem(a)) for a in chunk.atoms)]
    return []


def _alternatives(alts: list[str]) -> tuple[str, ...]:
    cleaned = (" ".join(filter(None, map(_clean, alt.split()))) for alt in alts)
    return tuple(dict.fromkeys(alt for alt in cleaned if alt))


def _segment_group(analyzer: _Analyzer, seg: str, atoms: list[str]) -> tuple[str, ...]:
    """Alternatives for one identifier/path segment: whole forms or the adjacent atoms."""
    alts: list[str] = []
    if len(atoms) > 1 and not _NUMERIC_JOIN_RE.search(seg):
        whole = _clean("".join(atoms))
        alts += [whole, analyzer.code_stem(whole)]
    if len(atoms) == 1:
        alts.append(atoms[0])
    alts.append(" ".join(analyzer.code_stem(a) for a in atoms))
    return _alternatives(alts)


def _query_groups(analyzer: _Analyzer, chunk_text: str) -> list[tuple[str, ...]]:
    """Groups for one chunk: a word gives one group, a path one group per segment."""
    if _is_cjk(chunk_text):
        return [(" ".join(_bigrams(chunk_text)),)]
    chunk = None if _is_plain_word(chunk_text) else _Chunk(chunk_text)
    if chunk is None or len(chunk.atoms) == 1:
        # The raw form also matches identifier wholes: "nodejs" finds "node.js" ("nodejs").
        word = _lower(chunk_text) if chunk is None else chunk.atoms[0]
        stems = analyzer.word_stems(word)
        return [_alternatives([*stems, word])] if stems else []
    wholes = chunk.wholes()
    if len(chunk.segments) == 1 and wholes and wholes[0] in analyzer.stop_latin:  # "e.g."
        return []
    groups = []
    for seg, pieces in chunk.segments:
        group = _segment_group(analyzer, seg, [a for p in pieces for a in p])
        if group:
            groups.append(group)
    return groups


def query_terms(query: str) -> list[tuple[str, ...]]:
    """One group of alternatives per meaningful query token, analysed like ``index_terms``.

    Never raises, and stops after ``MAX_QUERY_GROUPS`` distinct groups: a pasted stack trace
    should still produce a usable (OR-mode) query rather than a pathological one.
    """
    if not isinstance(query, str) or not query.strip():
        return []
    analyzer = _Analyzer(query)
    groups: dict[tuple[str, ...], None] = {}
    for chunk_text in analyzer.chunks():
        for group in _query_groups(analyzer, chunk_text):
            groups[group] = None
        if len(groups) >= MAX_QUERY_GROUPS:
            break
    return list(groups)[:MAX_QUERY_GROUPS]
