"""Starting, finding and stopping the watch daemon from another process, and autostart.

Kept free of numpy, tantivy, watchdog and the model: `vault recall` calls `autostart` on its way to
the socket. One daemon per user serves every vault (`vault watch --foreground --shared`, socket and
daemon.json in the runtime folder, daemon/runtime.py); starters queue on the runtime folder's
daemon.start.lock and it holds daemon.lock there, so racing starters start one. Each vault is
served by one daemon at most: a vault's starters queue on `.vault/daemon.start.lock`, and whichever
daemon serves it holds `.vault/daemon.lock` (a pinned `vault watch --foreground` one included).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sheriff_vault.daemon import rpc, runtime
from sheriff_vault.errors import DaemonError, VaultError
from sheriff_vault.store.fsutil import remove
from sheriff_vault.store.locks import FileLock

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

AUTOSTART_ENV = "SHERIFF_VAULT_AUTOSTART"
START_LOCK = "daemon.start.lock"
SHARED = "--shared"  # the user's daemon's argument (`vault watch --foreground --shared`)


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
    """Have a daemon serve `vault` and wait until it answers (and, with `wait_ready`, until its model
    is loaded, so the next recall is the full hybrid one): the user's daemon, started if none runs,
    or with `daemon.shared: false` a daemon of this vault alone. A vault opened by recall
    (`autostarted`) closes after `daemon.idle_exit_seconds` idle; by `vault watch`, it is served
    until `vault watch --stop`."""
    if (running := status(vault)) is not None:
        if not autostarted and running.get("socket") == str(runtime.socket_path()):
            host_call("open", {"idle_exit": 0}, vault)  # recall opened it: now served until --stop
        return running | {"already": True}
    if not vault.config.daemon.shared:
        return _start_pinned(vault, timeout, wait_ready=wait_ready, autostarted=autostarted)
    started = time.monotonic()
    idle = vault.config.daemon.idle_exit_seconds if autostarted else 0.0
    reply = None
    for _attempt in range(3):  # the daemon may be exiting, its last vault just closed: start another
        host = ensure_host(timeout)
        try:
            reply = host_call("open", {"idle_exit": idle}, vault, timeout=timeout)
        except DaemonError as exc:
            if "stopping" not in exc.message:
                raise
            reply = None
        if reply is not None:
            break
        deadline = time.monotonic() + 10
        while rpc.pid_alive(int(host["pid"])) and time.monotonic() < deadline:
            time.sleep(0.05)
    if reply is None:
        raise DaemonError("your watch daemon would not serve this vault",
                          hint=f"see {runtime.runtime_dir() / 'daemon.log'}")
    deadline = started + timeout
    while wait_ready and not reply.get("ready", True) and time.monotonic() < deadline:
        time.sleep(0.05)
        reply = rpc.call(vault, "ping", timeout=5) or reply
    return {"pid": int(reply["pid"]), "socket": str(runtime.socket_path()), "already": False,
            "ready": bool(reply.get("ready", True)), "seconds": round(time.monotonic() - started, 2)}


def host_state() -> dict | None:
    """The user's daemon's daemon.json (pid, socket, vaults served), None when it does not run."""
    try:
        state = json.loads((runtime.runtime_dir() / rpc.STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if rpc.pid_alive(int(state.get("pid", 0))) else None


def host_call(op: str, args: dict | None = None, vault: Vault | None = None, *, timeout: float = 5.0,
              socket_path: Path | None = None) -> dict | None:
    """One request to the user's daemon (about a vault, or with none about itself); None when it
    does not listen."""
    request: dict = {"op": op, "args": args or {}}
    if vault is not None:
        request["vault"] = str(vault.root)
    return rpc.call_socket(str(socket_path or runtime.socket_path()), request, timeout=timeout)


def ensure_host(timeout: float = 60.0) -> dict:
    """The user's daemon, started in the background when none answers (racing starters start one)."""
    folder = runtime.private_dir()
    if (up := _host_up()) is not None:
        return up
    with FileLock(folder / START_LOCK, what="daemon start", timeout=timeout):
        if (up := _host_up()) is not None:
            return up
        started = time.monotonic()
        proc = _spawn([sys.executable, "-m", "sheriff_vault", "watch", "--foreground", SHARED], cwd=folder,
                      out=folder / "daemon.out")
        deadline = started + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise DaemonError("the watch daemon exited at start: " + _tail(folder / "daemon.out"),
                                  hint=f"see {folder / 'daemon.out'}")
            try:
                reply = host_call("ping", timeout=2)
            except DaemonError:
                reply = None
            if reply and reply.get("pid") == proc.pid:
                return {"pid": proc.pid, "socket": str(runtime.socket_path()),
                        "seconds": round(time.monotonic() - started, 2)}
            time.sleep(0.05)
        _terminate_child(proc)
        raise DaemonError(f"the watch daemon did not answer within {timeout:.0f}s and was stopped",
                          hint=f"see {folder / 'daemon.log'}")


def _host_up() -> dict | None:
    if host_state() is None:
        return None
    try:
        reply = host_call("ping", timeout=5)
    except DaemonError:
        return None
    return reply if reply and reply.get("shared") else None


def _spawn(cmd: list[str], *, cwd: Path, out: Path) -> subprocess.Popen:
    # One thread each for torch's OpenMP pool and numpy's OpenBLAS, which read these only as they
    # load: their idle threads spin, and on a busy 2-core machine that spinning doubled recall's
    # median latency (see Daemon.run and benchmarks/RESULTS.md). Two malloc arenas, not one per
    # request thread: each arena keeps its freed pages, and they added up in resident memory.
    # The environment can override all three.
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"} | dict(os.environ)
    with open(out, "ab") as fh:
        return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fh, stderr=fh, start_new_session=True,
                                cwd=cwd, env=env)


def _tail(path: Path) -> str:
    return " / ".join(path.read_text(errors="replace").strip().splitlines()[-3:])


def _terminate_child(proc: subprocess.Popen) -> None:
    """Not left running, unanswered, behind an error."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _start_pinned(vault: Vault, timeout: float, *, wait_ready: bool, autostarted: bool) -> dict:
    """A daemon of this vault alone (`daemon.shared: false`)."""
    vault.logs.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "sheriff_vault", "watch", "--foreground", "--vault", str(vault.root)]
    if autostarted:
        cmd.append("--autostarted")
    started = time.monotonic()
    proc = _spawn(cmd, cwd=vault.root, out=vault.logs / "daemon.out")
    deadline = started + timeout
    answered = False
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise DaemonError("the watch daemon exited at start: " + _tail(vault.logs / "daemon.out"),
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
    _terminate_child(proc)
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
    """What a killed daemon left in the vault: daemon.json, daemon.pid, and its socket when that is
    the vault's own (never the user's daemon's, which another daemon may be listening on now)."""
    paths = [vault.cache / rpc.STATE_FILE, vault.cache / rpc.PID_FILE]
    if Path(socket_path) == rpc.socket_path_for(vault):
        paths.append(Path(socket_path))
    for path in paths:
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
        clean_stale(vault, rpc.socket_path_for(vault))
        return False
    try:
        reply = rpc.call(vault, "stop", timeout=5)
    except DaemonError:
        reply = None
    if reply is None:  # alive but its socket is gone or it does not answer
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    if reply is not None and reply.get("exiting") is False:  # the user's daemon, serving other vaults too
        while _names(vault, pid) and rpc.pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _names(vault, pid) and rpc.pid_alive(pid):
            raise DaemonError(f"your watch daemon (pid {pid}) did not stop serving this vault within {timeout:.0f}s",
                              hint="`vault watch --stop --all` stops it")
        return True
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


def _names(vault: Vault, pid: int) -> bool:
    """Whether the vault's daemon.json still names the daemon `pid` (it removes it when it closes the vault)."""
    return int((rpc.read_state(vault) or {}).get("pid", 0)) == pid


def describe_all(under: Path | None = None) -> list[dict]:
    """Every vault served by a watch daemon of this user (with `under`, those inside that folder), by
    vault: pid and vault, plus what the daemon says of it (index generation, last request, index
    size, the process's memory) when it answers; else its resident memory as /proc tells it. The
    user's daemon serving nothing is listed once, with its runtime folder as `vault` and `idle`."""
    from sheriff_vault.store.vault import Vault

    found = []
    abouts: dict[int, dict | None] = {}
    for daemon in daemons(under):
        entry: dict = {"pid": daemon["pid"], "vault": daemon["vault"]}
        if daemon.get("shared"):
            pid = daemon["pid"]
            if pid not in abouts:
                abouts[pid] = _host_about(daemon)
            about = abouts[pid] or {}
            entry["shared"] = True
            served = next((v for v in about.get("vaults", []) if v.get("vault") == daemon["vault"]), None)
            if served is not None:
                entry |= served
            elif daemon.get("idle"):
                entry |= {"idle": True, "memory_mb": about.get("memory_mb") or {}}
            if "memory_mb" not in entry and (rss := _resident_mb(pid)) is not None:
                entry["memory_mb"] = {"VmRSS": rss}
            found.append(entry)
            continue
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


def _host_about(daemon: dict) -> dict | None:
    try:
        return host_call("about", socket_path=Path(daemon["runtime"]) / runtime.SOCKET)
    except DaemonError:
        return None


def stop_all(under: Path | None = None, timeout: float = 30.0) -> list[dict]:
    """Stop every watch daemon of this user (with `under`, those serving a vault inside that
    folder, or whose runtime folder is inside it): politely (`stop`), then with SIGTERM/SIGKILL if
    it is still running (its vault gone or unreadable, or it does not answer). The user's daemon
    also serving vaults outside `under` only stops serving those inside. Returns the pid and vault
    of each vault (or idle daemon) stopped."""
    from sheriff_vault.store.vault import Vault

    stopped = []
    listed = daemons(under)
    hosts: dict[int, list[dict]] = {}
    for daemon in listed:
        if daemon.get("shared"):
            hosts.setdefault(daemon["pid"], []).append(daemon)
            continue
        pid = daemon["pid"]
        try:
            stop(Vault(Path(daemon["vault"])), timeout=timeout)
        except VaultError:
            pass
        if rpc.pid_alive(pid):
            terminate([pid])
        stopped.append({"pid": pid, "vault": daemon["vault"]})
    for pid, entries in hosts.items():
        whole = under is None or all(e.get("whole") for e in entries)
        if whole:
            try:
                host_call("stop", socket_path=Path(entries[0]["runtime"]) / runtime.SOCKET)
            except DaemonError:
                pass
            deadline = time.monotonic() + timeout
            while rpc.pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if rpc.pid_alive(pid):
                terminate([pid])
        else:
            for entry in entries:
                try:
                    stop(Vault(Path(entry["vault"])), timeout=timeout)
                except VaultError:
                    pass
        stopped += [{"pid": pid, "vault": e["vault"]} for e in entries]
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
    """The running watch daemons of this user (pid, vault, argv), read from /proc, one entry a vault
    served: the user's daemon (`shared`, with its `runtime` folder) has one per vault in its
    daemon.json, or one naming its runtime folder (`idle`) when it serves none. With `under`, only
    vaults inside that folder, and every vault of a user's daemon whose runtime folder is inside it
    (as a test run's or a benchmark's cleanup lists what it left; `whole`: all it serves is there).
    Empty where there is no /proc."""
    found = []
    base = Path(os.path.realpath(under)) if under is not None else None

    def inside(path: Path) -> bool:
        return base is None or path == base or base in path.parents

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
        if argv and SHARED in argv:
            try:
                served = [Path(v) for v in json.loads((root / rpc.STATE_FILE).read_text()).get("vaults", [])]
            except (OSError, ValueError, AttributeError):
                served = []
            mine = inside(root)
            listed = [v for v in served if mine or inside(v)]
            whole = mine or all(inside(v) for v in served)
            if not served and mine:
                found.append({"pid": int(entry), "vault": str(root), "argv": argv, "shared": True, "idle": True,
                              "runtime": str(root), "whole": True})
            found += [{"pid": int(entry), "vault": str(v), "argv": argv, "shared": True, "runtime": str(root),
                       "whole": whole} for v in listed]
            continue
        if not inside(root):
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
