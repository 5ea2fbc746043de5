"""The text of a consolidated memory: a summary a colleague could use, checked by content."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram.lifecycle.recap import recap
from engram.model import Memory

START = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def episodes(*texts: str, files: tuple[str, ...] = ()) -> list[Memory]:
    return [Memory(id=f"ep{i}", content=text, type="episode", files=files,
                   created_at=START + timedelta(days=i), updated_at=START + timedelta(days=i),
                   event_at=START + timedelta(days=i))
            for i, text in enumerate(texts)]


def test_a_recurring_failure_reads_as_one_headline_with_what_differed_and_the_fix():
    sources = episodes(
        "Staging deploy pipeline timed out after 20 minutes on the smoke step.",
        "Staging deploy pipeline timed out after 9 minutes on the upload step.",
        "Staging deploy pipeline timed out after 15 minutes on the test step. Retried builds"
        " reuse the cache.",
        "Staging deploy pipeline timed out after 12 minutes on the build step.",
        "Staging deploy pipeline timed out after 18 minutes on the migrate step. Raising the"
        " runner timeout to 30 minutes fixed it.",
        files=(".github/workflows/deploy.yml",),
    )
    text = recap(sources, limit=4000)
    lines = text.splitlines()
    assert lines[0] == "Staging deploy pipeline timed out 5 times, 2026-05-04 to 05-08."
    assert "- step: smoke, upload, test, build, migrate" in lines
    assert "- 9–20 minutes (20, 9, 15, 12, 18)" in lines  # every value kept, apart
    assert "- Retried builds reuse the cache." in lines
    assert "Fixed: Raising the runner timeout to 30 minutes fixed it." in lines
    assert "Files: .github/workflows/deploy.yml" in lines
    assert lines[-1] == "Sources: ep0, ep1, ep2, ep3, ep4"
    assert text.count("Staging deploy pipeline") == 1  # no repeated words to inflate


def test_a_series_of_related_choices_keeps_each_value_and_negation():
    sources = episodes(
        "Pinned the API image to node 20.11 for the payments service.",
        "Pinned the API image to node 20.12 for the payments service; the migration does not"
        " lock the orders table.",
        "Pinned the API image to node 22.1 for the payments service; the migration locks the"
        " orders table for 3 s.",
    )
    text = recap(sources, limit=4000)
    assert text.splitlines()[0].startswith("Pinned the API image to node")
    assert "20.11" in text and "20.12" in text and "22.1" in text  # versions never merged
    assert "does not lock the orders table" in text and "locks the orders table for 3 s" in text


def test_a_multi_day_investigation_is_told_by_its_most_representative_note():
    sources = episodes(
        "Checkout is slow: the payments call takes 4 s at p95.",
        "The Stripe SDK retries three times on a 502 before failing the checkout.",
        "The cause of the slow checkout: the connection pool of 2 is exhausted under load;"
        " raised it to 20.",
        "Checkout p95 is back to 600 ms after the pool change.",
    )
    text = recap(sources, limit=4000)
    head, *rest = text.splitlines()
    assert head.endswith("(4 related notes, 2026-05-04 to 05-07).")
    assert "checkout" in head.lower()
    body = "\n".join(rest)
    assert "Fixed: The cause of the slow checkout" in body  # what fixed it, named as such
    for fact in ("4 s at p95", "three times on a 502", "600 ms"):
        assert text.count(fact) == 1


def test_a_recap_fits_its_limit_and_always_names_its_sources():
    sources = episodes(*[f"Nightly import {i} failed on row {i * 7} of the orders export. "
                         + "Detail " * 60 for i in range(12)])
    text = recap(sources, limit=600)
    assert len(text) <= 600
    assert text.splitlines()[-1].startswith("Sources: ep0, ep1")
