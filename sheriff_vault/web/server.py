"""Running the memory browser: uvicorn on a local port, with the token URL printed at start.

`Server` runs it in a thread for tests and benchmarks (started and stopped by the caller);
`serve` runs it in the foreground until Ctrl-C, which is what `vault serve` does.
"""
from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from sheriff_vault.errors import ServeError
from sheriff_vault.store.vault import Vault
from sheriff_vault.web.security import allowed_hosts, new_token

LOOPBACK = "127.0.0.1"


def check_host(host: str, explicit: bool) -> str:
    """Loopback unless the person asked for another address with --host (then it is theirs to expose)."""
    if not explicit and host != LOOPBACK:
        raise ServeError(f"refusing to listen on {host}", hint="pass --host explicitly to listen beyond 127.0.0.1")
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        if host != "localhost":
            raise ServeError(f"--host {host!r} is not an IP address", hint="e.g. --host 127.0.0.1") from None
    return host


def free_port(host: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host.strip("[]"), 0))
        return int(sock.getsockname()[1])


def _own_names(host: str) -> list[str]:
    """Listening on every interface (--host 0.0.0.0 or ::): the names this machine goes by."""
    if host.strip("[]") not in ("0.0.0.0", "::"):
        return []
    name = socket.gethostname()
    try:
        addresses = socket.gethostbyname_ex(name)[2]
    except OSError:
        addresses = []
    return [name, socket.getfqdn(), *addresses]


class Server:
    """The app on `host:port` in a background thread; `start()` returns once it accepts connections."""

    def __init__(self, vault: Vault, *, host: str = LOOPBACK, port: int = 0, token: str | None = None,
                 log_level: str = "warning") -> None:
        import uvicorn

        from sheriff_vault.web.app import create_app

        self.vault, self.host = vault, host
        self.port = port or free_port(host)
        self.token = token or new_token()
        extra = [] if host in (LOOPBACK, "localhost", "::1", "[::1]") else [host, *_own_names(host)]
        self.app = create_app(vault, token=self.token, port=self.port, hosts=allowed_hosts(self.port, extra))
        config = uvicorn.Config(self.app, host=host.strip("[]"), port=self.port, log_level=log_level,
                                access_log=False, lifespan="off", server_header=False)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        name = f"[{self.host.strip('[]')}]" if ":" in self.host else self.host
        return f"http://{name}:{self.port}"

    @property
    def url(self) -> str:
        """What to open: the topics page with the token (traded for a cookie on the first visit)."""
        return f"{self.base}/topics?token={self.token}"

    def start(self, timeout: float = 20.0) -> Server:
        self._thread = threading.Thread(target=self.server.run, name="vault-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ServeError(f"could not listen on {self.host}:{self.port}",
                                 hint="the port may be taken; pick another with --port")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(vault: Vault, *, host: str = LOOPBACK, port: int = 0, explicit_host: bool = False,
          open_browser: bool = False, say: Callable[[str], Any] = print) -> None:
    """Serve until interrupted; prints the URL (with its token) first."""
    check_host(host, explicit_host)
    if port:
        try:
            with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
                sock.bind((host.strip("[]"), port))
        except OSError as exc:
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}",
                             hint="pick another --port, or leave it out for a free one") from None
    server = Server(vault, host=host, port=port)
    # Warm the topic list in the background: the first listing of a large vault reads every file once.
    pages = server.app.app.state.pages
    threading.Thread(target=pages.catalog.summaries, name="vault-serve-warm", daemon=True).start()
    say(f"serving {vault.root} at {server.url}")
    say("only this machine can reach it; the token in the URL is the key. Ctrl-C stops it.")
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    server.server.run()
