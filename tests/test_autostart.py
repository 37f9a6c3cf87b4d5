"""`vault recall` with no daemon starts one (exactly one, however many recalls race), answers at once
from BM25 while the model loads, and the daemon exits when idle; real processes throughout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_vault, set_daemon_settings, wait_for
from memory_fixtures import build

from sheriff_vault.daemon import lifecycle, rpc

NOW = "2026-02-20T03:21:00Z"


def daemons_of(root: Path) -> list[int]:
    """Pids of the daemons serving this vault (one per user serves every vault, so the vault is no
    longer in a daemon's command line: lifecycle.daemons reads what the user's daemon serves)."""
    return sorted({d["pid"] for d in lifecycle.daemons(root)})


def recall_json(root: Path, query: str = "the party") -> dict:
    out = run_vault("recall", query, "--vault", root, "--now", NOW, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_ten_racing_recalls_start_exactly_one_daemon(hash_vault, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-m", "sheriff_vault", "recall", "the party", "--vault",
                               str(hash_vault.root), "--now", NOW, "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(10)]
    replies = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        replies.append(json.loads(out))
    assert {r["via"] for r in replies} == {"daemon"}  # the hash embedder has no model to wait for
    assert all(r["topics"][0]["name"] == "Caroline's birthday party" for r in replies)
    running = daemons_of(hash_vault.root)
    assert len(running) == 1
    assert rpc.read_state(hash_vault)["pid"] == running[0]
    assert (hash_vault.cache / "daemon.pid").read_text().strip() == str(running[0])


def test_watch_stop_stops_an_autostarted_daemon(hash_vault, autostart):
    build(hash_vault)
    autostart(hash_vault.root)
    assert recall_json(hash_vault.root)["via"] == "daemon"
    assert len(daemons_of(hash_vault.root)) == 1
    stopped = run_vault("watch", "--stop", "--vault", hash_vault.root)
    assert stopped.stdout.strip() == "stopped"
    assert not daemons_of(hash_vault.root)
    assert not (hash_vault.cache / "daemon.json").exists()


def test_an_idle_daemon_exits_by_itself(hash_vault, autostart):
    vault = set_daemon_settings(hash_vault, idle_exit_seconds=1.5)
    build(vault)
    autostart(vault.root)
    assert recall_json(vault.root)["via"] == "daemon"
    # The daemon stops listing the vault before it closes it (a request from then on opens it anew),
    # so its own daemon.json goes a moment later: both are waited for, neither is assumed.
    wait_for(lambda: not daemons_of(vault.root) and not (vault.cache / "daemon.json").exists(), timeout=60,
             what="the idle daemon exits and removes its daemon.json")
    assert "no request for" in (vault.logs / "daemon.log").read_text()


def test_autostart_off_in_vault_yaml_answers_in_process(hash_vault, autostart):
    vault = set_daemon_settings(hash_vault, autostart=False)
    build(vault)
    autostart(vault.root)
    assert recall_json(vault.root)["via"] == "process"
    assert not daemons_of(vault.root)


def test_an_explicit_watch_does_not_exit_when_idle(hash_vault, autostart):
    vault = set_daemon_settings(hash_vault, idle_exit_seconds=0.5)
    autostart(vault.root)
    assert run_vault("watch", "--vault", vault.root).returncode == 0
    pid = rpc.read_state(vault)["pid"]
    with pytest.raises(AssertionError):
        wait_for(lambda: not rpc.pid_alive(pid), timeout=3, what="the daemon exits")


@pytest.mark.slow
def test_first_recall_answers_from_bm25_while_the_model_loads(vault, autostart, monkeypatch):
    """Then hybrid once the model is up; with the default backend (onnx) the daemon runs the model
    without ever loading torch (index/onnxmodel.py exports it in a child process). The pause keeps
    the model loading long enough to ask (an ONNX load often beats the first recall)."""
    monkeypatch.setenv("SHERIFF_VAULT_PAUSE", "model:loading:15")
    build(vault)
    autostart(vault.root)
    first = recall_json(vault.root, "the migration dry run")
    assert first["via"] == "bm25-only, warming"
    assert first["topics"][0]["name"] == "Database migration"
    wait_for(lambda: (rpc.call(vault, "ping") or {}).get("ready"), timeout=180, what="the model loads")
    later = recall_json(vault.root, "the migration dry run")
    assert later["via"] == "daemon"
    assert later["topics"][0]["name"] == "Database migration"
    maps = Path(f"/proc/{rpc.read_state(vault)['pid']}/maps").read_text()
    assert "onnxruntime" in maps and "libtorch" not in maps and "/torch/" not in maps
