"""Deterministic synthetic coding-assistant memories and queries for the scale benchmark.

Realistic in the ways that cost time and space: the twelve types in plausible
proportions, many projects plus global memories, prose mixed with identifiers, paths,
commands, error codes and versions, lengths from one line to a paragraph. The same
seed gives the same memories on every machine, so runs compare.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

TYPE_WEIGHTS = {
    "project_fact": 20, "decision": 12, "bug_note": 14, "verified_command": 10,
    "task_summary": 10, "preference": 6, "constraint": 6, "failed_attempt": 6, "todo": 6,
    "open_question": 3, "episode": 5, "resource": 2,
}
LIBS = (
    "React", "Next.js", "Prisma", "PostgreSQL", "Redis", "Kafka", "FastAPI", "Django",
    "Celery", "Terraform", "Kubernetes", "Docker", "pnpm", "Vite", "Jest", "pytest",
    "Tailwind", "GraphQL", "gRPC", "SQLite", "ClickHouse", "Sentry", "Grafana",
    "OpenTelemetry", "Stripe", "Clerk", "S3", "nginx", "Playwright", "Webpack", "Pydantic",
    "SQLAlchemy", "Alembic", "tRPC", "Zod", "Turborepo", "Go modules", "Cargo", "Tokio",
)
DIRS = (
    "src/api", "src/components", "apps/web", "apps/mobile", "packages/ui", "services/billing",
    "infra/terraform", "scripts", "tests/e2e", "internal/store", "cmd/server", "lib/auth",
)
NAMES = (
    "session.ts", "checkout.tsx", "models.py", "handlers.go", "config.yaml", "Dockerfile",
    "main.rs", "utils.py", "index.ts", "schema.prisma", "settings.py", "router.ts",
    "worker.py", "cache.go", "Makefile", "deploy.sh", "client.ts", "views.py",
)
VERBS = ("get", "parse", "load", "sync", "build", "resolve", "fetch", "render", "validate",
         "create", "update", "delete", "refresh", "retry", "compute", "merge")
NOUNS = ("User", "Invoice", "Cart", "Session", "Token", "Order", "Report", "Webhook",
         "Payment", "Profile", "Config", "Event", "Query", "Plan", "Account", "Shipment")
ERRORS = ("ECONNREFUSED", "ETIMEDOUT", "TS2345", "TS2322", "P3009", "P2002", "OOMKilled",
          "ENOSPC", "CORS preflight failure", "401 Unauthorized", "deadlock detected",
          "EADDRINUSE", "segfault", "ImportError", "KeyError", "race condition", "N+1 query")
ENVS = ("staging", "production", "preview", "local", "CI")
PEOPLE = ("Dana", "Lee", "Sam", "Priya", "Marco", "Aiko", "Tom", "Nina")
ADJECTIVES = ("blue", "fast", "quiet", "north", "bright", "lunar", "iron", "paper", "swift")
PROJECT_NOUNS = ("shop", "billing", "analytics", "mobile", "infra", "auth", "docs", "pipeline",
                 "search", "gateway", "admin", "ledger", "notify", "media")
DETAILS = (
    "This only shows up under load in {env}.",
    "{person} confirmed it during the review of {file}.",
    "The fix is covered by a regression test in {dir}.",
    "It matters because the {lib} adapter retries silently.",
    "Measured p95 went from {n} ms to {m} ms after the change.",
    "See the discussion in ticket #{n} for the trade-offs.",
    "Do not revert this without talking to {person} first.",
    "The same pattern exists in {file}, which still needs the change.",
    "We pinned {lib} to {version} until upstream fixes it.",
    "Rollback is safe: the migration is additive.",
    "The {noun} table has about {n} thousand rows in {env}.",
    "CI runs this on every push to main, about {n} seconds.",
)
TEMPLATES = {
    "project_fact": ("{lib} handles {noun_l} storage in {project}; the entry point is {path}.",
                     "{ident} in {path} returns null when the {noun_l} is soft-deleted.",
                     "The {env} database for {project} is {lib} {version}."),
    "decision": ("We chose {lib} over {lib2} for {noun_l} processing because of {reason}.",
                 "Decided to move {noun_l} validation into {path} (agreed with {person})."),
    "bug_note": ("{error} in {env} when calling {ident}: {cause}.",
                 "{ident} fails with {error} after upgrading {lib} to {version}; {cause}."),
    "verified_command": ("Run the {noun_l} tests with: {command}",
                         "Deploy {project} to {env} with `{command}`"),
    "task_summary": ("Refactored {ident} in {path}; {noun_l} sync now batches {n} rows.",
                     "Fixed {error} in {project}: {cause}. Touched {path} and {path2}."),
    "preference": ("Prefer {lib} for new {noun_l} code; avoid {lib2}.",
                   "{person} prefers small PRs that touch one of {dir} at a time."),
    "constraint": ("Never call {ident} from request handlers in {project}; it blocks on {lib}.",
                   "All {noun_l} writes must go through {path}."),
    "failed_attempt": ("Tried upgrading {lib} to {version}: {error} in {path}, rolled back.",
                       "Caching {ident} with {lib} did not help: hit rate stayed under {n}%."),
    "todo": ("Add retries with backoff to {ident} in {path}.",
             "Remove the {lib2} fallback from {project} once {lib} {version} ships."),
    "open_question": ("Should {noun_l} records expire after {n} days or {m} days?",
                      "Is {lib} fast enough for {noun_l} search at our scale?"),
    "episode": ("Met with {person} about {project}: agreed to drop {lib2} by sprint {n}.",
                "Incident in {env}: {error} on {ident} for {n} minutes."),
    "resource": ("{lib} docs on {noun_l} batching: https://docs.example.com/{slug}/{n}",
                 "Runbook for {project} {env} outages lives in {path}."),
}
CAUSES = ("the pool size is too small", "a missing await", "the cache key omits the tenant",
          "clock skew between services", "an unindexed foreign key", "a stale lockfile",
          "the env var is unset in CI", "the retry loop never backs off")
REASONS = ("lower latency", "better typing", "the team knows it", "simpler deployment",
           "licensing", "cost")
COMMANDS = ("pnpm test --filter {slug}", "make migrate ENV={env}", "docker compose up -d {slug}",
            "pytest -k {ident_l} -x", "terraform plan -var-file={env}.tfvars",
            "go test ./internal/... -run {ident}", "cargo test {ident_l}",
            "flyctl deploy --remote-only -a {slug}")
QUERY_TEMPLATES = (
    "how do we deploy {project} to {env}", "why does {ident} fail", "{error} in {env}",
    "which {lib} version do we use", "where is {noun_l} validation", "{ident}",
    "tests for {noun_l}", "what did we decide about {lib}", "{path}",
    "how to run the {noun_l} tests", "known issues with {lib}", "todo for {project}",
)


class Generator:
    def __init__(self, seed: int, projects: int) -> None:
        self.rng = random.Random(seed)
        self.projects = [f"{a}-{n}" for n in PROJECT_NOUNS for a in ADJECTIVES][:projects]
        self.types = list(TYPE_WEIGHTS)
        self.weights = list(TYPE_WEIGHTS.values())

    @classmethod
    def for_store(cls, seed: int, size: int) -> Generator:
        """The generator the scale benchmark fills a store of `size` memories with: more
        projects for a larger store (8 to 120)."""
        return cls(seed, projects=max(8, min(120, size // 400)))

    def _slots(self) -> dict[str, Any]:
        r = self.rng
        verb, noun = r.choice(VERBS), r.choice(NOUNS)
        ident = f"{verb}{noun}{r.choice(('', 'ById', 'Batch', 'Async', 'ForTenant'))}"
        lib, lib2 = r.sample(LIBS, 2)
        slots = {
            "lib": lib, "lib2": lib2, "noun_l": noun.lower(), "noun": noun, "ident": ident,
            "ident_l": f"{verb}_{noun.lower()}", "error": r.choice(ERRORS), "env": r.choice(ENVS),
            "person": r.choice(PEOPLE), "dir": r.choice(DIRS), "reason": r.choice(REASONS),
            "cause": r.choice(CAUSES), "n": r.randint(2, 9999), "m": r.randint(2, 9999),
            "version": f"{r.randint(1, 20)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
            "slug": f"{noun.lower()}-{r.choice(('api', 'web', 'worker', 'svc'))}",
            "path": f"{r.choice(DIRS)}/{r.choice(NAMES)}",
            "path2": f"{r.choice(DIRS)}/{r.choice(NAMES)}",
            "project": r.choice(self.projects),
        }
        slots["file"] = slots["path"]
        slots["command"] = r.choice(COMMANDS).format(**slots)
        return slots

    def memory(self, index: int, now: datetime) -> dict[str, Any]:
        r = self.rng
        kind = r.choices(self.types, self.weights)[0]
        slots = self._slots()
        text = r.choice(TEMPLATES[kind]).format(**slots)
        # Lengths: most are one or two lines, some are paragraphs (checkpoints, bugs).
        extra = min(int(r.expovariate(0.6)), 8)
        if kind in ("task_summary", "bug_note", "decision"):
            extra += r.randint(0, 2)
        for _ in range(extra):
            text += " " + r.choice(DETAILS).format(**self._slots())
        record: dict[str, Any] = {
            "content": text,
            "type": kind,
            "project": None if r.random() < 0.1 else slots["project"],
            "tags": r.sample(("auth", "perf", "db", "ci", "frontend", "api", "infra", "test"),
                             r.randint(0, 3)),
            "files": [slots["path"]] if r.random() < 0.5 else [],
            "importance": round(r.uniform(0.2, 0.9), 2),
            "event_at": (now - timedelta(days=r.uniform(0, 720))).isoformat(),
            "provenance": r.choice(("agent", "agent", "hook", "checkpoint", "human")),
        }
        if kind == "task_summary" and r.random() < 0.5:
            record["problem"] = f"{slots['error']} when {slots['ident']} ran in {slots['env']}"
            record["solution"] = f"{slots['cause'].capitalize()}; fixed in {slots['path']}"
        return record

    def memories(self, count: int, now: datetime | None = None) -> Iterator[dict[str, Any]]:
        now = now or datetime(2026, 11, 1, tzinfo=UTC)
        for index in range(count):
            yield self.memory(index, now)

    def queries(self, count: int) -> list[str]:
        return [self.rng.choice(QUERY_TEMPLATES).format(**self._slots()) for _ in range(count)]


def scale_queries(seed: int, size: int, count: int) -> list[str]:
    """The queries the scale benchmark asks of a store it filled with `size` distinct
    records (as on PostgreSQL): drawn after them from the same generator, so a side
    benchmark on that store asks the very same ones."""
    gen = Generator.for_store(seed, size)
    for _ in gen.memories(size):
        pass
    return gen.queries(count)
