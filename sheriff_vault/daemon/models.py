"""The models a daemon holds: one Embedder per model, shared by every vault it serves.

A daemon serving several vaults (issue 29) must not load the model once per vault: each vault's
index asks here, and vaults whose `embedding` settings name the same model (the same model id,
device and backend) get the same Embedder object, loaded once. A future NLP pipeline belongs here
too, keyed the same way. Loading stays lazy: `Embedder.load` runs in the daemon's model thread.
A model is unloaded when the last open vault using it closes (`release`, from the host).
"""
from __future__ import annotations

import threading
from typing import Any

from sheriff_vault.index.embed import Embedder

_HELD: dict[tuple[str, str, str], Embedder] = {}
_LOCK = threading.Lock()


def key(embedder: Embedder) -> tuple[str, str, str]:
    """What makes two embedders interchangeable: the same vectors from the same kind of run."""
    return embedder.model_id, embedder.device, embedder.backend


def embedder_for(settings: Any) -> Embedder | None:
    """The shared Embedder for a vault's `embedding` settings, None when embedding is off."""
    if not settings.enabled:
        return None
    candidate = Embedder.from_settings(settings)
    with _LOCK:
        return _HELD.setdefault(key(candidate), candidate)


def held() -> list[dict]:
    """The models this process holds: model id, device, backend and whether it is loaded."""
    with _LOCK:
        embedders = list(_HELD.values())
    return [{"model": e.model_id, "device": e.device, "backend": e.backend, "loaded": e.loaded} for e in embedders]


def release(keep: list[Embedder]) -> list[str]:
    """Forget and unload the embedders no served vault uses any more (those not in `keep`), so
    their memory goes back; returns their model ids."""
    wanted = {id(e) for e in keep}
    with _LOCK:
        gone = [(k, e) for k, e in _HELD.items() if id(e) not in wanted]
        for k, _ in gone:
            del _HELD[k]
    for _, embedder in gone:
        embedder.unload()
    return [k[0] for k, _ in gone]
