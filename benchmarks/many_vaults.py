"""Many vaults recalled in turn (issue 29): the memory of every vault process, recall per vault, and
the first answer from a vault not yet open, as a person with a vault per project meets them.

    python benchmarks/many_vaults.py                         # 10 vaults of 1,000 topics
    python benchmarks/many_vaults.py --vaults 3 --topics 200 --queries 20

Makes one synthetic vault (benchmarks/synthetic.py) and copies it (files, git, embedding cache) to
the others, each indexed in this process. Then:
1. one vault alone: `vault watch`, `--queries` recalls through its daemon (p50), and the resident
   memory (VmRSS) of every vault daemon process: the one-vault figure;
2. each other vault in turn, as `vault recall` meets it: the first `vault recall --json` with no
   daemon serving it (autostart on; the user's daemon opens it), timed as a whole process (the
   switch), then the same recalls;
3. with every vault open, one more round of recalls per vault, and the memory of every vault
   daemon process summed, against the one-vault figure (issue 29's target: <= 1.3x): VmRSS,
   and its anonymous and file-backed parts apart (`memory_ratio_anon`, `memory_ratio_file`).
Its daemon listens in a runtime folder of its own (XDG_RUNTIME_DIR under the work folder). Stops
every daemon it started (`lifecycle.stop_all` under its work folder) and fails naming any still
running. Prints one JSON object; figures are reported, never asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))

from benchmarks.recall_speed import (  # noqa: E402
    NOW_ISO,
    bench_env,
    daemon_recall,
    loadavg,
    log,
    rebuild,
    start_daemon,
    stop_left,
    vault_cmd,
)
from benchmarks.synthetic import generate  # noqa: E402
from sheriff_vault.daemon import lifecycle, rpc  # noqa: E402
from sheriff_vault.store.vault import Vault  # noqa: E402


def copy_vault(source: Path, dest: Path) -> Vault:
    """The vault's files, git and embedding cache; not its index, logs, locks or daemon files."""
    def skip(folder: str, names: list[str]) -> set[str]:
        own = Path(folder).name == ".vault"
        return {n for n in names if n.endswith(".lock") or n.startswith("daemon.")
                or (own and n in ("index", "logs"))}

    shutil.copytree(source, dest, symlinks=True, ignore=skip)
    return Vault(dest)


def resident_mb(folder: Path) -> dict:
    """Resident memory of every vault daemon process serving a vault under `folder` (the user's
    daemon counted once, however many vaults it serves), summed, and per process with the vaults it
    serves. `total` is VmRSS; its two parts are kept apart: `anon` (RssAnon: heap, model weights,
    copies of vectors) and `file` (RssFile: pages of mapped files, the vector files a snapshot maps
    included; the kernel can drop them and read them again)."""
    vaults: dict[int, list[str]] = {}
    for daemon in lifecycle.daemons(folder):
        vaults.setdefault(daemon["pid"], []).append(Path(daemon["vault"]).name)
    each, anon, mapped = {}, 0.0, 0.0
    for pid, names in vaults.items():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        kb = {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in status.splitlines())
              if k in ("VmRSS", "RssAnon", "RssFile")}
        each[f"pid {pid}: " + ", ".join(sorted(names))] = round(kb.get("VmRSS", 0) / 1024, 1)
        anon += kb.get("RssAnon", 0) / 1024
        mapped += kb.get("RssFile", 0) / 1024
    return {"total": round(sum(each.values()), 1), "anon": round(anon, 1), "file": round(mapped, 1),
            "processes": len(each), "each": each}


def p50(seconds: list[float]) -> float:
    """The median, in milliseconds."""
    return round(statistics.median(seconds) * 1000, 2)


def switch(vault: Vault, query: str) -> dict:
    """The first `vault recall --json` in a vault with no daemon (autostart on): whole-process seconds,
    how it answered, then the seconds until its daemon's model is loaded."""
    env = bench_env()
    env.pop("SHERIFF_VAULT_AUTOSTART")
    t0 = time.perf_counter()
    out = subprocess.run([*vault_cmd(), "recall", query, "--vault", str(vault.root), "--now", NOW_ISO, "--json"],
                         capture_output=True, text=True, env=env, timeout=600)
    first = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"recall in {vault.root} failed: {out.stderr[-500:]}")
    via = json.loads(out.stdout).get("via")
    while not (rpc.call(vault, "ping", timeout=5) or {}).get("ready") and time.perf_counter() - t0 < 600:
        time.sleep(0.1)
    return {"first_answer_s": round(first, 2), "via": via, "model_ready_s": round(time.perf_counter() - t0, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vaults", type=int, default=10)
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="many-vaults-"))
    # The user's daemon of this run listens in a runtime folder of its own: the benchmark never asks,
    # or stops, the person's daemon (or another benchmark's), and stop_all(work) stops exactly its own.
    os.environ["XDG_RUNTIME_DIR"] = str(work / "run")
    out: dict = {"vaults": args.vaults, "topics": args.topics, "queries": args.queries, "loadavg_start": loadavg()}
    try:
        t0 = time.perf_counter()
        syn = generate(work / "v00", args.topics)
        vaults = [Vault(work / "v00")]
        rebuild(vaults[0], syn.facts, cold=False)
        for i in range(1, args.vaults):
            vaults.append(copy_vault(work / "v00", work / f"v{i:02d}"))
            rebuild(vaults[-1], syn.facts, cold=False)
        out["setup_s"] = round(time.perf_counter() - t0, 1)
        log(f"{args.vaults} vaults of {args.topics} topics made and indexed in {out['setup_s']} s")
        queries = syn.queries(args.queries)

        start_daemon(vaults[0])
        daemon_recall(vaults[0], syn.queries(10, seed=1))  # warm-up, not counted
        out["one_vault"] = {"recall_p50_ms": p50(daemon_recall(vaults[0], queries)[0]),
                            "resident_mb": resident_mb(work)}
        log(f"one vault: {out['one_vault']}")

        out["switch"], out["in_turn_p50_ms"] = {}, {}
        for vault in vaults[1:]:
            out["switch"][vault.root.name] = switch(vault, queries[0])
            out["in_turn_p50_ms"][vault.root.name] = p50(daemon_recall(vault, queries)[0])
            log(f"{vault.root.name}: {out['switch'][vault.root.name]}, p50 {out['in_turn_p50_ms'][vault.root.name]} ms")
        out["all_open_p50_ms"] = {v.root.name: p50(daemon_recall(v, queries)[0]) for v in vaults}
        out["all_open_resident_mb"] = resident_mb(work)
        one = out["one_vault"]["resident_mb"]["total"]
        out["memory_ratio"] = round(out["all_open_resident_mb"]["total"] / one, 2) if one else None
        for part in ("anon", "file"):
            first = out["one_vault"]["resident_mb"][part]
            out[f"memory_ratio_{part}"] = round(out["all_open_resident_mb"][part] / first, 2) if first else None
        if args.vaults > 1:  # what each vault opened after the first added, by part
            out["added_per_vault_mb"] = {part: round((out["all_open_resident_mb"][part]
                                                      - out["one_vault"]["resident_mb"][part]) / (args.vaults - 1), 2)
                                         for part in ("total", "anon", "file")}
        p50s = list(out["all_open_p50_ms"].values())
        out["all_open_p50_of_p50s_ms"] = statistics.median(p50s)
        out["worst_p50_vs_one_vault"] = round(max(p50s) / out["one_vault"]["recall_p50_ms"], 2)
        firsts = [s["first_answer_s"] for s in out["switch"].values()]
        out["switch_first_answer_s"] = {"p50": statistics.median(firsts), "max": max(firsts)} if firsts else None
        out["loadavg_end"] = loadavg()
    finally:
        stopped = lifecycle.stop_all(work)
        log(f"stopped {len(stopped)} daemon(s)")
        left = stop_left(work)
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out, indent=2))
    if left:
        raise SystemExit(f"{len(left)} daemon(s) were still running after the stop; stopped them")


if __name__ == "__main__":
    main()
