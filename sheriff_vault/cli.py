"""The `vault` command: parse options, call one library function, print. No work happens here."""
from __future__ import annotations

import datetime as dt
import functools
import json
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable

import click

from .errors import VaultError

DEBUG_ENV = "SHERIFF_VAULT_DEBUG"


# -- shared options (defined once, used by every command) -------------------------------------
def vault_option(f: Callable) -> Callable:
    return click.option("--vault", "vault_path", type=click.Path(file_okay=False, path_type=Path),
                        envvar="SHERIFF_VAULT", help="The vault to use (default: $SHERIFF_VAULT, "
                        "else the nearest folder upward holding vault.yaml).")(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(f)


def now_option(f: Callable) -> Callable:
    return click.option("--now", "now_text", metavar="ISO",
                        help="Pretend the current time is this (ISO-8601, e.g. 2023-05-08T13:56:00Z).")(f)


def get_vault(vault_path: Path | None) -> Any:
    """The vault a command works on; a change a crash left half done is finished or rolled back first."""
    from .vault import find_vault

    vault = find_vault(vault_path)
    if vault.journal_path.exists():
        from .journal import recover

        with vault.lock(timeout=120):
            notice = recover(vault)
        if notice:
            click.echo(f"note: {notice}", err=True)
    return vault


def get_now(now_text: str | None, tz: str = "UTC") -> dt.datetime:
    from .timewin import parse_instant, utcnow

    return parse_instant(now_text, tz) if now_text else utcnow()


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


class VaultGroup(click.Group):
    """Turns library errors into one line and an exit code; a traceback only with SHERIFF_VAULT_DEBUG=1."""

    def invoke(self, ctx: click.Context) -> Any:
        warnings.showwarning = _show_warning
        try:
            return super().invoke(ctx)
        except VaultError as exc:
            _notes(exc)
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as exc:  # a bug of ours: say so plainly, keep the traceback in a log
            if os.environ.get(DEBUG_ENV):
                raise
            _notes(exc)
            log = _log_crash()
            click.echo(f"error: unexpected {type(exc).__name__}: {exc}"
                       + (f" (details in {log})" if log else "") + f"; set {DEBUG_ENV}=1 to see the traceback",
                       err=True)
            sys.exit(2)


def _notes(exc: BaseException) -> None:
    """What the library did about the failure (a rolled-back change), added with exc.add_note."""
    for note in getattr(exc, "__notes__", []):
        click.echo(f"note: {note}", err=True)


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    click.echo(f"warning: {message}", err=True)


def _log_crash() -> str | None:
    try:
        path = Path.home() / ".cache" / "sheriff-vault" / "crash.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"--- {dt.datetime.now().isoformat()} {' '.join(sys.argv)}\n{traceback.format_exc()}\n")
        return str(path)
    except OSError:
        return None


@click.group(cls=VaultGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="sheriff-vault")
def cli() -> None:
    """Sheriff Vault: a git-backed Markdown memory for AI agents.

    Topics live in topics/*.md (edit them in any editor); `vault sleep` compacts a conversation
    into topics as one git commit; `vault recall` finds what matters for a message; `vault wake`
    resumes after sleep. Run `vault COMMAND --help` for each command.
    """


def main() -> None:
    cli(prog_name="vault")


# -- vault init / doctor / time -----------------------------------------------------------------
@cli.command()
@click.argument("path", type=click.Path(path_type=Path), default=".")
@click.option("--force", is_flag=True, help="Add a vault to a non-empty folder that is not one (never overwrites).")
@json_option
def init(path: Path, force: bool, as_json: bool) -> None:
    """Make a vault in PATH (default: here): template, folders, git repository, post-commit hook.

    Running it on an existing vault only restores what is missing.
    """
    from .vault import init_vault

    result = init_vault(path, force=force)
    if as_json:
        emit_json(result.to_json())
    elif result.created:
        click.echo(f"made a vault in {result.vault.root} (commit {(result.commit or '')[:8]})")
    else:
        extra = f", restored {len(result.added)} file(s)" if result.added else ", nothing to do"
        click.echo(f"{result.vault.root} is already a vault{extra}")


@cli.command()
@vault_option
@json_option
def doctor(vault_path: Path | None, as_json: bool) -> None:
    """Check every file of the vault; print `path:line: problem, and what to do`. Exit 1 on any problem."""
    from .doctor import check_vault, describe

    vault = get_vault(vault_path)
    report = check_vault(vault)
    if as_json:
        emit_json(report.to_json())
    else:
        for problem in report.problems:
            click.echo(str(problem))
        click.echo(describe(report), err=not report.ok)
    if not report.ok:
        sys.exit(1)


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
    """Print the UTC window a time phrase resolves to, e.g. `vault time last week`."""
    from . import timewin
    from .wake import latest_slept_at

    vault = _optional_vault(vault_path)
    zone = tz or (vault.config.timezone if vault else "UTC")
    now = get_now(now_text, zone)
    slept_at = latest_slept_at(vault, now) if vault else None
    window = timewin.resolve(" ".join(phrase), now, zone, slept_at=slept_at, prefer=prefer)
    if as_json:
        emit_json(window.to_json())
    else:
        start = timewin.to_iso(window.start) if window.start else "(open)"
        end = timewin.to_iso(window.end) if window.end else "(open)"
        click.echo(f"{start} .. {end}   {window.phrase!r} = {window.label(zone)}")


def _optional_vault(vault_path: Path | None) -> Any:
    from .errors import VaultNotFound

    try:
        return get_vault(vault_path)
    except VaultNotFound:
        if vault_path:
            raise
        return None


def with_vault(f: Callable) -> Callable:
    """Resolve --vault into a Vault before the command body runs."""

    @functools.wraps(f)
    def wrapper(*args: Any, vault_path: Path | None = None, **kwargs: Any) -> Any:
        return f(*args, vault=get_vault(vault_path), **kwargs)

    return vault_option(wrapper)


# Command groups live in their own modules; importing them registers them on `cli`.
from . import cli_agent, cli_bench, cli_history, cli_recall, cli_sleep, cli_topic  # noqa: E402,F401
