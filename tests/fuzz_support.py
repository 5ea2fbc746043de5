"""Seeded generators of hostile and merely unusual input, and the checks that the fuzz suite
(tests/test_fuzz.py) applies to real `engram` processes.

Everything random comes from `Hostile`, a `random.Random` seeded with ENGRAM_FUZZ_SEED and
the name of the family it feeds: the same seed replays the same cases, family by family,
whatever the other families did. ENGRAM_FUZZ_CASES multiplies every family's number of
cases (1 in CI).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import string
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.model import MAX_META_DEPTH, PROVENANCES, STATUSES, TYPES


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, ""))
    except ValueError:
        return default


SEED = _env_int("ENGRAM_FUZZ_SEED", 17)
SCALE = max(1, _env_int("ENGRAM_FUZZ_CASES", 1))
#: Also the cases left out of CI because they hit a known bug not fixed yet.
#: What the CLI's last-resort handler adds to an exception no command expected: a bug
#: that was kept from printing a traceback is still a bug.
LAST_RESORT = "ENGRAM_DEBUG=1 shows where"


def cases(base: int) -> int:
    """The number of cases for a family: `base` in CI, times ENGRAM_FUZZ_CASES."""
    return base * SCALE


# --- processes ------------------------------------------------------------------------------

def engram_command() -> list[str]:
    exe = Path(sys.executable).with_name("engram")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "engram"]


def fuzz_env(home: Path, **extra: str) -> dict[str, str]:
    """A private ENGRAM_HOME and HOME; the fake embedder; no worker and no automatic
    upkeep, whose background writes would make "the store did not change" unobservable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(
        ENGRAM_HOME=str(home), HOME=str(home.parent / "user"), ENGRAM_EMBEDDER="fake",
        ENGRAM_HOOK_WORKER="off", ENGRAM_UPKEEP="off", NO_COLOR="1", LC_ALL="C.UTF-8",
        COLUMNS="200",
    )
    env.update(extra)
    return env


def argv_bytes(args: Iterable[str | bytes]) -> list[bytes]:
    """Arguments as the kernel passes them: bytes (not UTF-8 included), no NUL (argv
    cannot hold one; NUL reaches Engram through stdin and files instead)."""
    out = []
    for arg in args:
        raw = arg if isinstance(arg, bytes) else arg.encode("utf-8", "surrogatepass")
        out.append(raw.replace(b"\x00", b""))
    return out


def run_engram(env: dict[str, str], args: Sequence[str | bytes], stdin: bytes = b"",
               timeout: float = 120, cwd: Path | None = None
               ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*map(os.fsencode, engram_command()), *argv_bytes(args)], env=env,
                          input=stdin, capture_output=True, timeout=timeout, cwd=cwd)


def shown(value: Any, limit: int = 300) -> str:
    """A reproducer-sized repr: long values keep their head and their length."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(shown(v, 120) for v in value) + "]"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}…<{len(value)} long>"


def cli_problems(proc: subprocess.CompletedProcess[bytes], *, json_out: bool = False,
                 per_record: bool = False) -> list[str]:
    """What breaks the CLI's contract: a traceback or an unexpected exception, an exit code
    outside {0, 1, 2}, an error that is not one line, JSON that does not parse.
    `per_record`: an import, whose exit 1 reports each refused record on a line of its own
    ("line N: …", checked by the caller) with its report on stdout."""
    stderr = proc.stderr.decode("utf-8", "replace")
    problems = []
    if "Traceback" in stderr:
        problems.append("a traceback on stderr")
    if LAST_RESORT in stderr:
        problems.append("an exception no command expected (the last-resort handler)")
    lines = proc.stderr.rstrip(b"\n").split(b"\n") if proc.stderr.strip() else []
    if proc.returncode == 1 and per_record and all(line.startswith(b"line ") for line in lines):
        if json_out and proc.stdout.strip():
            try:
                strict_json(proc.stdout.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                problems.append(f"--json printed something that is not JSON ({exc})")
    elif proc.returncode == 1:
        if len(lines) != 1 or not lines[0].startswith(b"error: "):
            problems.append(f"exit 1 without one 'error: ' line on stderr ({len(lines)} lines)")
    elif proc.returncode == 2:  # click's usage block: Usage, Try, blank, then one Error line
        errors = [line for line in lines if line.startswith(b"Error: ")]
        if len(errors) != 1 or lines[-1] != errors[0]:
            problems.append("exit 2 without exactly one closing 'Error: ' line")
    elif proc.returncode == 0:
        if json_out and proc.stdout.strip():
            try:
                strict_json(proc.stdout.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                problems.append(f"--json printed something that is not JSON ({exc})")
    else:
        problems.append(f"exit code {proc.returncode}")
    return problems


def strict_json(text: str) -> Any:
    """What any JSON parser accepts: no NaN or Infinity."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} in JSON output")
    return json.loads(text, parse_constant=refuse)


@dataclass
class Failures:
    """Problems found by one family, each with what replays it; asserted at the end so one
    run shows them all."""

    family: str
    found: list[str] = field(default_factory=list)

    def add(self, case: int, what: str, problems: Iterable[str]) -> None:
        for problem in problems:
            self.found.append(f"[{self.family} seed={SEED} case={case}] {problem}: {what}")

    def check(self) -> None:
        assert not self.found, f"{len(self.found)} problems:\n" + "\n".join(self.found[:25])


# --- the store, read from outside ------------------------------------------------------------

def _read_only(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)


def _postgres(db: Path | str) -> bool:
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


#: One reading connection, to the database the family under test uses: a family reads
#: the store after every case (hundreds of times), and a new connection is a new server
#: process each time. Autocommit: every statement sees what was committed before it.
_reader: dict[str, Any] = {}


def _pg_rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    import psycopg

    conn = _reader.get("conn")
    if conn is None or _reader.get("url") != url or conn.closed or conn.broken:
        if conn is not None:
            conn.close()
        conn = psycopg.connect(url, autocommit=True)
        _reader.update(conn=conn, url=url)
    return conn.execute(sql).fetchall()


def snapshot(db: Path | str) -> list[tuple[Any, ...]]:
    """Every memory row, every column, its id first: what "the store did not change" compares.
    `db` is a SQLite file or a PostgreSQL URL."""
    if _postgres(db):
        import psycopg

        try:
            return _pg_rows(str(db), "SELECT id, * FROM memories ORDER BY id")
        except psycopg.errors.UndefinedTable:
            return []
    db = Path(db)
    if not db.exists():
        return []
    conn = _read_only(db)
    try:
        return conn.execute("SELECT id, * FROM memories ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # no table yet: nothing was ever written
        return []
    finally:
        conn.close()


def integrity(db: Path | str) -> str:
    """SQLite's integrity_check; on PostgreSQL, amcheck's check of every B-tree index of
    the store against its table."""
    if _postgres(db):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
            indexes = [r[0] for r in conn.execute(
                "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE a.amname = 'btree' AND n.nspname = current_schema()")]
            problems = []
            for name in indexes:
                try:
                    conn.execute("SELECT bt_index_check(%s::regclass, true)", (name,))
                except psycopg.Error as exc:
                    problems.append(f"{name}: {exc}")
        return "; ".join(problems) or "ok"
    conn = _read_only(Path(db))
    try:
        return "; ".join(row[0] for row in conn.execute("PRAGMA integrity_check"))
    finally:
        conn.close()


def stored_text(db: Path | str) -> str:
    """Every text column of every table, for "no secret was stored" (JSON columns as
    their text)."""
    if _postgres(db):
        tables = [r[0] for r in _pg_rows(str(db), "SELECT table_name FROM"
                  " information_schema.tables WHERE table_schema = current_schema()")]
        out = []
        for table in tables:
            for row in _pg_rows(str(db), f'SELECT * FROM "{table}"'):
                out.extend(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                           for v in row if isinstance(v, str | dict | list))
        return "\n".join(out)
    conn = _read_only(Path(db))
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            " AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        out = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                out.extend(v for v in row if isinstance(v, str))
        return "\n".join(out)
    finally:
        conn.close()


def store_of(backend: str, store_target: str, sqlite_path: Path) -> Path | str:
    """Where a family's store lives: `sqlite_path`, or the PostgreSQL database under test."""
    return sqlite_path if backend == "sqlite" else store_target


def db_env(db: Path | str) -> dict[str, str]:
    """The environment naming `db` when it is not the home's default file."""
    return {"ENGRAM_DB": db} if _postgres(db) else {}


# --- hostile values ---------------------------------------------------------------------------

WORDS = ("deploy", "stripe", "refund", "pytest", "migration", "react", "tailwind", "docker",
         "webhook", "checkout", "postgres", "timezone", "release", "makefile", "cache",
         "ruff", "lint", "token", "config", "rollback", "schema", "index", "retry", "queue")
#: Pieces of text that broke something somewhere once: markup, controls, bidi marks,
#: escapes, SQL and LIKE wildcards, separators Unicode counts as line breaks.
ODD = (
    "[red]", "[/red]", "[/usr/local/bin]", "[bold blue on white]x[/]", "[link=http://x]y",
    ":warning:", "<!--", "-->", "<script>alert(1)</script>", "%s %d {0} {}", "$(id)", "`id`",
    "' OR 1=1 --", '"', "\\", "%", "_", "*?[", "\t", "\r", "\n", "\r\n", "\x0b", "\x0c",
    "\x1b[31m", "\x1b]0;title\x07", "\x07", "\x08", "\x7f", "\x85", "\x9b", "\u2028",
    "\u2029", "\u200b", "\ufeff", "\u200f", "\u202e", "\u2066", "\u0301", "é", "漢字",
    "Привет", "مرحبا", "🙂", "👩‍💻", "\U0010ffff", "\ufffd", "\u00a0", "NaN", "null",
    "-1", "yesterday", "../../etc/passwd", "C:\\Windows", "~", "#tag", ",", ", ,",
    "\x00",
)
#: Bytes that are not UTF-8: a stray continuation, a truncated sequence, an encoded
#: surrogate (Python decodes all three to lone surrogates with surrogateescape), overlong.
BAD_BYTES = (b"\xff", b"\xfe\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80",
             b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"caf\xe9")
ODD_NUMBERS = ("-1", "-5", "0", "1", "1.5", "-0", "1e309", "-1e309", "1e-400", "nan", "NaN",
               "inf", "-inf", "Infinity", "99999999999999999999999", "9" * 5000, "0x10",
               "1_000", "", " ", " 3 ", "3.0", "١", "½", "2**64", "0.5.5", "1e5", "-0.0001",
               "9223372036854775808", "18446744073709551616", "1" + "0" * 400)
ODD_DATES = ("yesterday", "last week", "3d", "in March", "in March 2024", "since Monday", "now",
             "today", "tomorrow", "next week", "9999-12-31", "9999-12-31T23:59:59-23:59",
             "0001-01-01", "0001-01-01T00:00:00+14:00", "0000-00-00", "2026-02-30",
             "2026-13-01", "10000-01-01", "1e10", "-1d", "99999999999d", "999999999y",
             "1mo", "2026-03-18T25:00", "2026-03-18T15:00:00+25:00", "", "T", "Z", "-",
             "3 days ago", "in 3000000 years", "2026-03-18T15:00:00Z", "1970-01-01",
             "garbage", "2026-W12", "20260318", "15:00", "𝟐𝟎𝟐𝟔-03-01", "٢٠٢٦-٠٣-٠١")
ODD_TYPES = ("nope", "DECISION", "decision,todo", "project-fact", "", " ", "décision",
             "Decision ", "todo\n", "type", "None", "__class__")


def fake_secret(rng: random.Random) -> str:
    """A token of a format every secret scanner knows (GitHub, AWS, Stripe)."""
    alnum = string.ascii_letters + string.digits
    kind = rng.randrange(3)
    if kind == 0:
        return "ghp_" + "".join(rng.choice(alnum) for _ in range(36))
    if kind == 1:
        return "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits)
                                for _ in range(16))
    return "sk_live_" + "".join(rng.choice(alnum) for _ in range(24))


def nested_text(depth: int, kind: str = "mixed") -> str:
    """JSON text nested `depth` deep, built as text: no Python recursion on our side."""
    if kind == "array":
        return "[" * depth + "]" * depth
    if kind == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return '{"a":[' * (depth // 2) + "0" + "]}" * (depth // 2)


def nested_value(depth: int) -> Any:
    """A dict nested `depth` levels (the top one counts), like meta's bound counts them."""
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


class Hostile(random.Random):
    """Odd values, seeded per family."""

    def __init__(self, family: str) -> None:
        super().__init__(f"{SEED}:{family}")
        self.secrets: list[str] = []

    def chance(self, p: float) -> bool:
        return self.random() < p

    def word(self) -> str:
        return self.choice(WORDS) + self.choice(("", str(self.randrange(1000))))

    def unique_words(self, n: int = 6) -> str:
        """Made-up words: memories this different are never deduplicated."""
        return " ".join("".join(self.choice(string.ascii_lowercase) for _ in range(7))
                        for _ in range(n))

    def secret(self) -> str:
        token = fake_secret(self)
        self.secrets.append(token)
        return token

    def text(self, *, allow_huge: bool = True, secrets: bool = True) -> str:
        """Odd text; with `secrets`, sometimes a token between spaces."""
        r = self.random()
        if r < 0.04:
            return self.choice(("", " ", "\n", "\t \u3000", "\x00"))
        if allow_huge and r < 0.08:  # past the content bound, or near it
            n = self.choice((20_001, 50_000, 50_001, 60_000, 100_000))
            return ("x" * n)[: n]
        parts = []
        for _ in range(self.randint(1, 7)):
            pick = self.random()
            if pick < 0.45:
                parts.append(self.word())
            elif pick < 0.9:
                parts.append(self.choice(ODD))
            elif pick < 0.95:  # a token as people paste one: between spaces
                parts.append(f" {self.secret()} " if secrets else self.word())
            else:
                parts.append(chr(self.choice((0xD800, 0xDBFF, 0xDC80, 0xDFFF))))
        return self.choice((" ", "", "\n")).join(parts)

    def arg(self, plausible: str, *, secrets: bool = True) -> str | bytes:
        """An argv value: the plausible one, odd text, or bytes that are not UTF-8."""
        r = self.random()
        if r < 0.3:
            return plausible
        if r < 0.85:
            return self.text(secrets=secrets)
        raw = self.text(allow_huge=False, secrets=secrets).encode("utf-8", "surrogatepass")
        cut = self.randint(0, len(raw))
        return raw[:cut] + self.choice(BAD_BYTES) + raw[cut:]

    def odd_id(self, known: Sequence[str]) -> str | bytes:
        r = self.random()
        if known and r < 0.3:
            real = self.choice(known)
            return self.choice((real, real[:4], real[:1], real.upper(), f" {real} ",
                                real + "x", real + "\u0301"))
        return self.choice((
            "", " ", "a" * 50_000, "a" * 65, "a" * 64, "nosuchid00", "ид", "١٢٣٤٥",
            "%", "_", "*", "a%", "a_", "a b", "../x", "-x", "--", "\u202eabc",
            "x\u0000y", "😀😀", "\udcff", b"\xff\xfe", "a'b", 'a"b', "0" * 10, "ⅷ", "1e5",
            "[red]", "\u2028", "abc\n", "ABC" * 21, "\u00a0abc",
        ))

    def value(self, depth: int = 0) -> Any:
        """A JSON value of any shape, sometimes deep, huge or not representable."""
        r = self.random()
        scalars: list[Any] = [None, True, False, 0, -1, 1, 0.5, 1.5, -0.0, 2**63, -(2**63) - 1,
                              2**70, 10**30, 1e308, "", " ", "x", self.word(), "yesterday",
                              "2026-03-01", "decision", "a" * 300, self.choice(ODD),
                              "\ud800", self.choice(TYPES), self.choice(STATUSES)]
        if depth > 3 or r < 0.6:
            return self.choice(scalars)
        if r < 0.78:
            return [self.value(depth + 1) for _ in range(self.randint(0, 4))]
        if r < 0.96:
            return {self.choice(("a", "", "content", "id", "type", "\u0000", "🙂")):
                    self.value(depth + 1) for _ in range(self.randint(0, 4))}
        return nested_value(self.choice((MAX_META_DEPTH, MAX_META_DEPTH + 1, 60, 300)))


# --- import records ----------------------------------------------------------------------------

class Records:
    """Good import records of every legal oddity, and bad ones each with one defect."""

    def __init__(self, rng: Hostile) -> None:
        self.rng = rng
        self.count = 0

    def good(self) -> dict[str, Any]:
        rng = self.rng
        self.count += 1
        record: dict[str, Any] = {
            "content": f"Fuzz record {self.count}: {rng.unique_words()} "
                       + rng.choice(("", "[red]kept[/red]", "[/usr/local/bin]", "\u200f"
                                     "مرحبا", "tab\there", "nul\x00dropped", "🙂 ok", ":warning:",
                                     "line\u2028sep", "<!-- hidden? -->", "x" * 40_000)),
        }
        optional: dict[str, Any] = {
            "type": rng.choice((*TYPES, "Decision", "project-fact")),
            "project": rng.choice(("shop", "wéb", "漢字", "p" * 200)),
            "tags": rng.choice((["a", "#B"], "x,y", [], ["t" * 64], ["é"] * 3)),
            "files": rng.choice((["src/app.py"], ["./a b/c.py"], ["f" * 1024])),
            "problem": rng.choice((None, "it broke", "p" * 20_000)),
            "solution": rng.choice((None, "it works", "[red]fixed[/red]")),
            "importance": rng.choice((0, 1, 0.5, "0.25", 1.0)),
            "confidence": rng.choice((0.0, 0.99, None)),
            "pinned": rng.choice((True, False, 0, "yes")),
            "status": rng.choice(STATUSES),
            "provenance": rng.choice(PROVENANCES),
            "created_at": rng.choice(("2026-03-01", "2026-03-01T10:00:00Z",
                                      "2026-03-01T10:00:00+05:30", "0001-01-02T00:00:00")),
            "event_at": rng.choice((None, "2025-12-31T23:59:59.999999+00:00")),
            "access_count": rng.choice((0, 3, 2**53 - 1)),
            "meta": rng.choice(({}, {"k": [1, {"x": None}]}, nested_value(MAX_META_DEPTH),
                                {"confirmed_at": "2026-01-01"}, {"é": "🙂" * 100})),
            "layer": "semantic",  # exports carry it; import ignores it
        }
        for key in rng.sample(sorted(optional), rng.randint(0, len(optional))):
            record[key] = optional[key]
        if rng.chance(0.3):
            record["id"] = f"fz{self.count}" + "".join(
                rng.choice(string.ascii_lowercase + string.digits) for _ in range(8))
        return record

    def bad(self, *, array: bool) -> tuple[bytes, str]:
        """(one line, its defect). In a JSON array a record must still be one JSON value
        (a syntax error ends an array by design), so the raw-byte defects are JSONL's."""
        rng = self.rng
        base = {"content": f"Refused record {rng.unique_words(3)}"}
        defects: list[tuple[str, Any]] = [
            ("unknown field", {**base, "colour": "red"}),
            ("content not text", {**base, "content": rng.choice((5, None, [], {"a": 1}, True))}),
            ("content empty", {**base, "content": rng.choice(("", "   ", "\x00"))}),
            ("content too long", {**base, "content": "c" * 50_001}),
            ("problem too long", {**base, "problem": "p" * 20_001}),
            ("lone surrogate", {**base, rng.choice(("content", "tags", "project")):
                                rng.choice(("bad\ud800", ["ok", "x\udfff"]))}),
            ("type unknown", {**base, "type": rng.choice(("nope", "decision,todo", "",
                                                          "décision"))}),
            ("status unknown", {**base, "status": rng.choice(("zombie", "", 1, None))}),
            ("provenance unknown", {**base, "provenance": "martian"}),
            ("importance", {**base, "importance": rng.choice((1.5, -0.1, "high", True, [],
                                                              2**70, float("nan")))}),
            ("confidence", {**base, "confidence": rng.choice((7, "x", {"a": 1}))}),
            ("pinned", {**base, "pinned": rng.choice(("maybe", 2, [], {}))}),
            ("tags wrong type", {**base, "tags": rng.choice((5, {"a": 1}, [1, 2], [None]))}),
            ("tag too long", {**base, "tags": ["t" * 65]}),
            ("too many tags", {**base, "tags": [f"t{i}" for i in range(201)]}),
            ("tag control", {**base, "tags": [rng.choice(("a\nb", "a\x1bb", "a\u2028b"))]}),
            ("file too long", {**base, "files": ["f" * 1025]}),
            ("project control", {**base, "project": "shop\nrm"}),
            ("project too long", {**base, "project": "p" * 201}),
            ("date", {**base, rng.choice(("created_at", "event_at", "expires_at")):
                      rng.choice(("yesterday", "2026-02-30", 20260301, "10000-01-01"))}),
            ("expires before created", {**base, "created_at": "2026-03-02",
                                        "expires_at": "2026-03-01"}),
            ("id", {**base, "id": rng.choice(("a b", "a" * 65, 5, "", "../x", "ид/x"))}),
            ("link", {**base, "supersedes": rng.choice((5, "a" * 65, "x y"))}),
            ("access_count", {**base, "access_count": rng.choice((-1, 2**53, 1.5, "3"))}),
            ("meta too deep", {**base, "meta": nested_value(MAX_META_DEPTH + 1)}),
            ("meta not object", {**base, "meta": rng.choice(([1], "x", 5))}),
            ("meta too large", {**base, "meta": {"x": "m" * 70_000}}),
            ("meta NaN", {**base, "meta": {"x": float("nan")}}),
            ("not an object", rng.choice(([1], "text", 5, None, True))),
        ]
        why, record = rng.choice(defects)
        raw = json.dumps(record, ensure_ascii=rng.chance(0.5)).encode("utf-8", "surrogatepass")
        textual = [
            ("nested 100,000 deep", ('{"content": "x", "meta": '
                                     + nested_text(100_000, "object") + "}").encode()),
            ("a 5,000-digit number", b'{"content": "x", "importance": ' + b"7" * 5000 + b"}"),
            ("overflowing float", b'{"content": "x", "importance": 1e999}'),
            ("surrogate escape", b'{"content": "a\\udc80b"}'),
        ]
        if not array:
            textual += [
                ("not UTF-8", raw[:10] + rng.choice(BAD_BYTES) + raw[10:]),
                ("truncated", raw[: rng.randint(1, max(1, len(raw) - 1))]),
                ("not JSON", rng.choice((b"{not json", b"}", b"'single'", b"{'a': 1}"))),
                ("two records on a line", raw + b" " + raw),
                ("binary", bytes(rng.randrange(256) for _ in range(40)).replace(b"\n", b"")),
            ]
        if rng.chance(0.35):
            why, raw = rng.choice(textual)
        return raw, why


def bad_line_is_blank(raw: bytes) -> bool:
    """A JSONL line of whitespace is skipped, not reported."""
    try:
        return not raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False

