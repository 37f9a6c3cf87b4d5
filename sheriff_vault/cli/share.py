"""`vault merge-driver`: the git side of sharing a vault between machines."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sheriff_vault.cli.group import cli


@cli.command("merge-driver")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path", required=False)
@click.option("--marker-size", type=click.IntRange(7, 100), default=7, help="Conflict marker length (git's %L).")
def merge_driver(base: Path, ours: Path, theirs: Path, path: str | None, marker_size: int) -> None:
    """Merge two versions of a topic file into OURS (git calls this; `vault init` registers it).

    Dates, counters, aliases, facts, numbers and links are merged without conflict; a line changed
    two ways is left with conflict markers and the exit code is 1, as git expects.
    """
    from sheriff_vault.store.topicmerge import merge_files

    result = merge_files(base, ours, theirs, path, marker_size=marker_size)
    if not result.clean:
        click.echo(f"{path or ours}: {result.conflicts} conflict(s) left for you (markers in the file)", err=True)
        sys.exit(1)
