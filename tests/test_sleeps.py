"""Sleep tags as a time axis: each sleep commit is tagged `sleep/<UTC time>`, `vault sleeps` lists
them as a timeline (and --json), the wake packet is traced to its commit, and `vault sync`
carries the tags to the other clone. Real git, real subprocesses, the hash embedder."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import committed_hash_vault, git, run_vault

from sheriff_vault.store.sleeps import resolve_time
from sheriff_vault.store.vault import Vault
from sheriff_vault.timewin import parse_instant


def conversation(prefix: str, day: str, lines: list[str]) -> str:
    out, n = [], 0
    for text in [*lines, "Thanks!"]:
        for role, content in (("user", text), ("assistant", "Noted.")):
            n += 1
            out.append({"role": role, "content": content, "at": f"{day}T09:{n:02d}:00Z", "id": f"{prefix}{n}"})
    return "\n".join(json.dumps(t) for t in out) + "\n"


def make_vault(tmp_path: Path) -> Path:
    return committed_hash_vault(tmp_path, 2)


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


# -- sleep phrases as windows and commit ranges ---------------------------------------------------
def dated_git(root: Path, stamp: str, *args: str) -> None:
    """A person's own dated commit."""
    env = dict(os.environ, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    subprocess.run(["git", "-c", "user.name=Person", "-c", "user.email=person@example.com", *args], cwd=root,
                   env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def slept_thrice(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One vault that slept three times, with a hand edit between the second and third sleeps and one
    after the third; read-only for the tests below."""
    root = make_vault(tmp_path_factory.mktemp("clock"))
    s1 = sleep(root, "a", "2026-02-09", ["Caroline's birthday party is at Riverside Park on Saturday."],
               "2026-02-10T10:00:00Z")
    s2 = sleep(root, "b", "2026-02-11", ["The memory refactor for Sheriff needs a new index schema."],
               "2026-02-11T10:00:00Z")
    (root / "topics" / "notes.md").write_text("---\nname: Notes\n---\n\n## Facts\n- Hand note one.\n")
    dated_git(root, "2026-02-11T15:00:00Z", "add", "topics/notes.md")
    dated_git(root, "2026-02-11T15:00:00Z", "commit", "-qm", "edit: notes")
    edit1 = git(root, "rev-parse", "HEAD").strip()
    s3 = sleep(root, "c", "2026-02-12", ["Melanie joined a pottery course on Thursdays."],
               "2026-02-12T10:00:00Z")
    (root / "topics" / "notes.md").write_text("---\nname: Notes\n---\n\n## Facts\n- Hand note two.\n")
    dated_git(root, "2026-02-12T11:00:00Z", "commit", "-qam", "edit: notes again")
    edit2 = git(root, "rev-parse", "HEAD").strip()
    return {"root": root, "s1": s1, "s2": s2, "s3": s3, "edit1": edit1, "edit2": edit2}


NOW_AFTER = "2026-02-12T12:00:00Z"
T1, T2, T3 = "2026-02-10T10:00:00Z", "2026-02-11T10:00:00Z", "2026-02-12T10:00:00Z"
# phrase, window start, window end, range base, range tip, commits in the range (None: from the first commit)
SLEEP_TABLE = [
    ("one sleep ago", T2, T3, "s2", "s3", 2),             # the awake day the last sleep closed: edit1 + s3
    ("a sleep ago", T2, T3, "s2", "s3", 2),
    ("two sleeps ago", T1, T2, "s1", "s2", 1),
    ("2 sleeps ago", T1, T2, "s1", "s2", 1),
    ("three sleeps ago", None, T1, None, "s1", None),     # the oldest sleep: open start, all history up to it
    ("since you woke up", T3, NOW_AFTER, "s3", "edit2", 1),
    ("since you slept", T3, NOW_AFTER, "s3", "edit2", 1),
    ("before you slept", None, T3, None, "s3", None),
    ("since two sleeps ago", T1, NOW_AFTER, "s1", "edit2", 4),
    ("before two sleeps ago", None, T1, None, "s1", None),
    ("a few sleeps ago", None, T2, None, "s2", None),      # vague: as many periods as there were, up to five
    ("2026-02-11", "2026-02-11T00:00:00Z", "2026-02-12T00:00:00Z", "s1", "edit1", 2),  # by commit date: s2, edit1
]


def sha_of(case: dict, key: str | None) -> str | None:
    if key is None:
        return None
    value = case[key]
    return value["commit"] if isinstance(value, dict) else value


@pytest.mark.parametrize(("phrase", "start", "end", "base", "tip", "count"), SLEEP_TABLE)
def test_sleep_phrases_resolve_to_windows_and_commit_ranges(slept_thrice, phrase, start, end, base, tip, count):
    root = slept_thrice["root"]
    answer = resolve_time(Vault(root), phrase, parse_instant(NOW_AFTER), "UTC")
    data = answer.to_json()
    assert (data["start"], data["end"]) == (start, end), data
    commits = data["commits"]
    assert commits["from"] == sha_of(slept_thrice, base) and commits["to"] == sha_of(slept_thrice, tip), commits
    if base is not None and base.startswith("s") and start == slept_thrice[base]["slept_at"]:
        assert commits["from_tag"] == slept_thrice[base]["tag"]
    if tip.startswith("s") and end == slept_thrice[tip]["slept_at"]:
        assert commits["to_tag"] == slept_thrice[tip]["tag"]
    expected = count if count is not None else int(git(root, "rev-list", "--count", sha_of(slept_thrice, tip)))
    assert commits["count"] == expected
    spec = commits["range"]
    assert int(git(root, "rev-list", "--count", spec).strip()) == expected  # git reads the range as given


@pytest.mark.parametrize(("phrase", "shas"), [("two sleeps ago", ["s2"]), ("one sleep ago", ["s3", "edit1"]),
                                              ("since two sleeps ago", ["edit2", "s3", "edit1", "s2"])])
def test_diff_since_a_sleep_takes_the_commits_vault_time_names(slept_thrice, phrase, shas):
    """`vault diff --since "two sleeps ago"` covers the commits between those sleeps (the second
    sleep's own commit, not the first's), the same range `vault time` prints."""
    root = slept_thrice["root"]
    out = run_vault("diff", "--since", phrase, "--now", NOW_AFTER, "--json", cwd=root)
    assert out.returncode == 0, out.stderr
    assert [c["sha"] for c in json.loads(out.stdout)["commits"]] == [sha_of(slept_thrice, k) for k in shas]


def test_vault_time_prints_the_window_and_the_commits(slept_thrice):
    root, s1, s2 = slept_thrice["root"], slept_thrice["s1"], slept_thrice["s2"]
    out = run_vault("time", "two sleeps ago", "--now", NOW_AFTER, "--json", cwd=root)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["start"], data["end"], data["granularity"]) == (T1, T2, "sleep")
    assert data["commits"]["range"] == f"{s1['commit']}..{s2['commit']}"
    text = run_vault("time", "two", "sleeps", "ago", "--now", NOW_AFTER, cwd=root).stdout.splitlines()
    assert text[0] == f"{T1} .. {T2}   'two sleeps ago' = 10 February 2026 10:00 UTC to 11 February 2026 10:00 UTC"
    assert text[1] == (f"commits: {s1['commit'][:8]}..{s2['commit'][:8]}  (1 commit(s), after {s1['tag']} "
                       f"up to {s2['tag']})")


def test_sleep_phrases_going_back_too_far_say_how_many_sleeps_there_were(slept_thrice):
    root = slept_thrice["root"]
    out = run_vault("time", "five sleeps ago", "--now", NOW_AFTER, cwd=root)
    assert out.returncode != 0
    assert "'five sleeps ago' goes back further than the 3 sleep(s) this vault has had" in out.stderr
    assert "`vault sleeps` lists them" in out.stderr
    early = run_vault("time", "two sleeps ago", "--now", "2026-02-10T12:00:00Z", cwd=root)  # only one sleep by then
    assert early.returncode != 0 and "than the 1 sleep(s)" in early.stderr


def test_a_fresh_vault_has_no_sleeps_to_count_back(tmp_path: Path):
    root = make_vault(tmp_path)
    out = run_vault("time", "two sleeps ago", cwd=root)
    assert out.returncode != 0 and "needs the time of the last sleep" in out.stderr and "vault sleep" in out.stderr


def test_recall_reads_two_sleeps_ago_as_when_things_were_said(slept_thrice):
    root = slept_thrice["root"]
    out = run_vault("recall", "what did we say two sleeps ago", "--now", NOW_AFTER, "--json", cwd=root)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    window = data["window"]
    assert (window["start"], window["end"]) == (T1, T2)
    assert window["commits"]["range"] == f"{slept_thrice['s1']['commit']}..{slept_thrice['s2']['commit']}"
    text = json.dumps(data["topics"])
    assert "index schema" in text and "pottery" not in text and "Riverside" not in text


def test_vault_sleeps_is_a_timeline_of_what_each_sleep_learned(slept_thrice):
    root, s3 = slept_thrice["root"], slept_thrice["s3"]
    listed = json.loads(run_vault("sleeps", "--json", cwd=root).stdout)
    assert [s["tag"] for s in listed] == [slept_thrice[k]["tag"] for k in ("s3", "s2", "s1")]
    newest = listed[0]
    assert any("Melanie joined a pottery course on Thursdays." in line for line in newest["learned"])
    assert not any("index schema" in line for line in newest["learned"])  # that was the sleep before
    touched = {t["path"]: t for t in newest["topics"]}
    assert set(touched) == {t["path"] for t in s3["created"] + s3["updated"]}
    assert all(t["summary"].startswith("+") and t["learned"] for t in touched.values())
    text = run_vault("sleeps", "--limit", "1", cwd=root).stdout.splitlines()
    assert len(text) == 2
    assert text[0].startswith(f"2026-02-12 10:00  {s3['commit'][:8]}  ")
    assert "Melanie joined a pottery course on Thursdays." in text[0] and "+ fact" not in text[0]
    name = s3["created"][0]["name"]
    assert f"{name} (new)" in text[1] and text[1].rstrip().endswith(f"({s3['tag']})")


def test_on_a_detached_head_the_sleeps_are_those_behind_it(slept_thrice, tmp_path: Path):
    s1, s2 = slept_thrice["s1"], slept_thrice["s2"]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(slept_thrice["root"]), str(clone))
    git(clone, "checkout", "-q", "--detach", s2["tag"])  # looking at the vault as the second sleep left it
    listed = json.loads(run_vault("sleeps", "--json", cwd=clone).stdout)
    assert [s["tag"] for s in listed] == [s2["tag"], s1["tag"]]
    out = run_vault("time", "one sleep ago", "--now", NOW_AFTER, "--json", cwd=clone)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["start"], data["end"]) == (T1, T2)
    assert data["commits"]["range"] == f"{s1['commit']}..{s2['commit']}"
