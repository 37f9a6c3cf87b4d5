"""Starting, finding and stopping the watch daemon from another process, and autostart.

Kept free of numpy, tantivy, watchdog and the model: `vault recall` calls `autostart` on its way to
the socket. Exactly one daemon runs per vault: starters queue on `.vault/daemon.start.lock`, and
the daemon itself holds `.vault/daemon.lock` while it runs (a second one exits at once).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sheriff_vault.daemon import rpc
from sheriff_vault.errors import DaemonError, VaultError
from sheriff_vault.store.fsutil import remove
from sheriff_vault.store.locks import FileLock

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

AUTOSTART_ENV = "SHERIFF_VAULT_AUTOSTART"
START_LOCK = "daemon.start.lock"


def autostart_enabled(vault: Vault) -> bool:
    """SHERIFF_VAULT_AUTOSTART=0/1 when set, else `daemon.autostart` in vault.yaml."""
    value = os.environ.get(AUTOSTART_ENV, "").strip().lower()
    if value in ("0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    return vault.config.daemon.autostart


def autostart(vault: Vault, timeout: float = 30.0) -> bool:
    """Make sure a daemon answers for `vault`, starting one in the background if autostart is on
    and none runs. Returns True when one answers; its model may still be loading (it then
    answers recall from BM25 alone). Racing callers start exactly one daemon between them."""
    if not autostart_enabled(vault):
        return False
    lock = FileLock(vault.cache / START_LOCK, what="daemon start", timeout=timeout)
    try:
        lock.acquire()
    except VaultError:
        return status(vault) is not None
    try:
        if status(vault) is not None:
            return True
        start_background(vault, timeout=timeout, wait_ready=False, autostarted=True)
        return True
    except DaemonError:
        return False
    finally:
        lock.release()


def start_background(vault: Vault, timeout: float = 60.0, *, wait_ready: bool = True,
                     autostarted: bool = False) -> dict:
    """Start `vault watch --foreground` detached and wait until it answers (and, with
    `wait_ready`, until its model is loaded, so the next recall is the full hybrid one)."""
    if (running := status(vault)) is not None:
        return running | {"already": True}
    vault.logs.mkdir(parents=True, exist_ok=True)
    # One thread each for torch's OpenMP pool and numpy's OpenBLAS, which read these only as they
    # load: their idle threads spin, and on a busy 2-core machine that spinning doubled recall's
    # median latency (see Daemon.run and benchmarks/RESULTS.md). Two malloc arenas, not one per
    # request thread: each arena keeps its freed pages, and they added up in resident memory.
    # The environment can override all three.
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"} | dict(os.environ)
    cmd = [sys.executable, "-m", "sheriff_vault", "watch", "--foreground", "--vault", str(vault.root)]
    if autostarted:
        cmd.append("--autostarted")
    started = time.monotonic()
    with open(vault.logs / "daemon.out", "ab") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
                                cwd=vault.root, env=env)
    deadline = started + timeout
    answered = False
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = (vault.logs / "daemon.out").read_text(errors="replace").strip().splitlines()[-3:]
            raise DaemonError("the watch daemon exited at start: " + " / ".join(tail),
                              hint="see .vault/logs/daemon.out")
        try:
            reply = rpc.call(vault, "ping", timeout=2)
        except DaemonError:
            reply = None
        if reply and reply.get("pid") == proc.pid:
            answered = True
            if not wait_ready or reply.get("ready", True):
                return {"pid": proc.pid, "socket": str(rpc.socket_path_for(vault)), "already": False,
                        "ready": bool(reply.get("ready", True)), "seconds": round(time.monotonic() - started, 2)}
        time.sleep(0.05)
    if answered:  # up, but the model took longer than `timeout` to load: recall still answers
        return {"pid": proc.pid, "socket": str(rpc.socket_path_for(vault)), "already": False, "ready": False,
                "seconds": round(time.monotonic() - started, 2)}
    proc.terminate()  # not left running, unanswered, behind the error
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    raise DaemonError(f"the watch daemon did not answer within {timeout:.0f}s and was stopped",
                      hint="see .vault/logs/daemon.log")


def status(vault: Vault) -> dict | None:
    """The running daemon's state (pid, socket, ...), or None when none answers."""
    state = rpc.read_state(vault)
    if not state:
        return None
    if not rpc.pid_alive(int(state.get("pid", 0))):
        return None
    try:
        reply = rpc.call(vault, "ping", timeout=5)
    except DaemonError:
        return None
    return state if reply else None


def describe(vault: Vault) -> dict | None:
    """`status` and what the daemon serves (its `about` reply: index generation, last request,
    resident memory, model), or None when none answers. Asking does not count as a request."""
    state = status(vault)
    if state is None:
        return None
    try:
        about = rpc.call(vault, "about", timeout=5)
    except DaemonError:  # a daemon from before `about`: what daemon.json says
        about = None
    return state | (about or {})


def clean_stale(vault: Vault, socket_path: Path) -> None:
    for path in (socket_path, vault.cache / rpc.STATE_FILE, vault.cache / rpc.PID_FILE):
        remove(path)


def stop(vault: Vault, timeout: float = 30.0) -> bool:
    """Ask the daemon to stop (SIGTERM if it does not answer); clean a stale pid and socket, also
    when the pid they name now belongs to another process (a killed daemon's pid, reused)."""
    state = rpc.read_state(vault)
    if not state:
        return False
    pid = int(state.get("pid", 0))
    if not rpc.serves(state, vault):  # copied with the vault: the original's daemon is not ours to stop
        clean_stale(vault, rpc.socket_path_for(vault))
        return False
    if not rpc.pid_alive(pid) or not is_daemon(pid):
        clean_stale(vault, Path(state.get("socket") or rpc.socket_path_for(vault)))
        return False
    try:
        answered = rpc.call(vault, "stop", timeout=5) is not None
    except DaemonError:
        answered = False
    if not answered:  # alive but its socket is gone or it does not answer
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while rpc.pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    if rpc.pid_alive(pid):
        raise DaemonError(f"the watch daemon (pid {pid}) did not stop within {timeout:.0f}s",
                          hint=f"kill {pid}")
    return True


def describe_all(under: Path | None = None) -> list[dict]:
    """Every running watch daemon of this user (with `under`, those serving a vault inside that
    folder), by vault: pid and vault, plus what `describe` says of it (index generation, last
    request, memory) when it answers; else its resident memory as /proc tells it."""
    from sheriff_vault.store.vault import Vault

    found = []
    for daemon in daemons(under):
        entry: dict = {"pid": daemon["pid"], "vault": daemon["vault"]}
        try:
            state = describe(Vault(Path(daemon["vault"])))
        except VaultError:
            state = None
        if state and int(state.get("pid", 0)) == daemon["pid"]:
            entry |= state
        elif (rss := _resident_mb(daemon["pid"])) is not None:
            entry["memory_mb"] = {"VmRSS": rss}
        found.append(entry)
    return sorted(found, key=lambda d: (d["vault"], d["pid"]))


def stop_all(under: Path | None = None, timeout: float = 30.0) -> list[dict]:
    """Stop every watch daemon of this user (with `under`, those serving a vault inside that
    folder): politely through its vault (`stop`), then with SIGTERM/SIGKILL if it is still running
    (its vault gone or unreadable, or it does not answer). Returns the pid and vault of each."""
    from sheriff_vault.store.vault import Vault

    stopped = []
    for daemon in daemons(under):
        pid = daemon["pid"]
        try:
            stop(Vault(Path(daemon["vault"])), timeout=timeout)
        except VaultError:
            pass
        if rpc.pid_alive(pid):
            terminate([pid])
        stopped.append({"pid": pid, "vault": daemon["vault"]})
    return sorted(stopped, key=lambda d: (d["vault"], d["pid"]))


def _resident_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def command_line(pid: int) -> list[str] | None:
    """The process's arguments (from /proc), or None when it is gone or they cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0")[:-1]] if raw else None


def is_daemon(pid: int) -> bool:
    """True when `pid` runs a watch daemon (`... sheriff_vault watch --foreground` or `vault watch
    --foreground`), or when that cannot be told (no /proc); False for any other process."""
    if not Path("/proc/self/cmdline").exists():
        return True
    argv = command_line(pid)
    return argv is not None and _daemon_vault(pid, argv) is not None


def daemons(under: Path | None = None) -> list[dict]:
    """The running watch daemons of this user (pid, vault, argv), read from /proc; with `under`,
    only those serving a vault inside that folder (as a test run's or a benchmark's cleanup lists
    what it left). Empty where there is no /proc."""
    found = []
    base = Path(os.path.realpath(under)) if under is not None else None
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != os.getuid():  # another user's daemon is not ours to list
                continue
        except OSError:
            continue
        argv = command_line(int(entry))
        root = _daemon_vault(int(entry), argv) if argv else None
        if root is None or not rpc.pid_alive(int(entry)):
            continue
        if base is not None and not (root == base or base in root.parents):
            continue
        found.append({"pid": int(entry), "vault": str(root), "argv": argv})
    return found


def terminate(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Stop these daemon processes: SIGTERM (a clean stop), then SIGKILL for any still running after
    `timeout` seconds. Returns the pids that had to be killed. For cleanups that found daemons
    left behind (tests, benchmarks); `stop` is the polite way for one vault."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(rpc.pid_alive(pid) for pid in pids):
        time.sleep(0.1)
    killed = [pid for pid in pids if rpc.pid_alive(pid)]
    for pid in killed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return killed


def _daemon_vault(pid: int, argv: list[str]) -> Path | None:
    """The vault folder a daemon's arguments name (`--vault`, else its working folder), or None when
    `argv` is not a watch daemon's."""
    if "watch" not in argv or "--foreground" not in argv:
        return None
    program = argv[: argv.index("watch")]
    if "sheriff_vault" not in program and not any(Path(arg).name == "vault" for arg in program):
        return None
    args = argv[argv.index("watch") + 1:]
    value = next((a.split("=", 1)[1] for a in args if a.startswith("--vault=")), None)
    if value is None and "--vault" in args[:-1]:
        value = args[args.index("--vault") + 1]
    try:
        here = Path(os.readlink(f"/proc/{pid}/cwd").removesuffix(" (deleted)"))
    except OSError:
        here = Path("/")
    return Path(os.path.realpath(here / os.path.expanduser(value))) if value else here
