"""Sleep tags as a time axis: each sleep commit is tagged `sleep/<UTC time>`, `vault sleeps` lists
them as a timeline (and --json), the wake packet is traced to its commit, and `vault sync`
carries the tags to the other clone. Real git, real subprocesses, the hash embedder."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_vault, use_hash_embedder

from sheriff_vault.store.vault import init_vault


def conversation(prefix: str, day: str, lines: list[str]) -> str:
    out, n = [], 0
    for text in [*lines, "Thanks!"]:
        for role, content in (("user", text), ("assistant", "Noted.")):
            n += 1
            out.append({"role": role, "content": content, "at": f"{day}T09:{n:02d}:00Z", "id": f"{prefix}{n}"})
    return "\n".join(json.dumps(t) for t in out) + "\n"


def make_vault(tmp_path: Path) -> Path:
    root = use_hash_embedder(init_vault(tmp_path / "vault").vault).root
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("tail_turns: 20 ", "tail_turns: 2  "))
    git(root, "commit", "-qam", "settings")
    return root


def sleep(root: Path, name: str, day: str, lines: list[str], now: str) -> dict:
    conv = root.parent / f"{name}.jsonl"
    conv.write_text(conversation(name, day, lines))
    out = run_vault("sleep", conv, "--now", now, "--json", cwd=root)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_each_sleep_is_tagged_and_listed_newest_first(tmp_path: Path):
    root = make_vault(tmp_path)
    first = sleep(root, "p", "2026-02-10", ["Caroline's birthday party is at Riverside Park on Saturday."],
                  "2026-02-10T10:00:00Z")
    second = sleep(root, "m", "2026-02-11", ["The memory refactor for Sheriff needs a new index schema."],
                   "2026-02-11T08:30:05Z")
    assert first["tag"] == "sleep/20260210T100000Z" and second["tag"] == "sleep/20260211T083005Z"
    assert git(root, "rev-parse", "sleep/20260210T100000Z^{commit}").strip() == first["commit"]
    assert git(root, "cat-file", "-t", "sleep/20260211T083005Z").strip() == "tag"  # annotated: pushed along
    listed = json.loads(run_vault("sleeps", "--json", cwd=root).stdout)
    assert [s["tag"] for s in listed] == [second["tag"], first["tag"]]
    assert [s["commit"] for s in listed] == [second["commit"], first["commit"]]
    assert listed[1]["at"] == "2026-02-10T10:00:00Z"
    assert {t["path"] for t in listed[1]["topics"]} == {t["path"] for t in first["created"]}
    assert all(t["change"] == "new" for t in listed[1]["topics"])
    text = run_vault("sleeps", cwd=root).stdout.splitlines()
    assert text[0].startswith(f"2026-02-11 08:30  {second['commit'][:8]}  ")
    assert text[1].strip().startswith(f"{len(second['created']) + len(second['updated'])} topic(s): ")
    assert text[1].rstrip().endswith(f"({second['tag']})")
    assert run_vault("sleeps", "--limit", "1", "--json", cwd=root).stdout.count('"tag"') == 1


def test_two_sleeps_in_the_same_second_get_distinct_tags(tmp_path: Path):
    root = make_vault(tmp_path)
    a = sleep(root, "a", "2026-02-10", ["The party budget is 400 USD for Caroline."], "2026-02-12T10:00:00Z")
    b = sleep(root, "b", "2026-02-11", ["The refactor needs a new schema for Sheriff."], "2026-02-12T10:00:00Z")
    assert (a["tag"], b["tag"]) == ("sleep/20260212T100000Z", "sleep/20260212T100000Z-2")


def test_wake_names_the_commit_that_wrote_its_packet(tmp_path: Path):
    root = make_vault(tmp_path)
    slept = sleep(root, "p", "2026-02-10", ["Caroline's birthday party is at Riverside Park on Saturday."],
                  "2026-02-10T10:00:00Z")
    out = run_vault("wake", "--json", "--now", "2026-02-10T10:05:00Z", cwd=root)
    assert out.returncode == 0, out.stderr
    woke = json.loads(out.stdout)
    assert woke["packet"] == slept["wake"]
    assert woke["commit"] == slept["commit"] and woke["sleep_tag"] == slept["tag"]
    assert f"(that sleep is commit {slept['commit'][:8]}, tag {slept['tag']})" in woke["bundle"]


def test_no_sleeps_yet(tmp_path: Path):
    root = make_vault(tmp_path)
    out = run_vault("sleeps", cwd=root)
    assert out.returncode == 0 and "no tagged sleeps yet" in out.stdout
    assert json.loads(run_vault("sleeps", "--json", cwd=root).stdout) == []
