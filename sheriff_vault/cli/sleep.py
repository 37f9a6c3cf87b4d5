"""`vault note`, `vault sleep` and `vault wake`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, json_option, now_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@cli.command()
@click.argument("role", type=click.Choice(["user", "assistant", "system", "tool"]))
@click.argument("text", nargs=-1, required=True)
@click.option("--name", default="", help="The speaker's name (e.g. Caroline), kept in facts.")
@click.option("--id", "turn_id", default="", help="A turn id to keep for citations (default: the next t<N>).")
@now_option
@json_option
@with_vault
def note(vault: Vault, role: str, text: tuple[str, ...], name: str, turn_id: str, now_text: str | None,
         as_json: bool) -> None:
    """Append one turn to the vault's conversation buffer (.vault/buffer.jsonl); use - for stdin."""
    from sheriff_vault.store.buffer import Turn, append_turns

    content = sys.stdin.read() if text == ("-",) else " ".join(text)
    now = get_now(now_text, vault.config.timezone)
    added = append_turns(vault, [Turn(role, content, None, turn_id, name)], now)  # stamped with now
    if as_json:
        emit_json([t.to_json() for t in added])
    elif added:
        taken = f" (id {turn_id} belongs to another turn in the buffer)" if turn_id and added[0].id != turn_id else ""
        click.echo(f"noted {added[0].id}{taken}")
    else:
        click.echo(f"turn {turn_id} is already in the buffer")


@cli.command("sleep")
@click.argument("buffer", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--extractor", type=click.Choice(["offline", "openai"]),
              help="offline (default, no network) or openai (the Responses API, see llm: in vault.yaml).")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--review", is_flag=True, help="Commit the sleep on a branch sleep/<UTC time> for `vault review`.")
@click.option("--final", is_flag=True, help="The session ends: compact every turn, keeping no tail "
              "(sleep.tail_turns is for mid-session sleeps, whose last turns the agent still holds).")
@click.option("--explain", is_flag=True,
              help="Show, per turn, the topic it went to and the signals that chose it (--json: `placement`).")
@now_option
@json_option
@with_vault
def sleep_cmd(vault: Vault, buffer: Path | None, extractor: str | None, dry_run: bool, review: bool, final: bool,
              explain: bool,
              now_text: str | None, as_json: bool) -> None:
    """Compact the conversation into topics as one git commit, keeping the last turns as the tail
    (none with --final, when the session ends).

    BUFFER is a transcript (or - for stdin): the vault's JSONL or Markdown, a Claude Code session
    (~/.claude/projects/.../*.jsonl) or a Codex rollout (~/.codex/sessions/.../rollout-*.jsonl); its
    turns join the vault's buffer first, and turns already slept are skipped, so sleeping a grown
    transcript again sleeps only the new part. Without BUFFER the vault's own buffer (filled by `vault note`) is slept.
    """
    from sheriff_vault.daemon.client import sleep
    from sheriff_vault.store import transcripts

    turns, read = None, None
    if buffer is not None:
        read = transcripts.load(sys.stdin.read(), "<stdin>") if str(buffer) == "-" else transcripts.load_file(buffer)
        turns = read.turns
        if not turns:
            click.echo(f"warning: {buffer} holds no turns", err=True)
    now = get_now(now_text, vault.config.timezone) if now_text else None
    branch = None
    if review and not dry_run:
        from sheriff_vault.daemon.review import sleep_for_review

        result, branch = sleep_for_review(vault, turns, now=now, extractor=extractor, final=final)
    else:
        result = sleep(vault, turns, now=now, extractor=extractor, dry_run=dry_run, final=final)
    if read is not None:
        result.add_reading(read)
    for n in result.notes:
        click.echo(f"note: {n}", err=True)
    if as_json:
        emit_json(result.to_json() | ({"review_branch": branch} if review else {}))
    else:
        click.echo(result.describe())
        if explain and result.placement:
            click.echo(result.explain())
        if branch:
            click.echo(f"on branch {branch}, not on yours: `vault review` shows it, `vault review --accept` takes it")
