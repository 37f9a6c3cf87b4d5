"""Titles alone: each labelled subject named from its own turns, placement taken from the labels.

The scorer's name_only mixes two stages: a subject split or merged by placement is named from the
wrong turns. Here every labelled subject's turns (the label's `turns`, both roles, in order) go to
`naming.name_subject` against the other subjects' turns, with the real embedding model, and the
title is checked with the scorer's own `word_hit` on its `accept_words`. It takes a few minutes for
every set, not the quarter hour of a full sleep run, so a change to titling can be tried on all of
them; the scorer's figures stay the ones of record (the pipeline names facts, not raw turns).

    python benchmarks/naming_oracle.py DIR [DIR ...] [--save FILE | --against FILE] [--ranks]

--save writes each subject's title and hit; --against prints the subjects whose title changed
since a saved run; --ranks prints, for each miss, the best-scored candidates and the first one
that would have hit.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sleep_inproc import load_scorer  # noqa: E402


def main(argv: list[str]) -> None:
    from sheriff_vault.compaction.naming import name_subject
    from sheriff_vault.compaction.parts import name_words
    from sheriff_vault.config import EmbeddingSettings
    from sheriff_vault.index.embed import Embedder

    word_hit = load_scorer().word_hit
    save = argv[argv.index("--save") + 1] if "--save" in argv else None
    against = argv[argv.index("--against") + 1] if "--against" in argv else None
    dirs = [a for a in argv if not a.startswith("--") and a not in (save, against)]
    embedder = Embedder.from_settings(EmbeddingSettings())

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(embedder.encode(list(texts)), dtype=np.float32)

    got: dict[str, tuple[str, bool]] = {}
    for d in dirs:
        for gold_path in sorted(Path(d).glob("conv*.gold.json")):
            gold = json.loads(gold_path.read_text())
            lines = gold_path.with_name(gold_path.name.replace(".gold.json", ".jsonl")).read_text().splitlines()
            turns = {t["id"]: t for t in (json.loads(line) for line in lines if line.strip())}
            humans = {t.get("name") or "User" for t in turns.values() if t["role"] == "user"}
            texts = [[turns[i]["content"] for i in s["turns"] if i in turns] for s in gold["subjects"]]
            for k, subject in enumerate(gold["subjects"]):
                opening = next((turns[i]["content"] for i in subject["turns"]
                                if i in turns and turns[i]["role"] == "user"), None)
                title = name_subject(texts[k], texts[:k] + texts[k + 1 :], name_words(humans | {"Assistant"}),
                                     encode, encode(texts[k]).mean(axis=0), None, opening)
                key = f"{Path(d).name}/{gold_path.name.split('.')[0]}/{subject['key']}"
                got[key] = (title.name, bool(word_hit(subject["accept_words"], title.name)))
                if "--ranks" in argv and not got[key][1]:
                    ranked = sorted(title.scores.items(), key=lambda kv: -kv[1])
                    hit = next(((i, p) for i, (p, _) in enumerate(ranked) if word_hit(subject["accept_words"], p)),
                               None)
                    print(f"miss {key}: {title.name!r}; best {[p for p, _ in ranked[:3]]}; first hit {hit}")
    hits = sum(hit for _, hit in got.values())
    print(f"name_only on labelled subjects: {hits}/{len(got)} = {hits / max(len(got), 1):.3f}")
    if against:
        before = {k: tuple(v) for k, v in json.loads(Path(against).read_text()).items()}
        for key, now in got.items():
            if before.get(key) != now:
                print(f"{key}: {before.get(key)} -> {now}")
    if save:
        Path(save).write_text(json.dumps(got, indent=0))


if __name__ == "__main__":
    main(sys.argv[1:])
