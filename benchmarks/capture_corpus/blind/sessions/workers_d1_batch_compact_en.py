# ruff: noqa: E501  (verbatim command output and file contents)
"""Cloudflare Worker ingesting SDK event batches into D1: "too many SQL variables"; json_each tried and refused; compaction mid-session (English)."""

from make_sessions import Session

INGEST_V1 = '''import type { Env } from "./env";

export interface SdkEvent {
  id: string;
  device: string;
  name: string;
  ts: number;
  props?: Record<string, unknown>;
}

export async function ingest(req: Request, env: Env): Promise<Response> {
  const body = (await req.json()) as { events: SdkEvent[] };
  const events = body.events ?? [];
  if (events.length === 0) return new Response(null, { status: 204 });

  const placeholders = events.map(() => "(?, ?, ?, ?, ?)").join(", ");
  const values = events.flatMap((e) => [e.id, e.device, e.name, e.ts, JSON.stringify(e.props ?? {})]);
  await env.DB.prepare(
    `INSERT INTO events (id, device, name, ts, props) VALUES ${placeholders}`,
  )
    .bind(...values)
    .run();

  return new Response(null, { status: 202 });
}
'''

WRANGLER = '''name = "pulse-ingest"
main = "src/index.ts"
compatibility_date = "2025-11-03"

[[d1_databases]]
binding = "DB"
database_name = "pulse"
database_id = "6f1d2c3a-8b47-4e0f-9a51-2d7c0b9e4f18"
migrations_dir = "migrations"
'''

MIGRATION = '''CREATE TABLE events (
  id      TEXT PRIMARY KEY,
  device  TEXT NOT NULL,
  name    TEXT NOT NULL,
  ts      INTEGER NOT NULL,
  props   TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_device_ts ON events (device, ts);
'''

SPEC_V1 = '''import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

function batch(n: number, start = 0) {
  return Array.from({ length: n }, (_, i) => ({
    id: `evt-${start + i}`,
    device: "dev-1",
    name: "screen_view",
    ts: 1767225600000 + i,
  }));
}

async function post(events: unknown[]) {
  return SELF.fetch("https://ingest.test/v1/events", {
    method: "POST",
    body: JSON.stringify({ events }),
  });
}

describe("POST /v1/events", () => {
  it("stores a small batch", async () => {
    const res = await post(batch(3));
    expect(res.status).toBe(202);
    const { n } = await env.DB.prepare("SELECT count(*) AS n FROM events").first<{ n: number }>();
    expect(n).toBe(3);
  });

  it("accepts an empty batch", async () => {
    expect((await post([])).status).toBe(204);
  });
});
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: pulse-ingest (Cloudflare Worker, D1 database `pulse`) loses big event batches from the mobile SDK in prod. User (Tom) pasted `wrangler tail` output: `D1_ERROR: too many SQL variables at offset 2047: SQLITE_ERROR`. Batches of up to 500 events must be stored; the SDK does not retry on 2xx, so a 202 must mean stored. Team conventions stated: raw prepared statements, no ORM (no drizzle); tests run in the workers pool (`npx vitest run`, @cloudflare/vitest-pool-workers), not in node.
2. Key Technical Concepts: D1 limit of 100 bound parameters per statement; `db.batch()` runs statements in one implicit transaction; SQLite `json_each`; `ON CONFLICT (id) DO NOTHING`.
3. Files and Code Sections:
   - src/ingest.ts: builds one INSERT with 5 placeholders per event; 500 events = 2500 variables.
   - test/ingest.spec.ts: added "stores a 500-event batch" (was failing with the same D1_ERROR).
   - migrations/0001_events.sql: events(id TEXT PRIMARY KEY, device, name, ts, props).
4. Errors and fixes:
   - First test run piped through `| tail -6` only showed "1 failed"; the full run showed the D1_ERROR in the middle of the output.
   - Tried a single `INSERT ... SELECT ... FROM json_each(?)` with the whole batch as one JSON parameter: tests passed, but Tom refused it ("nobody on the team reads json_each SQL, and Priya copies this insert pattern for the analytics tables"). Reverted with git checkout.
5. Pending Tasks: chunked multi-row INSERTs (100 / 5 columns = 20 rows per statement) inside one `env.DB.batch()`; check what happens when the SDK retries a batch that was already stored.
6. Current Work: about to rewrite ingest() with chunks.'''


def build() -> Session:
    s = Session("workers-d1-batch-compact-en", cwd="/Users/tom/code/pulse-ingest", branch="fix/d1-big-batches",
                start="2026-05-12T15:04:27.551Z", version="2.1.66", slug="chunked-insert-plover")
    s.user(
        "ingest worker is dropping big batches in prod. from wrangler tail:\n\n"
        "```\nPOST https://ingest.pulseapp.io/v1/events - Ok @ 5/12/2026, 4:51:09 PM\n"
        "  (error) Error: D1_ERROR: too many SQL variables at offset 2047: SQLITE_ERROR\n"
        "    at D1PreparedStatement.run (cloudflare-internal:d1-api:120:25)\n```\n\n"
        "sdk sends up to 500 events per POST when the phone was offline for a while. all of thsoe need to land. "
        "keep it raw prepared statements like everything else here, we're not adding drizzle",
        wait=5,
    )
    s.call(s.read_call("src/ingest.ts", INGEST_V1), s.read_call("wrangler.toml", WRANGLER))
    s.call(s.read_call("migrations/0001_events.sql", MIGRATION), s.read_call("test/ingest.spec.ts", SPEC_V1))
    s.say(
        "Found it. `ingest()` builds **one** `INSERT` with five placeholders per event, so a 500-event batch binds "
        "2500 variables. D1 allows at most 100 bound parameters per statement, so anything above 20 events fails.\n\n"
        "Nothing catches the error, so the phone gets a 500 for the whole batch. First, a test that reproduces it."
    )
    s.edit("test/ingest.spec.ts", '''  it("accepts an empty batch", async () => {''', '''  it("stores a 500-event batch", async () => {
    const res = await post(batch(500));
    expect(res.status).toBe(202);
    const { n } = await env.DB.prepare("SELECT count(*) AS n FROM events").first<{ n: number }>();
    expect(n).toBe(500);
  });

  it("accepts an empty batch", async () => {''')
    s.bash("npx vitest run 2>&1 | tail -6", ''' Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)
   Start at  17:09:12
   Duration  2.31s (transform 88ms, setup 1ms, collect 142ms, tests 611ms, environment 0ms, prepare 402ms)
''', desc="Run worker tests", secs=9)
    s.bash("npx vitest run", ''' RUN  v2.1.9 /Users/tom/code/pulse-ingest

[vpw:info] Starting isolated runtimes for vitest.config.ts...
 ❯ test/ingest.spec.ts (3 tests | 1 failed) 611ms
   ✓ POST /v1/events > stores a small batch 48ms
   × POST /v1/events > stores a 500-event batch 402ms
     → D1_ERROR: too many SQL variables at offset 2047: SQLITE_ERROR
   ✓ POST /v1/events > accepts an empty batch 12ms

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/ingest.spec.ts > POST /v1/events > stores a 500-event batch
Error: D1_ERROR: too many SQL variables at offset 2047: SQLITE_ERROR
 ❯ D1PreparedStatement.run cloudflare-internal:d1-api:120:25
 ❯ ingest src/ingest.ts:22:6
 ❯ test/ingest.spec.ts:37:17

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)
   Start at  17:09:21
   Duration  2.28s''', code=1, desc="Run worker tests (full output)", secs=9)
    s.say(
        "Reproduced locally, same error as prod. Simplest fix that keeps it one statement: bind the whole batch as "
        "**one** JSON parameter and let SQLite unpack it with `json_each`. One round trip, one bound variable no matter "
        "how big the batch is."
    )
    s.edit("src/ingest.ts", '''  const placeholders = events.map(() => "(?, ?, ?, ?, ?)").join(", ");
  const values = events.flatMap((e) => [e.id, e.device, e.name, e.ts, JSON.stringify(e.props ?? {})]);
  await env.DB.prepare(
    `INSERT INTO events (id, device, name, ts, props) VALUES ${placeholders}`,
  )
    .bind(...values)
    .run();''', '''  await env.DB.prepare(
    `INSERT INTO events (id, device, name, ts, props)
     SELECT j.value ->> '$.id', j.value ->> '$.device', j.value ->> '$.name',
            j.value ->> '$.ts', coalesce(j.value -> '$.props', '{}')
     FROM json_each(?) AS j`,
  )
    .bind(JSON.stringify(events))
    .run();''')
    s.bash("npx vitest run 2>&1 | tail -4", ''' Test Files  1 passed (1)
      Tests  3 passed (3)
   Start at  17:12:40
   Duration  2.04s (transform 85ms, setup 1ms, collect 139ms, tests 388ms, environment 0ms, prepare 399ms)''', desc="Run worker tests", secs=8)
    s.say("Green with `json_each`: the 500-event batch goes in as a single statement with one bound parameter.")
    s.turn_end()
    s.user(
        "hmm no. nobody here can read that json_each thing and Priya copies this insert for the analytics tables, "
        "she'd be stuck. just chunk it. boring is fine",
        wait=55,
    )
    s.bash("git checkout -- src/ingest.ts && git status --short", ''' M test/ingest.spec.ts''', desc="Revert the json_each version")
    s.compact(SUMMARY, pre_tokens=159204)
    s.say(
        "Back to plain multi-row INSERTs, chunked. The limit is per statement, so chunk size = floor(100 / columns) = "
        "20 rows. All chunks go into one `env.DB.batch()` call: D1 runs a batch as one transaction, so either the whole "
        "POST is stored or none of it, which keeps \"202 means stored\" true. I'll derive the chunk size from the column "
        "list so adding a column later can't silently break it again."
    )
    s.read("src/ingest.ts", INGEST_V1)
    s.edit("src/ingest.ts", '''  const placeholders = events.map(() => "(?, ?, ?, ?, ?)").join(", ");
  const values = events.flatMap((e) => [e.id, e.device, e.name, e.ts, JSON.stringify(e.props ?? {})]);
  await env.DB.prepare(
    `INSERT INTO events (id, device, name, ts, props) VALUES ${placeholders}`,
  )
    .bind(...values)
    .run();''', '''  // D1 allows at most 100 bound parameters per statement: chunk rows so that
  // rows * COLS <= 100, and run every chunk in one batch (= one transaction).
  const stmts = [];
  for (let i = 0; i < events.length; i += ROWS_PER_STMT) {
    const chunk = events.slice(i, i + ROWS_PER_STMT);
    const placeholders = chunk.map(() => ROW).join(", ");
    const values = chunk.flatMap((e) => [e.id, e.device, e.name, e.ts, JSON.stringify(e.props ?? {})]);
    stmts.push(env.DB.prepare(`INSERT INTO events (${COLS.join(", ")}) VALUES ${placeholders}`).bind(...values));
  }
  await env.DB.batch(stmts);''')
    s.edit("src/ingest.ts", '''export async function ingest(''', '''const COLS = ["id", "device", "name", "ts", "props"] as const;
const MAX_PARAMS = 100;
const ROWS_PER_STMT = Math.floor(MAX_PARAMS / COLS.length);
const ROW = `(${COLS.map(() => "?").join(", ")})`;

export async function ingest(''')
    s.say("Now the retry case from earlier. If a phone resends a batch that was already stored, what happens with `id TEXT PRIMARY KEY`:")
    s.edit("test/ingest.spec.ts", '''  it("accepts an empty batch", async () => {''', '''  it("a resent batch is stored once", async () => {
    await post(batch(30));
    const res = await post(batch(30));
    expect(res.status).toBe(202);
    const { n } = await env.DB.prepare("SELECT count(*) AS n FROM events").first<{ n: number }>();
    expect(n).toBe(30);
  });

  it("accepts an empty batch", async () => {''')
    s.bash("npx vitest run", ''' RUN  v2.1.9 /Users/tom/code/pulse-ingest

[vpw:info] Starting isolated runtimes for vitest.config.ts...
 ❯ test/ingest.spec.ts (4 tests | 1 failed) 702ms
   ✓ POST /v1/events > stores a small batch 51ms
   ✓ POST /v1/events > stores a 500-event batch 233ms
   × POST /v1/events > a resent batch is stored once 96ms
     → D1_ERROR: UNIQUE constraint failed: events.id: SQLITE_CONSTRAINT
   ✓ POST /v1/events > accepts an empty batch 10ms

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  test/ingest.spec.ts > POST /v1/events > a resent batch is stored once
Error: D1_ERROR: UNIQUE constraint failed: events.id: SQLITE_CONSTRAINT
 ❯ D1Database.batch cloudflare-internal:d1-api:87:19
 ❯ ingest src/ingest.ts:30:3

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)
   Start at  17:31:05
   Duration  2.40s''', code=1, desc="Run worker tests", secs=9)
    s.say(
        "The 500-event batch passes now. The resend fails as I suspected: one already-stored id makes the whole batch "
        "roll back, and the Worker answers 500. So a phone that lost the first 202 (flaky network) resends, and then "
        "that batch **plus any new events appended to it** are lost on every retry. `ON CONFLICT (id) DO NOTHING` makes "
        "a resend a no-op for the rows that are already there."
    )
    s.edit("src/ingest.ts", '''VALUES ${placeholders}`).bind(...values));''', '''VALUES ${placeholders} ON CONFLICT (id) DO NOTHING`).bind(...values));''')
    s.bash("npx vitest run && npx tsc --noEmit", ''' RUN  v2.1.9 /Users/tom/code/pulse-ingest

[vpw:info] Starting isolated runtimes for vitest.config.ts...
 ✓ test/ingest.spec.ts (4 tests) 684ms

 Test Files  1 passed (1)
      Tests  4 passed (4)
   Start at  17:33:48
   Duration  2.19s''', desc="Tests + typecheck", secs=14)
    s.say("All four pass and it typechecks. Deploying so the fix is live before the evening peak:")
    s.bash_rejected("npx wrangler deploy", desc="Deploy pulse-ingest",
                    reason="nope, never deploy from a laptop. the GH action runs the d1 migrations before the deploy, someone skipped that in march and we had a worker writing to a column that didn't exist for 2 hours. I'll merge and let CI do it")
    s.say("Got it — no deploy from here. The branch is ready for you to merge.")
    s.bash("git add -A && git commit -qm 'ingest: chunk inserts to 20 rows (D1 100-param limit), ignore resent ids' && git log --oneline -1",
           "a41c9e2 ingest: chunk inserts to 20 rows (D1 100-param limit), ignore resent ids", desc="Commit")
    s.say(
        "Summary:\n\n"
        "- **Cause:** one INSERT with 5 placeholders per event; D1 caps a statement at 100 bound parameters, so any "
        "batch over 20 events failed (`too many SQL variables`).\n"
        "- **Fix:** rows chunked to `floor(100 / columns)` = 20 per statement, all chunks in one `env.DB.batch()` so a "
        "POST is stored entirely or not at all. Chunk size follows `COLS`, so a new column adjusts it.\n"
        "- **Second bug:** a resent batch failed on `UNIQUE constraint failed: events.id` and rolled back everything; "
        "now `ON CONFLICT (id) DO NOTHING`.\n"
        "- `json_each` with one JSON parameter worked but was dropped (hard to read, Priya copies this pattern).\n"
        "- Tests: 500-event batch and resend cases added; `npx vitest run && npx tsc --noEmit` green.\n\n"
        "Not done: the deploy (CI on merge). I also haven't checked how the SDK handles the 500s it got today — those "
        "batches may already be gone from the phones."
    )
    s.turn_end()
    s.user(
        "good. someone should add a cleanup for events older than 90 days at some point, table's growing fast, not now though. "
        "and no idea if the ios sdk really caps at 500, android does. I'll ask Jonas tomorrow",
        wait=80,
    )
    s.say("Noted, I'll leave both as they are.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Cloudflare Worker + D1 (wrangler, vitest-pool-workers), English, a terse user pasting `wrangler tail` output",
        "a rule in the first prompt (raw prepared statements, no drizzle) and a requirement (500-event batches must land)",
        "a failing test hidden behind `| tail` (only '1 failed'), the real D1_ERROR in the middle of the full run",
        "json_each with one JSON parameter tried, green, refused by the user with a reason (readability, Priya copies the pattern), reverted",
        "compaction after the revert; chunks of floor(100 / columns) rows in one db.batch() with its why",
        "a second bug found by a new test (resent batch rolled back on UNIQUE), ON CONFLICT DO NOTHING",
        "`wrangler deploy` rejected with a story (CI runs the D1 migrations first)",
        "'someone should … not now' todo and a question for a colleague in the last message",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["drizzle", "raw prepared statements", "ORM"]],
         "note": "Keep raw prepared statements like the rest of pulse-ingest; no drizzle/ORM."},
        {"id": "b1", "type": "bug_note",
         "match": [["too many SQL variables", "100 bound parameters", "100-param"], ["D1"]],
         "note": "Batches over 20 events failed in prod: one INSERT with 5 placeholders per event, and D1 allows at most 100 bound parameters per statement."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision", "preference"],
         "match": [["json_each"], ["Priya", "read"]],
         "note": "A single INSERT ... SELECT FROM json_each(?) with the batch as one JSON parameter passed the tests but Tom refused it: nobody reads that SQL and Priya copies the insert pattern."},
        {"id": "d1", "type": "decision",
         "match": [["chunk"], ["20"], ["batch", "transaction"]],
         "note": "Inserts are chunked to floor(100 / columns) = 20 rows per statement, all chunks in one env.DB.batch() so a POST is stored entirely or not at all (202 must mean stored)."},
        {"id": "b2", "type": "bug_note",
         "match": [["UNIQUE", "resen", "retr"], ["ON CONFLICT"]],
         "note": "A resent batch failed on UNIQUE constraint events.id and rolled back the whole batch, losing new events with it; now ON CONFLICT (id) DO NOTHING."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["deploy"], ["laptop", "GH action", "CI"], ["migration"]],
         "note": "Never deploy the Worker from a laptop: the GitHub Action applies the D1 migrations before deploying (skipped once in March: two hours writing to a missing column)."},
        {"id": "t1", "type": "todo",
         "match": [["90 days"], ["cleanup", "older"]],
         "note": "Someone should add a cleanup for events older than 90 days (table grows fast) — not now."},
        {"id": "q1", "type": "open_question",
         "match": [["ios"], ["500"], ["Jonas"]],
         "note": "Does the iOS SDK really cap batches at 500 events (Android does)? Tom asks Jonas."},
        {"id": "q2", "type": "open_question", "required": False,
         "match": [["SDK"], ["500s", "already be gone"]],
         "note": "Unchecked: how the SDK handled today's 500s; those batches may be gone from the phones."},
        {"id": "v1", "type": "verified_command", "command": "npx vitest run && npx tsc --noEmit"},
        {"id": "v2", "type": "verified_command", "command": "npx vitest run", "required": False},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"]],
}
