"""Talking to the `vault watch` daemon over its Unix socket: one JSON request, one JSON reply.

Shell commands stay fast because the daemon holds the embedding model; when no daemon answers,
callers fall back to doing the work in their own process.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from sheriff_vault.errors import DaemonError

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

STATE_FILE = "daemon.json"
PID_FILE = "daemon.pid"
MAX_REPLY = 64 * 1024 * 1024
# In daemon.json. 2: recall takes `now_text` (--now as typed) and `embed` exists; the fast client
# (sheriff_vault/__main__.py) asks only daemons of at least its own protocol.
PROTOCOL = 2


def socket_path_for(vault: Vault) -> Path:
    """.vault/daemon.sock, or a short path in /tmp when that would pass the 107-byte socket limit."""
    path = vault.cache / "daemon.sock"
    if len(str(path)) < 100:
        return path
    digest = hashlib.sha1(str(vault.root).encode()).hexdigest()[:16]
    return Path("/tmp") / f"sheriff-vault-{digest}.sock"


def read_state(vault: Vault) -> dict | None:
    try:
        return json.loads((vault.cache / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    """True for a running process; a zombie (killed, not yet reaped) counts as gone."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def call(vault: Vault, op: str, args: dict | None = None, *, timeout: float = 120.0) -> dict | None:
    """Send one request; None when no daemon is listening (so the caller does the work itself)."""
    state = read_state(vault)
    if not state or not pid_alive(int(state.get("pid", 0))):
        return None
    path = state.get("socket") or str(socket_path_for(vault))
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(json.dumps({"op": op, "args": args or {}}).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            chunks, size = [], 0
            while True:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_REPLY:
                    raise DaemonError("the daemon's reply is too large")
    except (FileNotFoundError, ConnectionRefusedError):
        return None
    except TimeoutError:
        raise DaemonError(f"the daemon did not answer `{op}` within {timeout:.0f}s",
                          hint="see .vault/logs/daemon.log, or `vault watch --stop` and start it again") from None
    if not chunks:
        return None
    reply = json.loads(b"".join(chunks))
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise DaemonError(error.get("message", "the daemon failed"), path=error.get("path"), line=error.get("line"),
                          hint=error.get("hint"))
    return reply.get("result")
