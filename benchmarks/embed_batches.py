"""The onnx backend's CPU seconds per batching, on one thread (OMP_NUM_THREADS=1, as in the
daemon), with the vectors each gives compared to the first's. The texts are a folder's
conversations as a sleep and an index see them: the turns, their sentences (about a fact line
each) and runs of twelve turns (a topic's text, past the model's 256-token cut).

    python benchmarks/embed_batches.py [DIR ...] [--budgets 0 256 512 1024] [--repeat 3]

Budget 0 is the old batching, 64 texts a batch whatever their length; any other is
onnxmodel.BATCH_TOKENS, tokens a batch, padding included. Prints the median CPU seconds of
`--repeat` runs per kind of text and budget, and whether every budget gave the same vectors.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parent.parent))

from sheriff_vault.index import onnxmodel  # noqa: E402
from sheriff_vault.index.embed import Embedder  # noqa: E402

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "sleep"


def texts_of(folders: list[Path]) -> dict[str, list[str]]:
    turns = [str(json.loads(line).get("content") or "") for folder in folders
             for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines() if line.strip()]
    sentences = [s for t in turns for s in re.split(r"(?<=[.!?])\s+", t) if len(s) > 20]
    runs = [" ".join(turns[i : i + 12]) for i in range(0, max(len(turns) - 12, 0), 6)]
    return {"turns": turns, "sentences": sentences, "topic texts": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", type=Path, default=[SHARED / "dev", SHARED / "dev2"])
    parser.add_argument("--budgets", nargs="+", type=int, default=[0, 256, 512, 1024])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    embedder = Embedder()
    model = embedder.load()
    if not isinstance(model, onnxmodel.OnnxMeanPoolingModel):
        sys.exit(f"the onnx backend is unavailable: {embedder.fallback}")
    model.encode(["warm up"])
    for kind, texts in texts_of(args.dirs).items():
        first: np.ndarray | None = None
        row = []
        for budget in args.budgets:
            onnxmodel.BATCH_TOKENS = budget or 10**9
            seconds = []
            for _ in range(args.repeat):
                start = time.process_time()
                vectors = model.encode(texts, batch_size=64)
                seconds.append(time.process_time() - start)
            same = first is None or np.array_equal(vectors, first)
            first = vectors if first is None else first
            differ = "" if same else " (vectors differ)"
            row.append(f"{budget or '64 texts'}: {statistics.median(seconds):.2f} s{differ}")
        tokens = sum(len(e.ids) for e in model.tokenizer.encode_batch(texts))
        print(f"{kind} ({len(texts)} texts, {tokens} tokens): " + ", ".join(row))


if __name__ == "__main__":
    main()
