"""`vault ask`, `vault chat`, `vault wake` and `vault skills`: the agent side of the vault."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, json_option, now_option, with_vault

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault


@cli.command()
@click.option("--message", "-m", default="", help="The person's new message (steers what memory is recalled).")
@click.option("--budget", type=click.IntRange(200, 1_000_000), help="Characters of the context bundle.")
@click.option("--no-daemon", is_flag=True, help="Recall in this process even if `vault watch` runs.")
@now_option
@json_option
@with_vault
def wake(vault: Vault, message: str, budget: int | None, no_daemon: bool, now_text: str | None, as_json: bool) -> None:
    """Print the context to resume with after sleep: resume or confirm, recent turns, memory, skills."""
    from sheriff_vault.agent.wake import wake as do_wake

    result = do_wake(vault, message, now=get_now(now_text, vault.config.timezone) if now_text else None,
                     budget=budget, use_daemon=not no_daemon)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.bundle, nl=False)


@cli.command()
@click.argument("message", nargs=-1, required=True)
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), help="Repository for the repo tools.")
@click.option("--name", default="", help="Your name, kept with your turns.")
@json_option
@with_vault
def ask(vault: Vault, message: tuple[str, ...], repo: Path | None, name: str, as_json: bool) -> None:
    """Send one message to the agent (Responses API, see llm: in vault.yaml) and print its answer."""
    from sheriff_vault.agent.loop import Agent

    reply = Agent(vault, repo=repo).ask(" ".join(message), name=name)
    if as_json:
        emit_json(reply.to_json())
    else:
        click.echo(reply.text)
        for call in reply.tool_calls:
            click.echo(f"  [tool] {call['name']} {'ok' if call['ok'] else 'failed'}", err=True)


@cli.command()
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), help="Repository for the repo tools.")
@click.option("--name", default="", help="Your name, kept with your turns.")
@with_vault
def chat(vault: Vault, repo: Path | None, name: str) -> None:
    """Talk with the agent line by line (Ctrl-D to stop); it sleeps by itself when the buffer fills."""
    from sheriff_vault.agent.loop import Agent
    from sheriff_vault.errors import VaultError

    agent = Agent(vault, repo=repo)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = agent.ask(line.strip(), name=name)
        except VaultError as exc:
            click.echo(f"error: {exc}", err=True)
            continue
        click.echo(reply.text)
        if reply.slept:
            click.echo(f"  [slept: {reply.slept['compacted']} turns compacted]", err=True)


@cli.group()
def skills() -> None:
    """List, search and run skills (built-in ones and the vault's skills/ folder)."""


@skills.command("list")
@json_option
@with_vault
def skills_list(vault: Vault, as_json: bool) -> None:
    """List every skill with its tools."""
    from sheriff_vault.store.skills import registry

    errors: list = []
    found = registry(vault, errors)
    if as_json:
        emit_json({"skills": [s.to_json() for s in found], "errors": [str(e) for e in errors]})
    else:
        for s in found:
            click.echo(f"{s.skill_id:<16} {s.description[:70]}  [{', '.join(s.requires_tools)}]")
    for e in errors:
        click.echo(f"warning: skipped {e}", err=True)


@skills.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--k", type=click.IntRange(1, 20), default=2)
@json_option
@with_vault
def skills_search(vault: Vault, query: tuple[str, ...], k: int, as_json: bool) -> None:
    """Show the skills that fit a request."""
    from sheriff_vault.agent.skills import search

    found = search(vault, " ".join(query), k)
    if as_json:
        emit_json([s.summary() | {"score": score} for s, score in found])
    else:
        for s, score in found:
            click.echo(f"{score:.2f}  {s.skill_id}: {s.description}")


@skills.command("run")
@click.argument("skill_id")
@click.option("--args", "args_json", default="{}", help="Arguments as a JSON object.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), help="Repository for the repo tools.")
@with_vault
def skills_run(vault: Vault, skill_id: str, args_json: str, repo: Path | None) -> None:
    """Run a skill and print its JSON result."""
    from sheriff_vault.agent.skills import run

    try:
        args = json.loads(args_json)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc.msg}", param_hint="--args") from None
    emit_json(run(vault, skill_id, args, repo=repo))


@cli.command("tools")
@json_option
def tools_cmd(as_json: bool) -> None:
    """Print the agent's tool schemas (the Responses API function-tool format the agent loop sends).

    Every schema is strict: all arguments are listed as required and an optional one (shown with ?)
    may be null. The loop checks each call's arguments against its schema before running it."""
    from sheriff_vault.agent.tools import tool_specs

    specs = tool_specs()
    if as_json:
        emit_json(specs)
        return
    for spec in specs:
        params = spec["parameters"]
        args = ", ".join(f"{k}{'?' if 'null' in v['type'] else ''}" for k, v in params["properties"].items())
        click.echo(f"{spec['name']}({args})\n" + textwrap.indent(spec["description"], "    "))


@cli.command("log")
@click.option("--tail", "tail", type=click.IntRange(1, 1_000_000), default=20, show_default=True,
              help="How many of the newest entries.")
@click.option("--only", "kinds", multiple=True, type=click.Choice(["model", "tools", "sleep", "recall", "hooks"]),
              help="Only this log (repeat for several).")
@json_option
@with_vault
def log_cmd(vault: Vault, tail: int, kinds: tuple[str, ...], as_json: bool) -> None:
    """Show the vault's structured logs (.vault/logs/*.jsonl), newest last: each model call of the
    agent (input size, topics and skills recalled for it), each tool call (name, argument hash,
    duration, success), each sleep (topics created and updated, wake packet size), each recall
    (top candidates and scores) and each hook run (event, duration, outcome)."""
    from sheriff_vault.store.logs import read_logs

    entries = read_logs(vault, tail, list(kinds) or None)
    if as_json:
        emit_json(entries)
        return
    for e in entries:
        click.echo(f"{e.get('at', '?')}  {e.get('log', '?'):<6}  {_log_line(e)}".rstrip())
    if not entries:
        click.echo(f"no log entries yet in {vault.logs}")


def _log_line(e: dict) -> str:
    """One log entry as a short line; a kind this version does not know shows its fields."""
    kind, ms = e.get("log"), f"{e.get('duration_ms', '?')}ms"
    if kind == "model":
        state = f"-> {e.get('tool_calls', 0)} tool call(s)" if e.get("ok") else f"FAILED {e.get('error', '')}"
        return (f"{e.get('input_chars', '?')} chars in, topics {','.join(e.get('topics') or []) or '-'}, "
                f"skills {','.join(e.get('skills') or []) or '-'} {state}  {ms}")
    if kind == "tools":
        state = "ok" if e.get("ok") else f"failed: {e.get('error', '')}"
        return f"{e.get('tool')} args#{e.get('args_hash')} {state}  {ms}  {e.get('caller') or ''}"
    if kind == "sleep":
        return (f"created {e.get('created', 0)}, updated {e.get('updated', 0)}, compacted {e.get('compacted', 0)} "
                f"turn(s), wake {e.get('wake_bytes', 0)} bytes, commit {str(e.get('commit') or '-')[:8]}  {ms}")
    if kind == "recall":
        top = ", ".join(f"{c.get('name')} {c.get('score')}" for c in (e.get("candidates") or [])[:3])
        return f"{e.get('query', '')[:60]!r} {e.get('mode', '')}: {top or 'nothing'}  {ms}"
    if kind == "hooks":
        return f"{e.get('event', '')}  {e.get('outcome', '')}  {ms}  {e.get('error') or ''}"
    return " ".join(f"{k}={v}" for k, v in e.items() if k not in ("at", "log") and v != "")
