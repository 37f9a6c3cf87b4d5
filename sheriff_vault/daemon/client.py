"""The one way callers (CLI, tools, agent, hooks) reach recall and the index: through the watch
daemon when one runs, else in this process; the same answer either way.

Kept free of numpy, tantivy and the model at import time, so the daemon path never loads them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sheriff_vault import timewin
from sheriff_vault.daemon import rpc
from sheriff_vault.retrieval.reply import MAX_QUERY_CHARS, RecallReply, check_budget

if TYPE_CHECKING:
    from sheriff_vault.compaction.result import SleepResult
    from sheriff_vault.store.buffer import Turn
    from sheriff_vault.store.vault import Vault


def recall(vault: Vault, query: str, *, use_daemon: bool = True, autostart: bool = False, budget: int | None = None,
           **kwargs: Any) -> RecallReply:
    """Recall `query` (see retrieval/ranking.py for the keyword arguments) within `budget` characters.

    `autostart` (what `vault recall` passes): with no daemon running, start one in the background
    if the vault allows it (see lifecycle.autostart) and ask it; while its model loads it answers
    from BM25 alone, with `via` "bm25-only, warming"."""
    budget = check_budget(budget or vault.config.retrieval.budget)
    notes = []
    if len(query) > MAX_QUERY_CHARS:
        notes.append(f"the query has {len(query)} characters; recall used the first {MAX_QUERY_CHARS}")
        query = query[:MAX_QUERY_CHARS]
    now = kwargs.get("now")
    if use_daemon and kwargs.get("tag"):  # a daemon older than the `tag` request would answer unfiltered
        state = rpc.read_state(vault)
        use_daemon = state is None or int(state.get("protocol", 0)) >= rpc.TAG_SINCE
    if use_daemon:
        args = {**kwargs, "query": query, "budget": budget, "now": timewin.to_iso(now) if now else None}
        found = rpc.call(vault, "recall", args)
        if found is None and autostart:
            from sheriff_vault.daemon.lifecycle import autostart as start_daemon

            if start_daemon(vault):
                found = rpc.call(vault, "recall", args)
        if found is not None:
            reply = RecallReply.from_dict(found, found.get("via") or "daemon")
            reply.json["warnings"] = notes + reply.json.get("warnings", [])
            return reply
    from sheriff_vault.retrieval.ranking import recall as recall_here

    result = recall_here(vault, query, **kwargs)
    result.warnings = notes + result.warnings
    return result.reply(budget, explain=bool(kwargs.get("explain")), via="process")


def embed(vault: Vault, texts: list[str], *, use_daemon: bool = True) -> Any:
    """Unit vectors (a numpy array, one row a text) from the vault's embedding model: the daemon's
    when one runs (loaded already), else loaded in this process once. None when embeddings are off
    or the model will not load: callers go on without them."""
    import numpy as np

    from sheriff_vault.errors import VaultError
    from sheriff_vault.index.embed import Embedder

    if not vault.config.embedding.enabled or not texts:
        return None
    if use_daemon:
        from sheriff_vault.daemon.remote_embed import decoded

        try:
            found = rpc.call(vault, "embed", {"texts": [t[:2000] for t in texts]}, timeout=300)
        except VaultError:
            found = None  # a daemon without a model: load it here
        if found and found.get("vectors"):
            return np.array(decoded(found["vectors"], int(found["dim"]), len(texts)), dtype=np.float32)
    try:
        embedder = Embedder.from_settings(vault.config.embedding)
        return embedder.encode([t[:2000] for t in texts])
    except VaultError:
        return None


def status(vault: Vault, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """What the index holds and whether it is fresh; `daemon` says who answered."""
    reply = rpc.call(vault, "status")
    if reply is not None:
        return reply | {"daemon": True}
    from sheriff_vault.index.engine import Index

    index = Index(vault, log=log)
    try:
        return index.status() | {"daemon": False}
    finally:
        index.close()


def reindex(vault: Vault, paths: list[str] | None = None, *, log: Callable[[str], None] | None = None,
            lock_timeout: float = 120.0) -> dict[str, Any]:
    """Bring the index up to date with the files (all, or just `paths`); returns the update's
    statistics with `via` ("daemon" or "process")."""
    reply = rpc.call(vault, "reindex", {"paths": paths})
    if reply is not None:
        return reply | {"via": "daemon"}
    from sheriff_vault.index.engine import Index

    index = Index(vault, log=log)
    try:
        return index.refresh(paths, lock_timeout=lock_timeout).to_json() | {"via": "process"}
    finally:
        index.close()


def reconcile(vault: Vault, before: str | None = None, *, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Bring the index to HEAD after git moved it (see Index.reconcile): through the daemon when
    one runs, else here; returns the update's statistics with `via`."""
    reply = rpc.call(vault, "reconcile", {"before": before})
    if reply is not None:
        return reply | {"via": "daemon"}
    from sheriff_vault.index.engine import Index

    index = Index(vault, log=log)
    try:
        return index.reconcile(before).to_json() | {"via": "process"}
    finally:
        index.close()


def rebuild(vault: Vault, *, progress: Callable[[str, int, int], None] | None = None,
            log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Throw the index away and build it again from the files, in this process (a running daemon
    notices the new index and reopens it)."""
    from sheriff_vault.index.engine import Index

    index = Index(vault, log=log)
    try:
        return index.rebuild(progress=progress).to_json() | {"via": "process"}
    finally:
        index.close()


def sleep(vault: Vault, turns: list[Turn] | None = None, **kwargs: Any) -> SleepResult:
    """compaction.compact.sleep, run by the daemon when one answers (it holds the model, the index
    and its snapshot: daemon/remote_sleep.py), else in this process, embedding with the daemon's
    model if one runs; same arguments, same files and commit, same result either way."""
    daemon_up = kwargs.get("index") is None and rpc.call(vault, "ping") is not None
    if daemon_up:
        from sheriff_vault.daemon.remote_sleep import ask

        slept = ask(vault, turns, now=kwargs.get("now"), extractor=kwargs.get("extractor"),
                    dry_run=bool(kwargs.get("dry_run")), final=bool(kwargs.get("final")))
        if slept is not None:
            return slept
    from sheriff_vault.compaction.compact import sleep as sleep_here

    if kwargs.get("index") is not None:
        return sleep_here(vault, turns, **kwargs)
    kwargs.pop("index", None)
    if not vault.config.embedding.enabled or not daemon_up:
        return sleep_here(vault, turns, **kwargs)
    from sheriff_vault.daemon.remote_embed import DaemonEmbedder
    from sheriff_vault.index.embed import Embedder
    from sheriff_vault.index.engine import Index

    local = Embedder.from_settings(vault.config.embedding)
    if type(local) is not Embedder:  # the hash embedder: nothing to save
        return sleep_here(vault, turns, **kwargs)
    index = Index(vault, DaemonEmbedder(vault, local))

    def hand_over(paths: list[str]) -> None:
        """The daemon indexes what the sleep wrote, as it indexes any saved file, after the sleep
        has returned (embedding a long sleep's facts takes seconds); recall waits for it."""
        if rpc.call(vault, "reindex", {"paths": paths, "wait": False}) is None:
            index.refresh(paths)

    try:
        return sleep_here(vault, turns, **kwargs, index=index, reindex=hand_over)
    finally:
        index.close()
