"""The lifecycle's knobs, in one place: defaults, the config file, the environment.

`[lifecycle]` in $ENGRAM_HOME/config.toml overrides a default; a few environment
variables override the file, so a hook or a test can change them per process
(`ENGRAM_UPKEEP=off` turns automatic upkeep off).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

UPKEEP_MODES = ("auto", "off", "thread", "subprocess", "inline")


@dataclass(frozen=True)
class Settings:
    # consolidation: episodic memories of one project and type, this alike and this old
    consolidate_similarity: float = 0.8
    consolidate_min_age_days: float = 14.0
    consolidate_max_group: int = 12
    # an LLM summariser ("ollama:<model>" or "openai:<model>"); none = deterministic merge
    summariser: str | None = None
    # garbage collection
    duplicate_similarity: float = 0.95
    decay_floor: float = 0.05
    # forgetting sweep
    forget_threshold: float = 0.75
    # automatic upkeep: after this many saves, or when the last run is this old
    upkeep_mode: str = "auto"
    upkeep_every: int = 50
    upkeep_interval_hours: float = 24.0
    # automatic upkeep never archives or merges what arrived this recently (an import of
    # old notes is not old news to this store)
    grace_days: float = 30.0
    # recall audit log
    audit: bool = True
    audit_retention_days: float = 90.0


_ENV = {
    "ENGRAM_UPKEEP": "upkeep_mode",
    "ENGRAM_UPKEEP_EVERY": "upkeep_every",
    "ENGRAM_AUDIT": "audit",
    "ENGRAM_AUDIT_DAYS": "audit_retention_days",
    "ENGRAM_SUMMARISER": "summariser",
}


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Config and environment values arrive as text or TOML scalars; bad ones are ignored."""
    if name == "summariser":
        return str(value).strip() or None if value not in (None, False) else None
    if name == "upkeep_mode":
        text = str(value).strip().lower()
        text = {"0": "off", "false": "off", "no": "off", "on": "auto", "1": "auto",
                "true": "auto", "yes": "auto"}.get(text, text)
        return text if text in UPKEEP_MODES else default
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        return str(value).strip().lower() not in ("0", "off", "false", "no")
    try:
        number = type(default)(value)
    except (TypeError, ValueError):
        return default
    return number if number >= 0 else default


def load_settings(config: dict[str, Any] | None = None) -> Settings:
    """Defaults, then config.toml's [lifecycle] table, then the environment."""
    if config is None:
        from ..config import load_config

        config = load_config()
    table = config.get("lifecycle") if isinstance(config, dict) else None
    settings = Settings()
    defaults = {f.name: getattr(settings, f.name) for f in fields(Settings)}
    changes: dict[str, Any] = {}
    if isinstance(table, dict):
        for key, value in table.items():
            if key in defaults:
                changes[key] = _coerce(key, value, defaults[key])
    for env, key in _ENV.items():
        value = os.environ.get(env)
        if value is not None and value.strip():
            changes[key] = _coerce(key, value, defaults[key])
    return replace(settings, **changes)
