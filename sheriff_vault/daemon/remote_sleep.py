"""`vault sleep` run inside the watch daemon, which already holds the model, the index and its
snapshot: the caller sends the turns and options, the daemon sleeps and sends back the result.

The sleep itself is compaction.compact.sleep, unchanged, under the same vault lock and journal,
so it writes the same bytes and the same commit as a sleep in the caller's process. Only where the
index comes from differs (daemon/sleeping.py: the daemon's, caught up with the files, read under the
daemon's lock), and what it wrote is queued for the daemon's indexer, which recall flushes first.
The daemon declines when it could not sleep exactly as the caller would (the openai extractor,
which runs with the caller's environment; a vault.yaml changed since the daemon started; another
git identity; a model that will not come up); the caller then sleeps in its own process.
"""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from sheriff_vault import timewin
from sheriff_vault.daemon import rpc
from sheriff_vault.store import gitlog
from sheriff_vault.store.buffer import Turn

if TYPE_CHECKING:
    from sheriff_vault.compaction.result import SleepResult
    from sheriff_vault.store.vault import Vault

# The daemon protocol that has the `sleep` op (rpc.PROTOCOL), and the one whose sleep reads `final`.
SINCE_PROTOCOL = 3
FINAL_SINCE = 4
# A sleep waits up to 120 s for the vault lock and then runs; the caller waits for all of it.
TIMEOUT = 3600.0


def ask(vault: Vault, turns: list[Turn] | None, *, now: dt.datetime | None = None, extractor: str | None = None,
        dry_run: bool = False, final: bool = False) -> SleepResult | None:
    """Sleep through the running daemon; None when no daemon runs or it declines (then sleep here).
    A VaultError the sleep raised in the daemon is raised here, with the same message."""
    from sheriff_vault.compaction.result import SleepResult

    if (extractor or vault.config.sleep.extractor) != "offline":
        return None
    state = rpc.read_state(vault)
    if not state or int(state.get("protocol", 0)) < (FINAL_SINCE if final else SINCE_PROTOCOL):
        return None
    now = now or timewin.utcnow()
    args = {"turns": None if turns is None else [_turn_to_wire(t) for t in turns], "now": now.isoformat(),
            "extractor": extractor, "dry_run": dry_run, "final": final, "identity": gitlog.commit_identity(vault.root)}
    reply = rpc.call(vault, "sleep", args, timeout=TIMEOUT,
                     hangup="the watch daemon stopped during the sleep")
    if not reply or "result" not in reply:
        return None
    return SleepResult.from_json(reply["result"], now)


def _turn_to_wire(turn: Turn) -> dict[str, Any]:
    """A turn as JSON, losing nothing (Turn.to_json drops the metadata and the microseconds)."""
    return {"role": turn.role, "content": turn.content, "at": turn.at.isoformat() if turn.at else None,
            "id": turn.id, "name": turn.name, "meta": turn.meta}


def turn_from_wire(data: dict[str, Any]) -> Turn:
    at = dt.datetime.fromisoformat(data["at"]) if data.get("at") else None
    return Turn(str(data["role"]), str(data["content"]), at, str(data.get("id") or ""), str(data.get("name") or ""),
                dict(data.get("meta") or {}))
