# ruff: noqa: E501  (verbatim command output and file contents)
"""Go CLI with cobra: a flag-renaming chore with lots of routine steps (reads, renames, gofmt, green tests) and only a few things worth keeping (English)."""

from make_sessions import Session

ROOT_GO = '''package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var (
	cfgFile string
	dryRun  bool
)

var rootCmd = &cobra.Command{
	Use:   "punch",
	Short: "punch tracks time against tickets",
}

func Execute() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func init() {
	rootCmd.PersistentFlags().StringVar(&cfgFile, "config", "", "config file (default $HOME/.punch.yaml)")
	rootCmd.PersistentFlags().BoolVar(&dryRun, "dry_run", false, "print what would be written")
}
'''

REPORT_GO = '''package cmd

import (
	"encoding/json"
	"log"
	"os"
	"time"

	"github.com/hollowtree/punch/internal/store"
	"github.com/spf13/cobra"
)

var (
	reportSince  string
	outputFormat string
)

var reportCmd = &cobra.Command{
	Use:   "report",
	Short: "summarise tracked time",
	RunE: func(cmd *cobra.Command, args []string) error {
		since, err := time.Parse("2006-01-02", reportSince)
		if err != nil {
			return err
		}
		rows, err := store.Open(cfgFile).Summary(since)
		if err != nil {
			return err
		}
		log.Printf("report: %d rows since %s", len(rows), reportSince)
		switch outputFormat {
		case "json":
			return json.NewEncoder(os.Stdout).Encode(rows)
		default:
			return printTable(os.Stdout, rows)
		}
	},
}

func init() {
	reportCmd.Flags().StringVar(&reportSince, "sinceDate", time.Now().AddDate(0, 0, -7).Format("2006-01-02"), "first day to include")
	reportCmd.Flags().StringVar(&outputFormat, "outputFormat", "table", "table or json")
	rootCmd.AddCommand(reportCmd)
}
'''

IN_GO = '''package cmd

import (
	"fmt"

	"github.com/hollowtree/punch/internal/store"
	"github.com/spf13/cobra"
)

var ticketID string

var inCmd = &cobra.Command{
	Use:   "in",
	Short: "start the clock on a ticket",
	RunE: func(cmd *cobra.Command, args []string) error {
		if dryRun {
			fmt.Printf("would start %s\\n", ticketID)
			return nil
		}
		if err := store.Open(cfgFile).Start(ticketID); err != nil {
			return err
		}
		fmt.Printf("⏱️  started %s\\n", ticketID)
		return nil
	},
}

func init() {
	inCmd.Flags().StringVar(&ticketID, "ticket_id", "", "ticket to track (e.g. OPS-412)")
	_ = inCmd.MarkFlagRequired("ticket_id")
	rootCmd.AddCommand(inCmd)
}
'''

REPORT_TEST = '''package cmd

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestReportJSONIsParseable(t *testing.T) {
	out := runCLI(t, "report", "--output", "json", "--since", "2026-03-01", "--config", testConfig(t))
	var rows []map[string]any
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&rows); err != nil {
		t.Fatalf("stdout is not JSON: %v\\n%s", err, out)
	}
	if len(rows) != 3 {
		t.Fatalf("want 3 rows, got %d", len(rows))
	}
}
'''

HELPERS_TEST = '''package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func runCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	old := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	rootCmd.SetArgs(args)
	err := rootCmd.Execute()
	w.Close()
	os.Stdout = old
	_, _ = out.ReadFrom(r)
	if err != nil {
		t.Fatalf("punch %v: %v", args, err)
	}
	return out.Bytes()
}

func testConfig(t *testing.T) string {
	t.Helper()
	return filepath.Join("testdata", "punch.yaml")
}
'''

STORE_GO = '''package store

import (
	"database/sql"
	"log"
	"os"
	"time"

	_ "modernc.org/sqlite"
)

type Store struct {
	db *sql.DB
}

type Row struct {
	Ticket  string `json:"ticket"`
	Minutes int    `json:"minutes"`
}

// Open opens the SQLite file named in the config (or the default one).
func Open(cfgFile string) *Store {
	path := dbPath(cfgFile)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		log.Fatalf("open %s: %v", path, err)
	}
	if _, err := db.Exec(schema); err != nil {
		log.Fatalf("schema: %v", err)
	}
	log.SetOutput(os.Stdout) // TODO quieter
	return &Store{db: db}
}

func (s *Store) Summary(since time.Time) ([]Row, error) {
'''

OUT_GO = '''package cmd

import (
	"fmt"
	"time"

	"github.com/hollowtree/punch/internal/store"
	"github.com/spf13/cobra"
)

var outCmd = &cobra.Command{
	Use:   "out",
	Short: "stop the clock",
	RunE: func(cmd *cobra.Command, args []string) error {
		st := store.Open(cfgFile)
		ticketID, started, err := st.Running()
		if err != nil {
			return err
		}
		if dryRun {
			fmt.Printf("would stop %s\\n", ticketID)
			return nil
		}
		d := time.Since(started).Round(time.Minute)
		if err := st.Stop(ticketID); err != nil {
			return err
		}
		fmt.Printf("⏹️  stopped %s after %s\\n", ticketID, d)
		return nil
	},
}

func init() {
	rootCmd.AddCommand(outCmd)
}
'''

README_FLAGS = '''## Flags

| flag | command | meaning |
| --- | --- | --- |
| `--config` | all | config file |
| `--dry_run` | all | print what would be written |
| `--ticket_id` | in | ticket to track |
| `--sinceDate` | report | first day to include |
| `--outputFormat` | report | `table` or `json` |
'''


def build() -> Session:
    s = Session("go-cobra-flags-routine-en", cwd="/home/jun/src/punch", branch="chore/kebab-flags",
                start="2026-03-12T10:15:02.331Z", version="2.1.58", slug="kebab-flag-sweep")
    s.user(
        "chore for today: our flags are a mess (dry_run, ticket_id, sinceDate, outputFormat). make them all kebab-case: "
        "--dry-run --ticket --since --output. BUT keep the old names working as hidden aliases, the ops runbooks in the infra repo "
        "call punch with the old spellings and I'm not touching 40 runbooks this week",
        wait=4,
    )
    s.glob("cmd/*.go", ["cmd/root.go", "cmd/in.go", "cmd/out.go", "cmd/report.go", "cmd/helpers_test.go", "cmd/report_test.go"])
    s.call(s.read_call("cmd/root.go", ROOT_GO), s.read_call("cmd/report.go", REPORT_GO), s.read_call("cmd/in.go", IN_GO))
    s.bash("go test ./...", '''ok  	github.com/hollowtree/punch/cmd	0.412s
ok  	github.com/hollowtree/punch/internal/store	0.188s''', desc="Baseline tests", secs=14)
    s.say(
        "Baseline is green. For the aliases, rather than registering every flag twice (old and new, one hidden) "
        "I'll use cobra's normalization hook: `SetGlobalNormalizationFunc` maps `dry_run` → `dry-run`, "
        "`ticket_id` → `ticket` and so on before pflag looks the name up. One table in root.go, nothing "
        "duplicated in `--help`, and the runbooks keep working."
    )
    s.edit("cmd/root.go", '''func init() {
	rootCmd.PersistentFlags().StringVar(&cfgFile, "config", "", "config file (default $HOME/.punch.yaml)")
	rootCmd.PersistentFlags().BoolVar(&dryRun, "dry_run", false, "print what would be written")
}''', '''// legacyFlags maps the old flag spellings (still used by the ops runbooks) to the new ones.
var legacyFlags = map[string]string{
	"dry_run":      "dry-run",
	"ticket_id":    "ticket",
	"sinceDate":    "since",
	"outputFormat": "output",
}

func normalizeFlag(f *pflag.FlagSet, name string) pflag.NormalizedName {
	if n, ok := legacyFlags[name]; ok {
		return pflag.NormalizedName(n)
	}
	return pflag.NormalizedName(name)
}

func init() {
	rootCmd.SetGlobalNormalizationFunc(normalizeFlag)
	rootCmd.PersistentFlags().StringVar(&cfgFile, "config", "", "config file (default $HOME/.punch.yaml)")
	rootCmd.PersistentFlags().BoolVar(&dryRun, "dry-run", false, "print what would be written")
}''')
    s.edit("cmd/root.go", '''	"github.com/spf13/cobra"
)''', '''	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)''')
    s.edit("cmd/in.go", '''	inCmd.Flags().StringVar(&ticketID, "ticket_id", "", "ticket to track (e.g. OPS-412)")
	_ = inCmd.MarkFlagRequired("ticket_id")''', '''	inCmd.Flags().StringVar(&ticketID, "ticket", "", "ticket to track (e.g. OPS-412)")
	_ = inCmd.MarkFlagRequired("ticket")''')
    s.edit("cmd/report.go", '''	reportCmd.Flags().StringVar(&reportSince, "sinceDate", time.Now().AddDate(0, 0, -7).Format("2006-01-02"), "first day to include")
	reportCmd.Flags().StringVar(&outputFormat, "outputFormat", "table", "table or json")''', '''	reportCmd.Flags().StringVar(&reportSince, "since", time.Now().AddDate(0, 0, -7).Format("2006-01-02"), "first day to include")
	reportCmd.Flags().StringVar(&outputFormat, "output", "table", "table or json")''')
    s.grep("ticket_id|dry_run|sinceDate|outputFormat", content='''cmd/root.go:23:	"dry_run":      "dry-run",
cmd/root.go:24:	"ticket_id":    "ticket",
cmd/root.go:25:	"sinceDate":    "since",
cmd/root.go:26:	"outputFormat": "output",
cmd/out.go:20:		if dryRun {
cmd/report_test.go:9:	out := runCLI(t, "report", "--outputFormat", "json", "--sinceDate", "2026-03-01", "--config", testConfig(t))
README.md:31:| `--dry_run` | all | print what would be written |
README.md:32:| `--ticket_id` | in | ticket to track |
README.md:33:| `--sinceDate` | report | first day to include |
README.md:34:| `--outputFormat` | report | `table` or `json` |''', path=".")
    s.call(s.read_call("cmd/report_test.go", REPORT_TEST.replace('"--output", "json", "--since"', '"--outputFormat", "json", "--sinceDate"')),
           s.read_call("cmd/helpers_test.go", HELPERS_TEST))
    s.say("The existing test uses the old names — I'll keep that one as it is (it now covers the aliases) and add the new spellings next to it.")
    s.edit("cmd/report_test.go", '''		t.Fatalf("want 3 rows, got %d", len(rows))
	}
}''', '''		t.Fatalf("want 3 rows, got %d", len(rows))
	}
}

func TestReportNewFlagNames(t *testing.T) {
	out := runCLI(t, "report", "--output", "json", "--since", "2026-03-01", "--config", testConfig(t))
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("stdout is not JSON: %v\\n%s", err, out)
	}
}''')
    s.bash("gofmt -l . && go vet ./...", "", desc="gofmt + vet", secs=6)
    s.bash("go test ./... 2>&1 | tail -8", '''--- FAIL: TestReportNewFlagNames (0.01s)
    report_test.go:24: stdout is not JSON: invalid character '/' after top-level value
        [{"ticket":"OPS-412","minutes":95},{"ticket":"OPS-415","minutes":30},{"ticket":"INF-7","minutes":240}]
        2026/03/12 10:24:51 report: 3 rows since 2026-03-01
FAIL
FAIL	github.com/hollowtree/punch/cmd	0.397s
ok  	github.com/hollowtree/punch/internal/store	(cached)
FAIL''', desc="Tests", secs=12)
    s.say(
        "Interesting, and not caused by the rename: the `report: 3 rows` log line is in stdout, after the JSON. "
        "The old test never noticed because `json.Decoder` stops after the first value; the new one uses "
        "`json.Unmarshal`, which reads everything. `log.Printf` goes to stderr by default, so something "
        "redirects it. Let me find where."
    )
    s.grep("log.SetOutput", content='''internal/store/store.go:31:	log.SetOutput(os.Stdout) // TODO quieter''', path=".")
    s.say(
        "`store.Open` calls `log.SetOutput(os.Stdout)`, so every log line after opening the store lands in "
        "stdout — right in the middle of `--output json`. Anyone doing `punch report --output json | jq` gets a "
        "parse error as soon as there's a log line. Logs belong on stderr; removing the override (the default is "
        "stderr) rather than adding a flag."
    )
    s.read("internal/store/store.go", STORE_GO, limit=36)
    s.edit("internal/store/store.go", '''	log.SetOutput(os.Stdout) // TODO quieter
''', '')
    s.bash("go build ./... 2>&1 | tail -3", '''# github.com/hollowtree/punch/internal/store
internal/store/store.go:6:2: "os" imported and not used''', desc="Build", secs=5)
    s.edit("internal/store/store.go", '''	"log"
	"os"
''', '''	"log"
''')
    s.bash("go test ./...", '''ok  	github.com/hollowtree/punch/cmd	0.402s
ok  	github.com/hollowtree/punch/internal/store	0.191s''', desc="Tests", secs=12)
    s.say("Green. Now the README flag table and the user-facing strings.")
    s.read("README.md", README_FLAGS, offset=27, limit=9)
    s.edit("README.md", '''| `--dry_run` | all | print what would be written |
| `--ticket_id` | in | ticket to track |
| `--sinceDate` | report | first day to include |
| `--outputFormat` | report | `table` or `json` |''', '''| `--dry-run` | all | print what would be written |
| `--ticket` | in | ticket to track |
| `--since` | report | first day to include |
| `--output` | report | `table` or `json` |

The old spellings (`--dry_run`, `--ticket_id`, `--sinceDate`, `--outputFormat`) still work.''')
    s.say("While I'm in `in.go`: the success line should mention the flag in its new form too. Tidying the message:")
    s.edit_rejected("cmd/in.go", '''		fmt.Printf("⏱️  started %s\\n", ticketID)''', '''		fmt.Printf("⏱️  ✅ started %s (stop with `punch out`)\\n", ticketID)''',
                    reason="no emoji in output, and actually remove the one that's there. people pipe this into log files and the ops dashboards choke on it")
    s.edit("cmd/in.go", '''		fmt.Printf("⏱️  started %s\\n", ticketID)''', '''		fmt.Printf("started %s\\n", ticketID)''')
    s.grep("[\\x{1F300}-\\x{1FAFF}\\x{2300}-\\x{23FF}]", content='''cmd/out.go:28:		fmt.Printf("⏹️  stopped %s after %s\\n", ticketID, d)''', path="cmd")
    s.read("cmd/out.go", OUT_GO)
    s.edit("cmd/out.go", '''		fmt.Printf("⏹️  stopped %s after %s\\n", ticketID, d)''', '''		fmt.Printf("stopped %s after %s\\n", ticketID, d)''')
    s.bash("go test ./... && golangci-lint run", '''ok  	github.com/hollowtree/punch/cmd	0.398s
ok  	github.com/hollowtree/punch/internal/store	0.187s''', desc="Tests + lint", secs=30)
    s.say("Tests and lint clean. Adding a CHANGELOG entry for the flag rename:")
    s.edit_rejected("CHANGELOG.md", '''## Unreleased
''', '''## Unreleased

- Flags renamed to kebab-case (`--dry-run`, `--ticket`, `--since`, `--output`); old spellings still accepted.
- Log lines go to stderr again, so `--output json` is clean.
''', reason="don't touch CHANGELOG.md, release-please writes it from the commit messages. just use a proper feat:/fix: commit")
    s.say("Got it. Two commits then, so release-please picks both up:")
    s.bash("git add internal/store/store.go && git commit -q -m 'fix(report): send log output to stderr so --output json stays parseable' && git add -A && git commit -q -m 'feat: kebab-case flags, old spellings kept as aliases' && git log --oneline -2", '''5d1e2a7 feat: kebab-case flags, old spellings kept as aliases
c38f0b9 fix(report): send log output to stderr so --output json stays parseable''', desc="Two commits")
    s.bash("go run . report --dry_run --sinceDate 2026-03-01 --outputFormat json --config cmd/testdata/punch.yaml", '''[{"ticket":"OPS-412","minutes":95},{"ticket":"OPS-415","minutes":30},{"ticket":"INF-7","minutes":240}]''', desc="Old spellings end to end", secs=5)
    s.bash("go run . --help", '''punch tracks time against tickets

Usage:
  punch [command]

Available Commands:
  completion  Generate the autocompletion script for the specified shell
  help        Help about any command
  in          start the clock on a ticket
  out         stop the clock
  report      summarise tracked time

Flags:
      --config string   config file (default $HOME/.punch.yaml)
      --dry-run         print what would be written
  -h, --help            help for punch

Use "punch [command] --help" for more information about a command.''', desc="Help text", secs=4)
    s.say(
        "Done:\n\n"
        "- Flags are `--dry-run`, `--ticket`, `--since`, `--output`; the old spellings go through a "
        "normalization func in `cmd/root.go`, so the runbooks keep working and `--help` only shows the new names.\n"
        "- `store.Open` no longer sends log output to stdout (it broke `--output json | jq`).\n"
        "- Emoji removed from `in`/`out` output.\n"
        "- README table updated; CHANGELOG left to release-please. Two commits (fix + feat).\n\n"
        "`go test ./...` and `golangci-lint run` are clean."
    )
    s.turn_end()
    s.user("great. the aliases can go in v3, after the release I'll open an issue in infra so they fix the runbooks first", wait=55)
    s.say("👍 Nothing else pending on my side.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Go CLI with cobra/pflag, English; a chore with lots of routine steps (reads, greps, renames, gofmt, README table, green test runs) where only a few things are worth keeping",
        "a rule with its reason in the first prompt (old flag spellings stay as aliases, the ops runbooks use them)",
        "a decision with its why before the Edit (SetGlobalNormalizationFunc instead of registering flags twice)",
        "a test failure behind `| tail` exposing an unrelated bug (log.SetOutput(os.Stdout) in store.Open breaks --output json), cause explained before the fix",
        "two Edits rejected with the user's reasons (no emoji in output; CHANGELOG written by release-please)",
        "a todo the user takes for after the release",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["old", "alias"], ["runbook"]],
         "note": "Old flag spellings (dry_run, ticket_id, sinceDate, outputFormat) must keep working: the ops runbooks in the infra repo use them."},
        {"id": "d1", "type": "decision",
         "match": [["SetGlobalNormalizationFunc", "normalization"], ["alias", "runbook", "twice", "--help"]],
         "note": "Old flag names are mapped by a normalization func in cmd/root.go instead of registering each flag twice; --help shows only the new names."},
        {"id": "b1", "type": "bug_note",
         "match": [["log.SetOutput", "stdout"], ["json"]],
         "note": "store.Open called log.SetOutput(os.Stdout), so log lines landed in `punch report --output json` and broke jq; logs go to stderr now."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["emoji"], ["log files", "pipe", "dashboards"]],
         "note": "No emoji in CLI output: people pipe it into log files and the ops dashboards choke on it."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["CHANGELOG"], ["release-please"]],
         "note": "Don't edit CHANGELOG.md: release-please writes it from feat:/fix: commit messages."},
        {"id": "t1", "type": "todo",
         "match": [["v3", "alias"], ["issue", "infra"]],
         "note": "Drop the flag aliases in v3; after the release Jun opens an issue in infra so they fix the runbooks first."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["--dry-run"], ["--ticket"], ["--output"]],
         "note": "punch flags are now --dry-run, --ticket, --since, --output."},
        {"id": "v1", "type": "verified_command", "command": "go test ./... && golangci-lint run"},
        {"id": "v2", "type": "verified_command", "command": "go test ./..."},
        {"id": "v3", "type": "verified_command", "command": "gofmt -l . && go vet ./...", "required": False},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
