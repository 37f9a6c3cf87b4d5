"""The turns sleep held back from memory (quarantine/YYYY/MM/DD/HHMMSS-<turn>.md): injection
phrasing, secrets or hidden Unicode. Reading only; `vault sleep` writes them and a person deletes
each file once reviewed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sheriff_vault.store import mdfile

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@dataclass
class Quarantined:
    path: str
    turn: str
    role: str
    at: str
    reasons: str
    sleep_id: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "turn": self.turn, "role": self.role, "at": self.at, "reasons": self.reasons,
                "sleep_id": self.sleep_id}


def list_quarantined(vault: Vault, limit: int = 500) -> list[Quarantined]:
    """Held-back turns, newest first, each with the reason sleep gave (its file's frontmatter)."""
    from sheriff_vault.errors import VaultError

    folder = vault.path("quarantine")
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*.md"), reverse=True)[:limit]:
        meta: Any = {}
        try:
            parts = mdfile.split(path.read_text(encoding="utf-8", errors="replace"))
            meta = mdfile.to_plain(mdfile.load_meta(parts.fm, vault.rel(path))) if parts else {}
        except (OSError, VaultError):
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        found.append(Quarantined(vault.rel(path), str(meta.get("turn") or ""), str(meta.get("role") or ""),
                                 str(meta.get("at") or ""), str(meta.get("reasons") or "(no reason recorded)"),
                                 str(meta.get("sleep_id") or "")))
    return found
