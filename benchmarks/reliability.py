"""The fault suite's figures for benchmarks/RELIABILITY.md: kills injected, how each ended, what
the next command did, and whether every test of the suite passed.

    python benchmarks/reliability.py                  # runs tests/faults, then summarises
    python benchmarks/reliability.py --report FILE    # only summarise an earlier run's JSON lines

The kills themselves are checked by the tests (clean git status, doctor passes, the next sleep
works, every turn still in the buffer or archived and cited); this script counts them.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_suite(report: Path, extra: list[str]) -> tuple[int, str, float]:
    env = dict(os.environ, SHERIFF_VAULT_FAULT_REPORT=str(report))
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/faults",
                           "tests/test_guard.py", "tests/test_tools_sandbox.py", "tests/test_properties.py", *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    summary = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode, summary, time.monotonic() - started


def summarise(report: Path) -> str:
    runs = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    killed = [r for r in runs if r.get("killed")]
    lines = [f"- {len(runs)} sleeps run under a fault, {len(killed)} of them killed with SIGKILL "
             f"({sum(r['test'] == 'named' for r in runs)} at named points, "
             f"{sum(r['test'] == 'random' for r in runs)} at random times, "
             f"{sum(r['test'] == 'model' for r in runs)} with the embedding model on)"]
    for title, key in (("where the kill landed", "stage"), ("how the vault ended", "outcome")):
        counts = collections.Counter(r.get(key) or "?" for r in runs)
        lines.append(f"- {title}: " + "; ".join(f"{k}: {n}" for k, n in counts.most_common()))
    notices = collections.Counter((r.get("recovery") or "no notice needed").split(" (")[0] for r in runs)
    lines.append("- the next command said: " + "; ".join(f"\"{k}\": {n}" for k, n in notices.most_common()))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", type=Path, help="summarise this JSON-lines report instead of running the suite")
    ap.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    args = ap.parse_args()
    if args.report:
        print(summarise(args.report))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "faults.jsonl"
        code, summary, seconds = run_suite(report, args.pytest_args)
        print(f"- pytest: {summary} ({seconds / 60:.1f} min)")
        if report.exists():
            print(summarise(report))
    return code


if __name__ == "__main__":
    sys.exit(main())
