# ruff: noqa: E501  (verbatim command output and file contents)
"""Cloudflare DNS adopted into a Pulumi TypeScript stack; a Task subagent writes the records; API token in the prompt (English)."""

from make_sessions import Call, Session

CF_TOKEN = "Xq7vR2mL9tKc4WnB8yPd3HsZ6gJf1AeU5oNi0bTw"

INDEX = '''import * as pulumi from "@pulumi/pulumi";
import * as cloudflare from "@pulumi/cloudflare";

const config = new pulumi.Config();
const zoneId = config.require("zoneId");

export const zone = cloudflare.getZoneOutput({ zoneId });
'''

AGENT_PROMPT = """In /home/ines/work/platform/infra (Pulumi, TypeScript, @pulumi/cloudflare 5.x) adopt the existing DNS records of zone `tidepool.dev` into code.
- The export is in /tmp/tidepool-records.json (27 records, from the Cloudflare API).
- Put the records as plain data in infra/dns/records.ts and create them in infra/dns/index.ts with one loop over that table, not 27 hand-written resources.
- Each resource gets `import: "<zoneId>/<recordId>"` so Pulumi adopts the existing record and never recreates it, and `protect: true` (every prod resource in this repo is protected).
- Use `content`, not the deprecated `value`.
- Export nothing new from index.ts except what's needed. Report the files you changed."""

AGENT_REPORT = """Done.

- **infra/dns/records.ts** (new): 27 entries `{ name, type, content, ttl, proxied, recordId }` taken from the export. `proxied` copied from the export per record.
- **infra/dns/index.ts** (new): loops over the table, `new cloudflare.Record(`${r.type}-${r.name}-${r.recordId.slice(0, 6)}`, {...}, { import: `${zoneId}/${r.recordId}`, protect: true })`.
- **infra/index.ts**: `import "./dns";`

I ran `npx tsc --noEmit` (clean). I did not run `pulumi preview`: no Cloudflare credentials in my environment."""

RECORDS_TS = '''export interface DnsRecord {
  name: string;
  type: "A" | "AAAA" | "CNAME" | "MX" | "TXT";
  content: string;
  ttl: number;
  proxied: boolean;
  recordId: string;
  priority?: number;
}

export const records: DnsRecord[] = [
  { name: "tidepool.dev", type: "A", content: "203.0.113.24", ttl: 1, proxied: true, recordId: "4b1c0e6f2a9d4f3e8c7b1a2d3e4f5a6b" },
  { name: "www", type: "CNAME", content: "tidepool.dev", ttl: 1, proxied: true, recordId: "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b" },
  { name: "api", type: "A", content: "203.0.113.31", ttl: 1, proxied: true, recordId: "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d" },
  { name: "tidepool.dev", type: "MX", content: "aspmx.l.google.com", ttl: 3600, proxied: false, recordId: "7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c" },
  { name: "tidepool.dev", type: "MX", content: "alt1.aspmx.l.google.com", ttl: 3600, proxied: false, recordId: "2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f" },
  { name: "_dmarc", type: "TXT", content: "v=DMARC1; p=quarantine; rua=mailto:dmarc@tidepool.dev", ttl: 3600, proxied: false, recordId: "5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a" },
  // … 21 more
];
'''

PREVIEW_FAIL = '''Previewing update (prod)

     Type                      Name                       Plan       Info
     pulumi:pulumi:Stack       platform-infra-prod                   2 errors
 =   ├─ cloudflare:index:Record  A-tidepool.dev-4b1c0e      import
 =   ├─ cloudflare:index:Record  CNAME-www-9e8d7c           import
 =   ├─ cloudflare:index:Record  A-api-1a2b3c               import
 =   ├─ cloudflare:index:Record  MX-tidepool.dev-7f6e5d     import     1 error
 =   ├─ cloudflare:index:Record  MX-tidepool.dev-2c3d4e     import     1 error
     …

Diagnostics:
  cloudflare:index:Record (MX-tidepool.dev-7f6e5d):
    error: inputs to import do not match the existing resource; importing this resource will fail

    warning: inputs to import do not match the existing resource:
      [urn=urn:pulumi:prod::platform-infra::cloudflare:index/record:Record::MX-tidepool.dev-7f6e5d]
      + priority: 1

  cloudflare:index:Record (MX-tidepool.dev-2c3d4e):
    error: inputs to import do not match the existing resource; importing this resource will fail

Resources:
    25 to import
    2 errored'''


def build() -> Session:
    s = Session("pulumi-dns-subagent-en", cwd="/home/ines/work/platform", branch="infra/dns-in-pulumi",
                start="2026-02-17T10:05:12.733Z", version="2.1.44", slug="adopting-dns-otter",
                stop_reasons=True)
    s.user(
        "our DNS for tidepool.dev is still clicked together in the Cloudflare dashboard. I want all "
        "of it in the pulumi stack under infra/ (prod stack only for now). here's a token for it, "
        f"zone:read + dns:edit on that zone only: {CF_TOKEN}\n\n"
        "it must not end up in Pulumi.prod.yaml in plaintext, use a pulumi secret. and nothing may "
        "be recreated, if the MX records blink we lose mail",
        wait=5,
    )
    s.call(s.read_call("infra/index.ts", INDEX), s.read_call("infra/Pulumi.prod.yaml", '''config:
  platform-infra:zoneId: 8a1f0c2e6b9d4e7f8a3c5b1d2e4f6a8c
'''))
    s.bash("cd infra && pulumi stack ls", '''NAME     LAST UPDATE  RESOURCE COUNT  URL
prod*    3 weeks ago  4               https://app.pulumi.com/tidepool/platform-infra/prod''', desc="Pulumi stacks")
    s.bash(f"cd infra && pulumi config set --secret cloudflare:apiToken {CF_TOKEN} --stack prod && grep apiToken Pulumi.prod.yaml",
           '''  cloudflare:apiToken:
    secure: AAABAMt1Kq1Ww0x6y8v0h3dEo7pZ2P0e3mQnT5cR9bLzGx3vVf2uKk4lYjH8sNq1Dw6aXe7rCb0o''',
           desc="Store the token as a Pulumi secret")
    s.user_text_block("also: everything in prod gets protect: true. someone deleted the apex record in a refactor last year", wait=12)
    s.say("Will do — every record gets `protect: true`.")
    s.say("Stored encrypted (`secure:` in Pulumi.prod.yaml). Exporting the current records:")
    s.bash("curl -s -H \"Authorization: Bearer $(cd infra && pulumi config get cloudflare:apiToken --stack prod)\" "
           "'https://api.cloudflare.com/client/v4/zones/8a1f0c2e6b9d4e7f8a3c5b1d2e4f6a8c/dns_records?per_page=100' "
           "> /tmp/tidepool-records.json && jq '.result | length' /tmp/tidepool-records.json",
           "27", desc="Export DNS records")
    s.say(
        "27 records. Plan: adopt them with the `import` resource option — an import only records the existing record in state, so nothing is deleted or "
        "recreated and the MX records never blink. I'll let a subagent write the 27 records and "
        "keep this context for checking the preview."
    )
    s.call(Call("Task", {"description": "Write DNS records as Pulumi code", "prompt": AGENT_PROMPT,
                         "subagent_type": "general-purpose"},
                [{"type": "text", "text": AGENT_REPORT},
                 {"type": "text", "text": "agentId: b81e4d2 (for resuming to continue this agent's work if needed)"}],
                {"status": "completed", "prompt": AGENT_PROMPT, "agentId": "b81e4d2",
                 "content": [{"type": "text", "text": AGENT_REPORT}], "totalDurationMs": 182004,
                 "totalTokens": 39117, "totalToolUseCount": 14,
                 "usage": {"input_tokens": 7, "cache_creation_input_tokens": 4410,
                           "cache_read_input_tokens": 33190, "output_tokens": 1510}}, secs=182))
    s.bash("cd infra && pulumi preview --stack prod --diff 2>&1 | tail -30", PREVIEW_FAIL, desc="Preview the import", secs=35)
    s.call(s.read_call("infra/dns/records.ts", RECORDS_TS))
    s.say(
        "Two errors, both MX: `inputs to import do not match the existing resource … + priority`. "
        "The table has no `priority` for MX records, so Pulumi would import them with a different "
        "priority than Cloudflare has — an import must match exactly. The export has 1 and 5."
    )
    s.edit("infra/dns/records.ts", '''content: "aspmx.l.google.com", ttl: 3600, proxied: false,''',
           '''content: "aspmx.l.google.com", ttl: 3600, proxied: false, priority: 1,''')
    s.edit("infra/dns/records.ts", '''content: "alt1.aspmx.l.google.com", ttl: 3600, proxied: false,''',
           '''content: "alt1.aspmx.l.google.com", ttl: 3600, proxied: false, priority: 5,''')
    s.bash("cd infra && pulumi preview --stack prod --diff 2>&1 | tail -6", '''Resources:
    27 to import
    4 unchanged

Duration: 9s''', desc="Preview the import", secs=30)
    s.bash("cd infra && npx tsc --noEmit", "", desc="Typecheck")
    s.say(
        "Preview is clean: 27 to import, nothing to create, update or delete. I haven't run "
        "`pulumi up` — that's yours to run (`cd infra && pulumi up --stack prod`)."
    )
    s.turn_end()
    s.user(
        "ran up, 27 imported. now take the import: lines out again, they're only needed once",
        wait=420,
    )
    s.call(s.read_call("infra/dns/index.ts", '''import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { records } from "./records";

const zoneId = new pulumi.Config().require("zoneId");

for (const r of records) {
  new cloudflare.Record(`${r.type}-${r.name}-${r.recordId.slice(0, 6)}`, {
    zoneId,
    name: r.name,
    type: r.type,
    content: r.content,
    ttl: r.ttl,
    proxied: r.proxied,
    priority: r.priority,
  }, { import: `${zoneId}/${r.recordId}`, protect: true });
}
'''))
    s.edit_rejected("infra/dns/index.ts", '''  }, { import: `${zoneId}/${r.recordId}`, protect: true });''', '''  }, { protect: true, ignoreChanges: ["content"] });''',
                    reason="why ignoreChanges on content? no. the whole point is that code is the source of truth now. just drop import")
    s.edit("infra/dns/index.ts", '''  }, { import: `${zoneId}/${r.recordId}`, protect: true });''', '''  }, { protect: true });''')
    s.bash("cd infra && pulumi preview --stack prod 2>&1 | tail -4", '''Resources:
    31 unchanged

Duration: 6s''', desc="Preview after removing import", secs=25)
    s.say(
        "Done: `import` removed, `protect: true` kept, preview shows 31 unchanged.\n\n"
        "Left open:\n- the `_dmarc` TXT record is edited by the mail vendor in the dashboard now and "
        "then; with code as the source of truth, the next `pulumi up` would revert their change. "
        "Someone should tell them, or move that record out of the stack.\n- the staging zone isn't "
        "in the stack yet."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Pulumi TypeScript + Cloudflare provider, English",
        "Cloudflare API token pasted in the prompt and then typed into a `pulumi config set --secret` command (secret)",
        "a rule about the token (Pulumi secret, never plaintext in Pulumi.prod.yaml) and a no-recreate rule with its reason (MX, mail)",
        "a rule sent as an extra user message with its reason (protect: true in prod), passed on to a Task subagent that writes the records (only its prompt and report visible)",
        "pulumi preview failing behind `| tail` (import inputs mismatch, MX priority), then clean",
        "an Edit rejected with the user's reason (no ignoreChanges: code is the source of truth)",
        "todos at the end (_dmarc edited by the vendor; staging zone)",
        "stop_reason on final blocks",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Pulumi.prod.yaml"], ["secret"], ["plaintext"]],
         "note": "The Cloudflare token must never be in Pulumi.prod.yaml in plaintext: stored with pulumi config set --secret."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "decision"],
         "match": [["recreate", "recreated"], ["MX", "mail"]],
         "note": "Nothing may be recreated when adopting DNS: if the MX records blink, mail is lost."},
        {"id": "d1", "type": "decision",
         "match": [["import"], ["recreat", "blink", "nothing is deleted"]],
         "note": "Existing records are adopted with the `import` resource option, so nothing is deleted or recreated."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "project_fact", "preference"],
         "match": [["protect: true", "protect"], ["prod"]],
         "note": "Everything in prod gets protect: true (someone deleted the apex record in a refactor last year)."},
        {"id": "d2", "type": "decision", "required": False,
         "match": [["records.ts"], ["loop", "table"]],
         "note": "Records are plain data in infra/dns/records.ts, created by one loop in infra/dns/index.ts."},
        {"id": "b1", "type": "bug_note",
         "match": [["inputs to import do not match"], ["priority"]],
         "note": "pulumi preview: 'inputs to import do not match the existing resource' for the MX records: the table had no priority; added 1 and 5."},
        {"id": "c4", "type": "preference", "types": ["preference", "constraint"],
         "match": [["ignoreChanges"], ["source of truth"]],
         "note": "No ignoreChanges on records: code is the source of truth now."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["_dmarc"], ["vendor", "dashboard"]],
         "note": "The mail vendor edits _dmarc in the dashboard; pulumi up would revert it: tell them or move the record out of the stack."},
        {"id": "t2", "type": "todo",
         "match": [["staging"], ["zone", "stack"]],
         "note": "The staging zone isn't in the Pulumi stack yet."},
        {"id": "v1", "type": "verified_command", "command": "cd infra && pulumi preview --stack prod --diff"},
        {"id": "v2", "type": "verified_command", "command": "cd infra && npx tsc --noEmit"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "cd infra && pulumi preview --stack prod"},
    ],
    "secrets": [CF_TOKEN],
    "forbidden": [["agentId:"], ["for resuming to continue this agent"], ["doesn't want to proceed"]],
}
