"""`vault mcp` and `vault hooks`: the vault for the agents people already run (Claude Code, Codex,
any MCP client)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_vault, json_option, vault_option, with_vault
from sheriff_vault.cli.recall import hook

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@cli.command("mcp")
@click.option("--http", "http", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (e.g. 127.0.0.1:8765; "
                   "a bare PORT binds loopback).")
@vault_option
def mcp_cmd(vault_path: Path | None, http: str | None) -> None:
    """Serve the vault to MCP clients: tools (recall, topics, note, sleep, wake, history, diff, time,
    skills), each topic as vault://topic/<slug>, vault://wake, and the `resume` prompt.

    Speaks MCP over stdin/stdout by default, as Claude Code, Codex and Cursor start it; logs go
    to stderr. Started without a vault (no --vault, no SHERIFF_VAULT, not inside one) it still
    serves, and every call answers with that error, which the client shows.
    """
    from sheriff_vault.agent.mcp import NO_VAULT_HINT, parse_http, serve
    from sheriff_vault.errors import VaultNotFound

    missing: VaultNotFound | None = None
    try:
        vault: Vault | None = get_vault(vault_path)
    except VaultNotFound as exc:
        vault = None
        missing = VaultNotFound(f"`vault mcp` was started without a vault: {exc.message}", hint=NO_VAULT_HINT)
        click.echo(f"warning: {missing}", err=True)
    if http is not None:
        host, port = parse_http(http)
        click.echo(f"serving {vault.root if vault else '(no vault)'} at http://{host}:{port}/mcp", err=True)
    serve(vault, http, missing)


HOSTS = click.Choice(["claude-code", "codex"])
SCOPES = ["local", "project", "user"]


@cli.group()
def hooks() -> None:
    """Connect Claude Code or Codex to the vault: hooks that recall, sleep and wake by themselves,
    and `vault mcp` registered as an MCP server."""


def scope_options(verb: str):  # noqa: ANN201  (a click decorator)
    """--scope, --project and the older --user, shared by install and uninstall."""
    def wrap(f):  # noqa: ANN001, ANN202
        f = click.option("--user", "user", is_flag=True, hidden=True, help="The same as --scope user.")(f)
        f = click.option("--project", type=click.Path(file_okay=False, path_type=Path),
                         help=f"The project to {verb} (default: the current folder).")(f)
        return click.option("--scope", type=click.Choice(SCOPES), default=None,
                            help="local (default): only you, in this project (.claude/settings.local.json, "
                                 "~/.claude.json); project: files the team commits (.claude/settings.json, "
                                 ".mcp.json; portable commands); user: you, in every project.")(f)
    return wrap


def _scope(scope: str | None, user: bool) -> str:
    if user and scope not in (None, "user"):
        raise click.UsageError("give --scope or --user, not both")
    return "user" if user else scope or "local"


@hooks.command("install")
@click.argument("host", type=HOSTS)
@scope_options("install in")
@click.option("--codex-home", type=click.Path(file_okay=False, path_type=Path), envvar="CODEX_HOME",
              help="Codex: its home folder (default: $CODEX_HOME, else ~/.codex).")
@json_option
@with_vault
def hooks_install(vault: Vault, host: str, scope: str | None, project: Path | None, user: bool,
                  codex_home: Path | None, as_json: bool) -> None:
    """Install for HOST (claude-code or codex), merging into its settings (never overwriting them).

    claude-code: UserPromptSubmit adds recalled memory to each prompt; PreCompact and SessionEnd
    sleep the session's transcript; SessionStart after a compaction or resume adds the wake
    bundle; `vault mcp` is added as an MCP server. codex: the same hooks but SessionEnd go to
    hooks.json, with `[features] codex_hooks = true` and `vault mcp` in config.toml ($CODEX_HOME for
    local and user, the project's .codex/ for project).
    """
    from sheriff_vault.agent import hooks as lib

    scope = _scope(scope, user)
    if project and scope == "user":
        raise click.UsageError("give --project DIR or --scope user, not both")
    result = (lib.install_codex(vault, codex_home, scope, project) if host == "codex"
              else lib.install_claude_code(vault, project, scope))
    _report(result.to_json(), as_json, f"installed for {host} ({result.scope} scope), vault {vault.root}")


@hooks.command("uninstall")
@click.argument("host", type=HOSTS)
@scope_options("remove them from")
@click.option("--codex-home", type=click.Path(file_okay=False, path_type=Path), envvar="CODEX_HOME",
              help="Codex: its home folder (default: $CODEX_HOME, else ~/.codex).")
@json_option
def hooks_uninstall(host: str, scope: str | None, project: Path | None, user: bool, codex_home: Path | None,
                    as_json: bool) -> None:
    """Remove exactly what `vault hooks install HOST` added at that scope; the host's other settings stay."""
    from sheriff_vault.agent import hooks as lib

    scope = _scope(scope, user)
    if project and scope == "user":
        raise click.UsageError("give --project DIR or --scope user, not both")
    result = (lib.uninstall_codex(codex_home, scope, project) if host == "codex"
              else lib.uninstall_claude_code(project, scope))
    _report(result.to_json(), as_json, f"uninstalled for {host} ({result.scope} scope)")


def _report(data: dict, as_json: bool, headline: str) -> None:
    if as_json:
        emit_json(data)
        return
    click.echo(headline)
    for path in data["changed"]:
        click.echo(f"  wrote      {path}")
    for path in data["unchanged"]:
        click.echo(f"  unchanged  {path}")
    for warning in data.get("warnings", []):
        click.echo(f"warning: {warning}", err=True)


@hook.command("claude-code")
@click.option("--vault", "vault_path", help="The vault, as install wrote it (default: $SHERIFF_VAULT, else the "
                                           "nearest vault above $CLAUDE_PROJECT_DIR or the event's cwd).")
def hook_claude_code(vault_path: str | None) -> None:
    """Claude Code's hook entry point: the event's JSON on stdin; prints context or nothing; always exits 0."""
    from sheriff_vault.agent.hooks import run_claude_hook

    try:
        out = run_claude_hook(vault_path, sys.stdin.read())
    except BaseException as exc:  # noqa: B036  (never fail the host's prompt or compaction)
        _checked(exc)
        out = ""
    if out:
        click.echo(out)


@hook.command("codex")
@click.option("--vault", "vault_path", help="The vault, as install wrote it (default: $SHERIFF_VAULT, else the "
                                           "nearest vault above the event's cwd).")
def hook_codex(vault_path: str | None) -> None:
    """Codex's hook entry point: the event's JSON on stdin; prints context or nothing; always exits 0."""
    from sheriff_vault.agent.hooks import run_claude_hook

    try:
        out = run_claude_hook(vault_path, sys.stdin.read(), host="codex")
    except BaseException as exc:  # noqa: B036  (never fail the host's prompt or compaction)
        _checked(exc)
        out = ""
    if out:
        click.echo(out)


def _checked(exc: BaseException) -> None:
    """Under `vault hooks doctor` (and only then) a hook's failure is said and exits 1."""
    import os

    from sheriff_vault.agent.hooks import CHECK_ENV

    if os.environ.get(CHECK_ENV):
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)


@hooks.command("doctor")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path),
              help="The project whose hooks to check (default: the current folder).")
@click.option("--codex-home", type=click.Path(file_okay=False, path_type=Path), envvar="CODEX_HOME",
              help="Codex: its home folder (default: $CODEX_HOME, else ~/.codex).")
@json_option
def hooks_doctor(project: Path | None, codex_home: Path | None, as_json: bool) -> None:
    """Run every installed hook of ours with a sample event and say which would fail.

    Hooks never fail loudly (a broken one prints nothing and Claude Code or Codex goes on), so
    this runs each command as the host would, in the project with a harmless event (a slash
    command, a fresh start, a compaction without a transcript), and reports a command that is not
    there, a vault that is gone, an error, or output that is not JSON. It also checks that each MCP
    server entry of ours names a command that exists. Exits 1 if any would fail.
    """
    from sheriff_vault.agent import hooks as lib

    checks = [lib.check_hook(c, project) for c in lib.installed_hooks(project, codex_home)]
    checks += lib.installed_servers(project, codex_home)
    failed = [c for c in checks if not c.ok]
    if as_json:
        emit_json({"checks": [c.to_json() for c in checks], "failed": len(failed)})
    elif not checks:
        click.echo("no hooks of ours installed here (vault hooks install claude-code|codex)")
    else:
        for c in checks:
            mark = "ok    " if c.ok else "FAILED"
            click.echo(f"{mark}  {c.host} {c.scope:<7} {c.event:<16} {c.file}")
            if c.problem:
                click.echo(f"        {c.problem}")
        click.echo(f"{len(checks) - len(failed)} of {len(checks)} checks passed")
    if failed:
        sys.exit(1)
