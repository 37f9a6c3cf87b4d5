"""The command line: parse options, call one library function, print. No work happens here.

`group` turns errors into messages, `options` holds the shared options; one module per command group.
"""
from sheriff_vault.cli import (  # noqa: F401  (registers the commands)
    agent, history, hosts, recall, share, sleep, topic, vault)
from sheriff_vault.cli.group import cli, main

__all__ = ["cli", "main"]
