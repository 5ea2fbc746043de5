"""Capture quality: replay real and written Claude Code sessions through Engram's hooks and
score what was stored against hand-labelled gold items (benchmarks/capture_corpus/).

Each session is replayed as Claude Code would run the hooks: the transcript grows entry
by entry on disk; after every tool result comes PostToolUse (or PostToolUseFailure, with
Claude Code's `error` and `is_interrupt`), before each compaction PreCompact, at each end
of a turn Stop, and SessionEnd at the end. The hooks run through the same handlers the
warm worker runs, on a fresh store per session, so the only difference from a real
session is that no process is spawned per event.

Scores (see capture_corpus/README.md): recall per category of the required items,
precision of what was stored, broken or never-run verified commands, secrets stored,
duplicates, and memories stored for sessions that should leave none.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

CORPUS = Path(__file__).resolve().parent / "capture_corpus"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "capture_corpus"
ENV_VAR = "ENGRAM_CAPTURE_CORPUS"
# heldout: real sessions kept for an honest estimate; the extractor is not tuned on them.
# blind: sessions written and labelled without reading the extractor; not tuned on either.
HALVES = ("real", "written", "heldout", "blind")
#: Blind sessions whose details were read while changing capture (README: "Split since its
#: first run"); the rest of the blind half stays sealed and is reported apart.
BLIND_DEV = frozenset({"cmake-simd-compact-en", "sveltekit-subscribe-ru", "ansible-nginx-fr",
                       "swiftui-offline-zh", "deno-permissions-explain-en",
                       # opened on 2026-11-25, the four sealed sessions that scored lowest
                       "nix-flake-plan-ko", "plpgsql-audit-mixed-de-en", "godot-inventory-pl",
                       "unity-pooling-subagent-en",
                       # opened on 2026-11-25 (third session), when ten new sealed ones came
                       "kotlin-room-migration-en", "flask-sqlalchemy-de", "gha-ci-uv-es",
                       "symfony-messenger-pt", "ocaml-menhir-ja", "spring-flyway-it",
                       "haskell-spaceleak-compact-en",
                       # five of those ten, opened the same day; the other five stay sealed
                       "bazel-cache-explain-en", "pulumi-dns-subagent-en",
                       "scala-circe-derivation-ja", "blazor-interventions-fr",
                       "dbt-incremental-de",
                       # the fourth batch, alternate ones by name, opened on 2026-11-28
                       "clojure-keyset-zh", "erlang-smtp-backoff-compact-en",
                       "kafka-streams-rebalance-explain-pt", "pg-particiones-plan-es",
                       "wordpress-ateliers-fr",
                       # the sixth batch, alternate ones by name, opened on 2026-11-28
                       "astro-recetas-reglas-es", "compose-paging-keys-de",
                       "htmx-go-csrf-compact-en", "perl-logrotate-explain-en",
                       "qt6-migration-plan-fr",
                       # the fifth batch, alternate ones by name, opened on 2026-11-28
                       "bevy-tunnelling-subagent-fr", "ktor-idempotency-compact-en",
                       "nomad-periodic-pl", "redis-streams-pendientes-es",
                       "zephyr-ble-power-zh",
                       # the twenty sealed ones, alternate ones by name, opened on 2026-11-28
                       # (fifth session), when a seventh batch came to be sealed
                       "airflow-partner-backfill-en", "channels-tracking-mixed-hi-en",
                       "drf-celery-relatorios-pt", "expo-push-es", "foundry-vesting-review-en",
                       "k8s-operator-compact-en", "micropython-mqtt-subagent-zh",
                       "nvim-blame-subagent-ru", "rust-embassy-i2c-mixed-tr-en",
                       "trpc-prisma-handoff-pt",
                       # the twenty sealed ones, alternate ones by name, opened on 2026-11-29
                       # (eleventh session), when an eighth batch came to be sealed
                       "android-ndk-jni-handoff-zh", "argocd-outofsync-explain-nl",
                       "clickhouse-too-many-parts-en", "flutter-riverpod-refresh-de",
                       "go-grpc-deadlines-ru", "latex-latexmk-explain-ja",
                       "love2d-pi3-spritebatch-uk", "playwright-ci-toujours-casse-fr",
                       "pyspark-skew-nulls-ru", "tauri-updater-ko",
                       # the sealed half's one empty session that stored memories, opened
                       # on 2026-11-29 (thirteenth session)
                       "gitlab-ci-pipelines-dobles-explain-es",
                       # the nineteen sealed ones, alternate ones by name, opened on
                       # 2026-11-29 (fourteenth session), when a ninth batch came to be sealed
                       "aiogram-zapis-gonka-ru", "bash-deploy-flock-es",
                       "duckdb-kpi-oom-compact-ja", "go-cobra-flags-routine-en",
                       "julia-pr-review-ru", "miniprogram-setdata-subagent-zh",
                       "nestjs-typeorm-rename-ko", "prometheus-alerts-regeln-de",
                       "shiny-nitrates-fread-fr", "zig-comptime-scratch-zh",
                       # the ninth batch, alternate ones by name, opened on 2026-11-29
                       # (fifteenth session), when a tenth batch came to be sealed
                       "apollo-dataloader-tenant-mixed-es-en",
                       "elasticsearch-acentos-subagent-pt", "gin-gorm-zhuxiao-shoujihao-zh",
                       "nats-jetstream-dubli-compact-ru", "supabase-rls-miembros-es"})
CATEGORIES = ("decision", "constraint", "preference", "failed_attempt", "bug_note", "todo",
              "open_question", "verified_command", "project_fact")
KNOWLEDGE = ("decision", "constraint", "preference", "failed_attempt", "bug_note", "todo",
             "open_question")


@dataclass
class Case:
    name: str
    half: str  # real / written / heldout / blind
    gold: dict[str, Any]
    transcript: Path


@dataclass
class Outcome:
    case: Case
    stored: list[Any]
    matched_items: set[str] = field(default_factory=set)
    unmatched_memories: list[Any] = field(default_factory=list)
    broken_commands: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    duplicates: int = 0
    forbidden: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def empty_violation(self) -> int:
        return len(self.stored) if self.case.gold.get("empty") else 0


# --- corpus -------------------------------------------------------------------------------


def _transcript_for(gold_path: Path, half: str) -> Path | None:
    stem = gold_path.name[: -len(".gold.json")]
    places = [gold_path.parent]
    if os.environ.get(ENV_VAR):
        places.append(Path(os.environ[ENV_VAR]) / half)
    places.append(SHARED / half)
    for place in places:
        for suffix in (".jsonl", ".jsonl.gz"):
            candidate = place / f"{stem}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def load_cases(halves: tuple[str, ...] = HALVES, names: tuple[str, ...] = ()
               ) -> tuple[list[Case], list[str]]:
    """Every gold file with its transcript; the names of gold files whose transcript is
    not on this machine (real transcripts are not in the repository: see the README)."""
    cases: list[Case] = []
    missing: list[str] = []
    for half in halves:
        for gold_path in sorted((CORPUS / half).glob("*.gold.json")):
            name = gold_path.name[: -len(".gold.json")]
            if names and name not in names:
                continue
            transcript = _transcript_for(gold_path, half)
            if transcript is None:
                missing.append(f"{half}/{name}")
                continue
            gold = json.loads(gold_path.read_text(encoding="utf-8"))
            cases.append(Case(name, half, gold, transcript))
    return cases, missing


def json_entries(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The transcript entries among JSONL lines (what is not a JSON object is skipped)."""
    out = []
    for line in lines:
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out


def _entries(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        return json_entries(handle)


# --- replay -------------------------------------------------------------------------------


def _is_prompt(entry: dict[str, Any]) -> bool:
    """A user entry that starts a turn (the person typed it), as Claude Code sees it."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isSidechain"):
        return False
    if entry.get("isCompactSummary"):
        return False
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(isinstance(b, dict) and b.get("type") == "text" for b in content) and not any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )
    return False


def replay(case: Case, service: Any, workdir: Path) -> None:
    """Feed one session's hook events to the handlers, growing the transcript on disk."""
    from engram.hooks.handlers import handle
    from engram.hooks.state import project_for

    entries = _entries(case.transcript)
    session_id = next((e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str)),
                      case.name)
    cwd = next((e["cwd"] for e in entries if isinstance(e.get("cwd"), str)), str(workdir))
    project = project_for(cwd, {}) or case.name
    path = workdir / f"{session_id}.jsonl"
    uses: dict[str, dict[str, Any]] = {}
    base = {"session_id": session_id, "transcript_path": str(path),
            "permission_mode": "default"}

    shell_cwd = cwd  # Claude Code reports the shell's folder, which a Bash `cd` moves

    def fire(event: str, **extra: Any) -> Any:
        payload = {**base, "cwd": shell_cwd, "hook_event_name": event, **extra}
        return handle(service, {"event": event, "payload": payload, "project": project})

    answered = False
    with open(path, "w", encoding="utf-8") as out:
        for entry in entries:
            if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
                out.flush()
                trigger = (entry.get("compactMetadata") or {}).get("trigger", "auto")
                fire("PreCompact", trigger=trigger, custom_instructions="")
            if _is_prompt(entry) and answered:
                out.flush()
                fire("Stop", stop_hook_active=False)
                answered = False
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
            if entry.get("isSidechain"):
                continue
            if isinstance(entry.get("cwd"), str) and entry["cwd"]:
                shell_cwd = entry["cwd"]
            message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
            content = message.get("content") if isinstance(message.get("content"), list) else []
            if entry.get("type") == "assistant":
                answered = True
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        uses[str(block.get("id"))] = block
            elif entry.get("type") == "user":
                for block in content:
                    if not isinstance(block, dict) or block.get("type") != "tool_result":
                        continue
                    use = uses.get(str(block.get("tool_use_id")))
                    if use is None:
                        continue
                    out.flush()
                    _fire_tool(fire, use, block, entry.get("toolUseResult"))
        out.flush()
        if answered:
            fire("Stop", stop_hook_active=False)
        fire("SessionEnd", reason="other")


def _fire_tool(fire: Any, use: dict[str, Any], block: dict[str, Any], result: Any) -> None:
    common = {"tool_name": use.get("name"), "tool_input": use.get("input") or {},
              "tool_use_id": use.get("id")}
    if block.get("is_error"):
        content = block.get("content")
        text = content if isinstance(content, str) else " ".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict))
        fire("PostToolUseFailure", **common, error=text,
             is_interrupt="[Request interrupted" in text)
    else:
        fire("PostToolUse", **common, tool_response=result if result is not None else {})


# --- scoring ------------------------------------------------------------------------------


def _norm_ws(text: str) -> str:
    return " ".join(text.split())


def _text(memory: Any) -> str:
    parts = [memory.content, memory.problem or "", memory.solution or "", " ".join(memory.files)]
    return "\n".join(parts).lower()


def _groups_match(groups: list[list[str]], text: str) -> bool:
    return bool(groups) and all(any(alt.lower() in text for alt in group) for group in groups)


def _matches(item: dict[str, Any], memory: Any) -> bool:
    types = item.get("types") or [item["type"]]
    if memory.type not in types:
        return False
    if item["type"] == "verified_command" and "command" in item:
        return _norm_ws(str(memory.meta.get("command", ""))) == _norm_ws(item["command"])
    return _groups_match(item.get("match") or [], _text(memory))


def _bash_ok(command: str) -> bool:
    try:
        proc = subprocess.run(["bash", "-n", "-c", command], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _commands_run(entries: list[dict[str, Any]]) -> set[str]:
    from engram.capture.shell import normalize_command

    ran: set[str] = set()
    for entry in entries:
        content = (entry.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and (
                block.get("name") == "Bash"
            ):
                command = (block.get("input") or {}).get("command")
                if isinstance(command, str):
                    ran.add(_norm_ws(normalize_command(command) or command))
    return ran


def score(case: Case, stored: list[Any]) -> Outcome:
    outcome = Outcome(case, stored)
    items = case.gold.get("items") or []
    summaries = 0
    for memory in stored:
        hits = [item for item in items if _matches(item, memory)]
        outcome.matched_items.update(item["id"] for item in hits)
        if not hits:
            if memory.type == "task_summary" and summaries == 0 and not case.gold.get("empty"):
                summaries += 1
                continue
            outcome.unmatched_memories.append(memory)
    ran = _commands_run(_entries(case.transcript))
    for memory in stored:
        if memory.type != "verified_command":
            continue
        command = str(memory.meta.get("command", ""))
        if not _bash_ok(command) or _norm_ws(command) not in ran:
            outcome.broken_commands.append(command)
    for memory in stored:
        blob = json.dumps(memory.to_dict(), ensure_ascii=False)
        outcome.secrets += [s for s in case.gold.get("secrets") or [] if s and s in blob]
        text = _text(memory)
        outcome.forbidden += [
            group[0] for group in case.gold.get("forbidden") or []
            if any(alt.lower() in text for alt in group)
        ]
    seen: Counter[str] = Counter(re.sub(r"\W+", " ", m.content.lower()).strip() for m in stored)
    outcome.duplicates = sum(n - 1 for n in seen.values() if n > 1)
    return outcome


def run_case(case: Case, embedder: str) -> Outcome:
    import engram

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="engram-capture-") as tmp:
        home = Path(tmp)
        previous = os.environ.get("ENGRAM_HOME")
        os.environ["ENGRAM_HOME"] = str(home)
        try:
            service = engram.open(home / "memory.db", embedder=embedder)
            try:
                replay(case, service, home)
                stored = list(service.list(limit=100_000))
            finally:
                service.close()
        finally:
            if previous is None:
                os.environ.pop("ENGRAM_HOME", None)
            else:
                os.environ["ENGRAM_HOME"] = previous
    outcome = score(case, stored)
    outcome.seconds = time.perf_counter() - started
    return outcome


# --- report -------------------------------------------------------------------------------


@dataclass
class Totals:
    required: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    stored: int = 0
    precise: int = 0
    broken: int = 0
    secrets: int = 0
    duplicates: int = 0
    forbidden: int = 0
    empty_sessions: int = 0
    empty_memories: int = 0

    def add(self, outcome: Outcome) -> None:
        for item in outcome.case.gold.get("items") or []:
            if item.get("required", True):
                self.required[item["type"]] += 1
                if item["id"] in outcome.matched_items:
                    self.found[item["type"]] += 1
        self.stored += len(outcome.stored)
        self.precise += len(outcome.stored) - len(outcome.unmatched_memories)
        self.broken += len(outcome.broken_commands)
        self.secrets += len(outcome.secrets)
        self.duplicates += outcome.duplicates
        self.forbidden += len(outcome.forbidden)
        if outcome.case.gold.get("empty"):
            self.empty_sessions += 1
            self.empty_memories += outcome.empty_violation

    def recall(self, kinds: tuple[str, ...]) -> float:
        required = sum(self.required[k] for k in kinds)
        return sum(self.found[k] for k in kinds) / required if required else 0.0

    @property
    def precision(self) -> float:
        return self.precise / self.stored if self.stored else 1.0


def _column(case: Case) -> str:
    if case.half != "blind":
        return case.half
    return "blind (dev)" if case.name in BLIND_DEV else "blind (sealed)"


def render(outcomes: list[Outcome], missing: list[str]) -> str:
    from benchmarks.report import markdown_table

    by_half: dict[str, Totals] = defaultdict(Totals)
    overall = Totals()
    for outcome in outcomes:
        by_half[_column(outcome.case)].add(outcome)
        overall.add(outcome)
    halves = sorted(by_half)
    rows = []
    for kind in CATEGORIES:
        row: list[object] = [kind]
        for half in halves:
            t = by_half[half]
            row.append(f"{t.found[kind]}/{t.required[kind]}" if t.required[kind] else "—")
        row.append(f"{overall.recall((kind,)):.2f}" if overall.required[kind] else "—")
        rows.append(row)
    rows.append(["**knowledge items**", *[f"{by_half[h].recall(KNOWLEDGE):.2f}" for h in halves],
                 f"**{overall.recall(KNOWLEDGE):.2f}**"])
    rows.append(["**all required items**",
                 *[f"{by_half[h].recall(CATEGORIES):.2f}" for h in halves],
                 f"**{overall.recall(CATEGORIES):.2f}**"])
    text = ["### Recall of the gold items (found / required)", "",
            markdown_table(["category", *halves, "all"], rows), ""]
    quality = [
        ["precision of what is stored", *[f"{by_half[h].precision:.2f} ({by_half[h].precise}/"
                                          f"{by_half[h].stored})" for h in halves],
         f"**{overall.precision:.2f}** ({overall.precise}/{overall.stored})"],
        ["broken or never-run verified commands", *[by_half[h].broken for h in halves],
         overall.broken],
        ["secrets stored", *[by_half[h].secrets for h in halves], overall.secrets],
        ["duplicates within a session", *[by_half[h].duplicates for h in halves],
         overall.duplicates],
        ["noise stored (forbidden matches)", *[by_half[h].forbidden for h in halves],
         overall.forbidden],
        ["memories for empty sessions", *[f"{by_half[h].empty_memories} in "
                                          f"{by_half[h].empty_sessions}" for h in halves],
         f"{overall.empty_memories} in {overall.empty_sessions}"],
    ]
    text += ["### What is stored", "", markdown_table(["measure", *halves, "all"], quality), ""]
    session_rows = [
        [f"{o.case.half}/{o.case.name}", o.case.gold.get("language", "?"), len(o.stored),
         len(o.unmatched_memories),
         f"{len(o.matched_items & _required_ids(o.case))}/{len(_required_ids(o.case))}",
         len(o.broken_commands), f"{o.seconds:.1f}"]
        for o in outcomes
    ]
    text += ["### Per session", "", markdown_table(
        ["session", "lang", "stored", "unmatched", "required found", "broken cmds", "s"],
        session_rows), ""]
    if missing:
        text.append(f"Not on this machine (transcripts are kept out of git): {', '.join(missing)}")
    return "\n".join(text)


def _required_ids(case: Case) -> set[str]:
    return {i["id"] for i in case.gold.get("items") or [] if i.get("required", True)}


def details(outcome: Outcome) -> str:
    lines = [f"== {outcome.case.half}/{outcome.case.name}"]
    for item in outcome.case.gold.get("items") or []:
        if item.get("required", True) and item["id"] not in outcome.matched_items:
            what = item.get("note") or item.get("command") or item.get("match")
            lines.append(f"  MISSED {item['type']}: {what}")
    unmatched = {id(memory) for memory in outcome.unmatched_memories}
    for memory in outcome.stored:
        label = "EXTRA" if id(memory) in unmatched else "KEPT "
        lines.append(f"  {label}  {memory.type}: {' '.join(memory.content.split())[:220]}")
    for command in outcome.broken_commands:
        lines.append(f"  BROKEN {command}")
    for secret in outcome.secrets:
        lines.append(f"  SECRET {secret[:12]}…")
    return "\n".join(lines)


@click.command("capture")
@click.option("--half", "halves", multiple=True, type=click.Choice(list(HALVES)),
              help="Only these halves of the corpus (default: all).")
@click.option("--session", "sessions", multiple=True, help="Only these sessions (by name).")
@click.option("--embedder", default="bundled", show_default=True,
              help="Embedder of the replay store (bundled, fake, none).")
@click.option("--details", "show_details", is_flag=True,
              help="List missed items and unmatched memories per session.")
@click.option("--write/--no-write", "write", default=None,
              help="Write RESULTS.md (default: only for a full run).")
def command(halves: tuple[str, ...], sessions: tuple[str, ...], embedder: str,
            show_details: bool, write: bool | None) -> None:
    """Capture quality: replay labelled sessions through the hooks and score the memories."""
    from benchmarks.report import stamp, write_section

    cases, missing = load_cases(halves or HALVES, sessions)
    if not cases:
        raise click.ClickException("no session of the capture corpus is on this machine")
    outcomes = [run_case(case, embedder) for case in cases]
    text = render(outcomes, missing)
    if show_details:
        click.echo("\n".join(details(o) for o in outcomes) + "\n")
    click.echo(text)
    if write if write is not None else not (halves or sessions):
        write_section("capture", "## Capture quality\n\n" + stamp() + "\n" + text)


if __name__ == "__main__":
    command()
