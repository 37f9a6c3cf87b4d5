"""`vault bench locomo DIR`: the LoCoMo quality benchmark from the command line."""
from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .cli import cli, emit_json, json_option


@cli.group()
def bench() -> None:
    """Benchmarks (also runnable as scripts in benchmarks/)."""


@bench.command("locomo")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--sessions", type=click.IntRange(1, 1000), help="Only the first N sessions of each conversation.")
@click.option("--questions", type=click.IntRange(1, 100000), help="Only the first N answerable questions of each.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("benchmarks/results"),
              show_default=True, help="Where locomo.md and locomo.json go.")
@json_option
def bench_locomo(folder: Path, sessions: int | None, questions: int | None, out: Path, as_json: bool) -> None:
    """Evidence recall at 1000/2000/4000 characters: the vault against raw-turn BM25, dense and fusion."""
    from .bench_locomo import report_markdown, run, summary_lines

    started = time.time()
    report = run(folder, limit_sessions=sessions, limit_questions=questions,
                 progress=lambda m: click.echo(m, err=True))
    report["seconds"] = round(time.time() - started, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "locomo.json").write_text(json.dumps(report, indent=2))
    (out / "locomo.md").write_text(report_markdown(report) + "\n")
    if as_json:
        emit_json(report)
        return
    click.echo(report_markdown(report))
    click.echo()
    for line in summary_lines(report):
        click.echo(line)
