"""Options every command shares, defined once: --vault, --json, --now, and how they resolve."""
from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


def vault_option(f: Callable) -> Callable:
    return click.option("--vault", "vault_path", type=click.Path(file_okay=False, path_type=Path),
                        envvar="SHERIFF_VAULT", help="The vault to use (default: $SHERIFF_VAULT, "
                        "else the nearest folder upward holding vault.yaml).")(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(f)


def now_option(f: Callable) -> Callable:
    return click.option("--now", "now_text", metavar="ISO",
                        help="Pretend the current time is this (ISO-8601, e.g. 2023-05-08T13:56:00Z).")(f)


def get_vault(vault_path: Path | None) -> Vault:
    """The vault a command works on; a change a crash left half done is finished or rolled back first."""
    from sheriff_vault.store.vault import find_vault

    vault = find_vault(vault_path)
    if vault.journal_path.exists():
        from sheriff_vault.store.journal import recover

        with vault.lock(timeout=120):
            notice = recover(vault)
        if notice:
            click.echo(f"note: {notice}", err=True)
    return vault


def get_now(now_text: str | None, tz: str = "UTC") -> dt.datetime:
    from sheriff_vault.timewin import parse_instant, utcnow

    return parse_instant(now_text, tz) if now_text else utcnow()


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def with_vault(f: Callable) -> Callable:
    """Resolve --vault into a Vault before the command body runs."""

    @functools.wraps(f)
    def wrapper(*args: Any, vault_path: Path | None = None, **kwargs: Any) -> Any:
        return f(*args, vault=get_vault(vault_path), **kwargs)

    return vault_option(wrapper)


