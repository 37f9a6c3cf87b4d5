"""Where the benchmark's 300-turn sleep spends its work, in figures a loaded machine does not move:
the synthetic turns of recall_speed.py's sleep phase slept in one process against its 1,000-topic
vault, the way the daemon runs them (the index and the model held, the files a sleep wrote indexed
before the next sleep), with no git hook (the daemon is what indexes a sleep's commit).

    PYTHONPATH=TREE python benchmarks/sleep_profile.py [--sleeps 3] [--profile PREFIX]

Per sleep: wall and CPU seconds (the process, and its main thread), characters parsed with and
without the entity recogniser (and entities added to a parse made without), parse calls, texts
and tokens embedded by the sleep and by the refresh after it, and the main thread's CPU seconds
per stage; the tree each sleep committed (the same trees, the same files). `--profile PREFIX`
writes each sleep's cProfile to PREFIX-N.pstats. OMP_NUM_THREADS=1, as in the daemon.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse  # noqa: E402
import collections  # noqa: E402
import cProfile  # noqa: E402
import datetime as dt  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parent.parent))  # appended: PYTHONPATH picks the tree measured

from benchmarks.recall_speed import SLEEP_TURNS, _word  # noqa: E402
from benchmarks.synthetic import NOW, generate  # noqa: E402
from sheriff_vault import nlp  # noqa: E402
from sheriff_vault.compaction import compact  # noqa: E402
from sheriff_vault.index.engine import Index  # noqa: E402
from sheriff_vault.store.buffer import Turn  # noqa: E402
from sheriff_vault.store.vault import Vault  # noqa: E402

STAGES = ("find_subjects", "make_units", "fold_echoes", "read_ahead", "candidates", "name_candidates", "in_progress",
          "_plan", "files_of", "write_files")


def turns_of(topics: list[str], run: int) -> list[Turn]:
    """recall_speed._sleep_once's turns for its daemon-up run `run`."""
    rng = random.Random(7 + 1 + 10 * run)
    out = []
    for i in range(SLEEP_TURNS):
        slug = topics[rng.randrange(len(topics))]
        text = (f"About {slug.replace('-', ' ')}: the {_word(i, 11 + 1 + 10 * run)} check failed again on "
                f"{rng.choice(['Monday', 'Tuesday', 'Friday'])}, so we moved it to next week.")
        at = dt.datetime(2026, 2, 19, 8 + i // 60, i % 60, tzinfo=dt.UTC)
        out.append(Turn("user" if i % 2 == 0 else "assistant", text, at))
    return out


class Counts:
    """nlp.parse and the embedder's encode, counted: what each call ran through the pipeline or the
    model, and the main thread's CPU per stage."""

    def __init__(self, index: Index) -> None:
        self.parse = collections.Counter()
        self.encode = collections.Counter()
        self.stages = collections.Counter()
        real_parse, real_encode = nlp.parse, index.embedder.encode
        tokenizer = index.embedder.load().tokenizer

        def parse(texts, name=None, *, entities=True):
            texts = list(texts)
            pipe = name or nlp._CURRENT.get()
            cache, spans, bare = nlp._PARSED.get(pipe, {}), nlp._ALIASED.get(pipe, {}), nlp._BARE.get(pipe, set())
            unique = list(dict.fromkeys(texts))
            self.parse["calls"] += 1
            fresh = [t for t in unique if t not in cache and t not in spans]
            self.parse["ner" if entities else "bare"] += sum(len(t) for t in fresh)
            self.parse["ner added"] += sum(len(t) for t in unique if entities and t in bare and t in cache)
            return real_parse(texts, name, entities=entities)

        def encode(texts, workers=1):
            self.encode["texts"] += len(texts)
            self.encode["tokens"] += sum(sum(e.attention_mask) for e in tokenizer.encode_batch(list(texts)))
            return real_encode(texts, workers=workers)

        nlp.parse = parse
        nlp.parse_one = lambda text, name=None, *, entities=True: parse([text], name, entities=entities)[0]
        index.embedder.encode = encode
        for stage in STAGES:
            real = getattr(compact, stage)
            setattr(compact, stage, self._timed(stage, real))

    def _timed(self, stage, real):
        def run(*args, **kwargs):
            start = time.thread_time()
            try:
                return real(*args, **kwargs)
            finally:
                self.stages[stage] += time.thread_time() - start
        return run

    def take(self) -> dict:
        out = {"parse": dict(self.parse), "embedded": dict(self.encode),
               "main thread CPU s per stage": {k: round(v, 2) for k, v in self.stages.items()}}
        self.parse.clear()
        self.encode.clear()
        self.stages.clear()
        return out


def tree_of(vault: Vault, commit: str | None) -> str:
    """The sleep commit's tree: what it wrote, whatever the generated vault's own commits were."""
    import subprocess

    if not commit:
        return ""
    return subprocess.run(["git", "rev-parse", f"{commit}^{{tree}}"], cwd=vault.root, capture_output=True,
                          text=True).stdout.strip()


def refresh(index: Index, counts: Counts, written: list[str]) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    stats = index.refresh(sorted(set(written)))
    print(json.dumps({"refresh of the files a sleep wrote, s": round(time.perf_counter() - start, 2),
                      "CPU s": round(time.process_time() - cpu, 2), "texts embedded": stats.embedded,
                      "embedded": counts.take()["embedded"]}), flush=True)
    written.clear()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sleeps", type=int, default=3)
    ap.add_argument("--profile", help="write each sleep's cProfile to PREFIX-N.pstats")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sleep-profile-"))
    syn = generate(work / "vault", 1000, seed=7)
    topics = [t.slug for t in syn.topics]
    for hook in (syn.root / ".git" / "hooks").glob("post-*"):
        hook.unlink()
    vault = Vault(syn.root)
    index = Index(vault)
    index.rebuild()
    index.embedder.load()
    nlp.pipeline(vault.config.sleep.nlp_pipeline)
    counts = Counts(index)
    written: list[str] = []
    try:
        for run in range(args.sleeps):
            if written:  # what the daemon does once a sleep has answered: index the files it wrote
                refresh(index, counts, written)
            profile = cProfile.Profile() if args.profile else None
            start, cpu, main_cpu = time.perf_counter(), time.process_time(), time.thread_time()
            if profile:
                profile.enable()
            result = compact.sleep(vault, turns_of(topics, run), now=NOW + dt.timedelta(minutes=run), index=index,
                                   reindex=written.extend)
            if profile:
                profile.disable()
                profile.dump_stats(f"{args.profile}-{run}.pstats")
            seconds = time.perf_counter() - start
            cpu, main_cpu = time.process_time() - cpu, time.thread_time() - main_cpu
            ahead = time.perf_counter()
            if hasattr(index, "settle_prefetch"):  # what it still embeds ahead, after answering, is its own work
                index.settle_prefetch()
            print(json.dumps({"sleep": run, "seconds": round(seconds, 2), "CPU s": round(cpu, 2),
                              "main thread CPU s": round(main_cpu, 2),
                              "still embedding ahead after it, s": round(time.perf_counter() - ahead, 2),
                              "tree": tree_of(vault, result.commit), **counts.take()}), flush=True)
        refresh(index, counts, written)
    finally:
        index.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
