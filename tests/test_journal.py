"""The change journal on its own: journal.transaction() commits all of a change or none of it, and
recover() finishes or rolls back what a dead process left (real git, real files)."""
from __future__ import annotations

import json

import pytest
from conftest import NOW, commit_count, git

from sheriff_vault.store import journal
from sheriff_vault.store.buffer import Turn, append_turns, load_buffer
from sheriff_vault.store.vault import Vault


def files_of(vault: Vault, **texts: str) -> dict[str, bytes | None]:
    return {f"topics/{name}.md": text.encode() for name, text in texts.items()}


def write(vault: Vault, files: dict[str, bytes | None]) -> None:
    for rel, data in files.items():
        (vault.root / rel).write_bytes(data or b"")


def test_a_transaction_commits_every_file_once_with_its_trailer(vault: Vault):
    files = files_of(vault, a="alpha\n", b="beta\n")
    before = commit_count(vault.root)
    # held as the docstring asks: the post-commit hook's own `vault` process would otherwise
    # take the lock and finish this landed change under our feet (a race CI once lost)
    with vault.lock(), journal.transaction(vault, "edit", files) as tx:
        assert vault.journal_path.exists()
        write(vault, files)
        sha = tx.commit("edit: two topics", list(files))
    assert sha and commit_count(vault.root) == before + 1
    message = git(vault.root, "log", "-1", "--format=%B")
    assert message.startswith("edit: two topics\n") and f"Edit-Id: {tx.id}" in message
    assert sorted(git(vault.root, "show", "--name-only", "--format=", "HEAD").split()) == sorted(files)
    assert not vault.journal_path.exists() and not journal.backup_dir(vault).exists()


def test_an_error_inside_rolls_every_file_back_and_says_so(vault: Vault):
    (vault.root / "topics" / "a.md").write_text("committed\n")
    git(vault.root, "add", "topics/a.md")
    git(vault.root, "commit", "-qm", "a")
    (vault.root / "topics" / "a.md").write_text("my uncommitted edit\n")
    files = files_of(vault, a="sleep's version\n", b="new topic\n")
    with pytest.raises(RuntimeError) as info:
        with vault.lock(), journal.transaction(vault, "sleep", files):
            write(vault, files)
            raise RuntimeError("disk full")
    assert (vault.root / "topics" / "a.md").read_text() == "my uncommitted edit\n"  # not git's version
    assert not (vault.root / "topics" / "b.md").exists()
    assert any("rolled back a sleep" in note for note in info.value.__notes__)
    assert not vault.journal_path.exists()


def test_recover_rolls_back_a_change_that_died_before_its_commit(vault: Vault):
    files = files_of(vault, c="half written\n")
    journal.begin(vault, "dead1", files, [], kind="edit")
    write(vault, files)  # ... and the process is killed here
    notice = journal.recover(vault)
    assert notice and notice.startswith("rolled back a topic edit that was interrupted")
    assert not (vault.root / "topics" / "c.md").exists() and not vault.journal_path.exists()


def test_recover_finishes_a_change_whose_commit_landed(vault: Vault):
    append_turns(vault, [Turn("user", f"turn {i}", NOW, f"t{i}") for i in range(1, 5)], NOW)
    files = files_of(vault, d="slept\n")
    with vault.lock():  # else the commit's post-commit hook could finish it first
        journal.begin(vault, "dead2", files, ["t1", "t2"], kind="sleep")
        write(vault, files)
        git(vault.root, "add", *files)
        git(vault.root, "commit", "-qm", f"sleep: d\n\n{journal.trailer('sleep', 'dead2')}")
        # ... killed before trimming the buffer
        notice = journal.recover(vault)
    assert notice and notice.startswith("finished a sleep that was interrupted after its commit")
    assert [t.id for t in load_buffer(vault)] == ["t3", "t4"]
    assert (vault.root / "topics" / "d.md").read_text() == "slept\n"


def test_a_file_a_person_changed_after_the_change_wrote_it_is_theirs(vault: Vault):
    files = files_of(vault, e="the change's text\n")
    journal.begin(vault, "dead3", files, [], kind="edit")
    write(vault, files)
    (vault.root / "topics" / "e.md").write_text("a person typed over it\n")
    journal.recover(vault)
    assert (vault.root / "topics" / "e.md").read_text() == "a person typed over it\n"


def test_an_unreadable_journal_is_removed_with_a_notice(vault: Vault):
    vault.journal_path.parent.mkdir(parents=True, exist_ok=True)
    vault.journal_path.write_text("{not json")
    assert journal.recover(vault) == "removed an unreadable change journal"
    assert not vault.journal_path.exists()


def test_merged_records_a_person_s_edit_so_a_rollback_gives_it_back(vault: Vault):
    files = files_of(vault, f="ours\n")
    with pytest.raises(KeyError):
        with vault.lock(), journal.transaction(vault, "sleep", files) as tx:
            write(vault, files)
            tx.merged("topics/f.md", b"theirs\n", b"ours and theirs\n")
            (vault.root / "topics" / "f.md").write_text("ours and theirs\n")
            record = json.loads(vault.journal_path.read_text())
            assert record["merged"] == ["topics/f.md"]
            raise KeyError("boom")
    assert (vault.root / "topics" / "f.md").read_text() == "theirs\n"
