# ruff: noqa: E501  (verbatim command output and file contents)
"""Haskell Servant report endpoint with a space leak; compaction in the middle (English)."""

from make_sessions import Session

REPORT = '''module Ledger.Report (monthlyTotals) where

import qualified Data.Map as Map
import Data.List (foldl)
import Ledger.Types

-- | Sum of amounts per (account, month).
monthlyTotals :: [Entry] -> Map.Map (AccountId, Month) Cents
monthlyTotals = foldl step Map.empty
  where
    step acc e = Map.insertWith (+) (entryAccount e, monthOf (entryPostedAt e)) (entryAmount e) acc
'''

CABAL_GREP = '''ledger.cabal:18:    ghc-options:      -Wall -O1
ledger.cabal:41:    build-depends:    base >=4.17 && <4.18, containers, servant-server, persistent-postgresql'''

CABAL = "\n".join(["cabal-version:      3.0", "name:               ledger", "version:            0.7.2", "build-type:         Simple", "", "common shared", "    default-language: GHC2021"] + [""] * 9 + ["common warnings", "    ghc-options:      -Wall -O1"] + [""] * 22 + ["    build-depends:    base >=4.17 && <4.18, containers, servant-server, persistent-postgresql", ""])

SUMMARY = """Summary of the conversation so far:

1. Primary request: GET /reports/monthly in the `ledger` Servant service (Haskell) takes ~40 s and its RSS climbs past 3 GB for accounts with ~2M ledger entries; the user wants it fixed without changing the API.

2. Key facts and user instructions:
   - The user said: "we stay on GHC 9.4 until Stackage LTS moves, don't bump the compiler or base" (ledger.cabal pins base <4.18).
   - Entries are streamed from Postgres with persistent's selectSourceRes and collected into a list before `monthlyTotals` (src/Ledger/Report.hs) folds them.
   - Heap profile (`cabal run ledger-bench -- +RTS -hT -RTS`) showed the heap dominated by THUNKs and `:` cells.

3. What was tried:
   - Added bang patterns / StrictData to Ledger.Types.Entry and -O2 in ledger.cabal: no change (still ~3.1 GB, 39 s). Reverted -O2 at the user's request ("not without a benchmark that shows it matters").

4. Current state: suspicion is the lazy `foldl` with lazy `Data.Map.insertWith` in monthlyTotals, plus the list materialisation. Next step was to switch to `foldl'` with `Data.Map.Strict` and fold the conduit directly."""


def build() -> Session:
    s = Session("haskell-spaceleak-compact-en", cwd="/home/sam/work/ledger", branch="fix/monthly-report-memory",
                start="2026-01-28T13:40:09.004Z", version="2.1.31", slug="lazy-thunk-badger")
    s.user(
        "/reports/monthly is falling over for the big accounts, 40 seconds and the pod gets "
        "OOM-killed at 3GB. fix it without changing the API. we stay on GHC 9.4 until Stackage "
        "LTS moves, don't bump the compiler or base",
        wait=6,
    )
    s.call(s.read_call("src/Ledger/Report.hs", REPORT))
    s.grep("ghc-options|build-depends", content=CABAL_GREP, glob="*.cabal")
    s.call(s.read_call("ledger.cabal", CABAL, offset=16, limit=4))
    s.bash("cabal run ledger-bench -- --account big-fixture +RTS -s -RTS 2>&1 | grep -E 'total memory|MUT|elapsed'", """\
    3,186 MiB total memory in use (0 MB lost due to fragmentation)
  MUT     time   38.912s  ( 39.104s elapsed)""", desc="Benchmark the report", secs=60)
    s.say("Baseline: 3.1 GB, 39 s. First try: strict fields on `Entry` and `-O2`.")
    s.edit("ledger.cabal", "    ghc-options:      -Wall -O1", "    ghc-options:      -Wall -O2")
    s.bash("cabal run ledger-bench -- --account big-fixture +RTS -s -RTS 2>&1 | grep -E 'total memory|MUT|elapsed'", """\
    3,121 MiB total memory in use (0 MB lost due to fragmentation)
  MUT     time   37.650s  ( 37.801s elapsed)""", desc="Benchmark again", secs=240)
    s.say("No real change — strictness on the record isn't where the heap goes.")
    s.turn_end()
    s.user("revert the O2, not without a benchmark that shows it matters", wait=50)
    s.edit("ledger.cabal", "    ghc-options:      -Wall -O2", "    ghc-options:      -Wall -O1")
    s.bash("cabal run ledger-bench -- --account big-fixture +RTS -hT -i0.5 -RTS && hp2pretty ledger-bench.hp && head -5 ledger-bench.txt", """\
THUNK            2104 MiB
:                 688 MiB
Entry             301 MiB
Map.Bin            84 MiB""", desc="Heap profile by closure type", secs=70)
    s.compact(SUMMARY, pre_tokens=158204)
    s.say(
        "Picking up: the heap is thunks and list cells. `foldl` builds a chain of 2M deferred "
        "`step` calls, and lazy `insertWith (+)` stores `a + (b + …)` thunks in every Map value. "
        "Both go with `foldl'` over `Data.Map.Strict`. And I'll fold the conduit stream directly "
        "instead of collecting a list first."
    )
    s.edit("src/Ledger/Report.hs", '''import qualified Data.Map as Map
import Data.List (foldl)''', '''import qualified Data.Map.Strict as Map
import Data.List (foldl')''')
    s.edit("src/Ledger/Report.hs", """module Ledger.Report (monthlyTotals) where""", """module Ledger.Report (monthlyTotals, stepTotals) where""")
    s.edit("src/Ledger/Report.hs", """monthlyTotals = foldl step Map.empty
  where
    step acc e = Map.insertWith (+) (entryAccount e, monthOf (entryPostedAt e)) (entryAmount e) acc""", """monthlyTotals = foldl' stepTotals Map.empty

-- | One entry into the totals; strict Map so values are summed now, not stored as thunks.
stepTotals :: Map.Map (AccountId, Month) Cents -> Entry -> Map.Map (AccountId, Month) Cents
stepTotals acc e = Map.insertWith (+) (entryAccount e, monthOf (entryPostedAt e)) (entryAmount e) acc""")
    s.call(s.read_call("src/Ledger/Api.hs", """module Ledger.Api (monthlyHandler) where

import Conduit (runConduit, sinkList, (.|))
import Data.Acquire (withAcquire)
import Database.Persist (entityVal, selectSourceRes)
import Ledger.Db (runDb)
import Ledger.Report (monthlyTotals)
import Ledger.Types

monthlyHandler :: AccountId -> AppM MonthlyReport
monthlyHandler acct = do
  src <- runDb (selectSourceRes [EntryAccount ==. acct] [])
  entries <- runDb (withAcquire src (\\s -> runConduit (s .| sinkList)))
  pure (toReport (monthlyTotals (map entityVal entries)))
"""))
    s.write("src/Ledger/Api.hs", '''module Ledger.Api (monthlyHandler) where

import Conduit (foldlC, runConduit, (.|))
import Data.Acquire (withAcquire)
import Database.Persist (Entity (..), selectSourceRes)
import Ledger.Db (runDb)
import Ledger.Report (stepTotals)
import Ledger.Types

-- Fold the stream: never materialise all entries (2M rows for the big accounts).
monthlyHandler :: AccountId -> AppM MonthlyReport
monthlyHandler acct = do
  src <- runDb (selectSourceRes [EntryAccount ==. acct] [])
  totals <- runDb (withAcquire src (\\s -> runConduit (s .| foldlC (\\m (Entity _ e) -> stepTotals m e) mempty)))
  pure (toReport totals)
''')
    s.bash("cabal run ledger-bench -- --account big-fixture +RTS -s -RTS 2>&1 | grep -E 'total memory|MUT|elapsed'", """\
      14 MiB total memory in use (0 MB lost due to fragmentation)
  MUT     time    2.411s  (  2.530s elapsed)""", desc="Benchmark after the fix", secs=70)
    s.bash("cabal test --test-show-details=direct 2>&1 | tail -4", """\
  monthlyTotals sums per account and month [✔]
  monthlyTotals matches the SQL reference on the fixture [✔]
Finished in 1.8311 seconds
31 examples, 0 failures""", desc="Test suite", secs=90)
    s.say(
        "3.1 GB → 14 MB, 39 s → 2.5 s, tests green (31). Two changes: `foldl'` with "
        "`Data.Map.Strict` in `monthlyTotals`, and the handler folds the persistent conduit "
        "(`foldlC`) instead of `sinkList`. GHC/base untouched, `-O1` as before."
    )
    s.turn_end()
    s.user(
        "nice. the 2.5s is mostly the query now I guess, I haven't put the posted_at index on "
        "prod yet. do we want to cache these reports at all or is that overkill?",
        wait=180,
    )
    s.say(
        "Probably yes, it's the sequential scan now. On caching: the months before the current "
        "one never change once closed, so caching closed months is safe, but whether a stale "
        "current month is acceptable is a product call — I'd ask whoever owns the report before "
        "adding it."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Haskell (Servant, persistent, conduit, cabal), English",
        "a rule with a scope in the first prompt (GHC 9.4 / base pinned until Stackage LTS moves)",
        "a failed attempt (-O2 + strict fields) and a rule about it from the user ('not without a benchmark')",
        "auto compaction in the middle: compact_boundary and an isCompactSummary entry restating facts and rules",
        "the fix after compaction (foldl' + Data.Map.Strict, folding the conduit), measured and tested",
        "a todo in passing (posted_at index not on prod) and an open question left to the product owner",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["GHC 9.4"], ["Stackage", "LTS", "base"]],
         "note": "Stay on GHC 9.4 until Stackage LTS moves: don't bump the compiler or base."},
        {"id": "c2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["O2"], ["benchmark"]],
         "note": "No -O2 (or similar tuning) without a benchmark showing it matters; ledger.cabal stays at -O1."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["O2", "strict"], ["no change", "No real change", "3,121", "still"]],
         "note": "Strict Entry fields and -O2 did not help (3.1 GB, 38 s); reverted."},
        {"id": "b1", "type": "bug_note",
         "match": [["foldl'"], ["Data.Map.Strict"], ["thunk", "THUNK"]],
         "note": "The monthly report leaked memory: lazy foldl and lazy Map.insertWith built 2M thunks; fixed with foldl' over Data.Map.Strict (3.1 GB → 14 MB, 39 s → 2.5 s)."},
        {"id": "d1", "type": "decision",
         "match": [["foldlC", "sinkList", "conduit"], ["materialise", "list", "stream"]],
         "note": "The /reports/monthly handler folds the persistent conduit stream (foldlC) instead of collecting all entries with sinkList."},
        {"id": "t1", "type": "todo",
         "match": [["posted_at"], ["index"], ["prod"]],
         "note": "The posted_at index is not on prod yet; the remaining 2.5 s is mostly the query."},
        {"id": "q1", "type": "open_question",
         "match": [["cache"], ["report", "month"]],
         "note": "Should monthly reports be cached? Closed months are safe; a stale current month is a product call."},
        {"id": "v1", "type": "verified_command", "command": "cabal test --test-show-details=direct"},
        {"id": "v2", "type": "verified_command", "required": False,
         "command": "cabal run ledger-bench -- --account big-fixture +RTS -s -RTS"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued from a previous conversation"], ["Summary of the conversation so far"]],
}
