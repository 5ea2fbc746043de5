"""Redaction recall and false positives on public secret-scanner corpora, and its cost.

Two corpora live in benchmarks/redaction_corpus/ (their builders and licences beside them):
gitleaks' own rule samples (true positives in ~30 assignment layouts, false positives the
rules must not match) and detect-secrets' plugin test cases, kept as a held-out check.

- A true positive is *caught* when no run of eight or more characters of its secret (the
  whole secret, if shorter; longer, if the text repeats part of the secret elsewhere, as
  a key named after the provider does) is left in the redacted text; samples whose secret is not
  known count as caught when anything was redacted.
- A false positive is *redacted* when the text changed at all. gitleaks lists some
  real-format keys as one rule's negatives (a wrong length for that rule, a published
  example key); those that another gitleaks rule flags are labelled ``fp_flagged`` and
  reported apart ("all negatives" counts them too).
- Cost is the wall time of `redact` per KB of text, the best of several rounds, over the
  corpora and over "ordinary" text (this checkout's own source and docs cut into 2 KB
  memories), for the current code and for a baseline revision of engram.redaction
  loaded from git, alternating, in one process.

    python -m benchmarks.redaction [--baseline REV] [--misses N] [--json]
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from .report import markdown_table, stamp, write_section

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = Path(__file__).resolve().parent / "redaction_corpus"
# The corpora are built from fetched checkouts of the scanners (see the README there) and
# are not kept in git: they are looked up here, in $ENGRAM_REDACTION_CORPUS, then in the
# team's shared datasets.
SHARED_CORPUS_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "redaction_corpus"
ENV_VAR = "ENGRAM_REDACTION_CORPUS"


class CorpusMissing(FileNotFoundError):
    """A corpus is not on this machine (build it from a scanner's checkout)."""


def corpus_path(name: str) -> Path:
    places = [CORPUS_DIR]
    if os.environ.get(ENV_VAR):
        places.append(Path(os.environ[ENV_VAR]))
    places.append(SHARED_CORPUS_DIR)
    for place in places:
        if (place / f"{name}.jsonl").is_file():
            return place / f"{name}.jsonl"
    raise CorpusMissing(
        f"the {name} corpus is not on this machine: build it with "
        f"benchmarks/redaction_corpus/build_{name}.py (see the README there)"
    )
CORPORA = ("gitleaks", "detect_secrets")
#: engram/redaction.py before the layout-aware assignment rules (issue 17): the reference
#: for recall and cost.
BASELINE_REV = "08a6f64"
RUN = 8  # a surviving run this long of a secret is a leak
CHUNK = 2048  # "ordinary" memories are cut to this size
ORDINARY_GLOBS = ("engram/**/*.py", "*.md", "docs/**/*.md", "benchmarks/*.py")

Redact = Callable[[str], str]


@dataclass
class Tally:
    total: int = 0
    hits: int = 0

    def add(self, hit: bool) -> None:
        self.total += 1
        self.hits += hit

    @property
    def rate(self) -> float:
        return self.hits / self.total if self.total else 0.0


@dataclass
class Score:
    """Recall over true positives, rate of redacted false positives, with breakdowns."""

    name: str
    recall: Tally = field(default_factory=Tally)
    false_positive: Tally = field(default_factory=Tally)
    flagged_negative: Tally = field(default_factory=Tally)  # negatives the scanner flags
    by_layout: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_provider: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    misses: list[dict[str, Any]] = field(default_factory=list)
    redacted_negatives: list[dict[str, Any]] = field(default_factory=list)

    @property
    def all_negatives_rate(self) -> float:
        total = self.false_positive.total + self.flagged_negative.total
        return (self.false_positive.hits + self.flagged_negative.hits) / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.name,
            "true_positives": self.recall.total, "recall": round(self.recall.rate, 4),
            "false_positives": self.false_positive.total,
            "false_positive_rate": round(self.false_positive.rate, 4),
            "negatives_flagged_by_the_scanner": self.flagged_negative.total,
            "all_negatives_redacted": round(self.all_negatives_rate, 4),
            "recall_by_layout": {k: round(v.rate, 4) for k, v in sorted(self.by_layout.items())},
            "recall_by_provider": {
                k: round(v.rate, 4) for k, v in sorted(self.by_provider.items())},
        }


def load_corpus(name_or_path: str) -> list[dict[str, Any]]:
    path = Path(name_or_path)
    if not path.suffix:
        path = corpus_path(name_or_path)
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _longest_run(secret: str, text: str) -> int:
    """Length of the longest piece of ``secret`` still present in ``text``."""
    best = 0
    for start in range(len(secret)):
        low, high = best + 1, len(secret) - start
        while low <= high:  # binary search: presence is monotone in the length
            mid = (low + high) // 2
            if secret[start : start + mid] in text:
                best, low = mid, mid + 1
            else:
                high = mid - 1
    return best


def caught(record: dict[str, Any], redacted: str) -> bool:
    secret = record.get("secret")
    if not secret or secret not in record["text"]:
        return redacted != record["text"]
    # Pieces the text holds anyway (``rubygems`` in ``rubygemsToken = "rubygems_…"``) are
    # not leaks.
    elsewhere = _longest_run(secret, record["text"].replace(secret, "\0"))
    return _longest_run(secret, redacted) < max(min(RUN, len(secret)), elsewhere + 1)


def score(name: str, records: Iterable[dict[str, Any]], redact: Redact) -> Score:
    result = Score(name)
    for record in records:
        redacted = redact(record["text"])
        if record["label"] == "tp":
            hit = caught(record, redacted)
            result.recall.add(hit)
            result.by_layout[record["layout"]].add(hit)
            result.by_provider[record["provider"]].add(hit)
            if not hit:
                result.misses.append({**record, "redacted": redacted})
        elif record["label"] == "fp_flagged":
            result.flagged_negative.add(redacted != record["text"])
        else:
            changed = redacted != record["text"]
            result.false_positive.add(changed)
            if changed:
                result.redacted_negatives.append({**record, "redacted": redacted})
    return result


# --- cost -------------------------------------------------------------------------------


def ordinary_texts(root: Path = REPO) -> list[str]:
    """Code, docs and prose of this checkout cut into memory-sized pieces."""
    texts: list[str] = []
    for pattern in ORDINARY_GLOBS:
        for path in sorted(root.glob(pattern)):
            if any("redaction" in part for part in path.relative_to(root).parts):
                continue  # its docstrings quote secrets on purpose
            try:
                body = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            texts.extend(body[i : i + CHUNK] for i in range(0, len(body), CHUNK))
    return texts


def cost_us_per_kb(texts: list[str], implementations: dict[str, Redact],
                   rounds: int = 5) -> dict[str, float]:
    """Best-of-``rounds`` µs per KB for each implementation, taking turns each round."""
    size_kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
    best = dict.fromkeys(implementations, float("inf"))
    for _ in range(rounds):
        for name, redact in implementations.items():
            start = time.perf_counter()
            for text in texts:
                redact(text)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: seconds * 1e6 / size_kb for name, seconds in best.items()}


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True
    ).stdout


def load_baseline(rev: str) -> ModuleType:
    """engram.redaction as of ``rev``, imported under another name: a single module before
    it became a package, the package's files (copied out of git) after."""
    name = "engram_redaction_baseline"
    package = _git("ls-tree", "--name-only", rev, "engram/redaction/").split()
    if package:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / name
            folder.mkdir()
            for path in package:
                (folder / Path(path).name).write_text(_git("show", f"{rev}:{path}"), "utf-8")
            spec = importlib.util.spec_from_file_location(
                name, folder / "__init__.py", submodule_search_locations=[str(folder)]
            )
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)  # imports every submodule: the files can go
        return module
    source = _git("show", f"{rev}:engram/redaction.py")
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while decorating
    exec(compile(source, f"{rev}:engram/redaction.py", "exec"), module.__dict__)
    return module


def _text_of(module: ModuleType) -> Redact:
    return lambda text: module.redact(text).text


# --- the run ------------------------------------------------------------------------------


@dataclass
class Run:
    scores: dict[str, dict[str, Score]]  # implementation -> corpus -> score
    cost: dict[str, dict[str, float]]  # text set -> implementation -> µs/KB
    ordinary_changed: dict[str, int]  # implementation -> ordinary chunks redacted
    ordinary_total: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    baseline: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "scores": {impl: {c: s.to_dict() for c, s in by.items()}
                       for impl, by in self.scores.items()},
            "cost_us_per_kb": self.cost,
            "ordinary_chunks": self.ordinary_total,
            "ordinary_chunks_redacted": self.ordinary_changed,
            "load_before": self.load_before, "load_after": self.load_after,
        }


def evaluate(corpora: list[str], baseline: str | None, rounds: int = 5) -> Run:
    import engram.redaction as current

    implementations: dict[str, Redact] = {}
    if baseline:
        implementations["baseline"] = _text_of(load_baseline(baseline))
    implementations["current"] = _text_of(current)
    load_before = os.getloadavg()
    loaded = {name: load_corpus(name) for name in corpora}
    scores = {impl: {name: score(name, records, redact) for name, records in loaded.items()}
              for impl, redact in implementations.items()}
    ordinary = ordinary_texts()
    changed = {impl: sum(redact(t) != t for t in ordinary)
               for impl, redact in implementations.items()}
    corpus_texts = [r["text"] for records in loaded.values() for r in records]
    cost = {
        "corpora": cost_us_per_kb(corpus_texts, implementations, rounds),
        "ordinary": cost_us_per_kb(ordinary, implementations, rounds),
    }
    return Run(scores, cost, changed, len(ordinary), load_before, os.getloadavg(), baseline)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def render(run: Run) -> str:
    impls = list(run.scores)
    out: list[str] = []
    headers = ["corpus", "true pos.", "false pos."]
    for impl in impls:
        label = f"{impl} ({run.baseline})" if impl == "baseline" else impl
        headers += [f"recall, {label}", f"FP redacted, {label}",
                    f"all negatives redacted, {label}"]
    rows = []
    for corpus, first in run.scores[impls[0]].items():
        row: list[object] = [corpus, first.recall.total,
                             f"{first.false_positive.total} (+{first.flagged_negative.total})"]
        for impl in impls:
            s = run.scores[impl][corpus]
            all_hits = s.false_positive.hits + s.flagged_negative.hits
            row += [f"{_pct(s.recall.rate)} ({s.recall.hits})",
                    f"{_pct(s.false_positive.rate)} ({s.false_positive.hits})",
                    f"{_pct(s.all_negatives_rate)} ({all_hits})"]
        rows.append(row)
    out.append(markdown_table(headers, rows))

    out.append("\nCost of `redact` (µs per KB, best of rounds; lower is better):\n")
    cost_rows = [[texts, *(f"{run.cost[texts][impl]:.1f}" for impl in impls)]
                 for texts in run.cost]
    out.append(markdown_table(["texts", *impls], cost_rows))
    out.append(
        f"\nOrdinary text ({run.ordinary_total} chunks of {CHUNK} characters of this "
        "checkout's code and docs) redacted at all: "
        + ", ".join(f"{impl} {run.ordinary_changed[impl]}" for impl in impls)
        + ". Load average at start {:.2f} {:.2f} {:.2f}, at end {:.2f} {:.2f} {:.2f}.".format(
            *run.load_before, *run.load_after)
    )

    for corpus in run.scores["current"]:
        layouts = run.scores[impls[0]][corpus].by_layout
        if len(layouts) > 2:
            out.append(f"\nRecall by layout, {corpus}:\n")
            rows = []
            for layout in sorted(layouts):
                row = [layout, layouts[layout].total]
                row += [_pct(run.scores[impl][corpus].by_layout[layout].rate) for impl in impls]
                rows.append(row)
            out.append(markdown_table(["layout", "samples", *impls], rows))
        providers = run.scores["current"][corpus].by_provider
        weak = sorted((t.rate, p) for p, t in providers.items() if t.rate < 1.0)
        out.append(
            f"\n{corpus}: {len(providers) - len(weak)} of {len(providers)} providers at 100% "
            "recall" + (("; below: " + ", ".join(
                f"{p} {_pct(r)} ({providers[p].hits}/{providers[p].total})"
                for r, p in weak)) if weak else "") + "."
        )
    return "\n".join(out)


def render_examples(run: Run, limit: int) -> str:
    out = []
    for corpus, s in run.scores["current"].items():
        for title, items in (("missed", s.misses), ("redacted negatives", s.redacted_negatives)):
            if items:
                out.append(f"\n{corpus}, {title} ({len(items)}):")
                for r in items[:limit]:
                    out.append(f"  [{r['provider']} / {r['layout']}] {r['text'][:160]!r}")
                    out.append(f"      -> {r['redacted'][:160]!r}")
    return "\n".join(out)


@click.command("redaction")
@click.option("--corpus", "corpora", multiple=True, default=CORPORA, show_default=True,
              help="Corpus name in benchmarks/redaction_corpus/ or a JSONL path (repeatable).")
@click.option("--baseline", default=BASELINE_REV, show_default=True,
              help="Git revision of engram.redaction to compare with ('' for none).")
@click.option("--rounds", type=int, default=5, show_default=True,
              help="Timing rounds (the best one counts).")
@click.option("--misses", type=int, default=0,
              help="Also print up to N missed secrets and redacted negatives per corpus.")
@click.option("--write/--no-write", "write", default=None,
              help="Rewrite the Redaction section of benchmarks/RESULTS.md (default: with the "
                   "default corpora).")
@click.option("--results", "results_path", type=click.Path(dir_okay=False), default=None,
              help="Write the section to this file instead of benchmarks/RESULTS.md.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")
def command(corpora: tuple[str, ...], baseline: str, rounds: int, misses: int,
            write: bool | None, results_path: str | None, as_json: bool) -> None:
    """Secret redaction: recall and false positives on public corpora, and cost per KB."""
    if rounds < 1:
        raise click.BadParameter("must be 1 or more", param_hint="--rounds")
    try:
        run = evaluate(list(corpora), baseline or None, rounds)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        raise click.ClickException(f"cannot run the redaction benchmark: {detail}") from None
    text = render(run)
    if results_path or (write if write is not None else tuple(corpora) == CORPORA):
        body = "## Redaction\n\n" + stamp() + "\n" + text
        kwargs = {"path": Path(results_path)} if results_path else {}
        write_section("redaction", body, **kwargs)
    if as_json:
        click.echo(json.dumps(run.to_dict(), indent=2))
        return
    click.echo(text)
    if misses:
        click.echo(render_examples(run, misses))


if __name__ == "__main__":
    command()
