"""`vault init`, `vault doctor`, `vault migrate`, `vault time` and `vault completion`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, get_vault, json_option, now_option, vault_option

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

COMPLETE_VAR = "_VAULT_COMPLETE"  # what click's main() reads for prog_name "vault" (cli.group.main)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path), default=".")
@click.option("--force", is_flag=True, help="Add a vault to a non-empty folder that is not one (never overwrites).")
@json_option
def init(path: Path, force: bool, as_json: bool) -> None:
    """Make a vault in PATH (default: here): template, folders, git repository, git hooks, topic merge driver.

    Running it on an existing vault (or a fresh clone of one) only restores what is missing and
    registers the hooks and the merge driver, which git does not copy with a clone.
    """
    from sheriff_vault.store.vault import init_vault

    result = init_vault(path, force=force)
    if as_json:
        emit_json(result.to_json())
    elif result.created:
        click.echo(f"made a vault in {result.vault.root} (commit {(result.commit or '')[:8]})")
    else:
        extra = f", restored {len(result.added)} file(s)" if result.added else ""
        click.echo(f"{result.vault.root} is already a vault{extra}; its git hooks and topic merge driver are in place")


@cli.command()
@click.option("--fix-times", is_flag=True, help="First recompute each topic's first_seen/last_seen from git "
              "history (the sleeps' event files and what the vault's own commits wrote) where a hand edit "
              "broke them, as one commit.")
@vault_option
@json_option
def doctor(fix_times: bool, vault_path: Path | None, as_json: bool) -> None:
    """Check every file of the vault; print `path:line: problem, and what to do`. Exit 1 on any problem.

    With --fix-times it first puts back the `first_seen` / `last_seen` a hand edit broke (deleted,
    mistyped, or out of step with history), changing only those two keys.
    """
    from sheriff_vault.store.doctor import check_vault, describe

    vault = get_vault(vault_path)
    fixed = None
    if fix_times:
        from sheriff_vault.store.fixtimes import fix_times as fix

        fixed = fix(vault)
        if not as_json:
            click.echo(fixed.describe())
    report = check_vault(vault)
    if as_json:
        emit_json(report.to_json() | ({"fix_times": fixed.to_json()} if fixed else {}))
    else:
        for problem in report.problems:
            click.echo(str(problem))
        click.echo(describe(report), err=not report.ok)
    if not report.ok:
        sys.exit(1)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@vault_option
@json_option
def migrate(dry_run: bool, vault_path: Path | None, as_json: bool) -> None:
    """Rewrite topics written by older versions in the shape Obsidian reads, as one commit.

    Nested `related` and `numbers` entries become one-line strings (every value is kept; older
    and newer versions read both shapes), and each topic gets a `## Related` section of
    [[slug|Name]] links to its related topics. Running it again changes nothing.
    """
    from sheriff_vault.store.migrate import migrate as run_migration

    result = run_migration(get_vault(vault_path), dry_run=dry_run)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.describe())


@cli.command("time")
@click.argument("phrase", nargs=-1, required=True)
@now_option
@click.option("--tz", help="Time zone for calendar days (default: the vault's, else UTC).")
@click.option("--prefer", type=click.Choice(["nearest", "past", "future"]), default="nearest",
              help="Which way an ambiguous date leans (\"June 1\", \"on Friday\"); recall always looks back.")
@vault_option
@json_option
def time_cmd(phrase: tuple[str, ...], now_text: str | None, tz: str | None, prefer: str, vault_path: Path | None,
             as_json: bool) -> None:
    """Print the UTC window a time phrase resolves to, e.g. `vault time last week`, and the commits it covers.

    Sleep phrases read the vault's sleep tags: "before you slept", "since you woke up", "two sleeps
    ago" (the awake time the second-to-last sleep closed). Inside a vault it also prints the window
    as a git range (`base..tip`): a window that ends at a sleep includes that sleep's commit.
    """
    from sheriff_vault import timewin
    from sheriff_vault.store.sleeps import resolve_time

    vault = _optional_vault(vault_path)
    zone = tz or (vault.config.timezone if vault else "UTC")
    now = get_now(now_text, zone)
    answer = resolve_time(vault, " ".join(phrase), now, zone, prefer=prefer)
    if as_json:
        emit_json(answer.to_json())
        return
    window = answer.window
    start = timewin.to_iso(window.start) if window.start else "(open)"
    end = timewin.to_iso(window.end) if window.end else "(open)"
    click.echo(f"{start} .. {end}   {window.phrase!r} = {window.label(zone)}")
    if answer.commits is not None:
        click.echo(answer.commits.describe())


def _optional_vault(vault_path: Path | None) -> Vault | None:
    from sheriff_vault.errors import VaultNotFound

    try:
        return get_vault(vault_path)
    except VaultNotFound:
        if vault_path:
            raise
        return None




@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the tab-completion script for SHELL (bash, zsh or fish) to load at shell start-up,
    e.g. `eval "$(vault completion bash)"` in ~/.bashrc.

    The script is click's: on each TAB it runs `vault` with _VAULT_COMPLETE set, so completions
    always match the installed commands and options.
    """
    from click.shell_completion import get_completion_class

    script = get_completion_class(shell)
    if script is None:  # click.Choice already refused any other shell
        raise click.BadParameter(f"no completion for {shell}")
    click.echo(script(cli, {}, "vault", COMPLETE_VAR).source())
