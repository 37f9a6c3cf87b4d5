"""`vault hooks install|uninstall` for Claude Code and Codex, and the installed hook command run
exactly as the host runs it: through a shell, JSON on stdin, the host's environment and cwd."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
from conftest import NOW, commit_count, git, wait_for, watching

from sheriff_vault.store.buffer import load_buffer
from sheriff_vault.store.edits import create_topic

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"
PERSON_SETTINGS = {"model": "opus", "permissions": {"allow": ["Bash(make test)"]},
                   "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}],
                             "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "my-own-hook"}]}]}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(PERSON_SETTINGS, indent=2))
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "docs-server"}}}))
    return root


@pytest.fixture
def memory_vault(hash_vault):
    config = hash_vault.root / "vault.yaml"
    config.write_text(config.read_text().replace("tail_turns: 20", "tail_turns: 2"))
    create_topic(hash_vault, "Staging deploy", now=NOW, facts=["We deploy staging with make stage-up from main."])
    return hash_vault


def installed_command(project: Path, event: str, settings_file: str = "settings.local.json") -> str:
    settings = json.loads((project / ".claude" / settings_file).read_text())
    commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]
                if "hook claude-code" in h["command"]]
    assert len(commands) == 1
    return commands[0]


def host_runs(command: str, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    """As Claude Code runs a command hook: a shell, the event's JSON on stdin, its own cwd and
    environment (no SHERIFF_VAULT; PYTHONPATH only so this checkout's code is the one imported)."""
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "PYTHONPATH", "HF_HUB_OFFLINE",
                                                        "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM")}
    env |= {"CLAUDE_PROJECT_DIR": str(cwd)}
    return subprocess.run(["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def event(name: str, project: Path, **extra) -> dict:
    return {"session_id": "7f3c2a10-5b1e-4c2d-9e8f-0a1b2c3d4e5f", "cwd": str(project), "permission_mode": "default",
            "hook_event_name": name, "transcript_path": str(project / "session.jsonl")} | extra


def test_install_merges_and_uninstall_removes_exactly_what_it_added(memory_vault, project, run):
    before_mcp = json.loads((project / ".mcp.json").read_text())
    out = run("hooks", "install", "claude-code", "--scope", "project", "--project", project,
              "--vault", memory_vault.root)
    assert out.returncode == 0, out.stderr
    assert "wrote" in out.stdout and str(project / ".claude" / "settings.json") in out.stdout
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["permissions"] == PERSON_SETTINGS["permissions"]
    assert settings["hooks"]["Stop"] == PERSON_SETTINGS["hooks"]["Stop"]
    assert settings["hooks"]["UserPromptSubmit"][0] == PERSON_SETTINGS["hooks"]["UserPromptSubmit"][0]
    assert set(settings["hooks"]) == {"Stop", "UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd"}
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "compact|resume"
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["docs"] == before_mcp["mcpServers"]["docs"]
    assert servers["sheriff-vault"]["command"] == "vault" and servers["sheriff-vault"]["args"][0] == "mcp"

    again = run("hooks", "install", "claude-code", "--scope", "project", "--project", project,
                "--vault", memory_vault.root, "--json")
    assert json.loads(again.stdout)["changed"] == []  # installing twice adds nothing twice

    gone = run("hooks", "uninstall", "claude-code", "--scope", "project", "--project", project)
    assert gone.returncode == 0, gone.stderr
    assert json.loads((project / ".claude" / "settings.json").read_text()) == PERSON_SETTINGS
    assert json.loads((project / ".mcp.json").read_text()) == before_mcp


def test_the_default_local_scope_is_personal_and_leaves_the_team_files_alone(memory_vault, project, run):
    shared = {p: p.read_text() for p in (project / ".claude" / "settings.json", project / ".mcp.json")}
    out = run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["scope"] == "local"
    assert {p: p.read_text() for p in shared} == shared
    assert f"--vault {memory_vault.root}" in installed_command(project, "UserPromptSubmit")
    claude = json.loads((Path(os.environ["HOME"]) / ".claude.json").read_text())
    server = claude["projects"][str(project.resolve())]["mcpServers"]["sheriff-vault"]
    assert server["args"][-3:] == ["mcp", "--vault", str(memory_vault.root)]
    assert json.loads(out.stdout)["warnings"] == []  # not a git repository: nothing to warn about
    git(project, "init", "-q")
    warned = run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    assert "git does not ignore settings.local.json" in warned.stderr
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    quiet = run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr


def _snapshot(*roots: Path) -> dict[str, str]:
    return {str(p): p.read_text() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_install_uninstall_install_again_gives_no_diff(memory_vault, project, run, scope):
    home = Path(os.environ["HOME"])
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "projects": {"/elsewhere": {"x": 1}}}))
    original = _snapshot(project, home)
    where = [] if scope == "user" else ["--project", project]
    install = ("hooks", "install", "claude-code", "--scope", scope, *where, "--vault", memory_vault.root)
    assert run(*install).returncode == 0
    first = _snapshot(project, home)
    assert first != original
    gone = run("hooks", "uninstall", "claude-code", "--scope", scope, *where)
    assert gone.returncode == 0, gone.stderr
    after = _snapshot(project, home)
    assert {k: json.loads(v) for k, v in after.items() if k in original} == {k: json.loads(v) for k, v in
                                                                             original.items()}
    assert all(json.loads(v) == {} for k, v in after.items() if k not in original)  # files we made, emptied
    assert run(*install).returncode == 0
    assert _snapshot(project, home) == first


def _strings(data) -> list[str]:
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (k, *_strings(v))]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


def test_a_project_scope_install_writes_no_absolute_path(tmp_path, run):
    project = tmp_path / "team-repo"
    (project / "memory").mkdir(parents=True)
    assert run("init", project / "memory").returncode == 0
    out = run("hooks", "install", "claude-code", "--scope", "project", "--project", project,
              "--vault", project / "memory", "--json")
    assert out.returncode == 0, out.stderr
    for path in (project / ".claude" / "settings.json", project / ".mcp.json"):
        text = path.read_text()
        assert str(tmp_path) not in text and sys.executable not in text
        absolute = [t for t in _strings(json.loads(text)) for word in shlex.split(t) if word.startswith(("/", "~"))]
        assert absolute == [], path
    command = installed_command(project, "PreCompact", "settings.json")
    assert command.startswith("vault hook claude-code --vault ") and "$CLAUDE_PROJECT_DIR" in command
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["sheriff-vault"]
    assert server == {"type": "stdio", "command": "vault",
                      "args": ["mcp", "--vault", "${CLAUDE_PROJECT_DIR:-.}/memory"]}
    # the command a teammate's Claude Code runs finds the vault from the project variable
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "vault").write_text(f"#!/bin/sh\nexec {sys.executable} -m sheriff_vault \"$@\"\n")
    (shim / "vault").chmod(0o755)
    env = dict(os.environ, PATH=f"{shim}:{os.environ['PATH']}", CLAUDE_PROJECT_DIR=str(project))
    ran = subprocess.run(["bash", "-c", command], input=json.dumps(event("SessionStart", project, source="startup")),
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert ran.returncode == 0 and ran.stdout == "", ran.stderr
    logged = (project / "memory" / ".vault" / "logs" / "hooks.jsonl").read_text().splitlines()
    log = [json.loads(line) for line in logged]
    assert log[-1]["event"] == "SessionStart" and log[-1]["outcome"] == "skipped"


def test_install_refuses_a_broken_settings_file_without_touching_it(memory_vault, project, run):
    (project / ".claude" / "settings.json").write_text("{not json")
    out = run("hooks", "install", "claude-code", "--scope", "project", "--project", project,
              "--vault", memory_vault.root)
    assert out.returncode == 1 and "not valid JSON" in out.stderr and "Traceback" not in out.stderr
    assert (project / ".claude" / "settings.json").read_text() == "{not json"


def test_user_prompt_submit_adds_recalled_memory_and_never_fails(memory_vault, project, run, tmp_path):
    run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    command = installed_command(project, "UserPromptSubmit")
    out = host_runs(command, event("UserPromptSubmit", project, prompt="How do we deploy the staging stack?"),
                    project)
    assert out.returncode == 0, out.stderr
    context = json.loads(out.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit" and "make stage-up" in context["additionalContext"]
    log = [json.loads(line) for line in (memory_vault.logs / "hooks.jsonl").read_text().splitlines()]
    assert log[-1]["event"] == "UserPromptSubmit" and log[-1]["outcome"].startswith("recalled")

    # A slash command, bad input, a vault that is gone: print nothing, exit 0.
    quiet = host_runs(command, event("UserPromptSubmit", project, prompt="/compact"), project)
    garbage = subprocess.run(["bash", "-c", command], input="not json", capture_output=True, text=True, cwd=project,
                             env=dict(os.environ), timeout=120)
    # the hook's recall started the vault's daemon, as a host's would: stop it before the vault goes
    stopped = run("watch", "--stop", "--vault", memory_vault.root)
    assert stopped.returncode == 0, stopped.stderr
    moved = tmp_path / "moved"
    shutil.move(str(memory_vault.root), moved)
    gone = host_runs(command, event("UserPromptSubmit", project, prompt="How do we deploy staging?"), project)
    for result in (quiet, garbage, gone):
        assert result.returncode == 0 and result.stdout == "", result.stderr


def test_the_prompt_hook_recalls_what_was_said_since_the_last_sleep(hash_vault, project, run):
    """A vault with no topic yet: only the buffer knows, and the hook says it, with and without a daemon."""
    run("hooks", "install", "claude-code", "--project", project, "--vault", hash_vault.root)
    noted = run("note", "user", "The staging database moved to db-eu-2 this morning.", "--vault", hash_vault.root)
    assert noted.returncode == 0, noted.stderr
    command = installed_command(project, "UserPromptSubmit")
    prompt = event("UserPromptSubmit", project, prompt="Which database does staging use?")
    contexts = [host_runs(command, prompt, project)]
    with watching(hash_vault):
        contexts.append(host_runs(command, prompt, project))
    for out in contexts:
        assert out.returncode == 0, out.stderr
        context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Said recently, not yet slept" in context and "db-eu-2" in context
    log = [json.loads(line) for line in (hash_vault.logs / "hooks.jsonl").read_text().splitlines()]
    assert [e.get("fast", False) for e in log[-2:]] == [False, True]


def test_pre_compact_sleeps_the_transcript_and_session_start_wakes(memory_vault, project, run):
    run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    shutil.copy(FIXTURES / "claude_tool_heavy.jsonl", project / "session.jsonl")
    commits = commit_count(memory_vault.root)
    out = host_runs(installed_command(project, "PreCompact"), event("PreCompact", project, trigger="auto",
                                                                    custom_instructions=""), project)
    assert out.returncode == 0 and out.stdout == "", out.stderr
    assert commit_count(memory_vault.root) == commits + 1
    assert git(memory_vault.root, "log", "-1", "--format=%s").startswith("sleep")
    archived = "".join(p.read_text() for p in (memory_vault.root / "conversations").rglob("*.md"))
    assert "The staging deploy fails at the migrate step" in archived and "echo step 200" not in archived

    woke = host_runs(installed_command(project, "SessionStart"), event("SessionStart", project, source="compact"),
                     project)
    assert woke.returncode == 0, woke.stderr
    context = json.loads(woke.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart" and "# Wake context" in context["additionalContext"]
    startup = host_runs(installed_command(project, "SessionStart"), event("SessionStart", project, source="startup"),
                        project)
    assert startup.returncode == 0 and startup.stdout == ""


def test_pre_compact_sleeps_a_newer_claude_file_that_opens_with_metadata(memory_vault, project, run):
    """Claude Code 2.x opens a session file with records like permission-mode and ai-title."""
    run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    shutil.copy(FIXTURES / "claude_metadata_first.jsonl", project / "session.jsonl")
    commits = commit_count(memory_vault.root)
    out = host_runs(installed_command(project, "PreCompact"), event("PreCompact", project, trigger="auto"), project)
    assert out.returncode == 0 and out.stdout == "", out.stderr
    assert commit_count(memory_vault.root) == commits + 1
    archived = "".join(p.read_text() for p in (memory_vault.root / "conversations").rglob("*.md"))
    assert "/orchestrator create TODO app with React and a REST API" in archived
    outcome = json.loads((memory_vault.logs / "hooks.jsonl").read_text().splitlines()[-1])["outcome"]
    assert outcome.startswith("slept, commit ") and "skipped 2 transcript record(s)" in outcome


def test_session_start_adds_nothing_when_there_is_nothing_to_resume(hash_vault, project, run):
    run("hooks", "install", "claude-code", "--project", project, "--vault", hash_vault.root)
    command = installed_command(project, "SessionStart")
    for source in ("resume", "compact"):
        out = host_runs(command, event("SessionStart", project, source=source), project)
        assert out.returncode == 0 and out.stdout == "", out.stderr
    log = [json.loads(line) for line in (hash_vault.logs / "hooks.jsonl").read_text().splitlines()]
    assert [e["outcome"] for e in log[-2:]] == ["nothing to resume", "nothing to resume"]
    noted = run("note", "user", "We are halfway through the staging migration.", "--vault", hash_vault.root)
    assert noted.returncode == 0, noted.stderr
    resumed = host_runs(command, event("SessionStart", project, source="resume"), project)  # a turn not yet slept
    assert resumed.returncode == 0, resumed.stderr
    assert "halfway through the staging migration" in json.loads(resumed.stdout)["hookSpecificOutput"][
        "additionalContext"]


def test_session_end_sleeps_in_the_background(memory_vault, project, run):
    run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    shutil.copy(FIXTURES / "claude_compacted.jsonl", project / "session.jsonl")
    commits = commit_count(memory_vault.root)
    out = host_runs(installed_command(project, "SessionEnd"), event("SessionEnd", project, reason="prompt_input_exit"),
                    project)
    assert out.returncode == 0 and out.stdout == "", out.stderr
    wait_for(lambda: commit_count(memory_vault.root) == commits + 1, timeout=120, what="the background sleep commit")
    # the session ended: its last sleep keeps no tail (the buffer is trimmed as the commit lands)
    wait_for(lambda: load_buffer(memory_vault) == [], timeout=30, what="an empty buffer")


CODEX_SCHEMAS = Path(__file__).resolve().parent / "fixtures" / "codex_hooks"


def codex_schema(name: str) -> dict:
    return json.loads((CODEX_SCHEMAS / f"{name}.schema.json").read_text())


def codex_event(name: str, project: Path, transcript: Path | None = None, **extra) -> dict:
    """A Codex hook's stdin, checked against the input schema written from Codex's documentation."""
    payload = {"session_id": "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "transcript_path": str(transcript) if transcript
               else None, "cwd": str(project), "hook_event_name": name, "model": "gpt-5.1-codex"} | extra
    slug = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "PreCompact": "pre-compact"}
    jsonschema.validate(payload, codex_schema(f"{slug[name]}.input"))
    return payload


def codex_runs(command: str, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    out = host_runs(command, payload, cwd)
    assert out.returncode == 0, out.stderr
    slug = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "PreCompact": "pre-compact"}
    if out.stdout.strip():
        jsonschema.validate(json.loads(out.stdout), codex_schema(f"{slug[payload['hook_event_name']]}.output"))
    return out


def test_codex_install_keeps_comments_and_uninstall_takes_only_ours(memory_vault, tmp_path, run):
    home = tmp_path / "codex"
    home.mkdir()
    original = ('# my codex config\nmodel = "gpt-5.1-codex"   # keep this model\n\n'
                '[mcp_servers.docs]\ncommand = "docs-server"  # the docs MCP\n')
    (home / "config.toml").write_text(original)
    out = run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root)
    assert out.returncode == 0, out.stderr
    text = (home / "config.toml").read_text()
    assert "# my codex config" in text and "# keep this model" in text and "# the docs MCP" in text
    config = tomllib.loads(text)
    assert config["mcp_servers"]["docs"] == {"command": "docs-server"}
    ours = config["mcp_servers"]["sheriff-vault"]
    assert ours["args"][-3:] == ["mcp", "--vault", str(memory_vault.root)]
    assert ours["tool_timeout_sec"] >= 600  # a long sleep is not cut at Codex's 60 s default
    assert config["features"]["codex_hooks"] is True
    hooks = json.loads((home / "hooks.json").read_text())
    jsonschema.validate(hooks, codex_schema("hooks"))
    assert set(hooks["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact"}
    assert hooks["hooks"]["SessionStart"][0]["matcher"] == "compact|resume"
    first = {p.name: p.read_text() for p in home.iterdir()}
    gone = run("hooks", "uninstall", "codex", "--codex-home", home)
    assert gone.returncode == 0, gone.stderr
    assert (home / "config.toml").read_text() == original
    assert json.loads((home / "hooks.json").read_text()) == {}
    assert run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root).returncode == 0
    assert {p.name: p.read_text() for p in home.iterdir()} == first


@pytest.mark.parametrize("scope", ["local", "project"])
def test_codex_install_uninstall_install_again_gives_no_diff(memory_vault, project, tmp_path, run, scope):
    home = tmp_path / "codex"
    folder = project / ".codex" if scope == "project" else home
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text('# mine\nmodel = "o4"\n\n[features]\nweb_search = true  # yes\n')
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command",
                                                                                   "command": "notify"}]}]}}))
    original = _snapshot(folder)
    install = ("hooks", "install", "codex", "--scope", scope, "--project", project, "--codex-home", home,
               "--vault", memory_vault.root)
    assert run(*install).returncode == 0
    first = _snapshot(folder)
    jsonschema.validate(json.loads((folder / "hooks.json").read_text()), codex_schema("hooks"))
    gone = run("hooks", "uninstall", "codex", "--scope", scope, "--project", project, "--codex-home", home)
    assert gone.returncode == 0, gone.stderr
    after = _snapshot(folder)
    assert after[str(folder / "config.toml")] == original[str(folder / "config.toml")]
    assert json.loads(after[str(folder / "hooks.json")]) == json.loads(original[str(folder / "hooks.json")])
    assert run(*install).returncode == 0
    assert _snapshot(folder) == first


def test_codex_install_leaves_a_flag_the_person_set(memory_vault, tmp_path, run):
    home = tmp_path / "codex"
    home.mkdir()
    original = "[features]\ncodex_hooks = true\nweb_search = true\n"
    (home / "config.toml").write_text(original)
    assert run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root).returncode == 0
    assert run("hooks", "uninstall", "codex", "--codex-home", home).returncode == 0
    assert (home / "config.toml").read_text() == original
    (home / "config.toml").write_text("[features]\nhooks = false\n")
    off = run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root)
    assert off.returncode == 0 and "turns hooks off" in off.stderr


def test_codex_project_scope_writes_portable_files(tmp_path, run):
    project = tmp_path / "team-repo"
    (project / "memory").mkdir(parents=True)
    assert run("init", project / "memory").returncode == 0
    out = run("hooks", "install", "codex", "--scope", "project", "--project", project, "--vault", project / "memory")
    assert out.returncode == 0, out.stderr
    for path in (project / ".codex" / "config.toml", project / ".codex" / "hooks.json"):
        text = path.read_text()
        assert str(tmp_path) not in text and sys.executable not in text
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())
    jsonschema.validate(hooks, codex_schema("hooks"))
    command = hooks["hooks"]["PreCompact"][0]["hooks"][0]["command"]
    assert command.startswith("vault hook codex --vault ")
    server = tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"]["sheriff-vault"]
    assert server["command"] == "vault" and server["args"] == ["mcp", "--vault", "memory"]


def test_codex_hooks_recall_sleep_and_wake_in_codex_s_documented_shapes(memory_vault, tmp_path, run):
    home = tmp_path / "codex"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root)
    commands = {event: groups[0]["hooks"][0]["command"]
                for event, groups in json.loads((home / "hooks.json").read_text())["hooks"].items()}
    prompt = codex_event("UserPromptSubmit", work, turn_id="t1", permission_mode="default",
                         prompt="How do we deploy the staging stack?")
    recalled = codex_runs(commands["UserPromptSubmit"], prompt, work)
    assert "make stage-up" in json.loads(recalled.stdout)["hookSpecificOutput"]["additionalContext"]
    assert run("watch", "--stop", "--vault", memory_vault.root).returncode == 0  # the recall started a daemon

    shutil.copy(FIXTURES / "codex_rollout.jsonl", work / "rollout.jsonl")
    commits = commit_count(memory_vault.root)
    slept = codex_runs(commands["PreCompact"], codex_event("PreCompact", work, work / "rollout.jsonl", turn_id="t2",
                                                           trigger="auto"), work)
    assert slept.stdout == "" and commit_count(memory_vault.root) == commits + 1
    woke = codex_runs(commands["SessionStart"], codex_event("SessionStart", work, source="compact"), work)
    assert "# Wake context" in json.loads(woke.stdout)["hookSpecificOutput"]["additionalContext"]
    log = [json.loads(line) for line in (memory_vault.logs / "hooks.jsonl").read_text().splitlines()]
    assert {e["host"] for e in log} == {"codex"}

    # nothing to resume: a new vault's SessionStart prints nothing at all
    empty = tmp_path / "empty"
    assert run("init", empty).returncode == 0
    run("hooks", "install", "codex", "--codex-home", home, "--vault", empty)
    command = json.loads((home / "hooks.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    for source in ("resume", "compact"):
        quiet = codex_runs(command, codex_event("SessionStart", work, source=source), work)
        assert quiet.stdout == ""
    last = (empty / ".vault" / "logs" / "hooks.jsonl").read_text().splitlines()[-1]
    assert json.loads(last)["outcome"] == "nothing to resume"


def test_user_install_goes_to_the_home_folder_and_keeps_claude_json(memory_vault, run):
    home = Path(os.environ["HOME"])
    theirs = {"numStartups": 7, "projects": {"/x": {"allowedTools": []}}}
    (home / ".claude.json").write_text(json.dumps(theirs))
    out = run("hooks", "install", "claude-code", "--scope", "user", "--vault", memory_vault.root)
    assert out.returncode == 0, out.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert set(settings["hooks"]) == {"UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd"}
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 7 and "sheriff-vault" in claude["mcpServers"]
    both = run("hooks", "install", "claude-code", "--user", "--project", home, "--vault", memory_vault.root)
    assert both.returncode == 2 and "not both" in both.stderr
    run("hooks", "uninstall", "claude-code", "--scope", "user")
    assert json.loads((home / ".claude.json").read_text()) == theirs
    assert json.loads((home / ".claude" / "settings.json").read_text()) == {}


PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "claude-code"


def test_the_claude_code_plugin_ships_the_same_hooks_and_server_with_no_path_of_ours():
    from sheriff_vault.agent.hooks import CLAUDE_EVENTS

    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "sheriff-vault"
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(CLAUDE_EVENTS)
    for name, (matcher, timeout) in CLAUDE_EVENTS.items():
        [group] = hooks[name]
        assert group.get("matcher") == matcher and group["hooks"][0]["timeout"] == timeout
        assert group["hooks"][0]["command"] == '"${CLAUDE_PLUGIN_ROOT}/scripts/vault" hook claude-code'
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["sheriff-vault"]
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/scripts/vault" and server["args"] == ["mcp"]
    assert os.access(PLUGIN / "scripts" / "vault", os.X_OK)
    market = json.loads((PLUGIN.parents[1] / ".claude-plugin" / "marketplace.json").read_text())
    assert (PLUGIN.parents[1] / market["plugins"][0]["source"]).resolve() == PLUGIN


def test_the_plugin_hook_finds_the_vault_from_the_environment_as_claude_code_runs_it(hash_vault, project, run):
    noted = run("note", "user", "We are halfway through the staging migration.", "--vault", hash_vault.root)
    assert noted.returncode == 0, noted.stderr
    command = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0][
        "command"]
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "PYTHONPATH", "HF_HUB_OFFLINE")}
    env |= {"CLAUDE_PLUGIN_ROOT": str(PLUGIN), "CLAUDE_PROJECT_DIR": str(project),
            "SHERIFF_VAULT_PYTHON": sys.executable, "SHERIFF_VAULT": str(hash_vault.root)}
    out = subprocess.run(["bash", "-c", command], input=json.dumps(event("SessionStart", project, source="resume")),
                         capture_output=True, text=True, cwd=project, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "halfway through the staging migration" in json.loads(out.stdout)["hookSpecificOutput"][
        "additionalContext"]


def test_doctor_runs_each_installed_hook_and_catches_a_broken_venv_path(memory_vault, project, tmp_path, run):
    home = tmp_path / "codex"
    run("hooks", "install", "claude-code", "--project", project, "--vault", memory_vault.root)
    run("hooks", "install", "codex", "--codex-home", home, "--vault", memory_vault.root)
    fine = run("hooks", "doctor", "--project", project, "--codex-home", home, "--json")
    assert fine.returncode == 0, fine.stdout + fine.stderr
    checks = json.loads(fine.stdout)["checks"]
    assert {(c["host"], c["event"]) for c in checks} == {
        *(("claude-code", e) for e in ("UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd", "MCP server")),
        *(("codex", e) for e in ("UserPromptSubmit", "SessionStart", "PreCompact", "MCP server"))}
    assert all(c["ok"] for c in checks)

    local = project / ".claude" / "settings.local.json"
    local.write_text(local.read_text().replace(sys.executable, str(tmp_path / "gone-venv" / "bin" / "python")))
    claude_json = Path(os.environ["HOME"]) / ".claude.json"
    claude_json.write_text(claude_json.read_text().replace(sys.executable, str(tmp_path / "gone-venv" / "bin" / "py")))
    broken = run("hooks", "doctor", "--project", project, "--codex-home", home)
    assert broken.returncode == 1
    assert broken.stdout.count("FAILED") == 5 and "No such file or directory" in broken.stdout
    assert "a moved or deleted venv" in broken.stdout and "4 of 9 checks passed" in broken.stdout
    assert "gone-venv/bin/py: not found" in broken.stdout

    moved = tmp_path / "moved"
    shutil.move(str(memory_vault.root), moved)  # the codex hooks now name a vault that is not there
    gone = run("hooks", "doctor", "--project", project, "--codex-home", home, "--json")
    assert gone.returncode == 1
    codex = [c for c in json.loads(gone.stdout)["checks"] if c["host"] == "codex"]
    assert codex and all(not c["ok"] and "is not a vault" in c["problem"] for c in codex if c["event"] != "MCP server")
