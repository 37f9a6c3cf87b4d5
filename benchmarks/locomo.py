"""LoCoMo evidence recall at a fixed context budget: the vault against raw-turn retrieval.

    python benchmarks/locomo.py ../shared/bench/locomo [--sessions N] [--questions N]

Prints a Markdown table and one summary line per method; writes benchmarks/results/locomo.{md,json}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.locomo_harness import report_markdown, run, summary_lines  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--sessions", type=int, help="only the first N sessions of each conversation")
    parser.add_argument("--questions", type=int, help="only the first N answerable questions of each")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    started = time.time()
    report = run(args.folder, limit_sessions=args.sessions, limit_questions=args.questions,
                 progress=(lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True)))
    report["seconds"] = round(time.time() - started, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    table = report_markdown(report)
    (args.out / "locomo.json").write_text(json.dumps(report, indent=2))
    (args.out / "locomo.md").write_text(table + "\n")
    print(table)
    print()
    for line in summary_lines(report):
        print(line)
    print(f"total {report['seconds']}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
