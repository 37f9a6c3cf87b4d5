"""`vault sync`, `vault sleeps` and `vault merge-driver`: sharing a vault between machines."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, json_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


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
    from sheriff_vault.store.topicmerge import DEFAULT_DECAY, merge_files
    from sheriff_vault.store.vault import find_vault

    try:  # git runs drivers at the top of the worktree: the vault's own utility decay
        decay = find_vault().config.sleep.utility_decay
    except Exception:  # a driver must merge even when vault.yaml is unreadable
        decay = DEFAULT_DECAY
    result = merge_files(base, ours, theirs, path, marker_size=marker_size, decay=decay)
    if not result.clean:
        click.echo(f"{path or ours}: {result.conflicts} conflict(s) left for you (markers in the file)", err=True)
        sys.exit(1)


@cli.command("sync")
@click.argument("remote", required=False)
@json_option
@with_vault
def sync_cmd(vault: Vault, remote: str | None, as_json: bool) -> None:
    """Share the vault through a git remote: commit your topic edits, fetch, merge, push, reindex.

    REMOTE defaults to the branch's upstream, else `origin`. Topic files merge through the topic
    merge driver; a real conflict stops before the push and `vault doctor` shows where. Never
    force-pushes.
    """
    from sheriff_vault.daemon.sync import sync

    result = sync(vault, remote, log=lambda m: click.echo(m, err=True))
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.describe())


@cli.command("sleeps")
@click.option("--limit", type=click.IntRange(1, 100_000), default=20, show_default=True, help="How many to list.")
@json_option
@with_vault
def sleeps_cmd(vault: Vault, limit: int, as_json: bool) -> None:
    """List the sleeps (tagged `sleep/<UTC time>`) newest first: when, what was learned, topics touched.

    Each sleep is two lines: its time (in the vault's time zone), commit and the first things it
    learned; then the topics it created or updated and its tag. --json adds every learned line.
    """
    from sheriff_vault.store.sleeps import list_sleeps

    found = list_sleeps(vault, limit)
    if as_json:
        emit_json([s.to_json() for s in found])
    elif not found:
        click.echo("no tagged sleeps yet (`vault sleep` tags each one)")
    else:
        for entry in found:
            click.echo(entry.line(vault.config.timezone))


@cli.command("review")
@click.argument("topics", nargs=-1)
@click.option("--accept", "do_accept", is_flag=True, help="Take the sleep (only TOPICS, if named) onto your branch.")
@click.option("--reject", "do_reject", is_flag=True, help="Drop the sleep (only TOPICS, if named; the rest is taken).")
@click.option("--branch", help="Which sleep branch (default: the newest sleep/...).")
@json_option
@with_vault
def review_cmd(vault: Vault, topics: tuple[str, ...], do_accept: bool, do_reject: bool, branch: str | None,
               as_json: bool) -> None:
    """Show a sleep made with `vault sleep --review` topic by topic, then accept or reject all or part of it.

    Without --accept or --reject it only shows what was learned. TOPIC is a slug, path or name.
    """
    from sheriff_vault.daemon import review

    if do_accept and do_reject:
        raise click.UsageError("use --accept or --reject, not both")
    if not (do_accept or do_reject):
        if topics:
            raise click.UsageError("name topics only with --accept or --reject")
        shown = review.show_review(vault, branch)
        emit_json(shown.to_json()) if as_json else click.echo(shown.describe())
        return
    decision = review.decide(vault, accept=do_accept, refs=topics, branch=branch)
    emit_json(decision.to_json()) if as_json else click.echo(decision.describe())
