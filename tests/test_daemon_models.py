"""The models a daemon holds are shared by the vaults it serves: one Embedder per model."""
from __future__ import annotations

import pytest

from sheriff_vault.config import EmbeddingSettings
from sheriff_vault.daemon import models
from sheriff_vault.index.embed import HASH


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
