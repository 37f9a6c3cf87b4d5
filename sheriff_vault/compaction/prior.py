"""The vault's topics as places a sleep can put a turn: a later session continues the topic an
earlier sleep wrote instead of opening a second one beside it.

A sleep reads the topics the index holds (their facts' vectors and words) and keeps the few that
anything in the slice comes near (PRIOR_K, each at least PRIOR_FLOOR alike to some exchange), plus
the topic talked about last, which a session that opens without naming its subject most
likely continues.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sheriff_vault.index.engine import Snapshot

PRIOR_K = 12  # existing topics a sleep weighs a slice against
PRIOR_FLOOR = 0.25  # cosine an exchange needs to some fact of a topic for the topic to be weighed


@dataclass
class PriorTopic:
    """An existing topic: its path, name, the texts and vectors of its current lines, and when it
    was last talked about."""

    path: str
    name: str
    texts: list[str] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), np.float32))
    last_at: dt.datetime | None = None


def prior_topics(snap: Snapshot) -> list[PriorTopic]:
    """Every topic the index holds, with its lines' vectors (superseded lines left out: a topic is
    what it says now). Cheap: the vectors are the index's, nothing is embedded."""
    if not snap.topics:
        return []
    matrix = snap.all_vectors()
    rows: dict[str, list[int]] = {}
    texts: dict[str, list[str]] = {}
    for i, doc_id in enumerate(snap.vec_ids):
        doc = snap.docs.get(doc_id) if doc_id is not None else None
        if doc is None or doc.kind not in ("topic", "fact", "loop", "event") or doc.superseded:
            continue
        rows.setdefault(doc.topic_path, []).append(i)
        texts.setdefault(doc.topic_path, []).append(_plain(doc.text) if doc.kind != "topic" else doc.text)
    out = []
    for path, row in snap.topics.items():
        if path not in rows or not len(matrix):
            continue
        out.append(PriorTopic(path, row.name, texts[path], matrix[rows[path]], row.last_seen_at))
    return out


def nearest(priors: list[PriorTopic], vectors: np.ndarray, k: int = PRIOR_K,
            floor: float = PRIOR_FLOOR) -> list[PriorTopic]:
    """The priors some exchange of the slice comes near, nearest first, and the one talked about
    last (even when nothing comes near it: a session may open on it with no content words)."""
    if not priors or not len(vectors):
        return []
    dim = vectors.shape[1]
    scored = []
    for p in priors:
        if p.vectors.shape[1] != dim or not len(p.vectors):
            continue
        scored.append((float(np.max(p.vectors @ vectors.T)), p))
    scored.sort(key=lambda s: -s[0])
    keep = [p for s, p in scored[:k] if s >= floor]
    last = last_talked(priors)
    if last is not None and last not in keep and last.vectors.shape[1] == dim:
        keep.append(last)
    return keep


def last_talked(priors: list[PriorTopic]) -> PriorTopic | None:
    """The topic whose latest line is the latest: where the last session left off."""
    dated = [p for p in priors if p.last_at is not None]
    return max(dated, key=lambda p: p.last_at or dt.datetime.min.replace(tzinfo=dt.UTC)) if dated else None


def _plain(text: str) -> str:
    """A fact's words without its "Speaker: " lead."""
    head, sep, rest = text.partition(": ")
    return rest if sep and len(head) <= 40 else text
