"""Wake packets: the small record sleep leaves behind so the agent can resume (spec sec. 2.3)."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from .topics import parse_time

PACKET_SCHEMA = 1


def packet_paths(vault: Any) -> list[Path]:
    """wake/YYYY/MM/DD/HHMMSS.json, oldest first (the path sorts by time)."""
    base = vault.path("wake")
    return sorted(base.glob("*/*/*/*.json")) if base.is_dir() else []


def latest_packet(vault: Any) -> tuple[Path, dict] | None:
    """The newest readable wake packet; a corrupt one is skipped (doctor reports it)."""
    for path in reversed(packet_paths(vault)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and parse_time(data.get("slept_at")):
            return path, data
    return None


def latest_slept_at(vault: Any) -> dt.datetime | None:
    found = latest_packet(vault)
    return parse_time(found[1].get("slept_at")) if found else None
