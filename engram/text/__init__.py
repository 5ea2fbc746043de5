"""Language-aware text analysis for Engram's FTS5 keyword index.

Memories and queries go through one pipeline so that a memory is found by the words a user
would type for it: inflected forms (a stemmer per script), code identifiers (whole or split),
file names and paths, error codes and versions.

Contract for the search code (the FTS table uses ``tokenize='unicode61 remove_diacritics 2'``):

* ``index_terms(text)`` is stored in the ``terms`` column. Every term consists of Unicode
  letters and digits only: unicode61 treats ``_``, ``.``, ``/`` and combining marks as separators,
  so a term containing them would silently fall apart into several FTS tokens.
* Plain words: lowercased, stop words removed, stemmed with the stemmer of their own script
  (Latin words with the language detected for the text's Latin words, Cyrillic with
  russian/serbian, ...). Latin words of a text detected as non-English are *also* indexed with
  their English stem, because a short query is almost always detected as English.
* English negated contractions become "<aux> not": "don't", "dont", "do not" all index "not".
* Compound tokens (identifiers, paths, file names, dotted/hyphenated words, versions) are split
  into segments (``/`` ``\\``), pieces (``. - : @ # ~``) and atoms (``_``, camelCase,
  letter/digit boundaries). Emitted, in this order: the concatenation of every multi-atom
  segment (``session.ts`` -> ``sessionts``, ``snake_case_name`` -> ``snakecasename``,
  ``getUserById`` -> ``getuserbyid``), the concatenation of every multi-atom piece of a
  multi-piece segment (``React.useEffect`` -> ``useeffect``), then every atom stemmed with the
  English stemmer (non-Latin atoms: their script's stemmer), no stop-word removal, so the atoms
  are adjacent and a phrase query over them matches. Segments containing a separator between
  two digits (versions, dates, IPs) get no concatenation: ``1.2.3`` would collide with ``123``.
  Example: ``src/auth/session.ts`` -> ``sessionts src auth session ts``.
* Han/kana runs (no spaces between words) are indexed as overlapping character bigrams.
* ``query_terms`` yields one group per query token; an alternative containing spaces is a phrase
  (``fts_query`` quotes it, FTS5 matches the words adjacently). Plain word:
  ``(stem, [english stem], raw)``; identifier: ``(whole, stem(whole), "atom atom ...")``, so
  ``get_user_by_id``, ``getUserById`` and "get user by id" find each other; a path gives one
  group per segment (``auth/session.ts`` -> ``auth`` AND ``sessionts|"session ts"``), so it
  finds the file under any prefix. ``:<digits>`` starts a segment ("session.ts:42").
* Queries stop after ``MAX_QUERY_GROUPS`` groups; CJK runs are one phrase of bigrams.

Layout: `tokenise` cuts text into chunks, segments, pieces and atoms; `language` (with the
word lists in `stopwords`) picks a language per script and `stemming` stems with it;
`analyzer` holds those choices for one text and `terms` builds index terms and query groups
from them; `fts` turns the groups into an FTS5 MATCH expression. `dedup` and `budget` are
the small helpers other modules use.
"""

from .budget import estimate_tokens
from .dedup import normalize_for_dedup
from .fts import fts_query
from .language import detect_language
from .stopwords import STOP_WORDS
from .terms import _RUN_TERMS as _RUN_TERMS
from .terms import MAX_QUERY_GROUPS, index_terms, query_terms

__all__ = [
    "MAX_QUERY_GROUPS",
    "STOP_WORDS",
    "detect_language",
    "estimate_tokens",
    "fts_query",
    "index_terms",
    "normalize_for_dedup",
    "query_terms",
]
