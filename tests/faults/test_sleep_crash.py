"""SIGKILL a real `vault sleep` at every named fault point and at random times.

After each kill: the next command recovers a half-done sleep with a one-line note; git status is
clean, and either no commit landed or exactly one did, equal to a clean run's (same files, same
bytes once random topic ids are masked); `vault doctor` passes; the next sleep succeeds; and no
turn is lost (still in the buffer, archived, and every citation a clean run makes is there).

Scenario A sleeps examples/conversation.jsonl into a fresh vault (topics created). Scenario B is
a second sleep that updates topics (tracked files a rollback restores from git) and starts with
the search index deleted, so the index fault points fire before the journal as well as after it.

Random runs: SHERIFF_VAULT_FAULT_RUNS (default 40) and SHERIFF_VAULT_FAULT_SEED (default 6).
SHERIFF_VAULT_FAULT_REPORT=FILE appends one JSON line per run (benchmarks/RELIABILITY.md).
"""
from __future__ import annotations

import os
import random

import pytest
from faultkit import EDIT_POINTS, INDEX_POINTS, SLEEP_POINTS, crash_and_check, record, scenario, workdir

from sheriff_vault import faults

pytestmark = pytest.mark.slow
RUNS = int(os.environ.get("SHERIFF_VAULT_FAULT_RUNS", "40"))
SEED = int(os.environ.get("SHERIFF_VAULT_FAULT_SEED", "6"))


def test_every_named_fault_point_is_covered():
    """If someone adds a fault point, this suite must kill there too. `model:loading` only holds a
    daemon's model load (SHERIFF_VAULT_PAUSE, tests/test_autostart.py), `daemon:starting` a daemon
    before it answers (tests/test_daemon_lifetime.py): nothing is written there."""
    assert set(faults.POINTS) == (set(SLEEP_POINTS) | set(INDEX_POINTS) | set(EDIT_POINTS)
                                  | {"model:loading", "daemon:starting"})


@pytest.mark.parametrize("name", ["A", "B"])
@pytest.mark.parametrize("point", SLEEP_POINTS + INDEX_POINTS)
def test_kill_at_named_point(name, point):
    run = crash_and_check(scenario(name), workdir() / f"named-{name}-{point.replace(':', '-')}", fault=point)
    record([run], "named")
    if point in ("sleep:journaled", "sleep:half-written", "sleep:written"):
        assert run.outcome == "rolled back" and "rolled back" in run.recovery
    if point in ("sleep:committed", "sleep:trimmed"):
        assert run.outcome.startswith("finished")


@pytest.mark.parametrize("point", ["sleep:half-written"])
def test_kill_with_the_real_embedding_model(point):
    """The same checks with embeddings on (the default configuration): a rolled-back sleep redone with
    the model must write exactly what a clean run with the model writes."""
    run = crash_and_check(scenario("A", model=True), workdir() / f"model-{point.replace(':', '-')}", fault=point)
    record([run], "model")
    assert run.outcome == ("rolled back" if point == "sleep:half-written" else "finished (commit had landed)")


def _plan(n: int, seed: int) -> list[dict]:
    """Stratified kill times: half spread over the whole run (start-up to exit), half in the short
    write-and-commit window (measured from the moment the journal appears); every other run kills
    only the sleep process, so its git child and hook are orphaned mid-work."""
    rng = random.Random(seed)
    plan = []
    for i in range(n):
        name = "AB"[i % 2]
        group = (i // 2) % 2 == 0
        if i % 4 < 2:
            lo, hi = (i // 4) / max(1, (n + 3) // 4), (i // 4 + 1) / max(1, (n + 3) // 4)
            plan.append({"name": name, "group": group, "delay_share": 0.1 + 1.0 * rng.uniform(lo, hi)})
        else:
            plan.append({"name": name, "group": group, "after_journal": rng.uniform(0.0, 0.06)})
    return plan


@pytest.mark.parametrize("i", range(RUNS))
def test_kill_at_random_time(i):
    step = _plan(RUNS, SEED)[i]
    scn = scenario(step["name"])
    where = workdir() / f"random-{i}"
    if "delay_share" in step:
        run = crash_and_check(scn, where, delay=step["delay_share"] * scn.seconds, group=step["group"])
    else:
        run = crash_and_check(scn, where, after_journal=step["after_journal"], group=step["group"])
    record([run], "random")
