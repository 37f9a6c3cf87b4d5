"""The post-commit hook's work: reindex exactly the files a commit changed, and never fail."""
from __future__ import annotations

import datetime as dt
import sys
import traceback
from typing import TYPE_CHECKING

from sheriff_vault.daemon.client import reconcile as client_reconcile
from sheriff_vault.daemon.client import reindex
from sheriff_vault.index.docs import kind_of
from sheriff_vault.store import gitlog

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


def after_commit(vault: Vault, sha: str | None = None) -> None:
    """Hand the commit's files to the daemon, or index them here; any error is logged, not raised."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        commit = sha or gitlog.head(vault.root)
        if not commit:
            return
        paths = [p for p in gitlog.changed_paths(vault.root, commit) if kind_of(p)]
        if not paths:
            print(f"{stamp} {commit[:8]}: nothing to index", flush=True)
            return
        reply = reindex(vault, paths, log=lambda m: print(f"{stamp} {m}", flush=True), lock_timeout=300)
        via = "daemon" if reply["via"] == "daemon" else "hook"
        print(f"{stamp} {commit[:8]}: {len(reply.get('changed', []))} updated, {len(reply.get('removed', []))} "
              f"removed via {via} ({len(paths)} file(s) in the commit)", flush=True)
    except Exception:  # a hook must never break the person's commit; the log keeps the details
        print(f"{stamp} post-commit indexing failed:\n{traceback.format_exc()}", file=sys.stdout, flush=True)



def reconcile(vault: Vault, event: str = "post-merge", before: str | None = None) -> dict | None:
    """After a merge, pull, checkout or rebase: bring the index to HEAD from git's diff (see
    Index.reconcile). Errors are logged, not raised (the post-merge, post-checkout and post-rewrite
    hooks call this)."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        if not gitlog.head(vault.root):
            return None
        reply = client_reconcile(vault, before or None, log=lambda m: print(f"{stamp} {m}", flush=True))
        changed, removed = reply.get("changed", []), reply.get("removed", [])
        print(f"{stamp} {event}: index at {(reply.get('head') or '?')[:8]}, {len(changed)} updated, "
              f"{len(removed)} removed via {reply['via']}" + (f": {', '.join((changed + removed)[:8])}"
                                                              if changed or removed else ""), flush=True)
        return reply
    except Exception:  # a hook must never break the person's git command; the log keeps the details
        print(f"{stamp} {event} indexing failed:\n{traceback.format_exc()}", file=sys.stdout, flush=True)
        return None
