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

from sheriff_vault import errors
from sheriff_vault.errors import DaemonError, VaultError

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

STATE_FILE = "daemon.json"
PID_FILE = "daemon.pid"
MAX_REPLY = 64 * 1024 * 1024
# In daemon.json. 2: recall takes `now_text` (--now as typed) and `embed` exists; 3: `sleep`
# exists; 4: `sleep` reads `final` and recall answers with the buffer's turns in `recent`; 5: recall
# reads `tag` (an older daemon would ignore it, so a tagged recall asks only 5 and up). The fast
# client (sheriff_vault/__main__.py) asks only daemons of at least its own protocol.
PROTOCOL = 5
TAG_SINCE = 5


def socket_path_for(vault: Vault) -> Path:
    """.vault/daemon.sock, or a short path in /tmp when that would pass the 107-byte socket limit."""
    path = vault.cache / "daemon.sock"
    if len(str(path)) < 100:
        return path
    digest = hashlib.sha1(str(vault.root).encode()).hexdigest()[:16]
    return Path("/tmp") / f"sheriff-vault-{digest}.sock"


def serves(state: dict, vault: Vault) -> bool:
    """Whether a daemon.json names this vault: one copied with the vault's folder (`cp -a`) names
    the original, whose daemon this vault must neither use nor stop."""
    named = state.get("vault")
    return named is None or os.path.realpath(named) == str(vault.root)


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


def call(vault: Vault, op: str, args: dict | None = None, *, timeout: float = 120.0,
         hangup: str | None = None) -> dict | None:
    """Send one request; None when no daemon is listening (so the caller does the work itself).
    `hangup`: the error to raise when the daemon took the request but closed without a reply
    (it died midway), for requests the caller must not simply do again itself."""
    state = read_state(vault)
    if not state or not pid_alive(int(state.get("pid", 0))):
        return None
    path = state.get("socket") or str(socket_path_for(vault))
    return call_socket(path, {"op": op, "args": args or {}, "vault": str(vault.root)}, timeout=timeout,
                       hangup=hangup)


def call_socket(path: str, request: dict, *, timeout: float = 120.0, hangup: str | None = None) -> dict | None:
    """`call` to the daemon listening at `path` (the user's daemon is asked this way before it serves a
    vault); None when nothing listens there or the daemon does not serve the vault named."""
    op = request.get("op")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(json.dumps(request).encode() + b"\n")
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
    except (ConnectionResetError, BrokenPipeError):  # it hung up as it stopped: no answer (never the CLI's
        chunks = []                                   # own closed stdout, which exits quietly)
    except TimeoutError:
        raise DaemonError(f"the daemon did not answer `{op}` within {timeout:.0f}s",
                          hint="see .vault/logs/daemon.log, or `vault watch --stop` and start it again") from None
    if not chunks:
        if hangup:
            raise DaemonError(hangup, hint="see .vault/logs/daemon.log; the next vault command finishes or rolls back "
                                           "what it left half done")
        return None
    reply = json.loads(b"".join(chunks))
    if not reply.get("ok") and (reply.get("error") or {}).get("other_vault"):
        return None  # daemon.json copied with the vault (cp -a): the original vault's daemon
    if not reply.get("ok"):
        raise remote_error(reply.get("error") or {})
    return reply.get("result")


def remote_error(error: dict) -> VaultError:
    """The VaultError the daemon raised, as the same class with the same message and notes (so a
    command prints and exits as it would have in-process); DaemonError for anything else."""
    kind = getattr(errors, str(error.get("kind") or ""), None)
    cls = kind if isinstance(kind, type) and issubclass(kind, VaultError) else DaemonError
    exc = cls(error.get("message", "the daemon failed"), path=error.get("path"), line=error.get("line"),
              hint=error.get("hint"))
    for note in error.get("notes") or []:
        exc.add_note(str(note))
    return exc
