"""`vault topic ...`: create, show, list and edit topic files."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, json_option, now_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.errors import VaultError
    from sheriff_vault.store.vault import Vault


@cli.group()
def topic() -> None:
    """Create, show, list and edit topics (one Markdown file each in topics/)."""


@topic.command("new")
@click.argument("name")
@click.option("--alias", "aliases", multiple=True, help="Another name for it (repeat for several).")
@click.option("--fact", "facts", multiple=True, help="A fact to start with, dated now (repeat for several).")
@click.option("--one-liner", default="", help="The one-sentence summary recall matches on (default: the name).")
@click.option("--tag", "tags", multiple=True, help="A tag (Obsidian's `tags`; `vault recall --tag` filters by it).")
@click.option("--evergreen", is_flag=True, help="Never decays in recall ranking.")
@click.option("--no-commit", is_flag=True, help="Write the file but do not commit it.")
@click.option("--force", is_flag=True, help="Create it even when a topic of that name exists (as NAME-2).")
@now_option
@json_option
@with_vault
def topic_new(vault: Vault, name: str, aliases: tuple[str, ...], facts: tuple[str, ...], one_liner: str,
              tags: tuple[str, ...], evergreen: bool, no_commit: bool, force: bool, now_text: str | None,
              as_json: bool) -> None:
    """Create a topic called NAME and commit it (refused when a topic of that name exists)."""
    from sheriff_vault.store.edits import create_topic

    result = create_topic(vault, name, now=get_now(now_text, vault.config.timezone), aliases=aliases, facts=facts,
                          one_liner=one_liner, evergreen=evergreen, commit=not no_commit, force=force, tags=tags)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"created {result.topic.rel} ({result.topic.id})")


@topic.command("link")
@click.argument("src")
@click.argument("dst")
@click.option("--type", "edge_type", default="RELATES_TO", show_default=True,
              help="What the edge means: RELATES_TO, DEPENDS_ON, PART_OF, NEXT or PREV.")
@click.option("--weight", type=float, default=1.0, show_default=True, help="Added to the edge's weight.")
@click.option("--no-commit", is_flag=True, help="Write the file but do not commit it.")
@json_option
@with_vault
def topic_link(vault: Vault, src: str, dst: str, edge_type: str, weight: float, no_commit: bool, as_json: bool) -> None:
    """Add (or strengthen) a `related` edge from topic SRC to topic DST; deep recall follows it."""
    from sheriff_vault.store.edits import link_topics

    result = link_topics(vault, src, dst, edge_type.upper(), weight, commit=not no_commit)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"linked {result.topic.rel} {edge_type} {dst}")


@topic.command("tag")
@click.argument("ref")
@click.argument("tags", nargs=-1)
@click.option("--remove", "removed", multiple=True, metavar="TAG", help="A tag to take off (repeat for several).")
@click.option("--no-commit", is_flag=True, help="Write the file but do not commit it.")
@json_option
@with_vault
def topic_tag(vault: Vault, ref: str, tags: tuple[str, ...], removed: tuple[str, ...], no_commit: bool,
              as_json: bool) -> None:
    """Add TAGS to topic REF (and take off each --remove), as one commit. Tags are Obsidian's
    `tags` property: a leading # is dropped, spaces become -, `a/b` nests; `vault recall --tag` filters."""
    from sheriff_vault.store.edits import tag_topic

    result = tag_topic(vault, ref, tags, removed, commit=not no_commit)
    if as_json:
        emit_json(result.to_json() | {"tags": result.topic.tags})
    else:
        shown = ", ".join(result.topic.tags) or "none"
        click.echo(f"{result.topic.rel}: tags {shown}" + ("" if result.commit or no_commit else " (no change)"))


@topic.command("show")
@click.argument("ref")
@json_option
@with_vault
def topic_show(vault: Vault, ref: str, as_json: bool) -> None:
    """Print a topic found by id, slug, name or alias."""
    found = vault.topics.get(ref)
    if as_json:
        emit_json(found.to_json())
    else:
        click.echo(f"# {found.rel}")
        click.echo(found.render(), nl=False)


@topic.command("list")
@json_option
@with_vault
def topic_list(vault: Vault, as_json: bool) -> None:
    """List every topic, newest first; unreadable files are reported and skipped."""
    problems: list[VaultError] = []
    topics = vault.topics.all(on_error=problems.append)
    topics.sort(key=lambda t: (t.last_seen.timestamp() if t.last_seen else 0, t.slug), reverse=True)
    if as_json:
        emit_json({"topics": [t.to_json(with_items=False) | {"facts": len(t.facts)} for t in topics],
                   "errors": [str(p) for p in problems]})
    else:
        for t in topics:
            seen = t.last_seen.strftime("%Y-%m-%d") if t.last_seen else "----------"
            click.echo(f"{seen}  {t.slug:<40} {len(t.facts):>3} facts  {t.one_liner[:60]}")
        if not topics:
            click.echo("no topics yet; `vault topic new NAME` or `vault sleep` makes some")
    for p in problems:
        click.echo(f"warning: skipped {p}", err=True)


@topic.command("edit")
@click.argument("ref")
@click.option("--no-commit", is_flag=True, help="Leave the change uncommitted.")
@with_vault
def topic_edit(vault: Vault, ref: str, no_commit: bool) -> None:
    """Open a topic in $EDITOR; when you close it, check it and commit the change."""
    from sheriff_vault.store.edits import commit_edit
    from sheriff_vault.store.topics import Topic

    path = vault.topics.get(ref).path
    if not (os.environ.get("VISUAL") or os.environ.get("EDITOR")) and not sys.stdin.isatty():
        raise click.UsageError("set $EDITOR to the editor to use")
    click.edit(filename=str(path))
    edited = Topic.load(path, vault.rel(path))
    problems = edited.problems()
    for p in problems:
        click.echo(f"warning: {p}", err=True)
    sha = None if no_commit else commit_edit(vault, edited)
    click.echo(f"saved {edited.rel}" + (f" (commit {sha[:8]})" if sha else " (no change)" if not no_commit else ""))
