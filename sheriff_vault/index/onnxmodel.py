"""The bundled mean-pooling model run with onnxruntime and `tokenizers`: no torch in the process.

`embedding.backend: onnx` (the default). The model folder's transformer is exported to ONNX once,
at first use, by a child process (`python -m sheriff_vault.index.onnxmodel`, the only place that
imports torch for this backend), into the user cache folder (`~/.cache/sheriff-vault/onnx`, or
$SHERIFF_VAULT_CACHE_DIR, or $XDG_CACHE_HOME/sheriff-vault). The file name is a hash of the model
folder, its weights' size and time, and the torch, transformers and export-format versions, so a
changed model or exporter gets a new export. The child writes a temporary file that is renamed
into place, under a lock, so processes racing to the first use export once and never read half a
file.

Running it: the folder's fast tokenizer (tokenizer.json) with the model's 256-token cut, the ONNX
graph's last hidden state, mean pooling over the attention mask and an L2 norm: the steps
sentence-transformers takes, so the vectors match it within float rounding
(tests/test_embed_backend.py) and cached vectors keep their keys. Without torch to import, a
daemon is hybrid-ready in ~1.5 s instead of ~7.5 and holds ~250 MB less (benchmarks/RESULTS.md,
issue 14 part 2).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from sheriff_vault.errors import ModelExportError
from sheriff_vault.store.locks import FileLock

EXPORT_FORMAT = 1  # bump when export() changes what it writes
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXPORT_TIMEOUT = 900.0
BATCH_TOKENS = 512  # per batch, padding included (OnnxMeanPoolingModel.encode)


def cache_dir() -> Path:
    if folder := os.environ.get("SHERIFF_VAULT_CACHE_DIR"):
        return Path(folder).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "sheriff-vault"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def export_path(source: str) -> Path:
    """Where the ONNX export of the model folder `source` lives (see the module doc)."""
    folder = Path(source).resolve()
    weights = [p for p in (folder / "model.safetensors", folder / "pytorch_model.bin") if p.exists()]
    stamp = [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in weights]
    key = json.dumps([str(folder), stamp, _version("torch"), _version("transformers"), EXPORT_FORMAT, OPSET])
    digest = hashlib.blake2b(key.encode(), digest_size=10).hexdigest()
    return cache_dir() / "onnx" / f"{folder.name}-{digest}.onnx"


def ensure_export(source: str, timeout: float = EXPORT_TIMEOUT) -> Path:
    """The ONNX file for `source`, exported by a child process first if there is none yet."""
    target = export_path(source)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(target.with_suffix(".lock"), what="ONNX export", timeout=timeout):
        if target.exists():  # another process exported it while this one waited
            return target
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        env = dict(os.environ) | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                                  "TRANSFORMERS_VERBOSITY": "error", "TOKENIZERS_PARALLELISM": "false"}
        try:
            done = subprocess.run([sys.executable, "-m", "sheriff_vault.index.onnxmodel", source, tmp],
                                  capture_output=True, text=True, timeout=timeout, env=env)
            if done.returncode != 0:
                tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise ModelExportError(f"exporting {source} to ONNX failed: {tail[:300]}",
                                       hint="set embedding.backend: transformers in vault.yaml")
            os.replace(tmp, target)
        except subprocess.TimeoutExpired:
            raise ModelExportError(f"exporting {source} to ONNX took over {timeout:.0f}s",
                                   hint="set embedding.backend: transformers in vault.yaml") from None
        finally:
            Path(tmp).unlink(missing_ok=True)
    return target


def export(source: str, out: str) -> None:
    """Trace the folder's transformer (inputs -> last hidden state) into an ONNX file; runs in the
    child process ensure_export starts. Eager attention and a padded example batch, so the traced
    graph keeps the general masked path (no shortcut for unpadded or single inputs)."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(source, attn_implementation="eager").eval()

    class Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    ids = torch.full((2, 8), 1000, dtype=torch.long)
    mask = torch.ones((2, 8), dtype=torch.long)
    mask[1, 5:] = 0
    types = torch.zeros((2, 8), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    import warnings

    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")
        torch.onnx.export(Hidden(model), (ids, mask, types), out, input_names=list(INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET,
                          dynamo=False)


def load_runtime() -> None:
    """Import onnxruntime now, if it is installed. usearch 2.26's compiled module, when it loads
    first, makes onnxruntime's own import crash the process (a segfault in libstdc++'s codecvt
    while onnxruntime's module initialises); loaded in this order both work, so index/ann.py calls
    this before importing usearch."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        pass


class OnnxMeanPoolingModel:
    """Tokenize, run the ONNX transformer, mean-pool and L2-normalise (see the module doc)."""

    parallel_batches = True  # encode(workers=n): see there

    def __init__(self, source: str, max_tokens: int, onnx_file: Path | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        folder = Path(source)
        self.max_tokens = max_tokens
        self.hidden = int(json.loads((folder / "config.json").read_text())["hidden_size"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        pad = "[PAD]"
        try:
            pad = json.loads((folder / "tokenizer_config.json").read_text()).get("pad_token") or pad
        except (OSError, ValueError):
            pass
        pad = pad["content"] if isinstance(pad, dict) else pad
        self.pad_id = self.tokenizer.token_to_id(pad) or 0
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()  # each batch is padded to its own longest text, in _feed
        options = ort.SessionOptions()
        # Threads as for torch (the daemon sets OMP_NUM_THREADS=1; see daemon/watch.py), and no
        # spinning: on a busy machine spinning idle threads slow everyone down.
        threads = os.environ.get("OMP_NUM_THREADS", "")
        options.intra_op_num_threads = int(threads) if threads.isdigit() else 0
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # No memory arena: a rebuild's 64 x 256-token batches would otherwise keep their peak
        # (hundreds of MB of attention scores) for the daemon's lifetime.
        options.enable_cpu_mem_arena = False
        options.log_severity_level = 3
        path = onnx_file or ensure_export(source)
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def get_sentence_embedding_dimension(self) -> int:
        return self.hidden

    def encode(self, texts: list[str], batch_size: int = 64, workers: int = 1, **_: Any) -> np.ndarray:
        """Texts of like length share a batch of at most `batch_size` texts and BATCH_TOKENS tokens,
        padding included: a batch's attention then stays in the CPU's cache, and the model takes a
        fifth to a third less CPU than batches of 64 took (benchmarks/RESULTS.md, twelfth session).
        `workers` > 1 runs that many batches at once, each on one thread (the session is
        thread-safe): the daemon embeds a sleep's hundreds of texts this way while the sleep waits;
        the batches shrink until every worker has two. A text's vector does not depend on the batch
        it shares (tests/test_embed_backend.py), so none of this changes a vector."""
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])
        if workers > 1:
            batch_size = max(1, min(batch_size, -(-len(texts) // (2 * workers))))
        batches: list[list[int]] = []
        start = 0
        while start < len(order):  # order runs longest first: a batch's first text sets its width
            take = max(1, min(batch_size, BATCH_TOKENS // max(lengths[order[start]], 1)))
            batches.append(order[start : start + take])
            start += take

        def run(rows: list[int]) -> None:
            feed = self._feed(encodings, rows)
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            mask = feed["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[rows] = pooled / norms

        if workers > 1 and len(batches) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers) as pool:
                for future in [pool.submit(run, rows) for rows in batches]:
                    future.result()
        else:
            for rows in batches:
                run(rows)
        return out

    def _feed(self, encodings: list[Any], rows: list[int]) -> dict[str, np.ndarray]:
        """The model's inputs for the texts at `rows`, padded to the longest of them."""
        width = max(len(encodings[i].ids) for i in rows)
        feed = {"input_ids": np.full((len(rows), width), self.pad_id, dtype=np.int64),
                "attention_mask": np.zeros((len(rows), width), dtype=np.int64),
                "token_type_ids": np.zeros((len(rows), width), dtype=np.int64)}
        for row, i in enumerate(rows):
            e = encodings[i]
            feed["input_ids"][row, : len(e.ids)] = e.ids
            feed["attention_mask"][row, : len(e.ids)] = e.attention_mask
            feed["token_type_ids"][row, : len(e.ids)] = e.type_ids
        return feed


if __name__ == "__main__":  # the export child: python -m sheriff_vault.index.onnxmodel SOURCE OUT
    export(sys.argv[1], sys.argv[2])
