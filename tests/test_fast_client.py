"""The fast `vault recall` (sheriff_vault/__main__.py): with a daemon up it answers without click or the
library, and prints exactly what the full CLI prints; anything it does not know goes to the full CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import watching
from memory_fixtures import build

from sheriff_vault.__main__ import _parse

NOW = "2026-02-20T03:21:00Z"
FULL_CLI = [sys.executable, "-c", "from sheriff_vault.cli import main; main()"]
FAST = [sys.executable, "-X", "importtime", "-m", "sheriff_vault"]


@pytest.fixture
def daemon(hash_vault):
    build(hash_vault)
    with watching(hash_vault):
        yield hash_vault


def run(cmd: list[str], *args: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("SHERIFF_VAULT", None)
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def imported(stderr: str) -> set[str]:
    """Module names from `python -X importtime` output."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("args", [
    ("the migration dry run",),
    ("the", "party", "--json"),
    ("what happened last week", "--deep", "--k", "3", "--budget", "600"),
    ("the offsite", "--since", "2026-02-01", "--until=2026-02-28", "--json"),
])
def test_fast_and_full_cli_print_the_same(daemon, args):
    common = (*args, "--vault", str(daemon.root), "--now", NOW)
    fast = run(FAST, "recall", *common)
    full = run(FULL_CLI, "recall", *common)
    assert fast.returncode == full.returncode == 0, (fast.stderr[-2000:], full.stderr)
    assert fast.stdout == full.stdout
    assert fast.stdout.strip()
    modules = imported(fast.stderr)
    assert "click" not in modules and "sheriff_vault.cli" not in modules and "numpy" not in modules
    if "--json" in args:
        assert json.loads(fast.stdout)["via"] == "daemon"


def test_fast_client_finds_the_vault_from_the_current_folder(daemon):
    fast = run(FAST, "recall", "the party", "--now", NOW, "--json", cwd=daemon.root / "topics")
    full = run(FULL_CLI, "recall", "the party", "--now", NOW, "--json", cwd=daemon.root / "topics")
    assert fast.returncode == 0, fast.stderr[-2000:]
    assert fast.stdout == full.stdout
    assert "click" not in imported(fast.stderr)


@pytest.mark.parametrize("extra", [("--explain",), ("--no-daemon",), ("--k", "0"), ("--budget", "50"), ("--help",)])
def test_what_the_fast_path_does_not_know_goes_to_the_full_cli(daemon, extra):
    fast = run(FAST, "recall", "the party", "--vault", str(daemon.root), "--now", NOW, *extra)
    full = run(FULL_CLI, "recall", "the party", "--vault", str(daemon.root), "--now", NOW, *extra)
    assert (fast.returncode, fast.stdout) == (full.returncode, full.stdout)
    assert "click" in imported(fast.stderr)


def test_a_bad_now_gets_the_full_cli_error(daemon):
    fast = run([sys.executable, "-m", "sheriff_vault"], "recall", "the party", "--vault", str(daemon.root),
               "--now", "someday")
    assert fast.returncode == 1
    assert fast.stderr.startswith("error: not an ISO-8601 time: 'someday'")


def test_without_a_daemon_the_full_cli_answers(hash_vault):
    build(hash_vault)
    fast = run(FAST, "recall", "the party", "--vault", str(hash_vault.root), "--now", NOW, "--json")
    assert fast.returncode == 0, fast.stderr[-2000:]
    assert json.loads(fast.stdout)["via"] == "process"


def test_parse_takes_only_simple_arguments():
    assert _parse(["the", "party", "--k", "3", "--json", "--now=2026-01-01"]) == (
        {"--k": 3, "--json": True, "--now": "2026-01-01"}, ["the", "party"])
    assert _parse(["x", "--tail", "f.txt"]) is None
    assert _parse(["x", "--k"]) is None
    assert _parse(["x", "--k", "many"]) is None
    assert _parse(["x", "--k", "3", "--k", "4"]) is None
    assert _parse(["x", "-h"]) is None


def test_the_fast_client_and_the_daemon_agree_on_the_protocol():
    from sheriff_vault import __main__ as fast
    from sheriff_vault.daemon import rpc

    assert fast.PROTOCOL == rpc.PROTOCOL


def prompt_event(prompt: str, cwd: str) -> str:
    return json.dumps({"session_id": "s1", "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt})


def test_the_prompt_hook_answers_from_the_daemon_like_the_full_hook(daemon):
    """Claude Code's UserPromptSubmit hook waits on the prompt: with a daemon up it is answered
    without click or the library, with the same added context the full hook prints, and logged."""
    event = prompt_event("how did the migration dry run go?", str(daemon.root))
    hook = ("hook", "claude-code", "--vault", str(daemon.root))
    fast = subprocess.run([*FAST, *hook], input=event, capture_output=True, text=True, timeout=120)
    full = subprocess.run([*FULL_CLI, *hook], input=event, capture_output=True, text=True, timeout=120)
    assert fast.returncode == full.returncode == 0, (fast.stderr[-2000:], full.stderr[-2000:])
    assert fast.stdout == full.stdout
    context = json.loads(fast.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit" and "## " in context["additionalContext"]
    assert "click" not in imported(fast.stderr) and "numpy" not in imported(fast.stderr)
    logged = [json.loads(line) for line in (daemon.root / ".vault" / "logs" / "hooks.jsonl").read_text().splitlines()]
    assert [e.get("fast", False) for e in logged] == [True, False]
    assert {e["outcome"] for e in logged} == {"recalled via daemon"}


@pytest.mark.parametrize("event", [
    {"hook_event_name": "SessionStart", "source": "startup"},   # not the prompt: the full hook decides
    {"hook_event_name": "UserPromptSubmit", "prompt": "/help"},  # a slash command: nothing added
    "not json at all",
])
def test_other_hook_input_gets_what_the_full_hook_prints(daemon, event):
    text = event if isinstance(event, str) else json.dumps(event)
    hook = ("hook", "claude-code", "--vault", str(daemon.root))
    fast = subprocess.run([*FAST, *hook], input=text, capture_output=True, text=True, timeout=120)
    full = subprocess.run([*FULL_CLI, *hook], input=text, capture_output=True, text=True, timeout=120)
    assert (fast.returncode, fast.stdout) == (full.returncode, full.stdout) == (0, "")
