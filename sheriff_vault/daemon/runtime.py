"""Where a person's daemon listens, and who it answers: the per-user runtime folder and the
peer-credential check (issue 29: one daemon per user, serving every vault).

The folder is `$XDG_RUNTIME_DIR/sheriff-vault`, or `~/.cache/sheriff-vault/run` when that is
unset. It is made with mode 0700 and refused when it is a symlink, belongs to another user or lets
others in, so no other user can reach (or plant) a socket there. On top of that each connection's
peer is asked for its uid (`SO_PEERCRED`, Linux) and a process of another user is not answered:
root can enter any folder, and a folder's mode can be changed after the daemon checked it.
Standard library only: the fast client (sheriff_vault/__main__.py) finds the socket the same way.
"""
from __future__ import annotations

import os
import socket
import stat
import struct
from collections.abc import Mapping
from pathlib import Path

from sheriff_vault.errors import DaemonError

FOLDER = "sheriff-vault"
SOCKET = "daemon.sock"
# sockaddr_un's path is 108 bytes with the terminating NUL.
MAX_SOCKET_PATH = 107
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def code_stamp(root: Path | None = None) -> tuple[str, int, int]:
    """Which code a process runs: the package's folder, its modules' newest change and their number.
    An upgrade, or an edit of an editable install, changes it; a daemon whose code changed under it
    leaves, so the next request starts one that runs what is installed now."""
    root = Path(__file__).resolve().parents[1] if root is None else root
    newest, count = 0, 0
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
                except OSError:  # removed while an upgrade runs: that is a change too
                    newest = -1
                count += 1
    return str(root), newest, count


def runtime_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's runtime folder for the daemon (not made here; see `private_dir`)."""
    env = os.environ if env is None else env
    if base := env.get("XDG_RUNTIME_DIR", "").strip():
        return Path(base) / FOLDER
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".cache" / FOLDER / "run"


def private_dir(path: Path | None = None) -> Path:
    """Make `path` (default: `runtime_dir()`) if needed, mode 0700, and check that it is a real
    folder of this user that no one else can enter; DaemonError saying what is wrong otherwise."""
    path = runtime_dir() if path is None else path
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    hint = f"remove {path}, or point XDG_RUNTIME_DIR at a folder of your own"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise DaemonError(f"the daemon's runtime folder {path} is not a folder (a symlink or a file)", hint=hint)
    if info.st_uid != os.getuid():
        raise DaemonError(f"the daemon's runtime folder {path} belongs to uid {info.st_uid}, not to you "
                          f"(uid {os.getuid()})", hint=hint)
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)  # ours but open to others (made by an older version, or a umask): close it
    return path


def socket_path(env: Mapping[str, str] | None = None) -> Path:
    """The per-user daemon's socket: `<runtime_dir>/daemon.sock`."""
    return runtime_dir(env) / SOCKET


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket; None where the platform cannot
    tell (no SO_PEERCRED: the 0700 folder is then the only guard). OSError when it should tell
    and cannot."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    _pid, uid, _gid = _PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, option, _PEERCRED.size))
    return int(uid)


def same_user(conn: socket.socket) -> bool:
    """True when the peer runs as this process's user, or the platform cannot tell; False for
    another user's process and for a peer whose credentials cannot be read."""
    try:
        uid = peer_uid(conn)
    except OSError:
        return False
    return uid is None or uid == os.getuid()
