# ruff: noqa: E501  (verbatim command output and file contents)
"""Read-only question about Deno permission prompts: nothing to remember (English)."""

from make_sessions import Session

DENO_JSON = '''{
  "tasks": {
    "dev": "deno run --watch --allow-net --allow-read=. main.ts",
    "test": "deno test --allow-net --allow-read=. --allow-env",
    "check": "deno fmt --check && deno lint && deno check main.ts"
  },
  "imports": {
    "@std/http": "jsr:@std/http@^1.0.13",
    "@std/path": "jsr:@std/path@^1.0.8",
    "hono": "jsr:@hono/hono@^4.7.2",
    "postgres": "npm:postgres@^3.4.5"
  }
}
'''

MAIN = '''import { Hono } from "hono";
import { serveStatic } from "hono/deno";
import { sql } from "./db.ts";

const app = new Hono();

app.get("/api/health", (c) => c.json({ ok: true }));
app.get("/api/links", async (c) => c.json(await sql`select slug, url from links order by created_at desc limit 50`));
app.use("/*", serveStatic({ root: "./public" }));

Deno.serve({ port: 8787 }, app.fetch);
'''

DB = '''import postgres from "postgres";

export const sql = postgres({
  host: "localhost",
  port: 5432,
  database: "shortlinks",
  username: "shortlinks",
});
'''


def build() -> Session:
    s = Session("deno-permissions-explain-en", cwd="/home/jess/code/shortlinks", branch="main",
                start="2026-03-13T19:22:07.455Z", version="2.1.51", model="claude-sonnet-4-6")
    s.user("quick question, don't change anything: why does `deno task dev` stop and ask me "
           "about env access every time I start it? I never call Deno.env anywhere",
           wait=5)
    s.call(s.read_call("deno.json", DENO_JSON), s.read_call("main.ts", MAIN))
    s.grep("Deno\\.env", [], path=".")
    s.read("db.ts", DB)
    s.bash("deno info main.ts 2>/dev/null | grep -E 'npm:|jsr:' | head -8", """\
├─┬ jsr:@hono/hono@4.7.2/deno
├── jsr:@hono/hono@4.7.2/hono
├─┬ npm:/postgres@3.4.5
│ ├── npm:/postgres@3.4.5/cjs/src/index.js""", desc="Dependency tree")
    s.say(
        "You're right that none of your code touches `Deno.env` — the prompt comes from the "
        "`postgres` npm package.\n\n"
        "When you create the client in `db.ts`, postgres.js fills in every option you didn't "
        "pass from the usual libpq environment variables: it reads `PGHOST`, `PGPORT`, "
        "`PGUSER`, `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE` and so on, and falls back to "
        "`USER`/`USERNAME` for the user name. In Node that's free; in Deno each "
        "`process.env` read goes through the permission system, and your `dev` task only "
        "grants `--allow-net` and `--allow-read=.`, so Deno pauses and asks.\n\n"
        "The `test` task doesn't show it because it already has `--allow-env`.\n\n"
        "If you ever want the prompt gone, the usual choices are `--allow-env` on the dev "
        "task or a scoped `--allow-env=PGHOST,PGPORT,…` if you'd rather keep it tight — but "
        "as asked, I haven't changed anything."
    )
    s.turn_end()
    s.user("ahh that makes sense, thanks!", wait=40)
    s.say("Anytime!")
    s.turn_end()
    s.local_command("cost", "Total cost:            $0.09\nTotal duration (API):  21.4s\n"
                    "Total duration (wall): 1m 12.6s\nTotal code changes:    0 lines added, 0 lines removed",
                    wait=8)
    return s


GOLD = {
    "covers": [
        "empty: read-only Read/Grep/`deno info` and an explanation the user asked for",
        "'don't change anything' in the prompt",
        "/cost local command at the end",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
