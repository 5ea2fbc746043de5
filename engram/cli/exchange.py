"""Import, export and reindex: moving memories in and out of a store."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import write_private
from ..errors import ValidationError
from ..exchange import FORMATS, parse
from .common import (
    console,
    emit_json,
    handle_errors,
    json_option,
    open_service,
    progress_bar,
    wants_json,
)


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@json_option
@handle_errors
def import_(file: str, as_json: bool) -> None:
    """Import memories from JSONL or a JSON array ('-' reads standard input).

    Bad lines are reported with their line number; good lines still import, whatever
    a bad one holds (bytes that are not UTF-8 included). Exit 1 when any record was
    refused. Records whose id the store holds (its own export, imported again) add nothing.
    """
    if file == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(file).read_bytes()
        except OSError as exc:
            raise ValidationError("file", f"cannot read {file}: {exc.strerror or exc}") from None
    if _is_markdown(data):
        raise ValidationError("file", f"{file} is a Markdown export, written for reading;"
                              " import takes the json or jsonl export")
    service = open_service(remote_ok=True)
    if wants_json(as_json) or not sys.stderr.isatty():
        result = service.import_records(parse(data))
    else:  # a person at a terminal sees how far it got
        records = list(parse(data))
        with progress_bar("importing", len(records)) as advance:
            result = service.import_records(records, advance)
    for error in result.errors:
        click.echo(f"line {error['line']}: {error['error']}", err=True)
    if wants_json(as_json):
        emit_json(result.to_dict())
    else:
        console().print(f"imported {result.imported}, duplicates {result.duplicates},"
                        f" errors {len(result.errors)}")
    if result.errors:
        raise SystemExit(1)  # a refused record: a script must be able to tell


def _is_markdown(data: bytes) -> bool:
    """`export --format markdown|claude-md` output: a heading or a comment first."""
    head = data.removeprefix(b"\xef\xbb\xbf").lstrip()[:64]
    return head.startswith((b"# ", b"<!--"))


@click.command()
@click.option("--format", "fmt", default="json", show_default=True, type=click.Choice(FORMATS))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to FILE.")
@click.option("--project", help="Only this project (and global memories).")
@json_option
@handle_errors
def export(fmt: str, output: str | None, project: str | None, as_json: bool) -> None:
    """Export every memory (all statuses); json and jsonl round-trip through import."""
    if as_json or wants_json(False):
        fmt = "json" if fmt not in ("json", "jsonl") else fmt
    text = open_service(remote_ok=True).export(fmt, project=project)
    if output:
        try:
            write_private(output, text)  # an export holds every memory: owner-only
        except OSError as exc:
            raise ValidationError(
                "output", f"cannot write {output}: {exc.strerror or exc}"
            ) from None
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@click.command()
@json_option
@handle_errors
def reindex(as_json: bool) -> None:
    """Re-embed every memory with the current embedder and rebuild the keyword index."""
    service = open_service()
    total = service.count(status=("active", "superseded", "archived", "deleted"))
    if wants_json(as_json) or not sys.stderr.isatty():
        count = service.reindex()
    else:
        with progress_bar("reindexing", total) as advance:
            count = service.reindex(lambda done, _all: advance(done))
    stats = service.stats()
    if wants_json(as_json):
        emit_json({"reindexed": count, "embedder": stats.get("embedder")})
    else:
        click.echo(f"reindexed {count} memories with {stats.get('embedder') or 'no embedder'}")


@click.command()
@click.option("--to", "target", required=True, metavar="TARGET",
              help="The new store: a file path or a postgresql://user:password@host/db URL.")
@json_option
@handle_errors
def migrate(target: str, as_json: bool) -> None:
    """Copy this whole store (--db) to an empty store on another engine, and verify it.

    Every memory in every status with its version links, vector and metadata, and the
    recall log; nothing is re-embedded. Counts and checksums of both sides are compared.
    """
    import engram

    from ..migration import migrate as copy_store

    source = open_service(embedder="none")
    destination = engram.open(target, embedder="none")
    try:
        report = copy_store(source, destination)
    finally:
        destination.close()
    if wants_json(as_json):
        emit_json(report.to_dict())
        return
    total = sum(report.memories.values())
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(report.memories.items()))
    console().print(f"copied {total} memories ({by_status}), {report.vectors} vectors and"
                    f" {report.recalls} recall-log entries to {report.target}")
    console().print(f"verified: memories {report.checksums['memories']},"
                    f" vectors {report.checksums['vectors']} on both sides")


@click.command()
@json_option
@handle_errors
def sync(as_json: bool) -> None:
    """Send the saves, edits and session summaries queued while the team server was
    unreachable (in order, once each; an edit that met a change made meanwhile is saved
    beside it, never over it)."""
    from ..outbox import pending
    from ..remote import RemoteEngram

    service = open_service(remote_ok=True)
    if not isinstance(service, RemoteEngram):
        waiting = len(pending())
        raise click.ClickException(f"no team server is set (engram setup --url); {waiting} "
                                   "queued save(s) wait")
    sent, left = service.sync()
    notes = service.sync_notes
    if wants_json(as_json):
        emit_json({"sent": sent, "queued": left, "server": service.url,
                   **({"notes": notes} if notes else {})})
    else:
        for note in notes:
            click.echo(note, err=True)
        click.echo(f"sent {sent}, {left} still queued ({service.url})")
