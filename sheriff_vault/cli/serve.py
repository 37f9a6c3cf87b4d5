"""`vault serve`: the local memory browser."""
from __future__ import annotations

from pathlib import Path

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import get_vault, vault_option


@cli.command("serve")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port to listen on (default: a free one).")
@click.option("--host", default=None, metavar="ADDRESS",
              help="Listen on this address instead of 127.0.0.1 (anyone who can reach it and has the token "
                   "can read and change the vault).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your web browser.")
@vault_option
def serve_cmd(path: Path | None, port: int, host: str | None, open_browser: bool, vault_path: Path | None) -> None:
    """Browse, review and fix memory in your web browser: a local app on 127.0.0.1.

    PATH is the vault (default: --vault, $SHERIFF_VAULT, else the nearest vault upward).

    Pages: Topics (filter; sort by recent, size, stale), each Topic (its facts with dates and
    citations, related topics, every commit that touched it as a diff, an edit form that commits),
    Sleeps (each sleep's summary, diff and wake packet; accept or reject a `vault sleep --review`
    topic by topic), Recall (what an agent would receive, and why) and Health (`vault doctor`,
    index freshness, quarantined turns).

    It listens on 127.0.0.1 only unless --host says otherwise, answers only to its own host name
    and origin, and needs the random token in the URL it prints. Edits and reviews go through the
    same functions as `vault topic edit` and `vault review`, under the vault lock. Ctrl-C stops it.
    """
    from sheriff_vault.web.server import LOOPBACK, serve

    vault = get_vault(path or vault_path)
    serve(vault, host=host or LOOPBACK, port=port, explicit_host=host is not None, open_browser=open_browser,
          say=click.echo)
