# ruff: noqa: E501  (verbatim command output and file contents)
"""Postgres plpgsql audit trigger: user corrects the design; a fix that is wrong behind pgbouncer, redone (mixed German/English)."""

from make_sessions import Session

DB_PASSWORD = "Wq7t!kP2vR9zLm4x"

SQITCH_PLAN = '''%syntax-version=1.0.0
%project=kasse

appschema 2025-09-02T10:11:04Z Lena Vogt <lena@example.org> # schema app
bestellung 2025-09-02T10:40:12Z Lena Vogt <lena@example.org> # bestellung table
zahlung [bestellung] 2025-11-14T08:02:55Z Lena Vogt <lena@example.org> # zahlung table
'''


TEST_SQL = """BEGIN;
SELECT plan(6);

INSERT INTO app.bestellung (id, status, summe) VALUES (1, 'offen', 1290);
SELECT is((SELECT operation FROM audit.log ORDER BY id DESC LIMIT 1), 'INSERT', 'insert geloggt');
UPDATE app.bestellung SET summe = 1390 WHERE id = 1;
SELECT is((SELECT diff FROM audit.log ORDER BY id DESC LIMIT 1), '{"summe": {"alt": 1290, "neu": 1390}}'::jsonb, 'update: nur diff');
SELECT is((SELECT count(*) FROM audit.log WHERE diff ? 'status'), 0::bigint, 'status unveraendert');
UPDATE app.bestellung SET summe = 1390 WHERE id = 1;
SELECT is((SELECT count(*) FROM audit.log), 2::bigint, 'no-op update nicht geloggt');
DELETE FROM app.bestellung WHERE id = 1;
SELECT is((SELECT operation FROM audit.log ORDER BY id DESC LIMIT 1), 'DELETE', 'delete geloggt');
SELECT ok((SELECT diff ? 'id' FROM audit.log ORDER BY id DESC LIMIT 1), 'delete: ganze alte zeile');
SELECT * FROM finish();
ROLLBACK;
"""


def build() -> Session:
    s = Session("plpgsql-audit-mixed-de-en", cwd="/home/lena/dev/kasse-db", branch="audit-log",
                start="2026-06-09T07:31:50.625Z", version="2.1.74", slug="careful-auditing-marten")
    s.user(
        "Wir brauchen ein Audit-Log für bestellung und zahlung: wer hat wann was geändert. "
        "Schreib einen generischen Trigger in plpgsql. Migrations laufen bei uns über sqitch — "
        "never psql -f directly against prod, auch nicht 'nur kurz'.",
        wait=6,
    )
    s.call(s.read_call("sqitch.plan", SQITCH_PLAN))
    s.bash("cat sqitch.conf | grep -A2 'target \"dev\"'", f"""\
[target "dev"]
	uri = db:pg://kasse:{DB_PASSWORD}@localhost:5432/kasse_dev""", desc="sqitch targets")
    s.say(
        "Plan: eine Tabelle `audit.log` (Tabelle, Operation, alte und neue Zeile, Benutzer, "
        "Zeitpunkt) und eine Triggerfunktion, die die Zeilen als `hstore` speichert, damit man "
        "geänderte Felder per `-` vergleichen kann."
    )
    s.user(
        "nein, wrong — wir haben keine hstore extension und wollen auch keine. use jsonb, und "
        "speicher nur den diff der geänderten Spalten, nicht die ganze Zeile (zahlung hat "
        "riesige payload-Spalten)",
        wait=25,
    )
    s.say("Okay: `jsonb`, und nur die geänderten Spalten (bei UPDATE alt/neu pro Spalte).")
    s.bash("sqitch add audit -n 'generic audit trigger (jsonb diff)'", """\
Created deploy/audit.sql
Created revert/audit.sql
Created verify/audit.sql
Added "audit" to sqitch.plan""", desc="sqitch change anlegen")
    s.call(s.read_call("deploy/audit.sql", "-- Deploy kasse:audit to pg\n\nBEGIN;\n\n-- XXX Add DDLs here.\n\nCOMMIT;\n"))
    s.write("deploy/audit.sql", '''-- Deploy kasse:audit to pg

BEGIN;

CREATE SCHEMA audit;

CREATE TABLE audit.log (
    id          bigserial PRIMARY KEY,
    tabelle     text        NOT NULL,
    operation   text        NOT NULL,
    zeile_id    bigint,
    diff        jsonb       NOT NULL,
    benutzer    text        NOT NULL,
    geaendert   timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION audit.log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    alt jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
    neu jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
    d   jsonb;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        SELECT jsonb_object_agg(k, jsonb_build_object('alt', alt -> k, 'neu', neu -> k))
          INTO d
          FROM jsonb_object_keys(neu) k
         WHERE alt -> k IS DISTINCT FROM neu -> k;
        IF d IS NULL THEN RETURN NEW; END IF;   -- nichts geändert
    ELSE
        d := coalesce(neu, alt);
    END IF;
    INSERT INTO audit.log (tabelle, operation, zeile_id, diff, benutzer)
    VALUES (TG_TABLE_NAME, TG_OP, coalesce(neu, alt) ->> 'id', d, current_user);
    RETURN coalesce(NEW, OLD);
END $$;

CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON app.bestellung
    FOR EACH ROW EXECUTE FUNCTION audit.log_change();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON app.zahlung
    FOR EACH ROW EXECUTE FUNCTION audit.log_change();

COMMIT;
''')
    s.bash("sqitch deploy dev && pg_prove -d kasse_dev tests/audit_test.sql", """\
Deploying changes to dev
  + audit .. ok
tests/audit_test.sql .. ok
All tests successful.
Files=1, Tests=6,  0 wallclock secs ( 0.02 usr +  0.00 sys =  0.02 cpu)
Result: PASS""", desc="Deploy + pgTAP", secs=6)
    s.say("Deployed auf dev, pgTAP grün (6 Tests: INSERT, UPDATE nur Diff, no-op UPDATE, DELETE).")
    s.turn_end()

    s.user(
        "hab's auf staging angeschaut: benutzer ist überall 'kasse_app'. klar, die App verbindet "
        "sich über pgbouncer immer mit demselben DB-User. der echte User steht in der App-Session",
        wait=900,
    )
    s.say(
        "Stimmt, `current_user` ist hier wertlos — alle Requests teilen sich die Rolle `kasse_app`. "
        "Die App muss den Benutzer pro Transaktion setzen: `SET LOCAL app.user_id = '…'` "
        "(transaction-scoped, funktioniert mit pgbouncer im transaction mode, anders als ein "
        "session-weites `SET`). Der Trigger liest es mit `current_setting('app.user_id', true)` "
        "und fällt auf `current_user` zurück, wenn es fehlt (Migrations, psql)."
    )
    s.bash("sqitch rework audit -n 'audit: app.user_id instead of current_user'", """\
Added "audit [audit@v1.0.0]" to sqitch.plan.
Modify these files as appropriate:
  * deploy/audit.sql
  * revert/audit.sql
  * verify/audit.sql""", desc="sqitch rework")
    s.edit("deploy/audit.sql", "VALUES (TG_TABLE_NAME, TG_OP, coalesce(neu, alt) ->> 'id', d, current_user);",
           "VALUES (TG_TABLE_NAME, TG_OP, coalesce(neu, alt) ->> 'id', d,\n            coalesce(nullif(current_setting('app.user_id', true), ''), current_user));")
    s.edit("deploy/audit.sql", "CREATE FUNCTION audit.log_change()", "CREATE OR REPLACE FUNCTION audit.log_change()")
    s.call(s.read_call("tests/audit_test.sql", TEST_SQL))
    s.edit("tests/audit_test.sql", "SELECT plan(6);", "SELECT plan(7);")
    s.edit("tests/audit_test.sql", "SELECT * FROM finish();\nROLLBACK;\n", """SELECT set_config('app.user_id', '4711', true);
COMMIT;
UPDATE app.bestellung SET status = 'bezahlt' WHERE id = 1;
BEGIN;
SELECT is((SELECT benutzer FROM audit.log ORDER BY id DESC LIMIT 1), '4711', 'benutzer aus app.user_id');
SELECT * FROM finish();
ROLLBACK;
""")
    s.bash("sqitch deploy dev && pg_prove -d kasse_dev tests/audit_test.sql", """\
Deploying changes to dev
  + audit .. ok
tests/audit_test.sql .. 1/7
#   Failed test 7: 'benutzer aus app.user_id'
#          got: 'kasse'
#     expected: '4711'
# Looks like you failed 1 test of 7.
tests/audit_test.sql .. Failed 1/7 subtests
Result: FAIL""", code=1, desc="Deploy + pgTAP", secs=6)
    s.say(
        "Mein neuer Test ist falsch, nicht der Trigger: `set_config(..., true)` gilt nur bis zum "
        "Ende der Transaktion, und das UPDATE läuft erst nach dem `COMMIT`. Im Test muss es wie "
        "in der App laufen: `SET LOCAL` in derselben Transaktion wie das UPDATE."
    )
    s.edit("tests/audit_test.sql", "SELECT set_config('app.user_id', '4711', true);\nCOMMIT;\nUPDATE app.bestellung SET status = 'bezahlt' WHERE id = 1;\nBEGIN;\n",
           "SET LOCAL app.user_id = '4711';\nUPDATE app.bestellung SET status = 'bezahlt' WHERE id = 1;\n")
    s.bash("sqitch deploy dev && pg_prove -d kasse_dev tests/audit_test.sql", """\
Deploying changes to dev
Nothing to deploy (up-to-date)
tests/audit_test.sql .. ok
All tests successful.
Files=1, Tests=7,  0 wallclock secs ( 0.02 usr +  0.00 sys =  0.03 cpu)
Result: PASS""", desc="Deploy + pgTAP", secs=6)
    s.say(
        "Grün (7/7). Damit `benutzer` auf staging stimmt, muss die App in jeder Transaktion "
        "`SET LOCAL app.user_id` setzen — das ist App-Code, den habe ich nicht angefasst. Auf "
        "prod bitte wie immer per `sqitch deploy prod`."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Postgres plpgsql + sqitch + pgTAP, one user writing German with English mixed in",
        "a rule in the first prompt with emphasis ('never psql -f directly against prod, auch nicht nur kurz')",
        "the user correcting the proposed design before any edit (no hstore; jsonb diff of changed columns only)",
        "a working trigger that is wrong in staging (current_user behind pgbouncer), redone with SET LOCAL app.user_id + sqitch rework",
        "the rework's first test run failing (pg_prove, exit 1), fixed in the test",
        "a database password in sqitch.conf output (secret); an app-side todo",
    ],
    "language": "de+en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["sqitch"], ["psql -f", "prod"]],
         "note": "Migrations laufen über sqitch — never psql -f directly against prod, auch nicht 'nur kurz'."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["hstore"], ["jsonb"]],
         "note": "Keine hstore-Extension (wollen wir nicht): Audit in jsonb."},
        {"id": "d1", "type": "decision",
         "match": [["diff", "geänderten Spalten"], ["payload", "ganze Zeile"]],
         "note": "audit.log speichert bei UPDATE nur den Diff der geänderten Spalten (alt/neu), nicht die ganze Zeile — zahlung hat riesige payload-Spalten; no-op UPDATEs werden nicht geloggt."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["current_user"], ["pgbouncer", "kasse_app"]],
         "note": "current_user im Audit-Trigger ist wertlos: die App verbindet über pgbouncer immer als kasse_app."},
        {"id": "d2", "type": "decision",
         "match": [["app.user_id"], ["SET LOCAL", "current_setting"]],
         "note": "Der Trigger liest den echten Benutzer aus current_setting('app.user_id', true) (Fallback current_user); die App setzt ihn pro Transaktion mit SET LOCAL, was mit pgbouncer im transaction mode funktioniert."},
        {"id": "t1", "type": "todo",
         "match": [["SET LOCAL"], ["App"]],
         "note": "Die App muss in jeder Transaktion SET LOCAL app.user_id setzen — App-Code noch nicht angepasst."},
        {"id": "v1", "type": "verified_command", "command": "sqitch deploy dev && pg_prove -d kasse_dev tests/audit_test.sql"},
    ],
    "secrets": [DB_PASSWORD],
    "forbidden": [],
}
