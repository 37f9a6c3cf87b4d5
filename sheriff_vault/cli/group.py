"""The `vault` command group: library errors become one line and an exit code, never a traceback."""
from __future__ import annotations

import datetime as dt
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import click

from sheriff_vault.errors import VaultError

DEBUG_ENV = "SHERIFF_VAULT_DEBUG"


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


