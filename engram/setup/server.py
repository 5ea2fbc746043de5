"""`engram setup --url … --token …`: point every client on this machine at a team server.

The URL and token go to Engram's own config.toml (`[server]`, private to the user), not
into each agent's config: every agent runs `engram mcp`, the hooks and the CLI read the
same file, so one setting serves them all and the token is written to one place.
`ENGRAM_URL` / `ENGRAM_TOKEN` in the environment win over the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import config_path
from .files import FileChange, SetupError, read_bytes

WHAT = "Engram team server"


def change(url: str, token: str | None, path: Path | None = None) -> FileChange:
    """The config.toml edit (computed, not written); `url` "off" removes the section."""
    import tomllib

    import tomlkit

    path = path or config_path()
    before = read_bytes(path)
    text = (before or b"").decode("utf-8", "replace")
    try:
        tomllib.loads(text)
        doc = tomlkit.parse(text)
    except Exception as exc:  # noqa: BLE001 - tomllib and tomlkit raise many kinds
        raise SetupError(f"{path} is not valid TOML ({exc}); fix it, then re-run") from None
    if url.strip() == "off":
        if "server" in doc:
            del doc["server"]
    else:
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")) or len(url) > 500:
            raise SetupError(f"--url must be an http:// or https:// address, not {url!r}")
        if token is not None and (not token.strip() or len(token) > 200):
            raise SetupError("--token must be a user's token (from `engram users add`)")
        table: Any = doc.get("server")
        if table is None:
            table = tomlkit.table()
            doc.add("server", table)
        table["url"] = url
        if token is not None:
            table["token"] = token.strip()
    after = tomlkit.dumps(doc).encode()
    return FileChange(path, before, before if after == (before or b"") else after, WHAT)
