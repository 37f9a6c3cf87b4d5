"""The command line: parse options, call one library function, print. No work happens here.

`group` turns errors into messages, `options` holds the shared options; one module per command group.
"""
from sheriff_vault.cli import agent, history, hosts, recall, serve, share, sleep, topic, vault  # noqa: F401  (registers the commands)
from sheriff_vault.cli.group import cli, main

__all__ = ["cli", "main"]
