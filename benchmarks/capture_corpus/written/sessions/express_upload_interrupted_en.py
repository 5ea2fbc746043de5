# ruff: noqa: E501  (verbatim command output and file contents)
"""Express upload limit mismatch; the user interrupts a long e2e run and redirects (English)."""

from make_sessions import Session

NGINX = '''server {
    listen 80;
    server_name _;

    client_max_body_size 10m;

    location /api/ {
        proxy_pass http://api:3000/;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_read_timeout 60s;
    }

    location / {
        root /usr/share/nginx/html;
        try_files $uri /index.html;
    }
}
'''

UPLOAD = '''import { Router } from "express";
import multer from "multer";
import { storeAttachment } from "../services/attachments";

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024; // product limit, see help center "Attachments"

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES } });

export const uploadRouter = Router();

uploadRouter.post("/attachments", upload.single("file"), async (req, res) => {
  if (!req.file) return res.status(400).json({ error: "file_missing" });
  const saved = await storeAttachment(req.user.id, req.file);
  res.status(201).json(saved);
});
'''

ERRORS = '''import type { ErrorRequestHandler } from "express";
import { logger } from "../logger";

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  logger.error({ err, path: req.path }, "unhandled error");
  res.status(500).json({ error: "internal_error" });
};
'''

TEST = '''import request from "supertest";
import { describe, expect, it } from "vitest";
import { app } from "../src/app";
import { authHeader } from "./helpers";

describe("POST /attachments", () => {
  it("stores a small file", async () => {
    const res = await request(app)
      .post("/attachments")
      .set(authHeader())
      .attach("file", Buffer.alloc(1024), "small.pdf");
    expect(res.status).toBe(201);
  });
});
'''


def build() -> Session:
    s = Session("express-upload-interrupted-en", cwd="/Users/tomas/dev/helpdesk", branch="fix/upload-413",
                start="2026-03-12T13:07:15.992Z", version="2.1.50", stop_reasons=True,
                slug="nimble-stacking-quail")
    s.user("customers say attachments over 10MB fail with a 413 page, but our help center says 25MB "
           "is the limit. can you fix it?", wait=4)
    s.call(s.read_call("deploy/nginx/app.conf", NGINX), s.read_call("src/routes/upload.ts", UPLOAD))
    s.say(
        "Found the mismatch: the API accepts 25 MB (`MAX_UPLOAD_BYTES` in `src/routes/upload.ts`, "
        "which the help center documents), but nginx in front of it has `client_max_body_size "
        "10m`, so anything over 10 MB is rejected by nginx with its HTML 413 page before the API "
        "sees it. The product limit is the 25 MB one, so nginx should follow it — with a little "
        "headroom, because the multipart body is slightly bigger than the file itself."
    )
    s.edit("deploy/nginx/app.conf", "    client_max_body_size 10m;",
           "    # API limit is 25 MB per file (MAX_UPLOAD_BYTES); multipart overhead needs a bit more.\n"
           "    client_max_body_size 26m;")
    s.bash("docker run --rm -v \"$PWD/deploy/nginx:/etc/nginx/conf.d:ro\" nginx:1.27 nginx -t 2>&1 | tail -3", """\
nginx: the configuration file /etc/nginx/nginx.conf syntax is ok
nginx: configuration file /etc/nginx/nginx.conf test is successful""", desc="Validate nginx config", secs=6.0)
    s.say("Config is valid. Let me run the end-to-end suite to check a real 20 MB upload goes "
          "through the whole stack.")
    s.call(s.rejected_call("Bash", {"command": "pnpm test:e2e 2>&1 | tail -30",
                                    "description": "Run e2e suite", "timeout": 900000}, secs=21.0))
    s.interrupt(for_tool=True)
    s.user("don't run the e2e suite locally, it spins up the whole docker stack and takes 15 min. "
           "unit tests only here, e2e runs in CI on the PR", wait=14)
    s.say("Understood — unit tests only. I'll add a unit test for the oversized case on the API "
          "side too, since nginx is no longer the one rejecting 25 MB+ files.")
    s.read("test/upload.test.ts", TEST)
    s.edit("test/upload.test.ts", '''    expect(res.status).toBe(201);
  });
});''', '''    expect(res.status).toBe(201);
  });

  it("rejects a file over the limit with a JSON 413", async () => {
    const res = await request(app)
      .post("/attachments")
      .set(authHeader())
      .attach("file", Buffer.alloc(25 * 1024 * 1024 + 1), "big.pdf");
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("file_too_large");
  });
});''')
    s.bash("pnpm test -- upload 2>&1 | tail -20", """\

 ❯ test/upload.test.ts (2 tests | 1 failed) 1204ms
   ✓ POST /attachments > stores a small file 41ms
   × POST /attachments > rejects a file over the limit with a JSON 413 1158ms
     → expected 500 to be 413 // Object.is equality

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)""", desc="Unit tests for uploads", secs=6.0)
    s.read("src/middleware/errors.ts", ERRORS)
    s.say(
        "As suspected: when multer hits `fileSize` it throws a `MulterError` with code "
        "`LIMIT_FILE_SIZE`, and our error handler turns every error into a 500. Users with a "
        "26 MB file would now get a generic server error instead of nginx's 413 — arguably "
        "worse. Mapping it to a 413 with a JSON body the frontend can show:"
    )
    s.edit("src/middleware/errors.ts", '''import type { ErrorRequestHandler } from "express";
import { logger } from "../logger";

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {''', '''import type { ErrorRequestHandler } from "express";
import { MulterError } from "multer";
import { logger } from "../logger";

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof MulterError && err.code === "LIMIT_FILE_SIZE") {
    return res.status(413).json({ error: "file_too_large" });
  }''')
    s.bash("pnpm test -- upload 2>&1 | tail -20", """\

 ✓ test/upload.test.ts (2 tests) 1187ms

 Test Files  1 passed (1)
      Tests  2 passed (2)""", desc="Unit tests for uploads", secs=6.0)
    s.say("Both pass. Summary of the change so far:\n\n- `deploy/nginx/app.conf`: "
          "`client_max_body_size` 10m → 26m\n- `src/middleware/errors.ts`: `LIMIT_FILE_SIZE` → 413 "
          "`{\"error\": \"file_too_large\"}` instead of a 500\n- `test/upload.test.ts`: oversized "
          "upload test\n\nThe frontend currently shows")
    s.interrupt(wait=3)
    s.user("also put the limit in the error body so the frontend can say \"max 25 MB\" without "
           "hardcoding it", wait=20)
    s.edit("src/middleware/errors.ts", '''    return res.status(413).json({ error: "file_too_large" });''',
           '''    return res.status(413).json({ error: "file_too_large", max_mb: MAX_UPLOAD_BYTES / (1024 * 1024) });''')
    s.edit("src/middleware/errors.ts", '''import { logger } from "../logger";''',
           '''import { logger } from "../logger";
import { MAX_UPLOAD_BYTES } from "../routes/upload";''')
    s.edit("test/upload.test.ts", '''    expect(res.body.error).toBe("file_too_large");''',
           '''    expect(res.body).toEqual({ error: "file_too_large", max_mb: 25 });''')
    s.bash("pnpm tsc --noEmit && pnpm test -- upload 2>&1 | tail -20", """\

 ✓ test/upload.test.ts (2 tests) 1192ms

 Test Files  1 passed (1)
      Tests  2 passed (2)""", desc="Type check and unit tests", secs=16.0)
    s.say(
        "Done — the 413 body is now `{\"error\": \"file_too_large\", \"max_mb\": 25}`, read from "
        "`MAX_UPLOAD_BYTES`, so the number lives in one place. Unit tests and `tsc` pass; the "
        "e2e suite will run in CI on the PR.\n\n"
        "One thing I couldn't check from the repo: production traffic goes through CloudFront "
        "before nginx, and I don't see its config here. If there's a body-size rule or a WAF "
        "limit there, 10–25 MB uploads could still be cut off before reaching nginx."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "a long-running tool use interrupted by the user, then a rule (no e2e locally)",
        "an interruption during streaming text ('[Request interrupted by user]')",
        "test failure behind `| tail` then pass",
        "docker run with quoted $PWD volume",
        "stop_reason set on final blocks",
        "open question at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["e2e"], ["CI", "15 min", "docker"]],
         "note": "Don't run the e2e suite locally (whole docker stack, 15 min); unit tests only, "
                 "e2e runs in CI on the PR."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["client_max_body_size"], ["25", "26m"]],
         "note": "Uploads over 10 MB got nginx's 413: client_max_body_size was 10m while the API "
                 "and help center allow 25 MB; nginx now allows 26m."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["LIMIT_FILE_SIZE", "MulterError"], ["413", "500"]],
         "note": "multer's LIMIT_FILE_SIZE error fell through to a 500; the error handler maps it "
                 "to 413 {error: file_too_large, max_mb}."},
        {"id": "x1", "type": "decision", "required": False,
         "match": [["max_mb"], ["MAX_UPLOAD_BYTES"]],
         "note": "The 413 body carries max_mb read from MAX_UPLOAD_BYTES so the frontend doesn't "
                 "hardcode the limit."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["CloudFront"]],
         "note": "CloudFront in front of nginx may have its own body-size/WAF limit; not checked."},
        {"id": "v1", "type": "verified_command", "command": "pnpm test -- upload"},
        {"id": "v2", "type": "verified_command", "command": "pnpm tsc --noEmit && pnpm test -- upload"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "docker run --rm -v \"$PWD/deploy/nginx:/etc/nginx/conf.d:ro\" nginx:1.27 nginx -t"},
    ],
    "secrets": [],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"]],
}
