"""How the `vault` group reports failures (cli/group.py): one `error:` line on stderr, or with
--json one `{"error": {...}}` object on stdout, with the same exit code either way."""
from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from sheriff_vault.cli.group import DEBUG_ENV, VaultGroup
from sheriff_vault.cli.options import json_option
from sheriff_vault.errors import GitError


def test_a_vault_error_with_json_is_an_object_on_stdout(invoke, tmp_path):
    missing = tmp_path / "nowhere"
    missing.mkdir()
    plain = invoke("recall", "deploys", "--vault", missing)
    assert plain.exit_code == 1 and plain.stdout == ""
    assert plain.stderr.startswith(f"error: {missing} is not a vault")
    out = invoke("recall", "deploys", "--vault", missing, "--json")
    assert out.exit_code == 1 and "error:" not in out.stderr
    error = json.loads(out.stdout)["error"]
    assert error == {"kind": "VaultNotFound",
                     "message": f"{missing} is not a vault (no vault.yaml and topics/ there); it came from --vault",
                     "hint": f"run `vault init {missing}` or point --vault at an existing vault"}


def test_a_usage_error_with_json_keeps_clicks_exit_code(invoke, hash_vault):
    out = invoke("recall", "deploys", "--k", "0", "--vault", hash_vault.root, "--json")
    assert out.exit_code == 2
    error = json.loads(out.stdout)["error"]
    assert error["kind"] == "BadParameter" and "--k" in error["message"] and error["hint"].endswith(" recall --help`")
    unknown = invoke("nosuch", "--json")
    assert unknown.exit_code == 2 and "nosuch" in json.loads(unknown.stdout)["error"]["message"]
    plain = invoke("recall", "deploys", "--k", "0", "--vault", hash_vault.root)
    assert plain.exit_code == 2 and plain.stdout == "" and "Error: Invalid value for '--k'" in plain.stderr


def test_a_file_error_names_the_line_and_the_json_after_double_dash_is_a_word(invoke, hash_vault, tmp_path):
    broken = tmp_path / "buffer.jsonl"
    broken.write_text('{"role": "user", "content": "hi"}\n{"role": "user"}\n{"role": "user", "content": "x"}\n')
    out = invoke("sleep", broken, "--vault", hash_vault.root, "--json")
    assert out.exit_code == 1
    error = json.loads(out.stdout)["error"]
    assert error["kind"] == "ConversationFormatError" and error["message"].startswith(f"{broken}:2: ")
    words = invoke("recall", "--vault", tmp_path, "--", "--json")  # a query word, not the option
    assert words.exit_code == 1 and words.stdout == "" and words.stderr.startswith("error: ")


@pytest.fixture
def failing() -> click.Group:
    """A group of the real VaultGroup class with commands that fail the two ways a command can."""
    group = VaultGroup("vault")

    @group.command()
    @json_option
    def bug(as_json: bool) -> None:
        raise RuntimeError("list index out of range")

    @group.command()
    @json_option
    def rolled_back(as_json: bool) -> None:
        error = GitError("the commit failed", hint="run `vault doctor`")
        error.add_note("the sleep was rolled back; the buffer is as it was")
        raise error

    return group


def test_a_bug_of_ours_is_an_internal_error_with_a_log(failing, monkeypatch):
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    runner = CliRunner()
    plain = runner.invoke(failing, ["bug"])
    assert plain.exit_code == 2 and plain.stderr.startswith("error: unexpected RuntimeError: list index out of range")
    assert f"set {DEBUG_ENV}=1 to see the traceback" in plain.stderr and "Traceback" not in plain.output
    out = runner.invoke(failing, ["bug", "--json"])
    assert out.exit_code == 2
    error = json.loads(out.stdout)["error"]
    assert error["kind"] == "InternalError" and error["message"] == "unexpected RuntimeError: list index out of range"
    assert "crash.log" in error["hint"]


def test_what_the_library_did_about_an_error_comes_with_it(failing):
    runner = CliRunner()
    plain = runner.invoke(failing, ["rolled-back"])
    assert plain.exit_code == 1 and plain.stderr == ("note: the sleep was rolled back; the buffer is as it was\n"
                                                     "error: the commit failed (run `vault doctor`)\n")
    out = runner.invoke(failing, ["rolled-back", "--json"])
    assert out.exit_code == 1 and json.loads(out.stdout) == {"error": {
        "kind": "GitError", "message": "the commit failed", "hint": "run `vault doctor`",
        "notes": ["the sleep was rolled back; the buffer is as it was"]}}
