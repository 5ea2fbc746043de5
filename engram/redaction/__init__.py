"""Secret redaction, applied before any text is stored or embedded.

Memories outlive the session that produced them: they are copied into prompts,
embedded, exported and shared. A credential that slips into the store once is
effectively leaked for good, so every write path runs text through `redact`
first.

The design trades a little recall for a lot of precision. An agent's memories are
full of code, configs and prose *about* passwords and tokens; mangling
``max_tokens=1500`` or "reset your password" would quietly corrupt the memory
that the tool exists to keep. So:

* Well known, high-signal formats (``ghp_…``, ``AKIA…``, JWTs, PEM blocks…) are
  matched by shape alone.
* Generic ``key = value`` assignments only count when the key *names* a
  secret (``DB_PASSWORD``, ``client_secret``, ``api_key``…) and the value
  looks like a literal rather than a placeholder, a variable, a type annotation
  or English prose.
* Only the value is replaced, so the memory still says *what* was there:
  ``password=[REDACTED:password]``.

Every pattern is linear-time: no nested or adjacent unbounded quantifiers over
overlapping character classes, quoted values use unambiguous "unrolled" loops,
and token patterns open with a literal prefix (so ``sre`` can skip ahead with
its fast search) followed by a fixed-width boundary look-behind, so a long run
of look-alike characters is entered once rather than at every offset. Regexes
compile lazily on first use to keep ``import`` cheap for hooks.

Layout: `rules` is the table of detectors in priority order, built from
`format_checks` (known formats), `assignments` (``key = value``), `keys` (does a
key name a secret?) and `values` (is a value a literal?); `engine` runs the
table and `tree` applies it to JSON-like data.
"""

from .engine import Redaction, contains_secret, redact
from .tree import redact_tree as redact_tree

__all__ = ["Redaction", "contains_secret", "redact"]
