"""`vault history`, `vault diff` and `vault cite`: the memory's timeline, read from git (see timetravel.py)."""
from __future__ import annotations

import datetime as dt
import sys
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, json_option, now_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


MARK = {"superseded": "~", "new": "+", "removed": "-", "done": "~", "reopened": "~", "edited": "~"}


@cli.command("history")
@click.argument("topic", required=False)
@click.option("--limit", type=click.IntRange(1, 1_000_000), metavar="N",
              help="Only the N newest commits (default without TOPIC: 20).")
@now_option
@json_option
@with_vault
def history_cmd(vault: Vault, topic: str | None, limit: int | None, now_text: str | None, as_json: bool) -> None:
    """Show what memory learned, commit by commit, newest first: the vault's timeline, or one TOPIC's.

    Without TOPIC: each commit that changed topics as a date, its kind (sleep, edit, merge, person)
    and subject, then one line per topic it touched with the first thing it added (and how many
    more). With TOPIC (an id, slug, name or alias; a deleted topic by its slug or old name; renames
    are followed), each block is one commit and what it changed in meaning: a value superseded
    (the old value, the one now current, when, and the turns that said it), a line new, removed,
    done or edited, then the frontmatter keys it changed. --now: the history as it was then.
    """
    from sheriff_vault.retrieval.timetravel import history, timeline

    tz = vault.config.timezone
    now = get_now(now_text, tz) if now_text else None
    if topic is None:
        commits = timeline(vault, limit=limit or 20, now=now)
        if as_json:
            emit_json([c.to_json() for c in commits])
        elif not commits:
            click.echo("no commit has changed a topic yet (`vault sleep` or `vault topic new` make the first)")
        for c in commits if not as_json else []:
            click.echo(f"{_day(c.date, tz)}  {c.sha[:7]}  {c.kind:<6}  {c.subject}")
            for t in c.topics:
                click.echo(f"    {_topic_line(t)}")
        return
    entries = history(vault, topic, limit=limit, now=now)
    if as_json:
        emit_json([e.to_json() for e in entries])
        return
    if not entries:
        click.echo(f"no commit has touched {topic!r} yet (commit the file to start its history)")
    for i, entry in enumerate(entries):
        data = entry.to_json()
        click.echo(("\n" if i else "") + f"{entry.sha[:7]}  {_day(entry.date, tz)}  "
                   f"{entry.subject}{_status(data)}")
        for line in _changes(data):
            click.echo(line)


def _topic_line(t: dict) -> str:
    """One topic of a timeline commit: its name, then its first change in meaning and a count."""
    from sheriff_vault.retrieval.changes import describe

    name = t["name"] or t["path"]
    status = f" ({t['status']})" if t["status"] in ("created", "deleted", "renamed") else ""
    first = describe(t["changes"][0]) if t["changes"] else "(frontmatter only)"
    rest = len(t["changes"]) - 1
    first = first if len(first) <= 90 else first[:87].rstrip() + "..."
    return f"{name}{status}: {first}" + (f"  (+{rest} more)" if rest > 0 else "")


@cli.command("diff")
@click.option("--since", "since", required=True, metavar="PHRASE",
              help="The window: yesterday, last week, 'the past 3 days', 'since Monday', 'since you slept', "
                   "2023-05-10 ...")
@click.option("--until", metavar="PHRASE", help="End the window at the end of this time instead "
              "(--since 2023-05-01 --until 2023-05-07 is that whole week).")
@now_option
@json_option
@with_vault
def diff_cmd(vault: Vault, since: str, until: str | None, now_text: str | None, as_json: bool) -> None:
    """What memory learned in a time window: facts added, removed and changed, grouped by topic.

    Counts the commits dated inside the window and compares each topic as it was before the first
    of them with how it was after the last. A sleep's commit is dated when the sleep ran (its
    --now), not when the conversation was had: this is when memory learned it. To find what was
    said in a window, use `vault recall ... --since`.
    """
    from sheriff_vault.retrieval.timetravel import diff_since

    tz = vault.config.timezone
    report = diff_since(vault, since, get_now(now_text, tz), until=until)
    if as_json:
        emit_json(report)
        return
    win = report["window"]
    bounds = f"{win['start'] or '(open)'} .. {win['end'] or '(open)'}"
    if not report["commits"]:
        click.echo(f"nothing changed in memory during {win['label']} ({bounds})")
        return
    click.echo(f"{win['label']} ({bounds}): {len(report['commits'])} commit(s), {len(report['topics'])} topic(s)")
    for topic in report["topics"]:
        click.echo(f"\n{topic['name'] or '(unnamed)'}  {topic['path']}{_status(topic)}")
        for line in _changes(topic):
            click.echo(line)
    click.echo("\ncommits:")
    for commit in report["commits"]:
        click.echo(f"  {commit['sha'][:7]}  {_day(commit['at'], tz)}  {commit['subject']}")


def _day(iso: str, tz: str) -> str:
    """The commit's calendar day where the person lives."""
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d")


def _status(entry: dict) -> str:
    if entry["status"] == "renamed":
        return f"  [renamed from {entry['previous_path']}]"
    return f"  [{entry['status']}]" if entry["status"] in ("created", "deleted") else ""


def _changes(entry: dict) -> list[str]:
    from sheriff_vault.retrieval.changes import describe

    lines = [f"  {MARK[c['kind']]} {describe(c)}" for c in entry["changes"]]
    if entry["frontmatter"]:
        lines.append("  frontmatter: " + ", ".join(entry["frontmatter"]))
    if entry.get("error"):
        lines.append(f"  (could not read the file: {entry['error']})")
    return lines


@cli.command("cite")
@click.argument("ref")
@click.option("--pin", "pin_to", is_flag=False, flag_value="HEAD", default=None, metavar="[COMMIT]",
              help="Print the citation pinned to COMMIT (default HEAD) instead of reading it.")
@json_option
@with_vault
def cite_cmd(vault: Vault, ref: str, pin_to: str | None, as_json: bool) -> None:
    """Show the turns a citation names, e.g. `vault cite 'conversations/2026/02/10/090000-c391.md#t12-t14@1a2b3c4'`.

    REF is a conversation file, then `#` and turn ids (commas; `t12-t14` is a range), then
    optionally `@` and a commit (or blob) id. A pinned citation is read from that version with git,
    so it shows what was said even after the file was edited. A fact line's link
    `[t12](../conversations/...md#t12@1a2b3c4)` is the same citation.
    """
    from sheriff_vault.store.citations import pin, read_cited

    if pin_to is not None:
        pinned = pin(vault, ref, pin_to)
        emit_json({"ref": pinned.ref, "markdown": pinned.render()}) if as_json else click.echo(pinned.ref)
        return
    cited = read_cited(vault, ref)
    emit_json(cited.to_json()) if as_json else click.echo(cited.describe())
    if cited.missing:
        sys.exit(1)
