"""Commit-anchored freshness with real git: after a checkout, a merge, a rebase and a pull, the
post-checkout / post-merge / post-rewrite hooks (installed by `vault init`) bring the index to the
new HEAD on their own, from `git diff <indexed>..HEAD`; recall then reports `index@<HEAD>` with
nothing left to catch up. No daemon runs, and nothing but the hooks touches the index."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NOW, git, run_vault, use_hash_embedder, wait_for

from sheriff_vault.index.engine import Index
from sheriff_vault.store.topics import fact, new_topic
from sheriff_vault.store.vault import HOOKS, Vault, init_vault


def write_topic(root: Path, slug: str, name: str, text: str) -> None:
    topic = new_topic(root / "topics" / f"{slug}.md", name, now=NOW, rel=f"topics/{slug}.md")
    topic.add_item(fact(text, NOW))
    topic.save()


def commit_topic(root: Path, slug: str, name: str, text: str) -> None:
    write_topic(root, slug, name, text)
    git(root, "add", f"topics/{slug}.md")
    git(root, "commit", "-q", "-m", f"topic: {name}")


def indexed(root: Path) -> tuple[str | None, set[str], bool]:
    """(the commit the index reflects, the topic paths it holds, whether it matches the files)."""
    index = Index(Vault(root))
    try:
        status = index.status()
        return status["head"], set(index.snapshot().topics), status["fresh"]
    finally:
        index.close()


def settled(root: Path, topics: set[str]) -> None:
    """Wait until the hooks' background work has left the index at HEAD holding exactly `topics`."""
    head = git(root, "rev-parse", "HEAD").strip()
    wait_for(lambda: indexed(root) == (head, topics, True), timeout=60, what=f"index at {head[:8]} with {topics}")


def recall_json(root: Path) -> dict:
    out = run_vault("recall", "party", "--json", "--no-daemon", cwd=root)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = use_hash_embedder(init_vault(tmp_path / "vault").vault).root
    git(root, "commit", "-qam", "settings: hash embedder")
    commit_topic(root, "party", "The party", "The party is at Riverside Park.")
    settled(root, {"topics/party.md"})
    return root


def test_init_installs_every_hook(root: Path):
    for name in HOOKS:
        hook = root / ".git" / "hooks" / name
        assert f"sheriff-vault {name} hook" in hook.read_text() and hook.stat().st_mode & 0o100


def test_checkout_merge_and_rebase_each_leave_the_index_at_head(root: Path):
    git(root, "checkout", "-q", "-b", "other")
    commit_topic(root, "cake", "The cake", "Melanie brings a chocolate cake to the party.")
    settled(root, {"topics/party.md", "topics/cake.md"})

    git(root, "checkout", "-q", "main")  # post-checkout: the cake topic leaves the index
    settled(root, {"topics/party.md"})

    git(root, "merge", "-q", "--no-edit", "other")  # post-merge (a fast-forward): it comes back
    settled(root, {"topics/party.md", "topics/cake.md"})

    git(root, "checkout", "-q", "-b", "side", "HEAD~1")
    commit_topic(root, "guests", "The guests", "About 25 people come to the party.")
    settled(root, {"topics/party.md", "topics/guests.md"})
    git(root, "rebase", "-q", "main")  # post-rewrite: the rebased branch holds all three
    settled(root, {"topics/party.md", "topics/cake.md", "topics/guests.md"})

    reply = recall_json(root)
    assert reply["index"] == "index@" + git(root, "rev-parse", "HEAD").strip()
    assert reply["caught_up"] == []  # the hooks had done it all


def test_a_pull_into_a_clone_leaves_its_index_at_head(root: Path, tmp_path: Path):
    git(tmp_path, "clone", "-q", str(root), "clone")
    clone = tmp_path / "clone"
    init_vault(clone)  # registers the hooks in the clone
    commit_topic(root, "cake", "The cake", "Melanie brings a chocolate cake to the party.")
    git(clone, "pull", "-q", "--no-rebase", "origin", "main")
    settled(clone, {"topics/party.md", "topics/cake.md"})


def test_recall_reports_what_it_had_to_catch_up_on(root: Path):
    write_topic(root, "cake", "The cake", "Melanie brings a chocolate cake to the party.")  # not committed
    reply = recall_json(root)
    assert reply["caught_up"] == ["topics/cake.md"]
    assert reply["index"] == "index@" + git(root, "rev-parse", "HEAD").strip()


def test_with_the_daemon_running_the_hooks_reconcile_through_it(root: Path):
    from sheriff_vault.daemon import rpc

    started = run_vault("watch", "--vault", root)
    assert started.returncode == 0, started.stderr
    try:
        vault = Vault(root)
        wait_for(lambda: (rpc.call(vault, "status") or {}).get("warming_up") is False, timeout=60, what="daemon up")
        git(root, "checkout", "-q", "-b", "other")
        commit_topic(root, "cake", "The cake", "Melanie brings a chocolate cake to the party.")
        git(root, "checkout", "-q", "main")
        head = git(root, "rev-parse", "HEAD").strip()
        log = root / ".vault" / "logs" / "hook.log"
        wait_for(lambda: f"post-checkout: index at {head[:8]}" in log.read_text() and "via daemon" in
                 log.read_text().split(f"post-checkout: index at {head[:8]}")[-1].splitlines()[0],
                 timeout=60, what="post-checkout reconciled by the daemon")
        settled(root, {"topics/party.md"})
        reply = json.loads(run_vault("recall", "party", "--json", cwd=root).stdout)
        assert reply["via"] == "daemon" and reply["index"] == f"index@{head}"
    finally:
        run_vault("watch", "--stop", "--vault", root)


def test_reading_what_changed_leaves_the_persons_git_index_alone(tmp_path: Path):
    """The reindex a hook starts asks git what changed. A plain status refreshes git's index and
    takes index.lock to write it, so a git command the person runs meanwhile fails on that lock;
    the vault's status only reads."""
    import os
    import time

    from sheriff_vault.store import gitlog

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "notes.md").write_text("one\n")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "first")
    later = time.time() + 10
    os.utime(root / "notes.md", (later, later))  # same bytes, new stat: a status would refresh the index
    index = root / ".git" / "index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    assert gitlog.dirty_paths(root) == [] and gitlog.status_porcelain(root) == []
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    git(root, "status", "--porcelain")  # git's own status does write it: the check above can fail
    assert index.stat().st_mtime_ns != before[1]
