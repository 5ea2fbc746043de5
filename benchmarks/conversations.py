"""The harness LoCoMo and REALTALK share: each dialog turn one memory, each question one query.

Each conversation gets its own fresh store; turns are saved through the public
`save_many` with the service's dedup (a turn merged into an earlier memory is scored as
that memory), each with its timestamp as the memory's time. Relevance is the question's
evidence turns, under one or more label sets (LoCoMo: as released and audited). Five
systems run over the same queries: a plain BM25 baseline computed here (SQLite FTS5
porter, OR of the terms), then Engram keyword-only, vector-only, hybrid without
re-ranking, and the default search. A dataset module supplies a `Dataset` (names,
categories, label sets) and a loader; `options` and `main` give both the same command.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from .metrics import METRICS, Scores, percentile
from .pg import postgres_database
from .report import markdown_table, stamp, write_section

#: The service's own search settings, one per ablation; "bm25" is the harness baseline.
SYSTEMS: dict[str, dict[str, Any] | None] = {
    "bm25": None,
    "keyword": {"pools": "keyword"},
    "vector": {"pools": "vector"},
    "hybrid": {"rerank": False},
    "default": {},
}
K = 10
SAVE_BATCH = 64
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Dataset:
    """What differs between the conversation benchmarks: names, categories, label sets."""

    key: str  # the RESULTS.md section and the database prefix
    title: str
    categories: dict[int, str]
    headline: tuple[int, ...]
    labels: tuple[str, ...]
    #: the label set of the per-category table
    main_label: str

    @property
    def headline_text(self) -> str:
        return f"{min(self.headline)}-{max(self.headline)}"


# --- data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    when: datetime

    def content(self, captions: bool = True) -> str:
        """What one memory holds: who said it and what they said (and what they showed)."""
        text = f"{self.speaker}: {self.text}"
        if captions and self.caption:
            text += f" [shares a photo of {self.caption}]"
        return text


@dataclass(frozen=True)
class Question:
    index: int
    text: str
    category: int
    evidence: dict[str, tuple[str, ...]]  # label set -> dia ids


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]


@dataclass
class LabelStats:
    """What normalising the evidence ids did, so dropped labels are visible in the report."""

    labels: tuple[str, ...] = ("raw", "audited")
    evidence_ids: int = 0
    normalised: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    audit_corrections: int = 0
    without_evidence: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for label in self.labels:
            self.without_evidence.setdefault(label, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "evidence_ids": self.evidence_ids,
            "normalised": self.normalised,
            "dropped": self.dropped,
            "audit_corrections_applied": self.audit_corrections,
            "questions_without_evidence": self.without_evidence,
        }


def normalise_evidence(
    items: Sequence[Any], known: set[str], where: str, stats: LabelStats
) -> tuple[str, ...]:
    """`D:11:26` -> `D11:26`, `D30:05` -> `D30:5`, "D8:6; D9:17" -> two ids; unknown ids dropped."""
    kept: list[str] = []
    for item in items:
        stats.evidence_ids += 1
        raw = str(item)
        found = _EVIDENCE_RE.findall(raw)
        if not found:
            stats.dropped.append(f"{where} {raw!r} (not an id)")
            continue
        for session, turn in found:
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id != raw.strip():
                stats.normalised.append(f"{where} {raw!r} -> {dia_id}")
            if dia_id not in known:
                stats.dropped.append(f"{where} {dia_id} (no such turn)")
            elif dia_id not in kept:
                kept.append(dia_id)
    return tuple(kept)


def truncate(conv: Conversation, max_turns: int) -> Conversation:
    """The first `max_turns` turns and the questions whose evidence lies among them."""
    turns = conv.turns[:max_turns]
    known = {t.dia_id for t in turns}
    questions = [
        q for q in conv.questions
        if any(q.evidence.values()) and all(set(ev) <= known for ev in q.evidence.values())
    ]
    return Conversation(conv.sample_id, turns, questions)


# --- the plain BM25 baseline ------------------------------------------------------------


class PlainBM25:
    """SQLite FTS5 with the porter tokenizer, the question's terms ORed: the reference."""

    def __init__(self, turns: Sequence[Turn], captions: bool) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter')")
        self.ids = [t.dia_id for t in turns]
        self.db.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)",
            [(i, t.content(captions)) for i, t in enumerate(turns)],
        )

    def search(self, query: str, k: int) -> list[str]:
        terms = dict.fromkeys(w.lower() for w in re.findall(r"\w+", query))
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self.db.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, k)
        ).fetchall()
        return [self.ids[r[0]] for r in rows]


# --- running ----------------------------------------------------------------------------


class QueryCache:
    """The same embedder, remembering query vectors: five systems embed each question once."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self._queries: dict[str, Any] = {}

    def embed(self, texts: Sequence[str]) -> Any:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Any:
        if text not in self._queries:
            self._queries[text] = self.inner.embed_query(text)
        return self._queries[text]


@dataclass
class Run:
    """Everything one run measured; `to_dict` is the --json output."""

    dataset: Dataset
    systems: list[str]
    scores: dict[tuple[str, str, str], Scores] = field(default_factory=dict)
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    turns: int = 0
    merged: int = 0
    merged_examples: list[str] = field(default_factory=list)
    questions: int = 0
    temporal: list[str] = field(default_factory=list)
    ingest_seconds: float = 0.0
    total_seconds: float = 0.0
    #: per question and system, the evidence the top K missed (for --misses)
    misses: list[dict[str, Any]] = field(default_factory=list)

    def score(self, system: str, label: str, group: str) -> Scores:
        return self.scores.setdefault((system, label, group), Scores())

    def to_dict(self) -> dict[str, Any]:
        results: dict[str, Any] = {}
        for (system, label, group), scores in sorted(self.scores.items()):
            results.setdefault(label, {}).setdefault(system, {})[group] = scores.as_dict()
        return {
            "turns": self.turns,
            "memories": self.turns - self.merged,
            "merged_by_dedup": self.merged,
            "questions": self.questions,
            "questions_with_temporal_phrase": len(self.temporal),
            "ingest_seconds": round(self.ingest_seconds, 2),
            "total_seconds": round(self.total_seconds, 2),
            "search_ms_p50": {
                s: round(percentile(v, 50), 2) for s, v in self.latency_ms.items()
            },
            "results": results,
        }

    def groups(self, category: int) -> list[str]:
        groups = [f"cat{category}"]
        if category in self.dataset.headline:
            groups.append("overall")
        return groups


def run_conversation(
    conv: Conversation,
    run: Run,
    embedder: Any,
    workdir: Path,
    *,
    captions: bool,
    clock: str,
    categories: Sequence[int],
    advance: Callable[[int], None],
    server: str | None = None,
    misses: bool = False,
) -> None:
    import engram

    latest = max(t.when for t in conv.turns)
    now = datetime.now(UTC)
    clock_fn = (lambda: latest) if clock == "data" else (lambda: now)
    target = (postgres_database(server, f"{run.dataset.key}_{conv.sample_id}") if server
              else workdir / f"{conv.sample_id}.db")
    mem = engram.open(target, embedder=embedder, clock=clock_fn)
    # Automatic upkeep (GC, consolidation) is a separate concern: with the real clock its
    # GC would archive old episodes as decayed right after they are saved.
    mem.lifecycle.upkeep_mode = "off"
    try:
        started = time.perf_counter()
        memory_of: dict[str, str] = {}
        text_of: dict[str, str] = {}
        for start in range(0, len(conv.turns), SAVE_BATCH):
            chunk = conv.turns[start : start + SAVE_BATCH]
            saved = mem.save_many([
                {"content": t.content(captions), "type": "episode", "event_at": t.when,
                 "meta": {"dia_id": t.dia_id}}
                for t in chunk
            ])
            for turn, result in zip(chunk, saved, strict=True):
                memory_of[turn.dia_id] = result.memory.id
                text_of.setdefault(result.memory.id, result.memory.content)
                if result.duplicate:
                    run.merged += 1
                    if len(run.merged_examples) < 5:
                        run.merged_examples.append(
                            f"{conv.sample_id} {turn.dia_id} -> "
                            f"{result.memory.meta.get('dia_id')}: {turn.text[:60]!r}"
                        )
            advance(len(chunk))
        run.ingest_seconds += time.perf_counter() - started
        run.turns += len(conv.turns)
        baseline = PlainBM25(conv.turns, captions) if "bm25" in run.systems else None
        dia_of = {t.dia_id: t for t in conv.turns}

        from engram.temporal import parse_temporal

        for question in conv.questions:
            if question.category not in categories or not any(question.evidence.values()):
                continue
            run.questions += 1
            if parse_temporal(question.text, clock_fn()).phrase:
                run.temporal.append(question.text)
            for system in run.systems:
                t0 = time.perf_counter()
                if system == "bm25":
                    assert baseline is not None
                    ranked = baseline.search(question.text, K)
                    as_memory = False
                else:
                    response = mem.search(question.text, k=K, **(SYSTEMS[system] or {}))
                    ranked = [r.memory.id for r in response.results]
                    as_memory = True
                run.latency_ms.setdefault(system, []).append((time.perf_counter() - t0) * 1000)
                for label in run.dataset.labels:
                    evidence = question.evidence.get(label, ())
                    if not evidence:
                        continue
                    if as_memory:
                        evidence = tuple(memory_of[d] for d in evidence)
                    for group in run.groups(question.category):
                        run.score(system, label, group).add(ranked, evidence)
                    if misses and label == run.dataset.main_label:
                        lost = [d for d, e in zip(question.evidence[label], evidence,
                                                  strict=True) if e not in ranked]
                        run.misses.append({
                            "conversation": conv.sample_id, "system": system,
                            "question": question.text, "category": question.category,
                            "found": len(evidence) - len(lost), "evidence": len(evidence),
                            "missed": [dia_of[d].content(captions)[:160] for d in lost],
                            "top": [(text_of.get(r) if as_memory else dia_of[r].content(
                                captions))[:120] for r in ranked[:3]],
                        })
            advance(1)
    finally:
        mem.close()


def evaluate(
    dataset: Dataset,
    conversations: Sequence[Conversation],
    *,
    embedder: str = "bundled",
    systems: Sequence[str] = tuple(SYSTEMS),
    captions: bool = True,
    clock: str = "now",
    categories: Sequence[int] | None = None,
    progress: bool = True,
    server: str | None = None,
    misses: bool = False,
) -> Run:
    from engram.embedders import get_embedder

    cats = tuple(dataset.categories) if categories is None else tuple(categories)
    resolved = get_embedder(embedder)
    wrapped = QueryCache(resolved) if resolved is not None else None
    if resolved is None:
        systems = [s for s in systems if s not in ("vector",)]
    run = Run(dataset, list(systems))
    total = sum(
        len(c.turns) + sum(1 for q in c.questions
                           if q.category in cats and any(q.evidence.values()))
        for c in conversations
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"engram-{dataset.key}-") as tmp, _progress(
        progress, total, f"{dataset.title} (turns + questions)"
    ) as advance:
        for conv in conversations:
            run_conversation(
                conv, run, wrapped, Path(tmp), captions=captions, clock=clock,
                categories=cats, advance=advance, server=server, misses=misses,
            )
    run.total_seconds = time.perf_counter() - started
    return run


class _progress:
    """A rich progress bar on stderr (or nothing): `with _progress(on, total) as advance`."""

    def __init__(self, enabled: bool, total: int, description: str) -> None:
        self.enabled, self.total, self.description = enabled, total, description
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.bar = Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=Console(stderr=True), transient=True,
        )
        self.bar.__enter__()
        task = self.bar.add_task(self.description, total=self.total)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


# --- reporting --------------------------------------------------------------------------


def render(run: Run, stats: LabelStats, conversations: int, embedder: str) -> str:
    dataset = run.dataset
    out: list[str] = []
    n_norm, n_drop = len(stats.normalised), len(stats.dropped)
    out.append(
        f"{conversations} conversations, {run.turns} turns -> {run.turns - run.merged} memories "
        f"({run.merged} merged by dedup), {run.questions} questions searched; "
        f"embedder {embedder}; {run.total_seconds:.0f} s "
        f"(ingest {run.ingest_seconds:.0f} s)."
    )
    audit = (f" audit corrected {stats.audit_corrections} evidence lists."
             if "audited" in dataset.labels else "")
    out.append(
        f"Evidence labels: {stats.evidence_ids} ids read, {n_norm} normalised, {n_drop} dropped;"
        f"{audit} Questions with a temporal phrase: {len(run.temporal)}. `ms p50` is per "
        "search; each question is embedded once, inside the first system that needs it "
        "(vector)."
    )
    for label in dataset.labels:
        out.append(f"\n### Categories {dataset.headline_text}, {label} labels\n")
        rows = []
        for system in run.systems:
            scores = run.scores.get((system, label, "overall"))
            if scores is None:
                continue
            rows.append([system, *[scores.mean(m) for m in METRICS], scores.n,
                         f"{percentile(run.latency_ms.get(system, []), 50):.1f}"])
        out.append(markdown_table(["system", *METRICS, "n", "ms p50"], rows))
    main = dataset.main_label
    out.append(f"\n### Per category, {main} labels (R@10 / MRR)\n")
    groups = [f"cat{c}" for c in dataset.categories
              if any((s, main, f"cat{c}") in run.scores for s in run.systems)]
    rows = []
    for system in run.systems:
        row: list[object] = [system]
        for g in groups:
            scores = run.scores.get((system, main, g))
            row.append("-" if scores is None else
                       f"{scores.mean('R@10'):.3f} / {scores.mean('MRR'):.3f}")
        rows.append(row)
    first = run.systems[0]
    headers = ["system"] + [
        f"{dataset.categories[int(g[3:])]} (n={run.scores[(first, main, g)].n})"
        if (first, main, g) in run.scores else g
        for g in groups
    ]
    out.append(markdown_table(headers, rows))
    if len(stats.dropped) > 20:
        # Ids of turns the released data no longer holds, counted per conversation; the
        # malformed ones in full.
        per: dict[str, int] = {}
        for item in stats.dropped:
            if item.endswith("(no such turn)"):
                conv = item.split(" ", 1)[0]
                per[conv] = per.get(conv, 0) + 1
        malformed = [item for item in stats.dropped if not item.endswith("(no such turn)")]
        out.append(f"\nDropped evidence ids ({len(stats.dropped)}): naming no turn of the data, "
                   + ", ".join(f"{c} {n}" for c, n in per.items())
                   + ("; not an id: " + "; ".join(malformed) if malformed else ""))
    elif stats.dropped:
        out.append("\nDropped evidence ids: " + "; ".join(stats.dropped))
    if run.merged_examples:
        out.append("\nDedup examples: " + "; ".join(run.merged_examples))
    return "\n".join(out)


# --- the command ------------------------------------------------------------------------


def options(dataset: Dataset, data_help: str, env_var: str) -> Callable[[Any], Any]:
    """The options every conversation benchmark takes, on a click command."""
    cats = ",".join(str(c) for c in dataset.categories)
    decorators = [
        click.option("--data", "data", type=click.Path(), envvar=env_var, help=data_help),
        click.option("--conversations", type=int, default=None,
                     help="Only the first N conversations."),
        click.option("--skip", type=int, default=0, show_default=True,
                     help="Leave out the first N conversations (with --conversations N: a "
                          "split, to check a change on unseen data)."),
        click.option("--half", type=click.Choice(["even", "odd"]), default=None,
                     help="Only the even-indexed (0, 2, ...) or odd-indexed conversations: "
                          "tune on one half, report the other."),
        click.option("--max-turns", type=int, default=None,
                     help="Only the first N turns of each conversation (and the questions "
                          "they answer)."),
        click.option("--systems", default=",".join(SYSTEMS), show_default=True,
                     help="Comma-separated subset of: " + ", ".join(SYSTEMS)),
        click.option("--embedder", default="bundled", show_default=True,
                     help="Embedder spec (bundled, fake, none, ...)."),
        click.option("--clock", type=click.Choice(["now", "data"]), default="now",
                     show_default=True,
                     help="Search 'now' as the service does, or as of the conversation's "
                          "last turn."),
        click.option("--captions/--no-captions", default=True, show_default=True,
                     help="Include the photo captions attached to some turns."),
        click.option("--categories", default=cats, show_default=True,
                     help="Question categories to search (the headline is always "
                          f"{dataset.headline_text})."),
        click.option("--write/--no-write", "write", default=None,
                     help="Rewrite benchmarks/RESULTS.md (default: only for a full run)."),
        click.option("--results", "results_path", type=click.Path(dir_okay=False),
                     default=None,
                     help="Write the results section to this file instead of "
                          "benchmarks/RESULTS.md."),
        click.option("--db", "server", default=None, metavar="URL",
                     help="Run on PostgreSQL: a postgresql:// URL of a server's admin "
                          "database; a database per conversation is created there "
                          "(default: SQLite files)."),
        click.option("--misses", "misses_path", type=click.Path(dir_okay=False),
                     default=None,
                     help="Write every question's missed evidence (per system) to this "
                          "JSON file, to study failures."),
        click.option("--quiet", is_flag=True, help="No progress bar."),
        click.option("--json", "as_json", is_flag=True,
                     help="Machine-readable JSON on stdout."),
    ]

    def apply(fn: Any) -> Any:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn

    return apply


def main(
    dataset: Dataset,
    loaded: tuple[list[Conversation], LabelStats],
    *,
    conversations: int | None, skip: int, half: str | None, max_turns: int | None,
    systems: str, embedder: str, clock: str, captions: bool, categories: str,
    write: bool | None, results_path: str | None, server: str | None,
    misses_path: str | None, quiet: bool, as_json: bool,
) -> None:
    """Select the conversations, run, print, and write the RESULTS.md section."""
    chosen = [s.strip() for s in systems.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SYSTEMS))
    if unknown:
        raise click.BadParameter(f"unknown system(s) {unknown}; use {list(SYSTEMS)}")
    cats = tuple(int(c) for c in categories.split(",") if c.strip())
    convs, stats = loaded
    if skip < 0:
        raise click.BadParameter("must be 0 or more", param_hint="--skip")
    convs = convs[skip:]
    if half is not None:
        convs = convs[(0 if half == "even" else 1)::2]
    if conversations is not None:
        convs = convs[:conversations]
    if max_turns is not None:
        convs = [truncate(c, max_turns) for c in convs]
    run = evaluate(dataset, convs, embedder=embedder, systems=chosen, captions=captions,
                   clock=clock, categories=cats, progress=not quiet and not as_json,
                   server=server, misses=misses_path is not None)
    if misses_path:
        Path(misses_path).write_text(json.dumps(run.misses, indent=1), encoding="utf-8")
    text = render(run, stats, len(convs), embedder)
    full = conversations is None and max_turns is None and not skip and half is None
    if results_path or (write if write is not None else full):
        body = f"## Retrieval quality on {dataset.title}\n\n" + stamp() + "\n" + text
        kwargs = {"path": Path(results_path)} if results_path else {}
        write_section(dataset.key, body, **kwargs)
    if as_json or _root_wants_json():
        click.echo(json.dumps({**run.to_dict(), "labels": stats.to_dict()}, indent=2))
    else:
        click.echo(text)


def _root_wants_json() -> bool:
    ctx = click.get_current_context().find_root()
    return bool(ctx.obj and isinstance(ctx.obj, dict) and ctx.obj.get("json"))
