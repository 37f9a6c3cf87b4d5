"""The post-commit hook's work: reindex exactly the files a commit changed, and never fail."""
from __future__ import annotations

import datetime as dt
import sys
import traceback
from typing import Any

from . import gitlog, rpc
from .docs import kind_of


def after_commit(vault: Any, sha: str | None = None) -> None:
    """Hand the commit's files to the daemon, or index them here; any error is logged, not raised."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        commit = sha or gitlog.head(vault.root)
        if not commit:
            return
        paths = [p for p in gitlog.changed_paths(vault.root, commit) if kind_of(p)]
        if not paths:
            print(f"{stamp} {commit[:8]}: nothing to index", flush=True)
            return
        reply = rpc.call(vault, "reindex", {"paths": paths})
        via = "daemon"
        if reply is None:
            from .index import Index

            index = Index(vault, log=lambda m: print(f"{stamp} {m}", flush=True))
            try:
                reply = index.refresh(paths, lock_timeout=300).to_json()
            finally:
                index.close()
            via = "hook"
        print(f"{stamp} {commit[:8]}: {len(reply.get('changed', []))} updated, {len(reply.get('removed', []))} "
              f"removed via {via} ({len(paths)} file(s) in the commit)", flush=True)
    except Exception:  # a hook must never break the person's commit; the log keeps the details
        print(f"{stamp} post-commit indexing failed:\n{traceback.format_exc()}", file=sys.stdout, flush=True)
