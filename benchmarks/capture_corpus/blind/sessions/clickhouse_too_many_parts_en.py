# ruff: noqa: E501  (verbatim command output and file contents)
"""Python ingest into ClickHouse: TOO_MANY_PARTS from row-by-row inserts, batching; background runs (English, a user who pastes logs)."""

from make_sessions import Session

LOG = '''2026-03-02 09:14:51,022 ERROR ingest.writer insert failed, retrying (attempt 3/5)
Traceback (most recent call last):
  File "/app/ingest/writer.py", line 41, in write
    self.client.insert("events_raw", [row], column_names=COLUMNS)
  File "/usr/local/lib/python3.12/site-packages/clickhouse_connect/driver/client.py", line 623, in insert
    return self.data_insert(context)
clickhouse_connect.driver.exceptions.DatabaseError: HTTPDriver for http://ch-01.internal:8123 returned response code 500)
 Code: 252. DB::Exception: Too many parts (3001 with average size of 1.21 KiB) in table 'analytics.events_raw' (1f0c7a9e-...). Merges are processing significantly slower than inserts. (TOO_MANY_PARTS) (version 24.3.5.47 (official build))
2026-03-02 09:14:51,530 ERROR ingest.writer insert failed, retrying (attempt 4/5)'''

WRITER = '''import logging

import clickhouse_connect

from ingest.schema import COLUMNS

log = logging.getLogger(__name__)


class Writer:
    def __init__(self, dsn: str):
        self.client = clickhouse_connect.get_client(dsn=dsn)

    def write(self, event: dict) -> None:
        row = [event[c] for c in COLUMNS]
        for attempt in range(1, 6):
            try:
                self.client.insert("events_raw", [row], column_names=COLUMNS)
                return
            except Exception:
                log.exception("insert failed, retrying (attempt %d/5)", attempt)
        raise RuntimeError("insert failed after 5 attempts")
'''

WRITER_BATCHED = '''import logging
import threading
import time

import clickhouse_connect

from ingest.schema import COLUMNS

log = logging.getLogger(__name__)

# ClickHouse writes one part per INSERT; row-by-row inserts created parts faster than
# merges could fold them (TOO_MANY_PARTS). Flush every MAX_ROWS rows or MAX_WAIT seconds.
MAX_ROWS = 5000
MAX_WAIT = 1.0


class Writer:
    def __init__(self, dsn: str):
        self.client = clickhouse_connect.get_client(dsn=dsn)
        self._rows: list[list] = []
        self._first_at: float | None = None
        self._lock = threading.Lock()

    def write(self, event: dict) -> None:
        with self._lock:
            if not self._rows:
                self._first_at = time.monotonic()
            self._rows.append([event[c] for c in COLUMNS])
            due = len(self._rows) >= MAX_ROWS or time.monotonic() - self._first_at >= MAX_WAIT
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            rows, self._rows = self._rows, []
        if not rows:
            return
        self.client.insert("events_raw", rows, column_names=COLUMNS)
'''

DAILY_MV = '''CREATE MATERIALIZED VIEW analytics.events_daily_mv TO analytics.events_daily AS
SELECT
    toDate(ts) AS day,
    event_type,
    count() AS events
FROM analytics.events_raw
GROUP BY day, event_type;
'''


def build() -> Session:
    s = Session("clickhouse-too-many-parts-en", cwd="/srv/dev/hollandia-ingest", branch="fix/too-many-parts",
                start="2026-03-02T09:31:05.118Z", version="2.1.44", slug="merging-parts-walrus")
    s.user("ingest is falling over since the campaign started this morning. prod log:\n\n" + LOG + "\n\nwe're at ~900 events/s", wait=6)
    s.call(s.read_call("ingest/writer.py", WRITER))
    s.grep("Writer\\(|\\.write\\(", content='''ingest/consumer.py:18:    writer = Writer(settings.clickhouse_dsn)
ingest/consumer.py:27:            writer.write(event)''')
    s.say(
        "The writer inserts one row per `INSERT`. ClickHouse creates a new part for every insert and "
        "merges them in the background; at ~900 inserts/s merges can't keep up and the table hits "
        "the 3000-parts limit, which is the `TOO_MANY_PARTS` in your log. The retries make it worse. "
        "Let me first see the parts count locally with a replay."
    )
    s.bash("clickhouse-benchmark --help 2>&1 | head -3", "/bin/bash: line 1: clickhouse-benchmark: command not found", code=127, desc="Load tool available?")
    s.bash("ls scripts/", "load_replay.py\nseed_local.sh\n", desc="Existing scripts")
    s.bash("python scripts/load_replay.py --rate 900 --seconds 20 && clickhouse-client -q \"SELECT count() FROM system.parts WHERE table = 'events_raw' AND active\"", '''replayed 18000 events in 20.0s
1893''', desc="Replay at 900/s and count parts", secs=27)
    s.say(
        "1893 active parts after 20 seconds locally — reproduced. The quickest lever would be to "
        "raise the table's limit so prod stops throwing while we fix the writer:"
    )
    s.bash_rejected("clickhouse-client -q \"ALTER TABLE analytics.events_raw MODIFY SETTING parts_to_throw_insert = 6000\"",
                    desc="Raise the parts limit", reason="no. raising that limit is exactly how the november incident happened, the merges fell hours behind and selects died. fix the inserts")
    s.say(
        "Fair — leaving the limit alone. Fixing the inserts: I'll buffer rows in the writer and "
        "flush every 5000 rows or after 1 second, whichever comes first. At 900 events/s that is "
        "about one insert per second instead of 900, and a second of delay is fine for a dashboard."
    )
    s.write("ingest/writer.py", WRITER_BATCHED)
    s.files[s.abs("ingest/consumer.py")] = '''from ingest.settings import settings
from ingest.writer import Writer


def run(source) -> None:
    writer = Writer(settings.clickhouse_dsn)
    for event in source:
        writer.write(event)
'''
    s.call(s.read_call("ingest/consumer.py"))
    s.edit("ingest/consumer.py", '''    for event in source:
        writer.write(event)''', '''    try:
        for event in source:
            writer.write(event)
    finally:
        writer.flush()''')
    s.bash("clickhouse-client -q 'TRUNCATE TABLE analytics.events_raw' && python scripts/load_replay.py --rate 900 --seconds 20 && clickhouse-client -q \"SELECT count() FROM system.parts WHERE table = 'events_raw' AND active\"", '''replayed 18000 events in 20.0s
6''', desc="Replay again", secs=27)
    t1 = s.bash_bg("pytest tests/integration -q", "Integration tests against local ClickHouse")
    s.say("6 active parts instead of 1893. Integration tests are running in the background; meanwhile I'm looking at how the daily view reads the raw table.")
    s.call(s.read_call("migrations/0007_events_daily_mv.sql", DAILY_MV))
    out = s.task_notification(t1, "Integration tests against local ClickHouse", status="failed", exit_code=1, wait=40)
    s.bash(f"tail -15 {out}", '''FAILED tests/integration/test_writer.py::test_event_visible_after_write - AssertionError: assert 0 == 1
 +  where 0 = <function count_events at 0x7f3a1c2b9e40>('evt-42')
=========================== short test summary info ============================
FAILED tests/integration/test_writer.py::test_event_visible_after_write - AssertionError: assert 0 == 1
1 failed, 23 passed in 14.82s''', desc="Read test output")
    s.say(
        "Expected fallout: that test writes one event and immediately counts it, but the row now "
        "sits in the buffer. The test should flush like the consumer does at the end."
    )
    s.files[s.abs("tests/integration/test_writer.py")] = '''def test_event_visible_after_write(writer, ch):
    writer.write(make_event(id="evt-42"))
    assert count_events(ch, "evt-42") == 1
'''
    s.edit("tests/integration/test_writer.py", '''    writer.write(make_event(id="evt-42"))
    assert''', '''    writer.write(make_event(id="evt-42"))
    writer.flush()
    assert''')
    s.write("tests/integration/test_writer_batching.py", '''def test_5000_rows_make_one_part(writer, ch):
    for i in range(5000):
        writer.write(make_event(id=f"evt-{i}"))
    assert active_parts(ch, "events_raw") == 1
''')
    t2 = s.bash_bg("pytest tests/integration -q", "Integration tests against local ClickHouse")
    s.task_notification(t2, "Integration tests against local ClickHouse", wait=35)
    s.bash("tail -2 /tmp/claude-1000/-srv-dev-hollandia-ingest/tasks/" + t2 + ".output", "25 passed in 15.07s", desc="Read test output")
    s.bash("ruff check ingest tests && mypy ingest", '''All checks passed!
Success: no issues found in 6 source files''', desc="Lint and types", secs=9)
    s.say(
        "All 25 integration tests pass, ruff and mypy clean.\n\n"
        "**What changed**\n"
        "- `Writer` buffers rows and flushes at 5000 rows or 1 s; the consumer flushes in a "
        "`finally`. Locally 1893 → 6 active parts for the same 20 s replay.\n"
        "- The retry loop is gone from the hot path — with batching a failed insert is one batch.\n"
        "- New test: 5000 writes produce one part.\n\n"
        "**Things I noticed**\n"
        "- On a deploy the pod gets SIGTERM; the `finally` only runs if the consumer loop exits "
        "cleanly. Does the consumer handle SIGTERM at all? If not, up to a second of events is lost "
        "on every deploy — I didn't find a signal handler, but maybe the platform drains pods "
        "differently.\n"
        "- Unrelated, but `events_daily_mv` groups by `toDate(ts)`, which is the UTC day; the "
        "dashboard labels are Amsterdam time, so events between 00:00 and 01:00/02:00 local land on "
        "the previous day. I left it alone since changing an MV means a backfill.\n"
        "- Prod still has the ~3000 parts; they merge away once the new writer is deployed."
    )
    s.turn_end()
    s.user("sigterm: no idea, ask in #platform. the MV thing is known-ish, I'll make a ticket, don't touch it now. ship it", wait=70)
    s.bash("git add ingest tests && git commit -qm 'Batch ClickHouse inserts (5000 rows / 1s) to stop TOO_MANY_PARTS' && git log --oneline -1", "a41c09e Batch ClickHouse inserts (5000 rows / 1s) to stop TOO_MANY_PARTS", desc="Commit")
    s.say("Committed as a41c09e. MV untouched.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Python ingest writing to ClickHouse 24.3 (clickhouse-connect), English, a user who pastes a prod log",
        "TOO_MANY_PARTS from one INSERT per event at 900 events/s, reproduced with a replay script",
        "a missing tool (clickhouse-benchmark) silently abandoned for the repo's replay script",
        "raising parts_to_throw_insert rejected with the user's reason (a past incident)",
        "two background test runs with <task-notification>s, the first failing (buffered row not flushed)",
        "a bug found in passing and left for a ticket (UTC day in the daily MV); question for #platform buried in the wrap-up",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["TOO_MANY_PARTS", "too many parts"], ["one part per", "row-by-row", "one row per"]],
         "note": "Ingest fell over with TOO_MANY_PARTS: the writer did one INSERT per event and ClickHouse makes a part per insert, faster than merges fold them."},
        {"id": "d1", "type": "decision",
         "match": [["5000"], ["1 s", "1 second", "1s"], ["part"]],
         "note": "The writer buffers rows and flushes every 5000 rows or 1 second, so ClickHouse gets about one insert per second instead of 900."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "failed_attempt", "preference"],
         "match": [["parts_to_throw_insert", "limit"], ["november", "incident"]],
         "note": "Never raise parts_to_throw_insert to get around TOO_MANY_PARTS: that caused the November incident (merges hours behind, selects dying); fix the inserts instead."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "project_fact"], "required": False,
         "match": [["clickhouse-benchmark"], ["load_replay"]],
         "note": "clickhouse-benchmark is not installed; scripts/load_replay.py --rate 900 reproduces the load."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["flush"], ["test_event_visible_after_write", "buffer"]],
         "note": "With buffering, a test that writes one event and counts it must call writer.flush() first."},
        {"id": "b3", "type": "bug_note", "types": ["bug_note", "todo"],
         "match": [["events_daily_mv"], ["UTC", "Amsterdam"]],
         "note": "events_daily_mv groups by toDate(ts), the UTC day, while the dashboard is Amsterdam time; left for a ticket because changing the MV means a backfill."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["SIGTERM", "sigterm"], ["#platform", "deploy"]],
         "note": "Does the consumer handle SIGTERM, or is up to a second of buffered events lost on each deploy? Ask in #platform."},
        {"id": "t1", "type": "todo",
         "match": [["ticket"], ["MV"]],
         "note": "The user makes a ticket for the daily MV's timezone; don't touch it now."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["900"], ["events/s", "events per second"]],
         "note": "Prod ingest runs at about 900 events/s during the campaign."},
        {"id": "v1", "type": "verified_command", "command": "pytest tests/integration -q"},
        {"id": "v2", "type": "verified_command", "command": "ruff check ingest tests && mypy ingest"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "python scripts/load_replay.py --rate 900 --seconds 20 && clickhouse-client -q \"SELECT count() FROM system.parts WHERE table = 'events_raw' AND active\""},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
