"""`vault recall`, `vault index`, `vault watch` and the git hook entry point."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

import click

from sheriff_vault.cli.group import cli
from sheriff_vault.cli.options import emit_json, get_now, get_vault, json_option, now_option, vault_option, with_vault

if TYPE_CHECKING:
    from pathlib import Path

    from sheriff_vault.store.vault import Vault


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--tail", "tail_file", type=click.File("r", encoding="utf-8"),
              help="A file with the recent conversation; entities already in it do not trigger deep search.")
@click.option("--k", type=click.IntRange(1, 200), help="How many topics (default: light 6, deep 16 from vault.yaml).")
@click.option("--deep", is_flag=True, help="Force deep search (more topics, one hop along related links).")
@click.option("--since", metavar="PHRASE", help="Only memory from this time on, e.g. 'last week' or 2023-05-01.")
@click.option("--until", metavar="PHRASE", help="Only memory up to the end of this time, e.g. yesterday.")
@click.option("--budget", type=click.IntRange(100, 10_000_000), help="Characters of Markdown to print.")
@click.option("--tag", metavar="TAG",
              help="Only topics with this tag (`work` also matches `work/alpha`).")
@click.option("--as-of", "as_of", metavar="WHEN",
              help="Answer from the vault as it was then: a phrase, date or commit.")
@click.option("--explain", is_flag=True, help="Show the triggers, the time window and every score signal.")
@click.option("--no-daemon", is_flag=True, help="Answer in this process even if `vault watch` runs.")
@now_option
@json_option
@with_vault
def recall(vault: Vault, query: tuple[str, ...], tail_file: TextIO | None, k: int | None, deep: bool,
           since: str | None, until: str | None, budget: int | None, tag: str | None, as_of: str | None,
           explain: bool, no_daemon: bool, now_text: str | None, as_json: bool) -> None:
    """Print the topics and facts that matter for QUERY (use - to read it from stdin).

    Output is Markdown ready to paste into a prompt; memory is a dated record to verify, not an
    instruction. A time phrase in the query ("last week", "before you slept") restricts it. Turns
    not slept yet (the buffer, the kept tail too) are searched as well and shown under "Said
    recently, not yet slept", with their times.
    """
    from sheriff_vault.daemon.client import recall as recall_reply

    text = sys.stdin.read() if query == ("-",) else " ".join(query)
    now = get_now(now_text, vault.config.timezone) if now_text else None
    kwargs = dict(tail=tail_file.read() if tail_file else "", k=k, deep=deep, since=since, until=until, now=now,
                  explain=explain)
    if tag:
        kwargs["tag"] = tag
    if as_of:
        from sheriff_vault.retrieval.timetravel import recall_as_of

        reply = recall_as_of(vault, as_of, text, budget=budget, **kwargs)
    else:
        reply = recall_reply(vault, text, use_daemon=not no_daemon, autostart=not no_daemon, budget=budget, **kwargs)
    for warning in reply.json.get("warnings", []):
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        emit_json(reply.json | {"via": reply.via})
        return
    if explain:
        click.echo(reply.explain)
        click.echo()
    click.echo(reply.markdown, nl=False)


@cli.command("index")
@click.option("--rebuild", is_flag=True, help="Throw the index away and build it again from the files.")
@click.option("--status", "show_status", is_flag=True, help="Show what the index holds and whether it is fresh.")
@click.option("--path", "paths", multiple=True, help="Only re-read these files (vault-relative).")
@json_option
@with_vault
def index_cmd(vault: Vault, rebuild: bool, show_status: bool, paths: tuple[str, ...], as_json: bool) -> None:
    """Bring the search index up to date with the files (it is a cache; the files are the truth)."""
    from sheriff_vault.daemon import client

    warn = lambda m: click.echo(m, err=True)  # noqa: E731
    if show_status:
        reply = client.status(vault, log=warn)
        if as_json:
            emit_json(reply)
        else:
            for key, value in reply.items():
                click.echo(f"{key}: {value}")
        return
    if not rebuild:
        stats = client.reindex(vault, list(paths) or None, log=warn)
        _print_stats(stats, as_json)
        return
    with click.progressbar(length=1, label="rebuilding", file=sys.stderr) as bar:
        def progress(stage: str, done: int, total: int) -> None:
            bar.length = max(total, 1)
            bar.label = "reading files" if stage == "read" else "embedding"
            bar.pos = done
            bar.render_progress()

        stats = client.rebuild(vault, progress=progress, log=warn)
    _print_stats(stats, as_json)


def _print_stats(stats: dict, as_json: bool) -> None:
    if as_json:
        emit_json(stats)
        return
    for w in stats.get("warnings", []):
        click.echo(f"warning: {w}", err=True)
    click.echo(f"index: {len(stats.get('changed', []))} file(s) updated, {len(stats.get('removed', []))} removed, "
               f"{stats.get('embedded', 0)} text(s) embedded")


@cli.command()
@click.option("--foreground", is_flag=True, help="Run in this terminal (for systemd, tmux or debugging).")
@click.option("--status", "show_status", is_flag=True,
              help="Say whether a daemon runs for this vault and what it holds (index, last request, memory).")
@click.option("--stop", "do_stop", is_flag=True, help="Stop the daemon (clean shutdown).")
@click.option("--all", "every", is_flag=True,
              help="With --status or --stop: every daemon of yours, whatever its vault (no vault needed).")
@click.option("--autostarted", is_flag=True, hidden=True,
              help="Started by recall: exit after daemon.idle_exit_seconds without a request.")
@click.option("--shared", is_flag=True, hidden=True,
              help="With --foreground: run the user's daemon, which serves every vault (started by recall).")
@json_option
@vault_option
def watch(vault_path: Path | None, foreground: bool, show_status: bool, do_stop: bool, every: bool, autostarted: bool,
          shared: bool, as_json: bool) -> None:
    """Keep the index fresh as files change, and answer recall fast (holds the model in memory).

    One daemon of yours serves every vault: this starts it if needed and has it serve this vault
    until `vault watch --stop`, returning once the model is loaded; logs go to .vault/logs/daemon.log.
    `vault recall` has it serve a vault by itself (daemon.autostart in vault.yaml).
    `--foreground` runs a daemon of this vault alone in this terminal (debugging, systemd).
    `--status --all` lists the vaults served, `--stop --all` stops the daemon(s).
    """
    from sheriff_vault.daemon import lifecycle

    if shared:
        from sheriff_vault.daemon import runtime
        from sheriff_vault.daemon.watch import Host

        Host(runtime.socket_path()).run()
        return
    if every:
        _watch_all(show_status, do_stop, as_json)
        return
    vault = get_vault(vault_path)
    if show_status:
        state = lifecycle.describe(vault)
        if as_json:
            emit_json({"running": bool(state), **(state or {})})
        elif state:
            click.echo(f"running, pid {state['pid']}, socket {state['socket']}")
            for line in _daemon_lines(state):
                click.echo(f"  {line}")
        else:
            click.echo("not running")
        if not state:
            sys.exit(1)
        return
    if do_stop:
        stopped = lifecycle.stop(vault)
        if as_json:
            emit_json({"stopped": stopped})
        else:
            click.echo("stopped" if stopped else "not running")
        return
    if foreground:
        from sheriff_vault.daemon.watch import Daemon

        Daemon(vault, idle_exit=vault.config.daemon.idle_exit_seconds if autostarted else 0.0).run()
        return
    info = lifecycle.start_background(vault)
    if as_json:
        emit_json(info)
    else:
        word = "already running" if info.get("already") else "started"
        click.echo(f"{word}, pid {info['pid']}")


def _watch_all(show_status: bool, do_stop: bool, as_json: bool) -> None:
    """`vault watch --status --all` and `--stop --all`: every daemon of this user, whatever its vault."""
    from sheriff_vault.daemon import lifecycle

    if show_status == do_stop:
        raise click.UsageError("--all goes with one of --status and --stop")
    if do_stop:
        stopped = lifecycle.stop_all()
        if as_json:
            emit_json({"stopped": stopped})
        for d in [] if as_json else stopped:
            click.echo(f"stopped pid {d['pid']}: {d['vault']}")
        if not stopped and not as_json:
            click.echo("not running")
        return
    found = lifecycle.describe_all()
    if as_json:
        emit_json({"running": len(found), "daemons": found})
    elif not found:
        click.echo("not running")
    else:
        processes = {d["pid"]: (d.get("memory_mb") or {}).get("VmRSS") or 0 for d in found}
        vaults = sum(1 for d in found if not d.get("idle"))
        click.echo(f"{len(processes)} daemon(s) running, {sum(processes.values()):.0f} MB resident in all"
                   + (f", serving {vaults} vault(s)" if vaults != len(processes) else ""))
        for d in found:
            click.echo(f"pid {d['pid']}: " + ("your daemon, serving no vault" if d.get("idle") else d["vault"]))
            for line in _daemon_lines(d)[1:] or ([f"memory: {d['memory_mb']['VmRSS']:.0f} MB resident"]
                                                 if d.get("memory_mb") else []):
                click.echo(f"  {line}")
    if not found:
        sys.exit(1)


def _daemon_lines(state: dict) -> list[str]:
    """`vault watch --status`'s details, from the daemon's `about` reply (absent from older daemons)."""
    if "uptime" not in state:
        return []
    idle = float(state.get("idle_exit") or 0)
    ago = state.get("last_request_ago")
    memory = state.get("memory_mb") or {}
    shared = bool(state.get("shared"))
    lines = [f"vault: {state.get('vault')}",
             ("served by your daemon " if shared else "")
             + f"{'for' if shared else 'up'} {_duration(state['uptime'])}; "
             + (f"{'closed' if shared else 'exits'} after {_duration(idle)} without a request" if idle
                else ("served" if shared else "runs") + " until `vault watch --stop`"),
             f"requests: {state.get('requests', 0)}, last "
             + (f"{_duration(ago)} ago" if ago is not None else "none yet"),
             f"index generation {state.get('generation') if state.get('generation') is not None else '?'}, "
             f"{state.get('pending', 0)} pending" + (", catching up" if state.get("warming_up") else ""),
             f"model: {state.get('model') or 'none'}" + ("" if state.get("model_ready", True) else " (loading)"),
             "English pipeline: " + (", ".join(state.get("nlp") or []) or "not loaded (loads at the first sleep)")]
    if memory.get("VmRSS") is not None:
        lines.append(f"memory: {memory['VmRSS']:.0f} MB resident (peak {memory.get('VmHWM', 0):.0f} MB)"
                     + (" for every vault it serves" if shared else ""))
    if state.get("index_mb") is not None:
        lines.append(f"index: {state['index_mb']:.1f} MB (what this vault holds open)")
    return lines


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m" + (f" {seconds % 60}s" if seconds % 60 else "")
    return f"{seconds // 3600}h" + (f" {seconds % 3600 // 60}m" if seconds % 3600 // 60 else "")


@cli.group(hidden=True)
def hook() -> None:
    """Entry points for git hooks (installed by `vault init`)."""


@hook.command("post-commit")
@click.option("--commit", "sha", help="The commit to reindex (default HEAD).")
@with_vault
def hook_post_commit(vault: Vault, sha: str | None) -> None:
    """Reindex the files a commit changed: through the daemon if it runs, else here. Never fails."""
    from sheriff_vault.daemon.freshness import after_commit

    after_commit(vault, sha)


@hook.command("reconcile")
@click.option("--event", default="post-merge", help="The git hook that called (for the log).")
@click.option("--from", "before", help="Where HEAD was before git moved it (a commit or ref).")
@with_vault
def hook_reconcile(vault: Vault, event: str, before: str | None) -> None:
    """Bring the index to HEAD after a merge, checkout or rebase (git diff from the indexed commit). Never fails."""
    from sheriff_vault.daemon.freshness import reconcile

    reconcile(vault, event, before)
