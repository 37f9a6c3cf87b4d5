"""Structured logs: JSON lines in .vault/logs/<name>.jsonl, read back merged by time (`vault log`)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


def read_logs(vault: Vault, tail: int = 20) -> list[dict[str, Any]]:
    """The newest `tail` entries of every .jsonl log, oldest first, each with `log` (the file's name).
    A line that is not a JSON object (a torn write) is skipped."""
    entries: list[dict[str, Any]] = []
    for path in sorted(vault.logs.glob("*.jsonl")) if vault.logs.is_dir() else []:
        found: list[dict[str, Any]] = []
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                found.append({"log": path.stem, **data})
                if len(found) == tail:
                    break
        entries += reversed(found)
    entries.sort(key=lambda e: str(e.get("at", "")))
    return entries[-tail:]
