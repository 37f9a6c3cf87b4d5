"""`vault mcp` and `vault hooks`: the vault for the agents people already run (Claude Code, Codex,
any MCP client)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, json_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@cli.command("mcp")
@click.option("--http", "http", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (e.g. 127.0.0.1:8765; "
                   "a bare PORT binds loopback).")
@with_vault
def mcp_cmd(vault: Vault, http: str | None) -> None:
    """Serve the vault to MCP clients: tools (recall, topics, note, sleep, wake, history, diff, time,
    skills), each topic as vault://topic/<slug>, vault://wake, and the `resume` prompt.

    Speaks MCP over stdin/stdout by default, as Claude Code, Codex and Cursor start it; logs go
    to stderr.
    """
    from sheriff_vault.agent.mcp import parse_http, serve

    if http is not None:
        host, port = parse_http(http)
        click.echo(f"serving {vault.root} at http://{host}:{port}/mcp", err=True)
    serve(vault, http)
