"""Claude Code and Codex, hands-free: `vault hooks install` writes their settings, and the hook
entry points those settings call (`vault hook claude-code`, `vault hook codex`: the same events
and output) recall, sleep and wake.

Installing merges into the host's files and never clobbers them: every entry we add carries our
command, so uninstalling removes exactly those and leaves the person's own settings as they were.
Each install has a scope (`local`, `project`, `user`, as Claude Code names them). Personal
scopes name this Python and the vault by absolute path, because the host runs hooks with its own
environment and working directory, not the person's shell; `project` files are committed, so
they name `vault` on PATH and the vault relative to the project instead.

Running a hook never blocks or fails the host: any error prints nothing, exits 0, and is written
to .vault/logs/hooks.jsonl (one JSON object a line: event, duration, outcome). Since nobody sees
a hook fail, `vault hooks doctor` runs each installed one with a sample event and CHECK_ENV set,
under which a failure is said on stderr with exit status 1.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sheriff_vault.errors import VaultError
from sheriff_vault.store.fsutil import atomic_write
from sheriff_vault.store.vault import Vault

SERVER_NAME = "sheriff-vault"
HOOK_MARKS = ("hook claude-code", "hook codex")  # every hook command we install holds one of these
SCOPES = ("local", "project", "user")
CONTEXT_CAP = 9_000       # Claude Code moves anything over 10,000 characters to a file
PROMPT_BUDGET = 3_000     # characters of recalled memory added to each prompt
# event -> (matcher or None, timeout in seconds). PreCompact sleeps in the foreground so the
# wake bundle after compaction already holds it; SessionEnd has 1.5 s, so it starts a final sleep (no tail) and returns.
CLAUDE_EVENTS: dict[str, tuple[str | None, int]] = {
    "UserPromptSubmit": (None, 20),
    "SessionStart": ("compact|resume", 30),
    "PreCompact": (None, 300),
    "SessionEnd": (None, 10),
}


@dataclass
class InstallResult:
    host: str
    scope: str = "local"
    changed: list[str] = field(default_factory=list)    # files written
    unchanged: list[str] = field(default_factory=list)  # files that already held exactly this
    warnings: list[str] = field(default_factory=list)
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "scope": self.scope, "changed": self.changed, "unchanged": self.unchanged,
                "warnings": self.warnings, "command": self.command}


def python_command() -> list[str]:
    """How the host starts this installation's `vault`: this interpreter, by absolute path."""
    return [sys.executable, "-m", "sheriff_vault"]


@dataclass(frozen=True)
class Commands:
    """The hook command and the MCP server entry a scope installs.

    `local` and `user` files are one person's: they name this Python and the vault by absolute
    path. A `project` file is committed and read on every teammate's machine: it names `vault`
    as found on PATH and the vault relative to the project (`$CLAUDE_PROJECT_DIR` for hooks,
    `${CLAUDE_PROJECT_DIR:-.}` for .mcp.json), never an absolute path.
    """

    hook: str
    mcp_command: str
    mcp_args: list[str]

    def mcp_entry(self) -> dict[str, Any]:
        return {"type": "stdio", "command": self.mcp_command, "args": list(self.mcp_args)}


def absolute_commands(vault: Vault, host: str = "claude-code") -> Commands:
    exe, *args = python_command()
    return Commands(shlex.join([*python_command(), "hook", host, "--vault", str(vault.root)]),
                    exe, [*args, "mcp", "--vault", str(vault.root)])


def portable_commands(vault: Vault, project: Path, host: str = "claude-code") -> Commands:
    rel = Path(os.path.relpath(vault.root.resolve(), project.resolve())).as_posix()
    if host == "codex":  # Codex runs hooks and MCP servers in the session's folder and names no project variable
        root = '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"'
        mcp_vault = rel
    else:
        root = '"$CLAUDE_PROJECT_DIR"'
        mcp_vault = "${CLAUDE_PROJECT_DIR:-.}" + ("" if rel == "." else f"/{rel}")
    where = root if rel == "." else f"{root}/{shlex.quote(rel)}"
    return Commands(f"vault hook {host} --vault {where}", "vault", ["mcp", "--vault", mcp_vault])


def hook_command(vault: Vault) -> str:
    return absolute_commands(vault).hook


def mcp_entry(vault: Vault) -> dict[str, Any]:
    return absolute_commands(vault).mcp_entry()


# -- JSON settings files ------------------------------------------------------------------------
def _load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise VaultError(f"not valid JSON ({exc}); fix it or move it aside, then install again", path=path) from None
    if not isinstance(data, dict):
        raise VaultError("holds JSON that is not an object", path=path)
    return data


def _save_json(path: Path, data: dict[str, Any], result: InstallResult, before: dict[str, Any]) -> None:
    if data == before and path.exists():
        result.unchanged.append(str(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    result.changed.append(str(path))


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and any(mark in str(handler.get("command", "")) for mark in HOOK_MARKS)


def _without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with every hook handler we added taken out (and groups or events left empty)."""
    out = json.loads(json.dumps(settings))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                ours = [h for h in group["hooks"] if _ours(h)]
                if ours:
                    group = group | {"hooks": [h for h in group["hooks"] if not _ours(h)]}
                    if not group["hooks"]:
                        continue
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def _with_hooks(settings: dict[str, Any], path: Path, command: str, events: dict[str, tuple[str | None, int]],
                status: str | None = None) -> dict[str, Any]:
    """`settings` with our handler for each event, after any of ours it held (a reinstall replaces them)."""
    out = _without_ours(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise VaultError("`hooks` is not an object", path=path)
    for event, (matcher, timeout) in events.items():
        handler: dict[str, Any] = {"type": "command", "command": command, "timeout": timeout}
        if status:
            handler["statusMessage"] = status
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher:
            group = {"matcher": matcher} | group
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise VaultError(f"`hooks.{event}` is not a list", path=path)
        groups.append(group)
    return out


@dataclass(frozen=True)
class ClaudeTarget:
    """Where one scope's install goes: the settings file for hooks, and the MCP servers object
    (the file and the keys down to it: ~/.claude.json keeps `local` servers under the project)."""

    scope: str
    settings: Path
    mcp: Path
    mcp_keys: tuple[str, ...]
    project: Path | None


def _project_root(project: Path | None) -> Path:
    root = Path(project or Path.cwd()).resolve()
    if not root.is_dir():
        raise VaultError(f"{root} is not a folder", hint="give --project the project's folder")
    return root


def claude_target(scope: str, project: Path | None = None) -> ClaudeTarget:
    """Claude Code's documented files for each scope: `local` is this person in this project
    (.claude/settings.local.json, git-ignored; MCP under the project in ~/.claude.json), `project`
    is what the team commits (.claude/settings.json, .mcp.json), `user` is this person everywhere."""
    home = Path.home()
    if scope == "user":
        return ClaudeTarget(scope, home / ".claude" / "settings.json", home / ".claude.json", ("mcpServers",), None)
    root = _project_root(project)
    if scope == "project":
        return ClaudeTarget(scope, root / ".claude" / "settings.json", root / ".mcp.json", ("mcpServers",), root)
    if scope == "local":
        return ClaudeTarget(scope, root / ".claude" / "settings.local.json", home / ".claude.json",
                            ("projects", str(root), "mcpServers"), root)
    raise VaultError(f"unknown scope {scope!r}", hint=f"give one of {', '.join(SCOPES)}")


def _set_server(data: dict[str, Any], keys: tuple[str, ...], entry: dict[str, Any] | None, path: Path) -> None:
    """Put our MCP server under data[keys...] (entry None: take it out, and any object left empty)."""
    chain = [data]
    for key in keys:
        node = chain[-1].get(key)
        if node is None:
            if entry is None:
                return
            node = chain[-1][key] = {}
        if not isinstance(node, dict):
            raise VaultError(f"`{'.'.join(keys)}` is not an object", path=path)
        chain.append(node)
    if entry is not None:
        chain[-1][SERVER_NAME] = entry
        return
    chain[-1].pop(SERVER_NAME, None)
    for parent, key in zip(reversed(chain[:-1]), reversed(keys), strict=True):
        if parent[key]:
            break
        del parent[key]


def _check_portable(vault: Vault, root: Path, result: InstallResult) -> None:
    if shutil.which("vault") is None:
        result.warnings.append("`vault` is not on PATH here; project hooks call `vault`, so install it "
                               "(e.g. `pipx install sheriff-vault`) or use --scope local")
    try:
        vault.root.resolve().relative_to(root)
    except ValueError:
        result.warnings.append(f"the vault is outside the project: every teammate needs it at "
                               f"{os.path.relpath(vault.root.resolve(), root)} relative to the project")


def _check_ignored(path: Path, result: InstallResult) -> None:
    """A `local` file holds one person's paths: say so if git in that project would commit it."""
    try:
        inside = subprocess.run(["git", "-C", str(path.parent.parent), "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True, timeout=10)
        if inside.returncode != 0:
            return
        ignored = subprocess.run(["git", "-C", str(path.parent.parent), "check-ignore", "-q", str(path)],
                                 capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return
    if ignored.returncode == 1:
        result.warnings.append(f"git does not ignore {path.name} here: add `.claude/settings.local.json` "
                               "to .gitignore so your paths stay out of commits")


def install_claude_code(vault: Vault, project: Path | None = None, scope: str = "local") -> InstallResult:
    """Add our hooks to the scope's settings file and `vault mcp` to its MCP servers (merged)."""
    target = claude_target(scope, project)
    result = InstallResult("claude-code", scope)
    if scope == "project":
        assert target.project is not None
        commands = portable_commands(vault, target.project)
        _check_portable(vault, target.project, result)
    else:
        commands = absolute_commands(vault)
        if scope == "local":
            _check_ignored(target.settings, result)
    result.command = commands.hook
    before = _load_json(target.settings)
    _save_json(target.settings, _with_hooks(before, target.settings, commands.hook, CLAUDE_EVENTS), result, before)
    mcp_before = _load_json(target.mcp)
    mcp = json.loads(json.dumps(mcp_before))
    _set_server(mcp, target.mcp_keys, commands.mcp_entry(), target.mcp)
    _save_json(target.mcp, mcp, result, mcp_before)
    return result


def uninstall_claude_code(project: Path | None = None, scope: str = "local") -> InstallResult:
    """Take out exactly what install_claude_code added at this scope; the person's own entries stay."""
    target = claude_target(scope, project)
    result = InstallResult("claude-code", scope)
    if target.settings.exists():
        before = _load_json(target.settings)
        _save_json(target.settings, _without_ours(before), result, before)
    if target.mcp.exists():
        before = _load_json(target.mcp)
        mcp = json.loads(json.dumps(before))
        _set_server(mcp, target.mcp_keys, None, target.mcp)
        _save_json(target.mcp, mcp, result, before)
    return result


# -- Codex: config.toml and hooks.json in $CODEX_HOME (or the project's .codex/) ------------------
# Codex's hooks take the same stdin fields and the same hookSpecificOutput.additionalContext as
# Claude Code's; SessionStart's source is startup|resume|clear|compact, PreCompact passes the
# rollout's path. Stop runs after every turn and has nothing for us to do.
CODEX_EVENTS: dict[str, tuple[str | None, int]] = {
    "UserPromptSubmit": (None, 20),
    "SessionStart": ("compact|resume", 30),
    "PreCompact": (None, 300),
}
CODEX_STATUS = "Sheriff Vault memory"
CODEX_TOOL_TIMEOUT = 900  # seconds: a long `sleep` on two cores outlasts Codex's 60 s default
FEATURE_MARK = "added by vault hooks install"  # the comment on a feature flag we turned on


def codex_home(codex_home: Path | None = None) -> Path:
    return Path(codex_home or os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def codex_config(codex_home_dir: Path | None = None) -> Path:
    return codex_home(codex_home_dir) / "config.toml"


def codex_folder(scope: str, project: Path | None, home: Path | None) -> Path:
    """Codex reads config.toml and hooks.json from $CODEX_HOME (this person: the `local` and `user`
    scopes) and from a trusted project's .codex/ (the `project` scope, committed)."""
    if scope == "project":
        return _project_root(project) / ".codex"
    if scope in ("local", "user"):
        return codex_home(home)
    raise VaultError(f"unknown scope {scope!r}", hint=f"give one of {', '.join(SCOPES)}")


def _load_toml(path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(path.read_text(encoding="utf-8") if path.exists() else "")
    except TOMLKitError as exc:
        raise VaultError(f"not valid TOML ({exc}); fix it, then install again", path=path) from None


def _save_toml(path: Path, doc: Any, before: str, result: InstallResult) -> None:
    import tomlkit

    text = tomlkit.dumps(doc)
    text = text.rstrip("\n") + "\n" if text.strip() else ""  # a table taken out leaves no blank tail
    if text == before and path.exists():
        result.unchanged.append(str(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    result.changed.append(str(path))


def _flag(table: Any, key: str) -> bool | None:
    value = table.get(key)
    return None if value is None else bool(value.unwrap() if hasattr(value, "unwrap") else value)


def install_codex(vault: Vault, codex_home_dir: Path | None = None, scope: str = "local",
                  project: Path | None = None) -> InstallResult:
    """Add `vault mcp` as [mcp_servers.sheriff-vault] (with tool_timeout_sec) and turn hooks on in
    config.toml, keeping its comments; add our hooks to hooks.json beside it."""
    import tomlkit

    folder = codex_folder(scope, project, codex_home_dir)
    result = InstallResult("codex", scope)
    if scope == "project":
        root = folder.parent
        commands = portable_commands(vault, root, host="codex")
        _check_portable(vault, root, result)
    else:
        commands = absolute_commands(vault, host="codex")
    result.command = commands.hook
    path = folder / "config.toml"
    doc = _load_toml(path)
    before = tomlkit.dumps(doc)
    features = doc.setdefault("features", tomlkit.table())
    flags = [_flag(features, key) for key in ("hooks", "codex_hooks")]
    if False in flags:
        result.warnings.append(f"{path} turns hooks off ([features]); the hooks are installed but will not run")
    elif True not in flags:
        flag = tomlkit.item(True)
        flag.comment(FEATURE_MARK)
        features["codex_hooks"] = flag
    servers = doc.setdefault("mcp_servers", tomlkit.table(is_super_table=True))
    entry = tomlkit.table()
    entry["command"] = commands.mcp_command
    entry["args"] = commands.mcp_args
    entry["tool_timeout_sec"] = CODEX_TOOL_TIMEOUT
    servers[SERVER_NAME] = entry
    _save_toml(path, doc, before, result)
    hooks_path = folder / "hooks.json"
    hooks_before = _load_json(hooks_path)
    hooks = _with_hooks(hooks_before, hooks_path, commands.hook, CODEX_EVENTS, status=CODEX_STATUS)
    _save_json(hooks_path, hooks, result, hooks_before)
    return result


def uninstall_codex(codex_home_dir: Path | None = None, scope: str = "local",
                    project: Path | None = None) -> InstallResult:
    """Take out our MCP server, our hooks and the feature flag if we turned it on; the rest stays."""
    import tomlkit

    folder = codex_folder(scope, project, codex_home_dir)
    result = InstallResult("codex", scope)
    path = folder / "config.toml"
    if path.exists():
        doc = _load_toml(path)
        before = tomlkit.dumps(doc)
        servers = doc.get("mcp_servers")
        if servers is not None and SERVER_NAME in servers:
            del servers[SERVER_NAME]
            if not servers:
                del doc["mcp_servers"]
        features = doc.get("features")
        if features is not None and "codex_hooks" in features \
                and FEATURE_MARK in (features.item("codex_hooks").trivia.comment or ""):
            del features["codex_hooks"]
            if not features:
                del doc["features"]
        _save_toml(path, doc, before, result)
    hooks_path = folder / "hooks.json"
    if hooks_path.exists():
        hooks_before = _load_json(hooks_path)
        _save_json(hooks_path, _without_ours(hooks_before), result, hooks_before)
    return result


# -- running a hook -------------------------------------------------------------------------------
def run_claude_hook(vault_path: str | Path | None, stdin_text: str, host: str = "claude-code") -> str:
    """What to print for one Claude Code (or Codex) hook event (stdin is the host's JSON); "" on any failure."""
    started = time.monotonic()
    event, outcome, error = "?", "ok", ""
    vault: Vault | None = None
    try:
        payload = json.loads(stdin_text or "{}")
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        event = str(payload.get("hook_event_name") or "?")
        vault = _open(vault_path, payload)
        out, outcome = _handle(vault, event, payload)
        return out
    except BaseException as exc:  # noqa: B036  (the host must never see a failure; KeyboardInterrupt too)
        outcome, error, out = "error", f"{type(exc).__name__}: {exc}"[:500], ""
        if os.environ.get(CHECK_ENV):  # `vault hooks doctor` asked to see it
            raise
        return out
    finally:
        if vault is not None:
            _log(vault, {"host": host, "event": event, "outcome": outcome, "error": error,
                         "duration_ms": round((time.monotonic() - started) * 1000)})


def _open(vault_path: str | Path | None, payload: dict[str, Any]) -> Vault:
    """The vault install named; without one (the plugin), $SHERIFF_VAULT or the project's nearest vault."""
    from sheriff_vault.store.vault import find_vault

    start = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd") or None
    return find_vault(vault_path, start=Path(str(start)) if start else None)


def _context(event: str, text: str) -> str:
    if len(text) > CONTEXT_CAP:
        text = text[: CONTEXT_CAP - 40].rsplit("\n", 1)[0] + "\n(memory cut short here)"
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
                      ensure_ascii=False)


def _handle(vault: Vault, event: str, payload: dict[str, Any]) -> tuple[str, str]:
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "").strip()
        if len(prompt) < 3 or prompt.startswith("/"):
            return "", "skipped"
        from sheriff_vault.daemon.client import recall

        reply = recall(vault, prompt, budget=PROMPT_BUDGET, autostart=True)  # the next prompt is fast
        if not (reply.json.get("topics") or reply.json.get("recent")):
            return "", "nothing recalled"
        return _context(event, reply.markdown), f"recalled via {reply.via}"
    if event == "SessionStart":
        if payload.get("source") not in ("compact", "resume"):
            return "", "skipped"
        from sheriff_vault.agent.wake import wake

        woke = wake(vault)
        if woke.empty:
            return "", "nothing to resume"  # no output: the new session's context stays clean
        return _context(event, woke.bundle), "woke"
    if event == "PreCompact":
        return "", _sleep_transcript(vault, payload)
    if event == "SessionEnd":
        return "", _sleep_in_background(vault, payload)
    return "", "ignored"


def _transcript(payload: dict[str, Any]) -> Path | None:
    raw = payload.get("transcript_path")
    path = Path(str(raw)).expanduser() if raw else None
    return path if path is not None and path.is_file() else None


def _sleep_transcript(vault: Vault, payload: dict[str, Any]) -> str:
    from sheriff_vault.daemon.client import sleep
    from sheriff_vault.store.transcripts import load_file

    path = _transcript(payload)
    if path is None:
        return "no transcript"
    read = load_file(path)
    result = sleep(vault, read.turns)
    result.add_reading(read)
    outcome = f"slept, commit {result.commit[:8]}" if result.commit else result.message or "nothing to sleep"
    return "; ".join(x for x in (outcome, result.describe_skipped()) if x)  # the hook log says what was not read


def _sleep_in_background(vault: Vault, payload: dict[str, Any]) -> str:
    """SessionEnd hooks get 1.5 s: start `vault sleep PATH` on its own and return at once."""
    path = _transcript(payload)
    if path is None:
        return "no transcript"
    vault.logs.mkdir(parents=True, exist_ok=True)
    with open(vault.logs / "hook-sleep.log", "ab") as log:
        subprocess.Popen([*python_command(), "sleep", str(path), "--final", "--vault", str(vault.root)],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, cwd=vault.root)
    return "sleep started"


def _log(vault: Vault, entry: dict[str, Any]) -> None:
    from sheriff_vault.store.logs import write_log

    write_log(vault, "hooks", entry)  # never raises: a log must not fail the hook


# -- vault hooks doctor ---------------------------------------------------------------------------
CHECK_ENV = "SHERIFF_VAULT_HOOK_CHECK"  # set: a hook that fails says why on stderr and exits 1
SAMPLE_EVENTS: dict[str, dict[str, Any]] = {  # events that exercise start-up and the vault, and do no work
    "UserPromptSubmit": {"prompt": "/doctor", "turn_id": "doctor", "permission_mode": "default"},
    "SessionStart": {"source": "startup"},
    "PreCompact": {"trigger": "manual", "turn_id": "doctor"},
    "SessionEnd": {"reason": "other"},
}


@dataclass
class HookCheck:
    host: str
    scope: str
    file: str
    event: str
    command: str
    ok: bool = True
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "scope": self.scope, "file": self.file, "event": self.event,
                "command": self.command, "ok": self.ok, "problem": self.problem}


def installed_hooks(project: Path | None = None, codex_home_dir: Path | None = None) -> list[HookCheck]:
    """Every hook handler of ours in the files `vault hooks install` writes, for each host and scope."""
    root = Path(project or Path.cwd()).resolve()
    files: list[tuple[str, str, Path]] = [("claude-code", scope, claude_target(scope, root).settings)
                                          for scope in SCOPES]
    files += [("codex", "user", codex_home(codex_home_dir) / "hooks.json"),
              ("codex", "project", root / ".codex" / "hooks.json")]
    found = []
    for host, scope, path in files:
        if not path.is_file():
            continue
        try:
            hooks = _load_json(path).get("hooks")
        except VaultError as exc:
            found.append(HookCheck(host, scope, str(path), "-", "", ok=False, problem=exc.message))
            continue
        for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
            for group in groups if isinstance(groups, list) else ():
                for handler in group.get("hooks", []) if isinstance(group, dict) else ():
                    if _ours(handler):
                        found.append(HookCheck(host, scope, str(path), event, str(handler["command"])))
    return found


def check_hook(check: HookCheck, project: Path | None = None, timeout: float = 60) -> HookCheck:
    """Run one installed hook as its host would (a shell, a sample event on stdin, the project as
    cwd and $CLAUDE_PROJECT_DIR) with CHECK_ENV set, so a failure it would swallow shows."""
    if check.problem:
        return check
    root = Path(project or Path.cwd()).resolve()
    payload = {"session_id": "doctor", "transcript_path": None, "cwd": str(root), "hook_event_name": check.event,
               "model": "doctor", "permission_mode": "default"} | SAMPLE_EVENTS.get(check.event, {})
    env = dict(os.environ) | {"CLAUDE_PROJECT_DIR": str(root), CHECK_ENV: "1"}
    try:
        ran = subprocess.run(["bash", "-c", check.command], input=json.dumps(payload), capture_output=True,
                             text=True, cwd=root, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        check.ok, check.problem = False, f"took longer than {timeout:.0f} s"
        return check
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    if ran.returncode != 0:
        why = lines[-1] if lines else f"exit status {ran.returncode}"
        if ran.returncode == 127:
            why += " (the command is not there: a moved or deleted venv? install again)"
        check.ok, check.problem = False, why
    elif ran.stdout.strip():
        try:
            json.loads(ran.stdout)
        except ValueError:
            check.ok, check.problem = False, f"printed text that is not JSON: {ran.stdout.strip()[:80]}"
    return check


def installed_servers(project: Path | None = None, codex_home_dir: Path | None = None) -> list[HookCheck]:
    """Our MCP server entry in each file install writes, with its command checked (not started)."""
    root = Path(project or Path.cwd()).resolve()
    found: list[HookCheck] = []
    for scope in SCOPES:
        target = claude_target(scope, root)
        try:
            node: Any = _load_json(target.mcp) if target.mcp.is_file() else {}
        except VaultError as exc:
            found.append(HookCheck("claude-code", scope, str(target.mcp), "MCP server", "", False, exc.message))
            continue
        for key in target.mcp_keys:
            node = node.get(key) if isinstance(node, dict) else None
        entry = node.get(SERVER_NAME) if isinstance(node, dict) else None
        if isinstance(entry, dict):
            found.append(_server_check("claude-code", scope, target.mcp, str(entry.get("command", ""))))
    for scope, path in (("user", codex_config(codex_home_dir)), ("project", root / ".codex" / "config.toml")):
        if not path.is_file():
            continue
        try:
            entry = (_load_toml(path).get("mcp_servers") or {}).get(SERVER_NAME)
        except VaultError as exc:
            found.append(HookCheck("codex", scope, str(path), "MCP server", "", False, exc.message))
            continue
        if entry is not None:
            found.append(_server_check("codex", scope, path, str(entry.get("command", ""))))
    return found


def _server_check(host: str, scope: str, path: Path, command: str) -> HookCheck:
    check = HookCheck(host, scope, str(path), "MCP server", command)
    program = os.path.expandvars(command)
    if "$" in program:  # a variable only the host sets (${CLAUDE_PLUGIN_ROOT}): nothing to check here
        return check
    if not (shutil.which(program) if os.sep not in program else os.access(program, os.X_OK)):
        check.ok, check.problem = False, f"{program}: not found (the command is not there: install again)"
    return check
