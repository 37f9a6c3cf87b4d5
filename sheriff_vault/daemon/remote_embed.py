"""Embeddings from the running daemon's model, for work done in another process (sleep).

Loading the model costs a sleep seconds and hundreds of MB; the daemon already holds it. The
vectors come back as raw float32 and the cache keys are the local embedder's, so the index a
sleep writes is the one a local model would have written. When no daemon answers, or it holds a
different model, the local model loads after all.
"""
from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np

from sheriff_vault.daemon import rpc
from sheriff_vault.errors import DaemonError
from sheriff_vault.index.embed import Embedder
from sheriff_vault.store.vault import Vault

BATCH = 256


class DaemonEmbedder(Embedder):
    """The vault's Embedder, answered by the daemon (see the module doc)."""

    def __init__(self, vault: Vault, local: Embedder) -> None:
        super().__init__(local.model_name, local.device, local.batch_size, local.backend)
        self.vault, self.local = vault, local
        self.meaning = local.meaning
        self._dim: int | None = None
        self.remote_calls = 0

    @property
    def loaded(self) -> bool:
        return True

    def load(self) -> Any:
        return self

    @property
    def dim(self) -> int:
        if self._dim is None:
            reply = self._ask([])
            self._dim = int(reply["dim"]) if reply else self.local.dim
        return self._dim

    def _ask(self, texts: list[str]) -> dict | None:
        try:
            reply = rpc.call(self.vault, "embed", {"texts": texts, "model_id": self.model_id}, timeout=300)
        except DaemonError:
            return None
        if not reply or reply.get("model_id") != self.model_id:
            return None
        self.remote_calls += 1
        return reply

    def encode(self, texts: Sequence[str], workers: int = 1) -> np.ndarray:
        """The daemon's vectors for `texts` (it decides how many workers run them)."""
        texts = list(texts)
        parts = []
        for i in range(0, max(len(texts), 1), BATCH):
            chunk = texts[i : i + BATCH]
            reply = self._ask(chunk)
            if reply is None:
                return self.local.encode(texts)
            self._dim = int(reply["dim"])
            parts.append(decoded(reply["vectors"], self._dim, len(chunk)))
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


def encoded(vecs: np.ndarray) -> str:
    """The wire form of a vector matrix (the daemon's side of DaemonEmbedder)."""
    return base64.b64encode(np.ascontiguousarray(vecs, dtype="<f4").tobytes()).decode()


def decoded(wire: str, dim: int, rows: int) -> np.ndarray:
    """The vector matrix `encoded` sent."""
    return np.frombuffer(base64.b64decode(wire), dtype="<f4").reshape(rows, dim)
