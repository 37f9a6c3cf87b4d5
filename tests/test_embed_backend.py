"""The bundled model run with transformers alone gives sentence-transformers' vectors (so cached
vectors stay valid whichever backend wrote them), and loads without sentence-transformers."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sheriff_vault.index.embed import Embedder, MeanPoolingModel

TEXTS = ["Caroline: I went to a choir rehearsal yesterday (7 May 2023).", "the party", "",
         "We are moving the orders database from Postgres 14 to Postgres 16. " * 40,  # past the 256-token cut
         "Budget for the party is 400 USD.", "Zürich, naïve café — 東京"]


@pytest.mark.slow
def test_transformers_backend_matches_sentence_transformers():
    plain = Embedder(backend="transformers")
    library = Embedder(backend="sentence-transformers")
    assert isinstance(plain.load(), MeanPoolingModel)
    assert not isinstance(library.load(), MeanPoolingModel)
    assert plain.dim == library.dim == 384
    assert plain.key("x") == library.key("x")  # one cache for both
    a, b = plain.encode(TEXTS), library.encode(TEXTS)
    assert a.dtype == np.float32 and a.shape == b.shape
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(a * b, axis=1))) >= 1 - 1e-4
    one_by_one = np.stack([plain.encode([t])[0] for t in TEXTS])
    assert float(np.min(np.sum(one_by_one * b, axis=1))) >= 1 - 1e-4


@pytest.mark.slow
def test_the_transformers_backend_does_not_import_sentence_transformers():
    code = ("import sys; from sheriff_vault.index.embed import Embedder; "
            "Embedder(backend='transformers').encode(['hi']); "
            "print(sorted(m for m in ('sentence_transformers', 'sklearn', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "sentence_transformers" not in out.stdout and "sklearn" not in out.stdout


@pytest.mark.slow
def test_onnx_backend_matches_sentence_transformers_without_torch(tmp_path):
    """The default backend: vectors within 1e-4 cosine of sentence-transformers', and a process that
    uses it never imports torch or transformers (the export runs in a child process), even when two
    processes race to make the first export into an empty cache folder."""
    code = ("import sys, numpy as np; from sheriff_vault.index.embed import Embedder; e = Embedder(); "
            f"v = e.encode({TEXTS!r}); one = np.stack([e.encode([t])[0] for t in {TEXTS!r}]); "
            "np.save(sys.argv[1], np.stack([v, one])); "
            "print(type(e.load()).__name__, e.fallback, "
            "sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))")
    env = dict(os.environ, SHERIFF_VAULT_CACHE_DIR=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / f"v{i}.npy")], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(2)]
    outs = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.split() == ["OnnxMeanPoolingModel", "None", "[]"], out
    assert len(list((tmp_path / "cache" / "onnx").glob("*.onnx"))) == 1
    assert not list((tmp_path / "cache" / "onnx").glob("*.tmp"))
    library = Embedder(backend="sentence-transformers").encode(TEXTS)
    for i in range(2):
        batch, one_by_one = np.load(tmp_path / f"v{i}.npy")
        assert batch.dtype == np.float32 and batch.shape == library.shape
        np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
        assert float(np.min(np.sum(batch * library, axis=1))) >= 1 - 1e-4
        assert float(np.min(np.sum(one_by_one * library, axis=1))) >= 1 - 1e-4


@pytest.mark.slow
def test_onnx_vectors_do_not_depend_on_batching():
    """A text's vector is the same whatever batch it shares, and with batches run at once (the
    daemon's `embed` request for a sleep): so merging, splitting or parallel embedding calls never
    changes what a sleep decides."""
    embedder = Embedder()
    if not getattr(embedder.load(), "parallel_batches", False):
        pytest.skip(f"the onnx backend is unavailable: {embedder.fallback}")
    texts = TEXTS * 7 + [f"fact {i}: the party budget is {i * 10} USD" for i in range(60)]
    serial = embedder.encode(texts)
    for workers in (2, 3):
        assert np.array_equal(embedder.encode(texts, workers=workers), serial)
    assert np.array_equal(embedder.encode(texts[::-1])[::-1], serial)
    assert np.array_equal(np.stack([embedder.encode([t])[0] for t in texts]), serial)
    # what a sleep embeds ahead runs its batches at once too, and gets the same vectors
    from sheriff_vault.index.embed import AHEAD_WORKERS, Ahead, safe_encoder

    seen: list[int] = []
    encode = embedder.encode

    def counted(batch: list[str], workers: int = 1) -> np.ndarray:
        seen.append(workers)
        return encode(batch, workers=workers)

    embedder.encode = counted  # type: ignore[method-assign]
    assert np.array_equal(Ahead(safe_encoder(embedder), texts)(texts), serial)
    assert seen == [AHEAD_WORKERS]


@pytest.mark.slow
def test_onnx_batches_hold_texts_of_like_length_within_a_token_budget():
    """Many short texts share a batch, long ones few; no batch but a single text's is over the
    budget, padding included: the model's attention stays small enough for the CPU's cache."""
    from sheriff_vault.index.onnxmodel import BATCH_TOKENS

    embedder = Embedder()
    model = embedder.load()
    if not getattr(model, "parallel_batches", False):
        pytest.skip(f"the onnx backend is unavailable: {embedder.fallback}")
    shapes: list[tuple[int, int]] = []

    class Recording:
        def __init__(self, inner):
            self.inner = inner

        def run(self, names, feed):
            shapes.append(feed["input_ids"].shape)
            return self.inner.run(names, feed)

    texts = [f"fact {i}: the party budget is {i * 10} USD" for i in range(100)] + [TEXTS[3], TEXTS[3][:600]]
    expected = embedder.encode(texts)
    session, model.session = model.session, Recording(model.session)
    try:
        vectors = embedder.encode(texts)
    finally:
        model.session = session
    assert np.array_equal(vectors, expected)
    assert sum(rows for rows, _ in shapes) == len(texts)
    assert shapes[0][1] == 256  # the longest first: the text past the model's cut
    assert all(rows * width <= BATCH_TOKENS for rows, width in shapes if rows > 1)
    assert max(rows for rows, _ in shapes) > 10
