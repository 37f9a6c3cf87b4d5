"""The per-user runtime folder (mode 0700, ours) and the peer-credential check: only processes of
the daemon's own user are answered. The last test asks a real daemon as another user (root only)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import use_hash_embedder, wait_for, watching

from sheriff_vault.daemon import rpc, runtime
from sheriff_vault.errors import DaemonError
from sheriff_vault.store.vault import Vault, init_vault


def test_the_runtime_folder_is_in_xdg_runtime_dir_or_else_in_the_home_cache(tmp_path):
    assert runtime.runtime_dir({"XDG_RUNTIME_DIR": "/run/user/1000"}) == Path("/run/user/1000/sheriff-vault")
    assert runtime.runtime_dir({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "sheriff-vault" / "run"
    assert runtime.runtime_dir({"XDG_RUNTIME_DIR": "", "HOME": str(tmp_path)}).parent.name == "sheriff-vault"
    assert runtime.socket_path({"XDG_RUNTIME_DIR": "/run/user/1000"}) == Path(
        "/run/user/1000/sheriff-vault/daemon.sock")


def test_the_runtime_folder_is_made_private(tmp_path):
    folder = runtime.private_dir(tmp_path / "run" / "sheriff-vault")
    assert folder.is_dir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_runtime_folder_of_ours_open_to_others_is_closed(tmp_path):
    folder = tmp_path / "sheriff-vault"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    runtime.private_dir(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_symlink_or_a_file_as_runtime_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(elsewhere)
    with pytest.raises(DaemonError, match="not a folder"):
        runtime.private_dir(tmp_path / "link")
    (tmp_path / "file").write_text("")
    with pytest.raises(DaemonError, match="not a folder"):
        runtime.private_dir(tmp_path / "file")


def test_a_runtime_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = runtime.private_dir(tmp_path / "sheriff-vault")
    monkeypatch.setattr(runtime.os, "getuid", lambda: os.stat(folder).st_uid + 1)
    with pytest.raises(DaemonError, match="not to you") as err:
        runtime.private_dir(folder)
    assert "XDG_RUNTIME_DIR" in (err.value.hint or "")


def test_the_peer_of_a_socket_is_our_user_and_another_uid_is_refused(monkeypatch):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with ours, theirs:
        assert runtime.peer_uid(ours) == os.getuid()
        assert runtime.same_user(ours)
        monkeypatch.setattr(runtime.os, "getuid", lambda: os.stat("/proc/self").st_uid + 1)
        assert not runtime.same_user(ours)


def test_a_peer_whose_credentials_cannot_be_read_is_refused():
    class Unreadable:
        def getsockopt(self, *args):
            raise OSError("no credentials")

    assert not runtime.same_user(Unreadable())  # type: ignore[arg-type]


# Connect, ask `ping`, print what came back (a refused peer's connection is closed unread: a
# broken pipe or a reset on sending, or an empty reply).
ASK = """
import json, socket, sys
data = b""
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    s.settimeout(10)
    s.connect(sys.argv[1])
    try:
        s.sendall(json.dumps({"op": "ping", "args": {}}).encode() + b"\\n")
        s.shutdown(socket.SHUT_WR)
        while chunk := s.recv(65536):
            data += chunk
    except (BrokenPipeError, ConnectionResetError):
        pass
print(json.dumps({"reply": data.decode()}))
"""


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED") or os.getuid() != 0,
                    reason="needs SO_PEERCRED and root, to ask as another user")
def test_a_daemon_does_not_answer_another_user(tmp_path):
    """A vault with a daemon of its own (`daemon.shared: false`; the user's daemon's socket is in a
    0700 folder nobody else can enter) and a path too long for .vault/daemon.sock puts the socket in
    /tmp; even opened to everyone (chmod 0777), a process of another user (nobody) gets no answer,
    and the daemon logs it. Both kinds of daemon share the check (daemon/watch.py `_Server`)."""
    vault = use_hash_embedder(init_vault(tmp_path / ("a-folder-with-a-long-name-" * 3) / "vault").vault)
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("shared: true", "shared: false"))
    vault = Vault(vault.root)
    with watching(vault):
        sock = Path(rpc.read_state(vault)["socket"])
        assert sock.parent == Path("/tmp")
        sock.chmod(0o777)
        mine = subprocess.run([sys.executable, "-c", ASK, str(sock)], capture_output=True, text=True, timeout=30)
        assert json.loads(json.loads(mine.stdout)["reply"])["ok"] is True
        system_python = shutil.which("python3", path="/usr/bin:/bin")  # ours may be in root's home
        if system_python is None:
            pytest.skip("no python3 in /usr/bin or /bin that another user can run")
        nobody = subprocess.run([system_python, "-I", "-c", ASK, str(sock)], capture_output=True, text=True,
                                timeout=30, user=65534, group=65534, cwd="/")
        assert nobody.returncode == 0, nobody.stderr
        assert json.loads(nobody.stdout) == {"reply": ""}
        wait_for(lambda: "refused a connection from uid 65534" in (vault.logs / "daemon.log").read_text(),
                 timeout=5, what="the refusal logged")
