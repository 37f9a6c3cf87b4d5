"""`vault watch --status` says what a running daemon serves (index generation, last request,
memory), without keeping it alive; `vault watch --stop` stops serving the vault; with `--all`, every
vault served by the user's daemon(s). Real daemons, hash embedder."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_vault, use_hash_embedder, wait_for, watching
from memory_fixtures import build

from sheriff_vault.daemon import lifecycle
from sheriff_vault.store.vault import Vault, init_vault

NOW = "2026-02-20T03:21:00Z"


def status_json(root: Path) -> dict:
    out = run_vault("watch", "--status", "--json", "--vault", root)
    data = json.loads(out.stdout)
    assert out.returncode == (0 if data["running"] else 1), out.stderr
    return data


def test_status_shows_what_the_daemon_serves_and_asking_is_not_a_request(hash_vault):
    build(hash_vault)
    with watching(hash_vault):
        before = wait_for(lambda: (s := status_json(hash_vault.root)).get("generation") is not None and s,
                          timeout=60, what="the daemon's first batch")
        assert before["running"] and before["vault"] == str(hash_vault.root)
        assert before["requests"] == 0 and before["last_request_ago"] is None
        assert before["model"].startswith("hash") and before["idle_exit"] == 0
        assert before["memory_mb"]["VmRSS"] > 10 and before["memory_mb"]["VmHWM"] >= before["memory_mb"]["VmRSS"]
        [daemon] = lifecycle.daemons(hash_vault.root)
        assert before["pid"] == daemon["pid"]

        recalled = run_vault("recall", "the party", "--now", NOW, "--vault", hash_vault.root)
        assert recalled.returncode == 0, recalled.stderr
        after = status_json(hash_vault.root)
        assert after["requests"] == 1 and after["last_request_ago"] >= 0
        assert after["generation"] >= before["generation"]

        text = run_vault("watch", "--status", "--vault", hash_vault.root)
        assert text.returncode == 0, text.stderr
        lines = text.stdout.splitlines()
        assert lines[0] == f"running, pid {daemon['pid']}, socket {after['socket']}"
        assert f"  vault: {hash_vault.root}" in lines
        assert "served until `vault watch --stop`" in text.stdout  # by your daemon, which serves every vault
        assert "requests: 1, last " in text.stdout and " ago" in text.stdout
        assert f"index generation {after['generation']}, 0 pending" in text.stdout
        assert "MB resident (peak " in text.stdout
    stopped = status_json(hash_vault.root)
    assert stopped == {"running": False}
    assert run_vault("watch", "--status", "--vault", hash_vault.root).stdout.strip() == "not running"


def test_watching_the_status_does_not_keep_an_idle_daemon_alive(hash_vault, monkeypatch):
    monkeypatch.delenv("SHERIFF_VAULT_AUTOSTART")
    path = hash_vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("idle_exit_seconds: 1800", "idle_exit_seconds: 3"))
    vault = Vault(hash_vault.root)
    assert vault.config.daemon.idle_exit_seconds == 3
    build(vault)
    try:
        assert json.loads(run_vault("recall", "the party", "--now", NOW, "--json", "--vault", vault.root).stdout)[
            "via"] == "daemon"
        first = status_json(vault.root)
        # At least the recall (the full CLI may ask again when the fast client's first try fails).
        assert first["idle_exit"] == 3 and first["requests"] >= 1
        assert "closed after 3s without a request" in run_vault("watch", "--status", "--vault", vault.root).stdout
        assert status_json(vault.root)["requests"] == first["requests"]  # asking the status is no request
        wait_for(lambda: not status_json(vault.root)["running"], timeout=60, every=0.5,
                 what="the idle daemon exits while its status is asked")
    finally:
        run_vault("watch", "--stop", "--vault", vault.root)


@pytest.mark.parametrize("as_json", [False, True])
def test_stop_says_whether_a_daemon_was_stopped(hash_vault, as_json):
    flag = ["--json"] if as_json else []
    started = run_vault("watch", "--vault", hash_vault.root)
    assert started.returncode == 0, started.stderr
    first = run_vault("watch", "--stop", *flag, "--vault", hash_vault.root)
    second = run_vault("watch", "--stop", *flag, "--vault", hash_vault.root)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    if as_json:
        assert json.loads(first.stdout) == {"stopped": True} and json.loads(second.stdout) == {"stopped": False}
    else:
        assert (first.stdout.strip(), second.stdout.strip()) == ("stopped", "not running")
    assert not lifecycle.daemons(hash_vault.root)


def own_process_table() -> bool:
    """Whether this process may run commands in a PID namespace of their own (root on Linux)."""
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "--fork", "--pid", "--mount-proc", "true"], capture_output=True).returncode == 0


# Run inside a PID namespace of its own: two daemons, the listing, a stop of all, the listing again.
# Every process left in the namespace dies with it, so nothing outlives the test even if it fails.
ALL = """
import json, os, subprocess, sys
def vault(*args):
    out = subprocess.run([sys.executable, "-m", "sheriff_vault", *args], capture_output=True, text=True, timeout=120)
    return {"rc": out.returncode, "out": out.stdout, "err": out.stderr}
a, b = sys.argv[1:3]
steps = {"start a": vault("watch", "--vault", a), "start b": vault("watch", "--vault", b)}
steps["status"] = vault("watch", "--status", "--all", "--json")
steps["status text"] = vault("watch", "--status", "--all")
os.remove(os.path.join(b, ".vault", "daemon.json"))  # b's daemon can no longer be found through its vault
steps["stop"] = vault("watch", "--stop", "--all", "--json")
steps["after"] = vault("watch", "--status", "--all")
steps["alone"] = vault("watch", "--all")
print(json.dumps(steps))
"""


@pytest.mark.skipif(not own_process_table(), reason="--all acts on every daemon of this user, so this test runs its "
                    "daemons in a PID namespace of their own, which needs `unshare --pid` (root on Linux)")
def test_status_all_lists_every_daemon_and_stop_all_stops_them(tmp_path):
    a, b = (use_hash_embedder(init_vault(tmp_path / name).vault).root for name in ("a", "b"))
    out = subprocess.run(["unshare", "--fork", "--pid", "--mount-proc", sys.executable, "-c", ALL, str(a), str(b)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    steps = json.loads(out.stdout)
    assert steps["start a"]["rc"] == 0 and steps["start b"]["rc"] == 0, steps
    status = json.loads(steps["status"]["out"])
    assert status["running"] == 2 and [d["vault"] for d in status["daemons"]] == [str(a), str(b)]
    for daemon in status["daemons"]:
        assert daemon["model"].startswith("hash") and daemon["generation"] is not None
        assert daemon["memory_mb"]["VmRSS"] > 10 and daemon["last_request_ago"] is None
    text = steps["status text"]["out"]
    # one daemon serves both vaults (issue 29)
    assert status["daemons"][0]["pid"] == status["daemons"][1]["pid"]
    assert text.startswith("1 daemon(s) running, ") and " MB resident in all, serving 2 vault(s)" in text
    assert f"pid {status['daemons'][0]['pid']}: {a}" in text and "requests: 0, last none yet" in text
    stopped = json.loads(steps["stop"]["out"])["stopped"]
    assert [d["vault"] for d in stopped] == [str(a), str(b)]  # b's too, though its daemon.json was gone
    assert steps["after"]["rc"] == 1 and steps["after"]["out"].strip() == "not running"
    assert steps["alone"]["rc"] == 2 and "--all goes with one of --status and --stop" in steps["alone"]["err"]
    assert not (a / ".vault" / "daemon.json").exists()
