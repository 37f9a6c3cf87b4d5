"""The `vault` command group: library errors become one line and an exit code, never a traceback;
with --json, one JSON object on stdout (`{"error": {"kind", "message", "hint"}}`) and the same code."""
from __future__ import annotations

import datetime as dt
import json
import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any, NoReturn

import click

from sheriff_vault.errors import VaultError

DEBUG_ENV = "SHERIFF_VAULT_DEBUG"
JSON_ERRORS = "sheriff_vault.json_errors"  # ctx.meta key: the command line asked for --json


class VaultGroup(click.Group):
    """Turns library errors into one line and an exit code; a traceback only with SHERIFF_VAULT_DEBUG=1."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Read before any command parses its options, so a usage error is JSON too when --json was given.
        if ctx.parent is None:
            ctx.meta[JSON_ERRORS] = "--json" in (args[: args.index("--")] if "--" in args else args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        warnings.showwarning = _show_warning
        as_json = bool(ctx.meta.get(JSON_ERRORS))
        try:
            return super().invoke(ctx)
        except VaultError as exc:
            _fail(exc.to_json(), f"error: {exc}", exc.exit_code, as_json, exc)
        except click.ClickException as exc:
            if not as_json:
                raise  # click prints its usage text
            where = exc.ctx.command_path if isinstance(exc, click.UsageError) and exc.ctx else ""
            _fail({"kind": type(exc).__name__, "message": exc.format_message(),
                   "hint": f"see `{where} --help`" if where else None}, "", exc.exit_code, as_json, exc)
        except (click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            _fail({"kind": "Interrupted", "message": "interrupted", "hint": None}, "interrupted", 130, as_json)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as exc:  # a bug of ours: say so plainly, keep the traceback in a log
            if os.environ.get(DEBUG_ENV):
                raise
            log = _log_crash()
            message = f"unexpected {type(exc).__name__}: {exc}"
            hint = f"set {DEBUG_ENV}=1 to see the traceback"
            _fail({"kind": "InternalError", "message": message, "hint": (f"details in {log}; " if log else "") + hint},
                  f"error: {message}" + (f" (details in {log})" if log else "") + f"; {hint}", 2, as_json, exc)


def _fail(error: dict[str, Any], line: str, code: int, as_json: bool, exc: BaseException | None = None) -> NoReturn:
    """Say what failed: `line` on stderr, or with --json the error as one object on stdout, where
    a program reading the JSON looks; then exit with the error's code either way."""
    notes = list(getattr(exc, "__notes__", []))  # what the library did about it (a rolled-back change)
    if as_json:
        click.echo(json.dumps({"error": error | ({"notes": notes} if notes else {})}, indent=2, ensure_ascii=False))
    else:
        for note in notes:
            click.echo(f"note: {note}", err=True)
        click.echo(line, err=True)
    sys.exit(code)


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


