"""Sheriff Vault: a git-backed Markdown memory for AI agents.

The public API, for use from Python (each name is imported on first use, so `import sheriff_vault`
stays cheap):

    from sheriff_vault import Vault, recall, sleep, wake
    vault = Vault("notes")
    print(recall(vault, "what is the budget now?").markdown)

Wings, bottom to top: errors/config/timewin/text/faults/llm, store, index, retrieval and
compaction, daemon, agent, cli. A wing imports only wings below it (tests/test_architecture.py).
"""
from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs the fast `vault recall` ~5 ms
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

_API = {
    "Vault": ("sheriff_vault.store.vault", "Vault"),
    "find_vault": ("sheriff_vault.store.vault", "find_vault"),
    "init_vault": ("sheriff_vault.store.vault", "init_vault"),
    "VaultError": ("sheriff_vault.errors", "VaultError"),
    "recall": ("sheriff_vault.daemon.client", "recall"),
    "sleep": ("sheriff_vault.compaction.compact", "sleep"),
    "wake": ("sheriff_vault.agent.wake", "wake"),
}
__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'sheriff_vault' has no attribute {name!r}")
    import importlib

    module, attr = _API[name]
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value
