"""Recall for callers (CLI, tools, agent): through the watch daemon when one runs, else in-process.

Kept apart from recall.py so the daemon path never imports numpy, tantivy or the model.
"""
from __future__ import annotations

from typing import Any

from . import rpc, timewin
from .errors import VaultError

MAX_QUERY_CHARS = 4000


def answer(vault: Any, query: str, *, use_daemon: bool = True, budget: int | None = None, **kwargs: Any) -> dict:
    """Recall through the watch daemon when one runs, else in this process; the same answer either way.

    Returns {"json", "markdown", "explain", "via"}; CLI, tools and agent all call this.
    """
    budget = budget or vault.config.retrieval.budget
    if budget < 100:
        raise VaultError(f"--budget {budget} is too small", hint="give at least 100 characters")
    notes = []
    if len(query) > MAX_QUERY_CHARS:
        notes.append(f"the query has {len(query)} characters; recall used the first {MAX_QUERY_CHARS}")
        query = query[:MAX_QUERY_CHARS]
    now = kwargs.get("now")
    if use_daemon:
        args = {**kwargs, "query": query, "budget": budget, "now": timewin.to_iso(now) if now else None}
        reply = rpc.call(vault, "recall", args)
        if reply is not None:
            reply["json"]["warnings"] = notes + reply["json"].get("warnings", [])
            return reply | {"via": "daemon"}
    from .recall import recall

    result = recall(vault, query, **kwargs)
    result.warnings = notes + result.warnings
    return {"json": result.to_json(), "markdown": result.render(budget),
            "explain": result.explain() if kwargs.get("explain") else "", "via": "process"}
