# ruff: noqa: E501  (verbatim command output and file contents)
"""Debezium Postgres connector on Kafka Connect: replication slot holds 180 GB of WAL at night; heartbeat alone tried, heartbeat table chosen (PG 13); slot drop rejected; password in REST output (German)."""

from make_sessions import Session

DB_PASSWORD = "Vb7#qT2mLx9!pRw4"

CONNECTOR = '''{
  "name": "orders-cdc",
  "config": {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "database.hostname": "${env:PG_HOST}",
    "database.port": "5432",
    "database.user": "${env:PG_USER}",
    "database.password": "${env:PG_PASSWORD}",
    "database.dbname": "shop",
    "topic.prefix": "shop.cdc",
    "slot.name": "debezium_orders",
    "publication.name": "dbz_orders",
    "publication.autocreate.mode": "filtered",
    "table.include.list": "shop.orders,shop.order_items",
    "snapshot.mode": "initial",
    "tombstones.on.delete": "false"
  }
}
'''

IT_TEST = '''import time

from .helpers import connect_up, pg, register, slot_lag_bytes, write_wal_elsewhere


def test_slot_lag_shrinks_without_traffic_on_captured_tables():
    """Nachtbetrieb: nur die analytics-DB schreibt, shop.orders bleibt still."""
    connect_up()
    register("connectors/orders-cdc.json")
    write_wal_elsewhere(dbname="analytics", megabytes=512)
    before = slot_lag_bytes("debezium_orders")
    time.sleep(45)
    after = slot_lag_bytes("debezium_orders")
    assert after < before / 4, f"slot lag did not shrink: {before} -> {after} bytes"
'''


def build() -> Session:
    s = Session("debezium-wal-slot-de", cwd="/home/jkoenig/work/cdc-connectors", branch="fix/orders-slot-wal",
                start="2026-09-03T06:58:40.417Z", version="2.1.59", slug="quiet-slot-heartbeat")
    s.user(
        "moin. auf pg-main-01 läuft pg_wal voll, 180 GB, disk alert seit ca 2 uhr nachts. Ole meint es ist der debezium slot von orders-cdc. "
        "schau mal warum der nachts nicht weiterrückt. connector configs bitte nur hier im repo ändern, die pipeline deployt die, "
        "nicht per REST direkt an connect rumschrauben",
        wait=6,
    )
    s.call(s.read_call("connectors/orders-cdc.json", CONNECTOR),
           s.bash_call("ls connectors/ sql/ tests/it/", '''connectors/:
billing-cdc.json
orders-cdc.json

sql/:
V1__publication_billing.sql
V2__cdc_user.sql

tests/it/:
__init__.py
conftest.py
helpers.py
test_slot_lag.py
test_snapshot.py''', desc="Repo-Struktur"))
    s.bash("psql -h pg-main-01.db.intern -U readonly -d shop -c \"SELECT slot_name, active, restart_lsn, confirmed_flush_lsn, pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) AS retained FROM pg_replication_slots\"",
           ''' slot_name        | active | restart_lsn  | confirmed_flush_lsn | retained
------------------+--------+--------------+---------------------+----------
 debezium_orders  | t      | 3A1/7C0012F8 | 3A1/7C0013A0        | 183 GB
 debezium_billing | t      | 3CF/E1A4B008 | 3CF/E1A4B0B0        | 41 MB
(2 rows)''', desc="Slots und zurückgehaltenes WAL (read-only)", secs=3)
    s.bash("psql -h pg-main-01.db.intern -U readonly -d shop -Atc \"SELECT version()\"; "
           "psql -h pg-main-01.db.intern -U readonly -d shop -Atc \"SELECT max(created_at) FROM shop.orders\"",
           '''PostgreSQL 13.14 on x86_64-pc-linux-gnu, compiled by gcc (GCC) 8.5.0 20210514 (Red Hat 8.5.0-20), 64-bit
2026-09-02 22:47:13.912+02''', desc="PG-Version und letzte Bestellung", secs=2)
    s.bash("curl -s http://connect-01.kafka.intern:8083/connectors/orders-cdc/status | jq -c '.connector.state, [.tasks[].state]'; "
           "curl -s http://connect-01.kafka.intern:8083/connectors/orders-cdc/config | jq .",
           f'''"RUNNING"
["RUNNING"]
{{
  "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
  "plugin.name": "pgoutput",
  "database.hostname": "pg-main-01.db.intern",
  "database.port": "5432",
  "database.user": "dbz_orders",
  "database.password": "{DB_PASSWORD}",
  "database.dbname": "shop",
  "topic.prefix": "shop.cdc",
  "slot.name": "debezium_orders",
  "publication.name": "dbz_orders",
  "publication.autocreate.mode": "filtered",
  "table.include.list": "shop.orders,shop.order_items",
  "snapshot.mode": "initial",
  "tombstones.on.delete": "false",
  "name": "orders-cdc"
}}''', desc="Status und Live-Config des Connectors (nur lesen)", secs=2)
    s.say(
        "Der Connector läuft (RUNNING), er hängt also nicht — er hat nur nichts zu bestätigen. Achtung: die Live-Config gibt das "
        "DB-Passwort im Klartext zurück, das sollte nicht in Tickets kopiert werden.\n\n"
        "Was passiert:\n"
        "- WAL ist **clusterweit**. Auf pg-main-01 schreibt nachts v. a. die `analytics`-DB (Batch-Loads), `shop.orders` ist ab "
        "~23 Uhr still (letzte Bestellung 22:47).\n"
        "- Debezium bestätigt dem Slot eine LSN (`confirmed_flush_lsn`) nur, wenn es ein Event aus seiner Publication bekommt. "
        "Ohne Änderungen an `orders`/`order_items` bleibt der Slot stehen und Postgres muss das gesamte WAL der anderen DBs behalten.\n"
        "- `billing-cdc` hat das Problem nicht, weil billing auch nachts schreibt.\n\n"
        "Billigster erster Versuch: `heartbeat.interval.ms`, dann schickt Debezium regelmäßig Heartbeats und sollte dabei den "
        "Offset mitziehen. Ich teste das mit dem bestehenden Integrationstest `test_slot_lag` (simuliert genau die Nacht)."
    )
    s.read("tests/it/test_slot_lag.py", IT_TEST)
    s.edit("connectors/orders-cdc.json", '''    "snapshot.mode": "initial",''', '''    "heartbeat.interval.ms": "10000",
    "snapshot.mode": "initial",''')
    b1 = s.bash_bg("make it TEST=tests/it/test_slot_lag.py", "Integrationstest Slot-Lag (docker compose, PG 13)")
    s.say("Läuft im Hintergrund (docker compose mit Postgres 13, Kafka und Connect, dauert ein paar Minuten).")
    s.task_notification(b1, "Integrationstest Slot-Lag (docker compose, PG 13)", status="failed", exit_code=2, wait=240)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b1}.output", '''docker compose -f tests/it/compose.yml up -d --wait
 ✔ Container it-postgres-1   Healthy
 ✔ Container it-kafka-1      Healthy
 ✔ Container it-connect-1    Healthy
pytest -q tests/it/test_slot_lag.py
F                                                                        [100%]
=================================== FAILURES ===================================
___________ test_slot_lag_shrinks_without_traffic_on_captured_tables ___________

    def test_slot_lag_shrinks_without_traffic_on_captured_tables():
        """Nachtbetrieb: nur die analytics-DB schreibt, shop.orders bleibt still."""
        connect_up()
        register("connectors/orders-cdc.json")
        write_wal_elsewhere(dbname="analytics", megabytes=512)
        before = slot_lag_bytes("debezium_orders")
        time.sleep(45)
        after = slot_lag_bytes("debezium_orders")
>       assert after < before / 4, f"slot lag did not shrink: {before} -> {after} bytes"
E       AssertionError: slot lag did not shrink: 537919488 -> 537919488 bytes
E       assert 537919488 < (537919488 / 4)

tests/it/test_slot_lag.py:14: AssertionError
----------------------------- Captured log call ------------------------------
INFO     helpers:helpers.py:41 connector orders-cdc RUNNING
INFO     helpers:helpers.py:58 heartbeat topic __debezium-heartbeat.shop.cdc: 5 messages
=========================== short test summary info ============================
FAILED tests/it/test_slot_lag.py::test_slot_lag_shrinks_without_traffic_on_captured_tables
1 failed in 71.22s (0:01:11)
docker compose -f tests/it/compose.yml down -v
make: *** [Makefile:22: it] Error 2''')
    s.say(
        "Nicht gereicht: Heartbeats gehen raus (5 Nachrichten im Heartbeat-Topic), aber der Slot-Lag bleibt exakt gleich "
        "(537919488 → 537919488). Debezium hat ja keine neue LSN aus der Publication gesehen, die es bestätigen könnte — der "
        "Heartbeat allein committet nur den alten Offset nochmal.\n\n"
        "Es braucht echten Traffic **in** der Publication. Zwei Wege:\n"
        "1. `heartbeat.action.query`: Debezium schreibt bei jedem Heartbeat in eine kleine Tabelle, die in der Publication ist.\n"
        "2. `pg_logical_emit_message` als Action-Query: keine Tabelle nötig, aber pgoutput liefert logische Messages erst ab "
        "PostgreSQL 14 aus — pg-main-01 läuft auf 13.14.\n\n"
        "Also Variante 1. Heißt: Tabelle `shop.debezium_heartbeat` anlegen (neue Migration), in `table.include.list` aufnehmen "
        "(Publication ist `filtered`, sonst landet das UPDATE nicht darin) und `dbz_orders` braucht UPDATE-Rechte darauf."
    )
    s.write("sql/V3__debezium_heartbeat.sql", '''-- Heartbeat für orders-cdc: pg-main-01 ist PG 13, pg_logical_emit_message geht mit pgoutput erst ab 14.
-- Ohne Schreibzugriff in der Publication rückt der Slot nachts nicht weiter (WAL der analytics-DB staut sich).
CREATE TABLE IF NOT EXISTS shop.debezium_heartbeat (
    id      int PRIMARY KEY,
    beat_at timestamptz NOT NULL
);
INSERT INTO shop.debezium_heartbeat (id, beat_at) VALUES (1, now()) ON CONFLICT (id) DO NOTHING;
GRANT UPDATE ON shop.debezium_heartbeat TO dbz_orders;
''')
    s.edit("connectors/orders-cdc.json", '''    "table.include.list": "shop.orders,shop.order_items",''', '''    "table.include.list": "shop.orders,shop.order_items,shop.debezium_heartbeat",''')
    s.edit("connectors/orders-cdc.json", '''    "heartbeat.interval.ms": "10000",''', '''    "heartbeat.interval.ms": "10000",
    "heartbeat.action.query": "UPDATE shop.debezium_heartbeat SET beat_at = now() WHERE id = 1",''')
    s.bash("make validate", '''jq empty connectors/*.json
validate orders-cdc against local connect (docker) ...
  configs: 112, errors: 0
validate billing-cdc against local connect (docker) ...
  configs: 108, errors: 0
OK''', desc="Connector-Configs gegen Connect validieren", secs=25)
    b2 = s.bash_bg("make it TEST=tests/it/test_slot_lag.py", "Integrationstest Slot-Lag mit heartbeat.action.query")
    s.say(
        "Bis der Test fertig ist: akut ist die Platte. Am schnellsten wäre Platz frei, wenn man den Slot wegwirft und der "
        "Connector neu anlegt — ich schaue erstmal, ob das möglich wäre:"
    )
    s.bash_rejected("psql -h pg-main-01.db.intern -U postgres -d shop -c \"SELECT pg_drop_replication_slot('debezium_orders')\"",
                    desc="Slot droppen, um 183 GB WAL freizugeben",
                    reason="bloß nicht. ohne slot macht der connector nen neuen initial snapshot, orders hat 400 mio zeilen, das dauert zwei tage und das data team hat so lange nix. Ole hat 100 GB an die platte gehängt, das hält bis morgen")
    s.say("Verstanden, der Slot bleibt. Dann löst sich der Stau erst, wenn die neue Config deployt ist und der erste Heartbeat durch die Publication geht.")
    s.task_notification(b2, "Integrationstest Slot-Lag mit heartbeat.action.query", wait=150)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b2}.output", '''docker compose -f tests/it/compose.yml up -d --wait
 ✔ Container it-postgres-1   Healthy
 ✔ Container it-kafka-1      Healthy
 ✔ Container it-connect-1    Healthy
flyway -url=jdbc:postgresql://localhost:55432/shop -locations=filesystem:sql migrate
Successfully applied 3 migrations to schema "public", now at version v3
pytest -q tests/it/test_slot_lag.py
.                                                                        [100%]
1 passed in 63.80s (0:01:03)
docker compose -f tests/it/compose.yml down -v''')
    s.say("Grün: mit der Action-Query rückt der Slot im Test weiter, obwohl `orders` still bleibt. Noch der andere Integrationstest, damit der Snapshot mit der zusätzlichen Tabelle nicht kaputt ist:")
    s.bash("make it TEST=tests/it/test_snapshot.py", '''docker compose -f tests/it/compose.yml up -d --wait
 ✔ Container it-postgres-1   Healthy
 ✔ Container it-kafka-1      Healthy
 ✔ Container it-connect-1    Healthy
flyway -url=jdbc:postgresql://localhost:55432/shop -locations=filesystem:sql migrate
Successfully applied 3 migrations to schema "public", now at version v3
pytest -q tests/it/test_snapshot.py
..                                                                       [100%]
2 passed in 88.41s (0:01:28)
docker compose -f tests/it/compose.yml down -v''', desc="Snapshot-Integrationstest", secs=190, timeout=600000)
    s.bash("git add -A && git commit -qm 'orders-cdc: heartbeat.action.query auf shop.debezium_heartbeat (Slot rückt nachts nicht weiter)' && git log --oneline -1",
           "7e21b0d orders-cdc: heartbeat.action.query auf shop.debezium_heartbeat (Slot rückt nachts nicht weiter)", desc="Commit")
    s.say(
        "Zusammenfassung:\n\n"
        "- **Ursache:** WAL ist clusterweit; `debezium_orders` bestätigt nur LSNs von Events aus `shop.orders`/`order_items`. "
        "Nachts schreibt dort niemand, die analytics-DB aber viel → der Slot hält alles fest (183 GB).\n"
        "- **Versucht:** nur `heartbeat.interval.ms` — Heartbeats gehen raus, Lag bleibt gleich (Integrationstest rot).\n"
        "- **Lösung:** `heartbeat.action.query` schreibt alle 10 s in `shop.debezium_heartbeat`; Tabelle in "
        "`table.include.list` (Publication `filtered`). `pg_logical_emit_message` ginge ohne Tabelle, pgoutput liefert die "
        "Messages aber erst ab PG 14.\n"
        "- Neue Migration `sql/V3__debezium_heartbeat.sql` — die muss auf pg-main-01 laufen **bevor** die Pipeline den "
        "Connector deployt, sonst schlägt die Action-Query fehl.\n"
        "- `make validate` und beide Integrationstests grün. Slot nicht gedroppt.\n\n"
        "Offen: die Heartbeat-Tabelle erzeugt jetzt auch Events im Topic `shop.cdc.shop.debezium_heartbeat` (alle 10 s)."
    )
    s.turn_end()
    s.user(
        "passt. migration geb ich gleich an die DBAs. ob die sinks vom data team mit dem neuen heartbeat topic klarkommen weiß ich nicht, frag ich Sven. "
        "und ein alert auf slot lag fehlt komplett, den bau ich nächste woche in grafana, sonst merken wir das wieder erst wenn die platte voll ist",
        wait=85,
    )
    s.say("Alles klar. Als Schwelle für den Alert wäre `pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)` pro Slot ein guter Ausgangspunkt.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Debezium Postgres connector (pgoutput) on Kafka Connect, German, an on-call user at 7 a.m.",
        "a rule in the first prompt (connector configs only in the repo, the pipeline deploys them; no REST changes)",
        "read-only psql and REST checks; the connector's DB password printed in plain text by GET /config (secret)",
        "heartbeat.interval.ms alone tried in a background integration test, failure with the real numbers in the middle of the output",
        "decision heartbeat table vs pg_logical_emit_message (PG 13), heartbeat table added to the filtered publication",
        "dropping the slot rejected with a reason (400M-row re-snapshot, two days); second background run green",
        "migration order noted in the wrap-up; todo (slot-lag alert next week) and a question for a colleague in the last message",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["repo", "pipeline"], ["REST", "connect"]],
         "note": "Connector-Configs nur im Repo ändern, die Pipeline deployt sie; nicht per REST direkt an Kafka Connect."},
        {"id": "b1", "type": "bug_note",
         "match": [["debezium_orders", "slot"], ["nachts", "WAL"], ["analytics", "clusterweit", "still"]],
         "note": "Der Slot debezium_orders rückt nachts nicht weiter: WAL ist clusterweit, die analytics-DB schreibt, shop.orders ist still, Debezium bestätigt keine LSN → 183 GB pg_wal."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["heartbeat.interval.ms"], ["Lag", "nicht gereicht", "gleich"]],
         "note": "Nur heartbeat.interval.ms gesetzt: Heartbeats gehen raus, aber der Slot-Lag bleibt gleich (Integrationstest rot)."},
        {"id": "d1", "type": "decision",
         "match": [["heartbeat.action.query", "debezium_heartbeat"], ["pg_logical_emit_message", "PG 14", "13"]],
         "note": "heartbeat.action.query schreibt in shop.debezium_heartbeat (in table.include.list, Publication filtered); pg_logical_emit_message geht mit pgoutput erst ab PG 14, pg-main-01 ist 13.14."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["slot"], ["snapshot", "400 mio"], ["drop", "ohne slot"]],
         "note": "Den Slot nicht droppen: ohne Slot macht der Connector einen neuen Initial-Snapshot (400 Mio Zeilen, zwei Tage ohne Daten fürs Data-Team)."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "todo", "constraint"], "required": False,
         "match": [["V3__debezium_heartbeat", "Migration"], ["bevor", "DBA"]],
         "note": "Die Migration V3__debezium_heartbeat.sql muss vor dem Connector-Deploy auf pg-main-01 laufen (geht an die DBAs)."},
        {"id": "t1", "type": "todo",
         "match": [["alert"], ["slot lag", "slot-lag"], ["grafana", "nächste woche"]],
         "note": "Alert auf Slot-Lag fehlt; Jan baut ihn nächste Woche in Grafana."},
        {"id": "q1", "type": "open_question",
         "match": [["heartbeat topic", "heartbeat-topic", "sinks"], ["Sven"]],
         "note": "Kommen die Sinks des Data-Teams mit dem neuen Heartbeat-Topic klar? Frage an Sven."},
        {"id": "v1", "type": "verified_command", "command": "make validate"},
        {"id": "v2", "type": "verified_command", "command": "make it TEST=tests/it/test_slot_lag.py"},
        {"id": "v3", "type": "verified_command", "command": "make it TEST=tests/it/test_snapshot.py", "required": False},
    ],
    "secrets": [DB_PASSWORD],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
