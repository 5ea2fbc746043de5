# ruff: noqa: E501  (verbatim command output and file contents)
"""Go + htmx admin (chi, gorilla/csrf, html/template): a long 403 hunt with false leads and a compaction (English)."""

from make_sessions import Session

MAIN_GO = '''package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/gorilla/csrf"
)

func (s *Server) Routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.sessionMiddleware)
	protect := csrf.Protect(s.cfg.CSRFKey,
		csrf.Secure(s.cfg.Env != "dev"),
		csrf.SameSite(csrf.SameSiteStrictMode),
		csrf.Path("/"),
	)
	r.Use(protect)
	r.Handle("/static/*", http.StripPrefix("/static/", http.FileServer(http.Dir("static"))))
	r.Get("/stock", s.stockPage)
	r.Put("/stock/{sku}", s.updateStockRow)
	r.Delete("/stock/{sku}", s.deleteStockRow)
	return r
}
'''

LAYOUT = '''{{ define "layout" }}<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{{ .Title }} · Larder admin</title>
  <script src="/static/htmx-1.9.12.min.js"></script>
  <link rel="stylesheet" href="/static/admin.css">
</head>
<body>
  {{ template "content" . }}
</body>
</html>{{ end }}
'''

STOCK_TMPL = '''{{ define "content" }}
<table class="stock">
  <thead><tr><th>SKU</th><th>Name</th><th>On hand</th><th></th></tr></thead>
  <tbody>
  {{ range .Rows }}
    <tr id="row-{{ .SKU }}">
      <td>{{ .SKU }}</td>
      <td>{{ .Name }}</td>
      <td><input name="on_hand" value="{{ .OnHand }}" hx-put="/stock/{{ .SKU }}" hx-trigger="change" hx-target="closest tr" hx-swap="outerHTML"></td>
      <td><button hx-delete="/stock/{{ .SKU }}" hx-target="closest tr" hx-confirm="Delete {{ .SKU }}?">×</button></td>
    </tr>
  {{ end }}
  </tbody>
</table>
<form method="post" action="/stock/import" enctype="multipart/form-data">
  {{ .CSRFField }}
  <input type="file" name="csv"> <button>Import CSV</button>
</form>
{{ end }}
'''

HANDLER_TEST = '''package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestUpdateStockRow(t *testing.T) {
	srv := newTestServer(t)
	page := srv.get(t, "/stock")
	req := httptest.NewRequest(http.MethodPut, "/stock/OAT-1KG", strings.NewReader(url.Values{"on_hand": {"12"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	page.copyCookies(req)
	rec := srv.do(req)
	if rec.Code != http.StatusOK {
		t.Fatalf("expected 200, got %d: %s", rec.Code, rec.Body.String())
	}
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: Inline stock edits in the Larder admin (Go, chi, html/template, htmx 1.9.12 vendored in static/) return 403 since gorilla/csrf was added (PR #214). Fix it so edits save again. User rules: no npm / JS build step in this repo, htmx stays the vendored file in static/; the security team is turning on a CSP without 'unsafe-inline' next month, so no inline <script> blocks.
2. Key Technical Concepts: gorilla/csrf v1.7.2 (csrf.Protect, csrf.Token, csrf.TemplateField, header X-CSRF-Token), htmx hx-put/hx-delete on table cells, chi router.
3. Files and Code Sections:
   - internal/web/routes.go: csrf.Protect with Secure(env != dev), SameSiteStrictMode, Path("/").
   - templates/stock.html: the table; hx-put on the on_hand input, hx-delete on the button; the only CSRF field is inside the import form at the bottom.
   - internal/web/stock_test.go: TestUpdateStockRow (new), fails with 403 "Forbidden - CSRF token invalid".
4. Errors and fixes: SameSite Strict -> Lax tried, test still 403, reverted. Raising csrf.MaxAge tried, no change, reverted.
5. Pending Tasks: find why the PUT carries no token.
6. Current Work: about to compare what the browser sends for the PUT with what gorilla/csrf expects.'''


def build() -> Session:
    s = Session("htmx-go-csrf-compact-en", cwd="/home/kofi/src/larder-admin", branch="fix/stock-edit-403",
                start="2026-03-02T09:41:07.512Z", version="2.1.55", slug="forbidden-pantry-lynx")
    s.user(
        "inline edit on /stock stopped saving after #214 (the gorilla/csrf PR). every change on the on hand field gives 403 in the network tab. "
        "can you look. fyi no npm in this repo, htmx is the vendored file in static/ and stays that way",
        wait=4,
    )
    s.call(s.read_call("internal/web/routes.go", MAIN_GO), s.read_call("templates/stock.html", STOCK_TMPL))
    s.say(
        "First suspect is the cookie: with `SameSiteStrictMode`, an admin tab opened from a Slack link "
        "doesn't send the CSRF cookie on its first navigation. Let me write a test that reproduces the "
        "403 before changing anything."
    )
    s.write("internal/web/stock_test.go", HANDLER_TEST)
    s.bash("go test ./internal/web/... -run TestUpdateStockRow 2>&1 | tail -5", '''--- FAIL: TestUpdateStockRow (0.00s)
    stock_test.go:20: expected 200, got 403: Forbidden - CSRF token invalid
FAIL
FAIL	github.com/larderco/admin/internal/web	0.014s
FAIL''', desc="Reproduce the 403", secs=6)
    s.say("Reproduced. Trying Lax first:")
    s.edit("internal/web/routes.go", "csrf.SameSite(csrf.SameSiteStrictMode),", "csrf.SameSite(csrf.SameSiteLaxMode),")
    s.bash("go test ./internal/web/... -run TestUpdateStockRow 2>&1 | tail -5", '''--- FAIL: TestUpdateStockRow (0.00s)
    stock_test.go:20: expected 200, got 403: Forbidden - CSRF token invalid
FAIL
FAIL	github.com/larderco/admin/internal/web	0.013s
FAIL''', desc="Re-run", secs=6)
    s.say("Same 403, so the cookie isn't the problem — the message says the *token* is invalid, not missing cookie. Putting Strict back.")
    s.edit("internal/web/routes.go", "csrf.SameSite(csrf.SameSiteLaxMode),", "csrf.SameSite(csrf.SameSiteStrictMode),")
    s.turn_end()
    s.user("fwiw it works for the CSV import form. only the table is broken", wait=50)
    s.think("Import form has TemplateField. The table inputs don't. But the session cookie could also expire... check MaxAge.")
    s.say(
        "That fits: the import form posts the hidden `gorilla.csrf.Token` field, the table cells don't. "
        "Before going there I want to rule out the token going stale — the admin tab stays open all day."
    )
    s.grep("MaxAge|csrf\\.", content='''internal/web/routes.go:14:	protect := csrf.Protect(s.cfg.CSRFKey,
internal/web/routes.go:15:		csrf.Secure(s.cfg.Env != "dev"),
internal/web/routes.go:16:		csrf.SameSite(csrf.SameSiteStrictMode),
internal/web/routes.go:17:		csrf.Path("/"),
internal/web/stock.go:31:		"CSRFField": csrf.TemplateField(r),''', path="internal")
    s.edit("internal/web/routes.go", '''		csrf.Path("/"),
	)''', '''		csrf.Path("/"),
		csrf.MaxAge(24*3600),
	)''')
    s.bash("go test ./internal/web/... -run TestUpdateStockRow 2>&1 | tail -5", '''--- FAIL: TestUpdateStockRow (0.00s)
    stock_test.go:20: expected 200, got 403: Forbidden - CSRF token invalid
FAIL
FAIL	github.com/larderco/admin/internal/web	0.015s
FAIL''', desc="Re-run", secs=6)
    s.edit("internal/web/routes.go", '''		csrf.Path("/"),
		csrf.MaxAge(24*3600),
	)''', '''		csrf.Path("/"),
	)''')
    s.say("Not that either, removed it again.")
    s.turn_end()
    s.user(
        "ok. btw whatever you do, no inline <script> in the layout. security turns on the CSP without unsafe-inline next month and "
        "I don't want to be the one who breaks it",
        wait=35,
    )
    s.compact(SUMMARY, pre_tokens=161220)
    s.say(
        "Picking up: the PUT carries the cookie but no token. gorilla/csrf accepts the token either as "
        "the form field or as the `X-CSRF-Token` header. Checking what htmx actually sends for the input:"
    )
    s.bash("grep -o 'hx-include[^ ]*' -r templates/ ; grep -c CSRFField templates/stock.html", "1", desc="Where does the table get its token from")
    s.say(
        "Nothing — no `hx-include`, and the only CSRF field lives inside the import form. An `hx-put` "
        "on an `<input>` that isn't inside a `<form>` sends just that input's own value, so `on_hand=12` "
        "goes out and the token never does.\n\n"
        "The usual fix is an `htmx:configRequest` listener that adds the header, but that's an inline "
        "script or a new JS file, and with the CSP you mentioned inline is out. Instead I'll put "
        "`hx-headers` on `<body>`: htmx inherits it into every request below, so the PUT, the DELETE "
        "and anything added later get the header, and it's a plain attribute, not a script."
    )
    s.read("templates/layout.html", LAYOUT)
    s.edit("templates/layout.html", '''<body>''', '''<body hx-headers='{"X-CSRF-Token": "{{ .CSRFToken }}"}'>''')
    s.call(s.read_call("internal/web/render.go", '''package web

import (
	"net/http"

	"github.com/gorilla/csrf"
)

func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, data map[string]any) {
	data["CSRFField"] = csrf.TemplateField(r)
	if err := s.tmpl.ExecuteTemplate(w, name, data); err != nil {
		s.log.Error("render", "template", name, "err", err)
		http.Error(w, "template error", http.StatusInternalServerError)
	}
}
'''))
    s.edit("internal/web/render.go", '''	data["CSRFField"] = csrf.TemplateField(r)''', '''	data["CSRFField"] = csrf.TemplateField(r)
	data["CSRFToken"] = csrf.Token(r)''')
    s.edit("internal/web/stock_test.go", '''	page.copyCookies(req)''', '''	page.copyCookies(req)
	req.Header.Set("X-CSRF-Token", page.bodyHeader(t, "X-CSRF-Token"))''')
    s.bash("go test ./internal/web/... -run TestUpdateStockRow 2>&1 | tail -5", '''--- FAIL: TestUpdateStockRow (0.00s)
    stock_test.go:21: expected 200, got 403: Forbidden - CSRF token invalid
FAIL
FAIL	github.com/larderco/admin/internal/web	0.016s
FAIL''', desc="Re-run", secs=6)
    s.bash("go test ./internal/web/... -run TestUpdateStockRow -v 2>&1 | grep -i token", '''    helpers_test.go:48: hx-headers on body: {&#34;X-CSRF-Token&#34;: &#34;q8Jw…&#34;}''', desc="What token does the test read")
    s.say(
        "Still 403, but this time for a different reason: html/template escapes the attribute, so the "
        "JSON inside `hx-headers` comes out as `&#34;` entities and my test helper read it raw. The "
        "browser decodes entities in attributes, so in a real page this is fine; the helper has to "
        "unescape it like a browser would."
    )
    s.files[s.abs("internal/web/helpers_test.go")] = '''package web

import (
	"encoding/json"
	"regexp"
	"testing"
)

var hxHeaders = regexp.MustCompile(`hx-headers='([^']*)'`)

func (p page) bodyHeader(t *testing.T, name string) string {
	t.Helper()
	raw := hxHeaders.FindStringSubmatch(p.body)[1]
	t.Logf("hx-headers on body: %s", raw)
	var h map[string]string
	_ = json.Unmarshal([]byte(raw), &h)
	return h[name]
}
'''
    s.edit("internal/web/helpers_test.go", '''import (
	"encoding/json"''', '''import (
	"encoding/json"
	"html"''')
    s.edit("internal/web/helpers_test.go", '''	_ = json.Unmarshal([]byte(raw), &h)''', '''	if err := json.Unmarshal([]byte(html.UnescapeString(raw)), &h); err != nil {
		t.Fatalf("hx-headers is not JSON: %v", err)
	}''')
    s.bash("go test ./internal/web/... -run TestUpdateStockRow", "ok  \tgithub.com/larderco/admin/internal/web\t0.017s", desc="Re-run", secs=6)
    s.bash("go test ./... 2>&1 | tail -8", '''ok  	github.com/larderco/admin/internal/config	0.004s
ok  	github.com/larderco/admin/internal/importer	0.091s
ok  	github.com/larderco/admin/internal/store	0.412s
ok  	github.com/larderco/admin/internal/web	0.031s
?   	github.com/larderco/admin/cmd/admin	[no test files]''', desc="All tests", secs=14)
    s.bash("go vet ./...", "", desc="Vet", secs=5)
    s.say(
        "Fixed, and all packages pass (`go test ./...`, `go vet ./...` clean).\n\n"
        "**Why it broke:** #214 added gorilla/csrf, which rejects any unsafe method without a token. "
        "The CSV import works because its `<form>` renders `csrf.TemplateField`. The stock table's "
        "`hx-put`/`hx-delete` sit on elements outside any form, so htmx only sent the field's own "
        "value and the token never left the page — the SameSite and MaxAge changes I tried earlier "
        "were beside the point and are both reverted.\n\n"
        "**Change:** `render` passes `CSRFToken`, and `<body>` carries "
        "`hx-headers='{\"X-CSRF-Token\": …}'`, which every htmx request inherits. No script, so it "
        "survives the CSP without `unsafe-inline`.\n\n"
        "Not covered: the delete button has no test yet, and I didn't check whether anything outside "
        "the browser (scripts, the mobile scanner app?) calls `PUT /stock/{sku}` directly — those "
        "would now need the header too."
    )
    s.turn_end()
    s.user(
        "works in the browser 👍 someone should add the delete test, not now. and no idea about the scanner app tbh, "
        "does it still talk to /stock or only to the api service? I'll ask Ama",
        wait=210,
    )
    s.say("Noted — I'll leave both as they are.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Go admin UI with chi, html/template, gorilla/csrf and vendored htmx 1.9, English",
        "a long debugging session with two false leads (SameSite Lax, csrf.MaxAge), the second told mostly in text, both reverted",
        "rules said in passing: no npm / vendored htmx; no inline script because of a coming CSP (the decision's why sits in the user's message)",
        "compaction in the middle of the hunt",
        "a test failing behind `| tail` (exit 0) three times; a second failure for a different reason (entity-escaped attribute in the test helper)",
        "cause explained in the wrap-up after the fix; a todo said as 'someone should … not now'; an open question left to a colleague",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["npm"], ["vendored", "static/"]],
         "note": "No npm or JS build step in larder-admin; htmx stays the vendored file in static/."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["inline"], ["CSP", "unsafe-inline"]],
         "note": "No inline <script> in the layout: security enables a CSP without unsafe-inline next month."},
        {"id": "b1", "type": "bug_note",
         "match": [["403", "token invalid"], ["hx-put", "outside", "form"], ["csrf"]],
         "note": "Inline stock edits got 403 after gorilla/csrf: hx-put/hx-delete on cells outside any form never sent the CSRF token."},
        {"id": "d1", "type": "decision",
         "match": [["hx-headers"], ["X-CSRF-Token"], ["CSP", "inline", "no script", "not a script"]],
         "note": "The token goes to every htmx request via hx-headers on <body> (X-CSRF-Token) instead of an htmx:configRequest script, because of the no-inline CSP."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["SameSite"], ["Lax", "Strict"]],
         "note": "Switching csrf SameSite from Strict to Lax did not fix the 403 (reverted)."},
        {"id": "f2", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["MaxAge"]],
         "note": "Raising csrf.MaxAge did not help either (reverted); the token wasn't stale, it was never sent."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "project_fact"], "required": False,
         "match": [["&#34;", "entities", "escapes"], ["hx-headers", "helper"]],
         "note": "html/template entity-escapes the JSON in hx-headers; browsers decode it, the test helper must html.UnescapeString."},
        {"id": "t1", "type": "todo",
         "match": [["delete"], ["test"]],
         "note": "Someone should add a test for the delete button (hx-delete) too."},
        {"id": "q1", "type": "open_question",
         "match": [["scanner"], ["Ama", "api service", "/stock"]],
         "note": "Does the scanner app still call /stock directly (would now need the CSRF header) or only the api service? Kofi asks Ama."},
        {"id": "v1", "type": "verified_command", "command": "go test ./internal/web/... -run TestUpdateStockRow"},
        {"id": "v2", "type": "verified_command", "command": "go test ./..."},
        {"id": "v3", "type": "verified_command", "command": "go vet ./..."},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["Primary Request and Intent"]],
}
