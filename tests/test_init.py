"""`vault init` and finding a vault: real folders, real git."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest
from conftest import commit_count, git

from sheriff_vault.errors import InitRefused, VaultNotFound
from sheriff_vault.store.vault import find_vault, init_vault, is_vault


def test_init_makes_a_committed_vault_with_hook(tmp_path: Path, invoke):
    result = invoke("init", tmp_path / "v")
    assert result.exit_code == 0, result.output
    root = tmp_path / "v"
    assert is_vault(root)
    for name in ("vault.yaml", "README.md", ".gitignore", "topics", "events", "wake", "conversations", "skills",
                 "quarantine"):
        assert (root / name).exists(), name
    assert git(root, "log", "--format=%s").strip() == "init: new vault"
    assert git(root, "status", "--porcelain").strip() == ""
    hook = root / ".git" / "hooks" / "post-commit"
    assert hook.stat().st_mode & stat.S_IXUSR
    assert "sheriff-vault post-commit hook" in hook.read_text()
    assert ".vault/" in (root / ".gitignore").read_text()
    (root / ".vault" / "junk").write_text("x")
    assert git(root, "status", "--porcelain").strip() == ""


def test_init_twice_changes_nothing(tmp_path: Path, invoke):
    invoke("init", tmp_path / "v")
    before = commit_count(tmp_path / "v")
    second = invoke("init", tmp_path / "v")
    assert second.exit_code == 0
    assert "already a vault" in second.output
    assert commit_count(tmp_path / "v") == before


def test_init_restores_a_deleted_folder(tmp_path: Path):
    root = init_vault(tmp_path / "v").vault.root
    (root / "events" / ".gitkeep").unlink()
    (root / "events").rmdir()
    again = init_vault(root)
    assert (root / "events").is_dir()
    assert "events/.gitkeep" in again.added


def test_init_refuses_a_non_empty_folder(tmp_path: Path, invoke):
    (tmp_path / "notes.txt").write_text("mine")
    result = invoke("init", tmp_path)
    assert result.exit_code == 1
    assert "not empty" in result.output and "--force" in result.output
    with pytest.raises(InitRefused):
        init_vault(tmp_path)


def test_init_force_keeps_existing_files(tmp_path: Path):
    (tmp_path / "README.md").write_text("my own readme\n")
    init_vault(tmp_path, force=True)
    assert (tmp_path / "README.md").read_text() == "my own readme\n"
    assert is_vault(tmp_path)


def test_init_keeps_a_previous_post_commit_hook(tmp_path: Path):
    git(tmp_path, "init", "-q")
    hook = tmp_path / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    hook.chmod(0o755)
    init_vault(tmp_path, force=True)
    assert (tmp_path / ".git" / "hooks" / "post-commit.local").read_text() == "#!/bin/sh\necho mine\n"
    assert "sheriff-vault" in hook.read_text()


def test_find_vault_from_subfolder_flag_and_env(tmp_path: Path, monkeypatch):
    root = init_vault(tmp_path / "v").vault.root
    sub = root / "topics"
    assert find_vault(start=sub).root == root
    assert find_vault(root).root == root
    monkeypatch.setenv("SHERIFF_VAULT", str(root))
    assert find_vault(start=tmp_path).root == root
    monkeypatch.delenv("SHERIFF_VAULT")
    with pytest.raises(VaultNotFound) as err:
        find_vault(start=tmp_path)
    assert "vault init" in str(err.value)
    with pytest.raises(VaultNotFound):
        find_vault(tmp_path / "nope")


def test_commands_find_the_vault_upward_in_a_subprocess(tmp_path: Path, run):
    root = init_vault(tmp_path / "v").vault.root
    made = run("topic", "new", "Garden", cwd=root / "topics")
    assert made.returncode == 0, made.stderr
    listed = run("topic", "list", cwd=root / "events")
    assert "garden" in listed.stdout
    elsewhere = run("topic", "list", cwd=tmp_path)
    assert elsewhere.returncode == 1
    assert "no vault" in elsewhere.stderr and "Traceback" not in elsewhere.stderr
    via_env = run("topic", "list", cwd=tmp_path, env={"SHERIFF_VAULT": str(root)})
    assert "garden" in via_env.stdout
