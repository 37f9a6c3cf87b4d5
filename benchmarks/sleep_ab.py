"""Two trees' 300-turn `vault sleep` with the daemon up, taken in turns, for a machine shared with
other work: recall_speed.py's sleep phase (its synthetic 1,000-topic vault, turns and --now) run
from the shell against a daemon per tree, each in a runtime folder of its own (the user's daemon
would otherwise serve both vaults, or another person's vaults, with one tree's code).

    python benchmarks/sleep_ab.py TREE_A TREE_B [--rounds 2]

Round r runs three sleeps back to back on each tree, A first in even rounds and B first in odd
ones (ABBA), so both meet the same load; each tree sleeps the same conversations in the same
order. Prints every sleep (seconds, load, the daemon's and the command's CPU seconds, the commit's
tree), each tree's median, whether the two wrote the same trees, and each daemon's log of its
sleeps and of the indexing after them.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
sys.path.append(str(Path(__file__).resolve().parent.parent))

from benchmarks.recall_speed import SCRIPT, SLEEP_TURNS, _word  # noqa: E402
from benchmarks.synthetic import NOW, generate  # noqa: E402
from sheriff_vault.index.engine import Index  # noqa: E402
from sheriff_vault.store.vault import Vault  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    trees = dict(zip("AB", sys.argv[1:3], strict=True))
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    work = Path(tempfile.mkdtemp(prefix="sleep-ab-"))
    syn = generate(work / "master", 1000, seed=7)
    index = Index(Vault(syn.root))
    index.rebuild()
    index.close()
    side: dict[str, dict] = {}
    try:
        for name, tree in trees.items():
            root = work / name
            shutil.copytree(syn.root, root, symlinks=True)
            runtime = work / f"run-{name}"
            runtime.mkdir(mode=0o700)
            script = work / f"vault-{name}"
            script.write_text(SCRIPT.format(python=sys.executable))
            script.chmod(0o755)
            env = {k: v for k, v in os.environ.items() if k != "SHERIFF_VAULT"}
            env.update(PYTHONPATH=tree, XDG_RUNTIME_DIR=str(runtime), SHERIFF_VAULT_AUTOSTART="0")
            out = subprocess.run([str(script), "watch", "--vault", str(root), "--json"], capture_output=True,
                                 text=True, env=env, timeout=600)
            if out.returncode != 0:
                raise SystemExit(f"vault watch failed for {tree}: {out.stderr}")
            side[name] = {"root": root, "script": script, "env": env, "pid": json.loads(out.stdout)["pid"]}
        results = []
        for r in range(rounds):
            for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
                for k in range(3 * r, 3 * r + 3):
                    results.append(sleep_once(syn, work, side[name], name, k))
                    print(json.dumps(results[-1]), flush=True)
        for name, tree in trees.items():
            secs = [r["seconds"] for r in results if r["tree"] == name]
            print(f"{name} {tree}: median {statistics.median(secs)} s, runs {secs}")
        same = {r["sleep"]: r["written"] for r in results if r["tree"] == "A"} == \
            {r["sleep"]: r["written"] for r in results if r["tree"] == "B"}
        print("the same trees written:", same)
        for name, s in side.items():
            print(f"== {name}: the daemon's log")
            for line in (s["root"] / ".vault" / "logs" / "daemon.log").read_text().splitlines():
                if " sleep: " in line or " indexed " in line:
                    print("  ", line)
    finally:
        for s in side.values():
            subprocess.run([str(s["script"]), "watch", "--stop", "--vault", str(s["root"])], capture_output=True,
                           env=s["env"], timeout=120)
        shutil.rmtree(work, ignore_errors=True)


def sleep_once(syn, work: Path, s: dict, name: str, k: int) -> dict:
    """recall_speed._sleep_once's daemon-up sleep number `k`: the same turns and --now."""
    rng = random.Random(syn.seed + 1 + 10 * k)
    convo = work / f"turns-{name}-{k}.jsonl"
    with convo.open("w") as fh:
        for i in range(SLEEP_TURNS):
            t = syn.topics[rng.randrange(len(syn.topics))]
            text = (f"About {t.slug.replace('-', ' ')}: the {_word(i, 11 + 1 + 10 * k)} check failed again on "
                    f"{rng.choice(['Monday', 'Tuesday', 'Friday'])}, so we moved it to next week.")
            fh.write(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                                 "at": f"2026-02-19T{8 + i // 60:02d}:{i % 60:02d}:00Z"}) + "\n")
    now = (NOW + dt.timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
    load, daemon = os.getloadavg()[0], cpu_seconds(s["pid"])
    children = os.times().children_user + os.times().children_system
    start = time.perf_counter()
    out = subprocess.run([str(s["script"]), "sleep", str(convo), "--vault", str(s["root"]), "--now", now, "--json"],
                         capture_output=True, text=True, env=s["env"], timeout=1800)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"vault sleep failed: {out.stderr[-800:]}")
    commit = json.loads(out.stdout).get("commit") or ""
    tree = subprocess.run(["git", "rev-parse", f"{commit}^{{tree}}"], cwd=s["root"], capture_output=True,
                          text=True).stdout.strip()
    return {"tree": name, "sleep": k, "seconds": round(seconds, 2), "load": round(load, 2),
            "daemon CPU s": round(cpu_seconds(s["pid"]) - daemon, 2),
            "command CPU s": round(os.times().children_user + os.times().children_system - children, 2),
            "written": tree}


if __name__ == "__main__":
    main()
