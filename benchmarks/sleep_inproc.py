"""The sleep-quality scorer (../shared/bench/sleep/sleep_quality.py), run in one process.

The scorer calls `vault init|sleep|recall|wake` as separate processes, each paying Python's start
and the model's load (about 40 s a conversation). Here the same scorer runs unchanged, except that
its `run()` invokes the `vault` CLI in this process through click's test runner: the model and the
NLP pipeline load once, so every labelled set in both modes takes minutes, not most of an hour.
Figures are the scorer's own; `make sleep-quality` (separate processes) remains the one of record.

    python benchmarks/sleep_inproc.py DIR [DIR ...] [--sessions] [--both] [--only conv5,conv21] [--quiet] [--keep]
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ["SHERIFF_VAULT_AUTOSTART"] = "0"  # recall answers here, not from a daemon per throwaway vault

SCORER = Path(__file__).resolve().parents[2] / "shared" / "bench" / "sleep" / "sleep_quality.py"


def load_scorer(path: Path = SCORER) -> ModuleType:
    spec = importlib.util.spec_from_file_location("sleep_quality", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"no scorer at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def in_process(vault_bin: str, args: list[str], cwd: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`vault ARGS` in `cwd`, run by this process's CLI; the scorer reads only rc, stdout, stderr."""
    from click.testing import CliRunner

    from sheriff_vault.cli import cli

    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
    finally:
        os.chdir(here)
    err = result.stderr if result.stderr_bytes is not None else ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        err += f"\n{type(result.exception).__name__}: {result.exception}"
    return subprocess.CompletedProcess([vault_bin, *args], result.exit_code, result.stdout, err)


def main(argv: list[str]) -> None:
    dirs = [a for a in argv if not a.startswith("--") and not a.startswith("conv")]
    only = next((a.split("=", 1)[1] for a in argv if a.startswith("--only=")), "")
    modes = [False, True] if "--both" in argv else ["--sessions" in argv]
    quiet = "--quiet" in argv
    scorer = load_scorer()
    scorer.run = in_process
    for d in dirs:
        for sessions in modes:
            src = d
            if only:
                src = _subset(d, only.split(","))
            sys.argv = ["sleep_quality.py", sys.executable, src] + (["--sessions"] if sessions else []) \
                + (["--keep"] if "--keep" in argv else [])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                scorer.main()
            text = out.getvalue()
            if quiet:
                keep = text.split("== per conversation", 1)[-1]
                print(f"# {d} ({'sessions' if sessions else 'one sleep'})\n== per conversation{keep}")
            else:
                print(text)


def _subset(d: str, names: list[str]) -> str:
    import tempfile

    out = tempfile.mkdtemp(prefix="sleepq-only.")
    for name in names:
        for suffix in (".jsonl", ".gold.json"):
            src = Path(d) / f"{name}{suffix}"
            if src.exists():
                os.symlink(src.resolve(), Path(out) / src.name)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
