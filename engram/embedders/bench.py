"""Measure an embedder: cold load, query latency, batch throughput, retrieval quality.

Run ``python -m engram.embedders.bench [SPEC] [--sweep]`` (SPEC defaults to
``bundled``). Kept in the package, not in a scratch script, so the numbers
behind the defaults in ``bundled.py`` (batch size, threading) can be re-made
on any machine, and so the tests can reuse the quality pairs.
``python -m engram.embedders.bench --fusions`` compares the graph rewrites of
:mod:`engram.embedders.convert` instead (CPU per text, A/B interleaved).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram.embedders import Embedder

#: 20 (stored memory, later query) pairs: the query paraphrases the memory
#: with few shared words, as an agent asks in a later session.
QUALITY_PAIRS: list[tuple[str, str]] = [
    ("Auth is Clerk, not custom JWT.", "what authentication system do we use"),
    ("Deploy to staging with docker compose up -d on the build box.",
     "how do I ship the app to the staging server"),
    ("Use pnpm, never npm, in this monorepo.", "which package manager should I run for installs"),
    ("Tests run with pytest -x; CI fails on the first error.",
     "how is the test suite executed in continuous integration"),
    ("The Postgres database is migrated with Alembic; never edit tables by hand.",
     "how do we change the database schema"),
    ("Timestamps are stored in UTC and converted to local time only in the UI.",
     "which timezone do we save dates in"),
    ("Stripe webhooks are retried three times with exponential backoff.",
     "what happens when a payment webhook fails"),
    ("Secrets live in AWS Secrets Manager, never in .env files committed to git.",
     "where should API keys be kept"),
    ("The frontend is React 18 with Vite; do not add webpack config.",
     "what bundler does the web client use"),
    ("Logging goes through structlog with JSON output.", "how should I write log messages"),
    ("Feature flags are managed in LaunchDarkly.",
     "how do we toggle features on and off for users"),
    ("numpy is pinned below 2.0 because the C extension breaks.", "why can't we upgrade numpy"),
    ("Redis caches user sessions for fifteen minutes.",
     "how long does a login session stay cached"),
    ("Emails are sent through Postmark, not SendGrid.", "which email provider do we use"),
    ("The API rate limit is 100 requests per minute per token.",
     "how many calls can a client make before being throttled"),
    ("Background jobs run on Celery with RabbitMQ as the broker.",
     "what queue system processes async tasks"),
    ("Code style: black with line length 100 and ruff for linting.",
     "what formatter and linter settings does the project use"),
    ("The mobile app is built with Flutter and shares no code with the web app.",
     "what framework is the phone app written in"),
    ("Prod runs on Kubernetes in eu-west-1; the Helm chart lives in deploy/helm.",
     "where is production hosted"),
    ("test_upload_timeout is skipped on macOS because of file system case sensitivity.",
     "why is the upload timeout test disabled on mac"),
]

#: Restatements of the same fact (as a memory might be saved twice), and
#: unrelated pairs, for absolute cosine levels (dedupe/supersede thresholds).
PARAPHRASES: list[tuple[str, str]] = [
    ("Auth is Clerk, not custom JWT.",
     "We use Clerk for authentication rather than our own JWT code."),
    ("Use pnpm, never npm, in this monorepo.",
     "In this monorepo always install with pnpm instead of npm."),
    ("Timestamps are stored in UTC and converted to local time only in the UI.",
     "All times are saved as UTC; only the UI converts them to local time."),
    ("Stripe webhooks are retried three times with exponential backoff.",
     "Failed Stripe webhooks get three retries with exponential back-off."),
    ("Emails are sent through Postmark, not SendGrid.",
     "We send email with Postmark rather than SendGrid."),
]
UNRELATED: list[tuple[str, str]] = [
    ("Auth is Clerk, not custom JWT.", "Deploy with docker compose on the staging host."),
    ("Use pnpm, never npm, in this monorepo.", "Timestamps are stored in UTC."),
    ("Emails are sent through Postmark, not SendGrid.", "numpy is pinned below 2.0."),
    ("Redis caches user sessions for fifteen minutes.", "The mobile app is built with Flutter."),
    ("Logging goes through structlog with JSON output.", "Feature flags live in LaunchDarkly."),
]

#: An English sentence, its Russian translation, a Russian paraphrase and an
#: unrelated Russian sentence: all-MiniLM-L6-v2 is English-only.
RUSSIAN_CHECK = {
    "en": "We use Clerk for authentication, not custom JWT tokens.",
    "ru": "Мы используем Clerk для аутентификации, а не собственные JWT-токены.",
    "ru_paraphrase": "Вход пользователей у нас сделан через Clerk вместо самописных JWT.",
    "ru_unrelated": "Деплой на стейджинг делается командой docker compose up.",
}

_SUBJECTS = [
    "The auth service", "Our CI pipeline", "The payments worker", "The React dashboard",
    "The Postgres migration", "The billing API", "The search indexer", "The mobile app",
    "The CLI", "The GraphQL gateway", "The nightly cron job", "The Redis cache",
    "The Kafka consumer", "The Docker image", "The Terraform module", "The onboarding flow",
]
_FACTS = [
    "uses Clerk for authentication instead of custom JWT handling",
    "must run pytest with -x so it fails fast on the first error",
    "retries webhooks three times with exponential backoff",
    "is deployed with docker compose on the staging host",
    "reads its config from environment variables, never from .env files in production",
    "pins numpy below 2.0 because of a binary incompatibility",
    "stores timestamps in UTC and converts to local time only in the UI",
    "uses pnpm workspaces; never run npm install in a package directory",
    "logs through structlog with JSON output",
    "times out after 30 seconds when the upstream is slow",
    "needs the FEATURE_FLAGS table seeded before tests run",
    "was migrated from MySQL to Postgres in March",
    "caches user sessions for fifteen minutes",
    "has flaky tests on macOS because of file system case sensitivity",
    "builds with Vite and serves static assets from a CDN",
    "sends emails through Postmark and bounces go to a Slack channel",
]
_EXTRAS = [
    "We decided this after the outage in the last release.",
    "Ask the platform team before changing it.",
    "See the ADR in docs/adr for the reasoning.",
    "This broke twice when someone forgot it.",
    "The fix lives in src/utils/retry.ts.",
    "Do not revert this without a benchmark.",
    "It is documented in the README under Operations.",
    "Run `make check` locally before pushing.",
]


def coding_notes(n: int = 1000, seed: int = 7) -> list[str]:
    """``n`` realistic 1-3 sentence coding memories (~28 tokens on average)."""
    rng = random.Random(seed)
    notes = []
    for _ in range(n):
        parts = [f"{rng.choice(_SUBJECTS)} {rng.choice(_FACTS)}."]
        parts += rng.sample(_EXTRAS, rng.randint(0, 2))
        notes.append(" ".join(parts))
    return notes


def recall_at_1(embedder: Embedder, pairs: list[tuple[str, str]] = QUALITY_PAIRS) -> float:
    """Share of queries whose nearest memory (cosine) is their own pair."""
    memories = embedder.embed([m for m, _ in pairs])
    queries = embedder.embed([q for _, q in pairs])
    best = (queries @ memories.T).argmax(axis=1)
    return float(sum(int(b) == i for i, b in enumerate(best))) / len(pairs)


def _cold_load(spec: str, runs: int = 3) -> tuple[float, float, float]:
    """Medians of: seconds from first import to first vector (in the child), whole child
    process seconds, and the child's CPU seconds (what it costs on an idle machine)."""
    import resource

    code = (
        "import time; t0 = time.perf_counter()\n"
        "from engram.embedders import get_embedder\n"
        f"get_embedder({spec!r}).embed_query('how do we deploy?')\n"
        "print(time.perf_counter() - t0)\n"
    )
    inner, outer, cpu = [], [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        outer.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        inner.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(inner), statistics.median(outer), statistics.median(cpu)


def _throughput(embedder: Embedder, texts: list[str], repeats: int = 3) -> float:
    embedder.embed(texts[:64])  # warm-up
    best = min(_timed(embedder.embed, texts) for _ in range(repeats))
    return len(texts) / best


def _timed(fn: Callable[..., Any], *args: Any) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


#: Graph variants ``--fusions`` compares: no fusion, each alone, and the default.
FUSION_SETS: dict[str, tuple[str, ...]] = {
    "unfused": (), "bias": ("bias",), "gelu": ("gelu",), "attention": ("attention",),
    "default": ("bias", "gelu", "attention"),
}


def compare_fusions(rounds: int = 5) -> None:
    """Print CPU ms per text of each :data:`FUSION_SETS` graph, one thread, one text per run.

    Every text runs on every graph in turn (rotating order) and the thread's CPU
    time is charged to the graph that ran: on a shared, drifting VM this makes
    the ratios far steadier than timing one graph after another.
    """
    import numpy as np
    import onnxruntime as ort

    from engram.embedders import bundled, convert

    source = bundled._resolve_model(None)
    sessions = {name: ort.InferenceSession(convert.convert(source, fusions),
                                           sess_options=bundled.session_options(),
                                           providers=["CPUExecutionProvider"])
                for name, fusions in FUSION_SETS.items()}
    tok = bundled.load_tokenizer()
    notes = coding_notes(400)
    texts = {"memories": [f"{a} {b}" for a, b in zip(notes[::2], notes[1::2], strict=True)],
             "queries": [q for _, q in QUALITY_PAIRS] * 5}
    names = list(sessions)
    print(f"load average {os.getloadavg()}")
    for kind, items in texts.items():
        ids = [np.array([e.ids], dtype=np.int64) for e in tok.encode_batch(items)]
        per_round: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(rounds):
            cpu = dict.fromkeys(names, 0.0)
            for i, x in enumerate(ids):
                feeds = {"input_ids": x, "attention_mask": np.ones_like(x),
                         "token_type_ids": np.zeros_like(x)}
                for name in names[i % len(names):] + names[: i % len(names)]:
                    t0 = time.thread_time()
                    sessions[name].run(None, feeds)
                    cpu[name] += time.thread_time() - t0
            for name in names:
                per_round[name].append(cpu[name] / len(ids) * 1000)
        tokens = statistics.mean(x.shape[1] for x in ids)
        print(f"{kind}: {len(ids)} texts, {tokens:.1f} tokens on average, {rounds} rounds")
        for name in names:
            ratio = statistics.median(
                a / b for a, b in zip(per_round[name], per_round["unfused"], strict=True))
            print(f"  {name:22s} {statistics.median(per_round[name]):6.2f} ms/text  "
                  f"x{ratio:.3f} of unfused")
    print(f"load average {os.getloadavg()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="bundled")
    parser.add_argument("--sweep", action="store_true",
                        help="bundled only: throughput for several batch sizes and thread counts")
    parser.add_argument("-n", type=int, default=1000, help="notes for the throughput test")
    parser.add_argument("--fusions", action="store_true",
                        help="compare the bundled graph's rewrites (CPU per text) and exit")
    args = parser.parse_args(argv)
    if args.fusions:
        compare_fusions()
        return

    from engram.embedders import get_embedder

    embedder = get_embedder(args.spec)
    if embedder is None:
        sys.exit("spec 'none' has no embedder to measure")
    notes = coding_notes(args.n)
    print(f"embedder {embedder.name} (dim {embedder.dim}), {os.cpu_count()} CPUs")

    inner, outer, cpu = _cold_load(args.spec)
    print(f"cold load, import -> first vector   {inner * 1000:8.0f} ms")
    print(f"cold load, whole fresh process      {outer * 1000:8.0f} ms (CPU {cpu * 1000:.0f} ms)")

    embedder.embed_query("warm up")
    lat, lat_cpu = [], []
    for _ in range(50):
        c0 = time.thread_time()
        lat.append(_timed(embedder.embed_query, "what authentication system do we use"))
        lat_cpu.append(time.thread_time() - c0)
    print(f"query latency, median of 50         {statistics.median(lat) * 1000:8.1f} ms "
          f"(CPU {statistics.median(lat_cpu) * 1000:.1f} ms)")

    print(f"throughput, {len(notes)} notes            {_throughput(embedder, notes):8.0f} texts/s")
    # Wall-clock numbers suffer when other processes share the CPUs; CPU time
    # per text does much less, and gives what idle cores would do.
    cpu0 = time.process_time()
    embedder.embed(notes)
    cpu = (time.process_time() - cpu0) / len(notes)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"CPU time per text                   {cpu * 1000:8.2f} ms "
          f"(~{(cores or 1) / cpu:.0f} texts/s on {cores} idle cores)")
    if args.sweep and args.spec == "bundled":
        from engram.embedders.bundled import BundledEmbedder

        for threads in (1, 2):
            for batch in (4, 8, 16, 32, 64):
                e = BundledEmbedder(batch_size=batch, threads=threads)
                rate = _throughput(e, notes)
                c0 = time.process_time()
                e.embed(notes)
                cpu_ms = (time.process_time() - c0) / len(notes) * 1000
                print(f"  threads={threads} batch={batch:3d}  {rate:6.0f} texts/s  "
                      f"CPU {cpu_ms:.2f} ms/text")

    print(f"quality, R@1 on {len(QUALITY_PAIRS)} pairs          {recall_at_1(embedder):8.2f}")
    for label, pairs in (("paraphrase", PARAPHRASES), ("unrelated", UNRELATED)):
        a = embedder.embed([x for x, _ in pairs])
        b = embedder.embed([y for _, y in pairs])
        sims = (a * b).sum(axis=1)
        print(f"cosine of {label:10s} pairs, min/mean/max  "
              f"{sims.min():.2f} / {sims.mean():.2f} / {sims.max():.2f}")
    ru = RUSSIAN_CHECK
    vec = dict(zip(ru, embedder.embed(list(ru.values())), strict=True))
    for other in ("en", "ru_paraphrase", "ru_unrelated"):
        print(f"russian: cos(ru, {other:13s})       {float(vec['ru'] @ vec[other]):8.3f}")
    print(f"english: cos(en, ru_unrelated)      {float(vec['en'] @ vec['ru_unrelated']):8.3f}")


if __name__ == "__main__":
    main()
