"""How the watch daemon runs a `vault sleep` another process asked for (daemon/remote_sleep.py):
compaction.compact.sleep itself, reading the daemon's index, which it already holds."""
from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sheriff_vault.daemon.remote_sleep import turn_from_wire
from sheriff_vault.index.embed import Embedder
from sheriff_vault.store import gitlog

if TYPE_CHECKING:
    from sheriff_vault.index.engine import Index, Snapshot
    from sheriff_vault.store.vault import Vault


def serve(args: dict[str, Any], *, vault: Vault, index: Index, work: threading.RLock, catch_up: Callable[[], object],
          queue: Callable[[Iterable[str]], None], model_ready: threading.Event, workers: int) -> dict[str, Any]:
    """Run one `sleep` request in the daemon: {"result": SleepResult.to_json()} or {"declined": why}.

    `work` is the daemon's lock around its index, held only while the sleep catches the index up
    and takes its snapshot (recall waits that long, not for the whole sleep); `catch_up` indexes
    what the daemon has pending; `queue` hands the files the sleep wrote to the daemon's indexer."""
    from sheriff_vault.compaction.compact import sleep
    from sheriff_vault.store.vault import Vault as FreshVault

    extractor = args.get("extractor") or vault.config.sleep.extractor
    if extractor != "offline":
        return {"declined": f"the {extractor} extractor runs in the caller's process"}
    if FreshVault(vault.root).config != vault.config:
        return {"declined": "vault.yaml changed since the daemon started"}
    if args.get("identity") != gitlog.commit_identity(vault.root):
        return {"declined": "the daemon would commit under another git identity"}
    if not model_ready.wait(timeout=300):
        return {"declined": "the daemon's model is still loading"}
    turns = None if args.get("turns") is None else [turn_from_wire(t) for t in args["turns"]]
    view = DaemonIndex(index, work, catch_up, workers)
    result = sleep(vault, turns, now=dt.datetime.fromisoformat(args["now"]), extractor=extractor,
                   dry_run=bool(args.get("dry_run")), final=bool(args.get("final")), index=view,
                   reindex=lambda paths: queue(str(vault.root / p) for p in paths))
    return {"result": result.to_json()}


class DaemonIndex:
    """The daemon's Index as a sleep reads it (compact.IndexView): caught up with the files and
    read under the daemon's lock, with the model running a sleep's batches on `workers` threads."""

    def __init__(self, index: Index, work: threading.RLock, catch_up: Callable[[], object], workers: int) -> None:
        self.index, self.work, self.catch_up = index, work, catch_up
        self.embedder: Embedder | None = BulkEmbedder(index.embedder, workers) if index.embedder else None

    def refresh(self, paths: list[str] | None = None) -> object:
        """What an in-process sleep's refresh does: every stale file indexed (the daemon's pending
        ones first, then a scan, since a file saved a moment ago may not have been reported yet).
        The walk over every file runs before taking the lock, so recall waits only for the rest."""
        scanned = self.index.scan() if paths is None else None
        with self.work:
            self.catch_up()
            return self.index.refresh(paths, scanned=scanned)

    def snapshot(self) -> Snapshot:
        with self.work:
            return self.index.snapshot()

    def embed_query(self, text: str) -> np.ndarray | None:
        return self.index.embed_query(text)

    def prefetch(self, texts: Iterable[str], *, known: Mapping[str, np.ndarray] | None = None) -> None:
        """The lines the sleep will write, embedded into the cache while it goes on, on one thread
        (the sleep itself needs the other core, and waits for none of them): the daemon's refresh
        after the sleep then finds them (Index.prefetch)."""
        with self.work:
            self.index.prefetch(texts, known=known)

    def settle_prefetch(self) -> None:
        """Nothing to wait for before the sleep commits: the daemon indexes the commit itself (its
        post-commit hook asks it to), and its refresh waits for the lines embedded ahead."""


class BulkEmbedder(Embedder):
    """The daemon's model for a sleep's hundreds of texts: batches on `workers` threads at once
    (the vectors do not depend on it; see OnnxMeanPoolingModel.encode)."""

    def __init__(self, inner: Embedder, workers: int) -> None:
        super().__init__("", inner.device, inner.batch_size, inner.backend)
        self.model_name, self.model_id, self.source = inner.model_name, inner.model_id, inner.source
        self.inner, self.workers = inner, workers
        self.meaning = inner.meaning

    @property
    def loaded(self) -> bool:
        return self.inner.loaded

    def load(self) -> Any:
        return self.inner.load()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def encode(self, texts: Sequence[str], workers: int = 1) -> np.ndarray:
        return self.inner.encode(texts, workers=max(workers, self.workers))
