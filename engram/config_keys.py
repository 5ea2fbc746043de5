"""The keys of $ENGRAM_HOME/config.toml that Engram reads, and how `engram config` edits them.

Each key names a table and a field (`lifecycle.grace_days`, `hooks.summarizer`) or a
top-level one (`embedder`); `projects.<path>` maps a folder to a project name. A value is
read as the key's kind (a number, true/false, text), refused with one line when it is
not, and written with tomlkit so the user's other keys, comments and layout stay as they
were; the file stays private to its owner.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .config import config_path, home_dir, write_private
from .errors import ValidationError

# key -> (kind, what it does); the lifecycle keys come from its Settings below
KEYS: dict[str, tuple[type, str]] = {
    "embedder": (str, "embedder spec: bundled, multilingual, none, or a remote one"),
    "hooks.summarizer": (str, "opt-in session summariser: claude, codex, endpoint, off"),
    "hooks.summarizer_model": (str, "model the summariser asks for"),
    "hooks.summarizer_timeout": (float, "seconds the summariser may take"),
    "hooks.ask_agent_to_save": (bool, "ask the agent once per session to save what it learned"),
    "hooks.worker": (bool, "keep a warm worker for the hooks"),
    "hooks.worker_idle": (float, "seconds an idle worker stays up"),
    "server.url": (str, "the team server this machine uses"),
    "server.token": (str, "this machine's token for the team server"),
    "memory_files.sync_after_upkeep": (bool, "refresh synced MEMORY.md blocks after upkeep"),
    "scopes.default": (str, "scope of a memory saved without one: team or personal "
                            "(scopes.<type> sets one type's)"),
}


def _lifecycle_keys() -> dict[str, tuple[type, str]]:
    from .lifecycle.settings import Settings

    found = {}
    for item in fields(Settings):
        kind = type(getattr(Settings(), item.name))
        found[f"lifecycle.{item.name}"] = (str if kind is type(None) else kind, "lifecycle")
    return found


def known() -> dict[str, tuple[type, str]]:
    return {**KEYS, **_lifecycle_keys()}


def _split(key: str) -> tuple[str | None, str]:
    if not isinstance(key, str) or not key.strip():
        raise ValidationError("key", "give a key such as lifecycle.grace_days")
    table, _, name = key.partition(".")
    if not name:
        return None, table
    return table, name


def _kind(key: str) -> type:
    table, name = _split(key)
    if table == "projects" and name:
        return str  # a folder -> project name
    if table == "scopes" and name:
        from .model import TYPES

        if name != "default" and name not in TYPES:
            raise ValidationError("key", f"scopes.{name}: use scopes.default or scopes.<type>"
                                  f" ({', '.join(TYPES)})")
        return str  # team or personal, checked with the value
    keys = known()
    if key not in keys:
        raise ValidationError("key", f"{key} is not a setting Engram reads; `engram config"
                              " list --all` shows them")
    return keys[key][0]


def parse_value(key: str, text: str) -> Any:
    kind = _kind(key)
    if key.startswith("scopes.") and text not in ("team", "personal"):
        raise ValidationError("value", f"{key} is team or personal, not {text!r}")
    if kind is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValidationError("value", f"{key} is true or false, not {text!r}")
    if kind in (int, float):
        try:
            number = kind(text)
        except ValueError:
            raise ValidationError("value", f"{key} is a number, not {text!r}") from None
        if number < 0:
            raise ValidationError("value", f"{key} must not be negative")
        return number
    if key == "embedder":
        _check_embedder(text)
    return text


def _check_embedder(spec: str) -> None:
    """Refuse a misspelt embedder now, not at the next search (naming the valid ones)."""
    from .embedders import get_embedder

    try:
        get_embedder(spec)  # builds nothing heavy: models load on their first embed
    except ValueError as exc:
        raise ValidationError("value", str(exc)) from None


def _document() -> Any:
    import tomlkit

    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except OSError as exc:
        raise ValidationError("config", f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # noqa: BLE001 - tomlkit raises several kinds for bad TOML
        raise ValidationError("config", f"{path} is not valid TOML: {exc}") from None


def current() -> dict[str, Any]:
    """Every key set in the file, flattened (`lifecycle.grace_days`: 30)."""
    flat: dict[str, Any] = {}
    for name, value in _document().unwrap().items():
        if isinstance(value, dict):
            for inner, item in value.items():
                flat[f"{name}.{inner}"] = item
        else:
            flat[name] = value
    return flat


def get(key: str) -> Any:
    _kind(key)
    return current().get(key)


def set_value(key: str, text: str) -> Any:
    import tomlkit

    value = parse_value(key, text)
    doc = _document()
    table, name = _split(key)
    if table is None:
        doc[name] = value
    else:
        if table not in doc or not isinstance(doc[table], dict):
            doc[table] = tomlkit.table()
        doc[table][name] = value
    _save(doc)
    return value


def unset(key: str) -> bool:

    _kind(key)
    doc = _document()
    table, name = _split(key)
    holder = doc if table is None else doc.get(table)
    if not isinstance(holder, dict) or name not in holder:
        return False
    del holder[name]
    _save(doc)
    return True


def _save(doc: Any) -> None:
    import tomlkit

    home_dir()  # $ENGRAM_HOME itself, created owner-only when this is the first setting
    write_private(config_path(), tomlkit.dumps(doc))
