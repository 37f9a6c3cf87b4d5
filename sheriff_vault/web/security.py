"""Who may talk to `vault serve`: the browser of the person who started it, on this machine.

Three checks on every request, before any page runs:
- Host: only the names the server listens on (127.0.0.1, localhost, [::1] and the port). A web
  page elsewhere cannot point a DNS name it controls at 127.0.0.1 and read the vault through the
  person's browser (DNS rebinding): its requests carry its own Host.
- Origin: a request that says where it comes from must come from the app itself, and a change
  (POST) must say so (Origin, else Referer): no other site can submit a form here.
- Token: a random token, printed in the URL at start. The first visit with `?token=` trades it for
  an HttpOnly, SameSite=Strict cookie scoped to this port and redirects to the same page without
  it, so the token does not stay in the address bar or in history.
"""
from __future__ import annotations

import secrets
from collections.abc import Iterable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
# Every response: scripts, styles and images only from the app itself, never framed by another
# page (no clickjacking of the accept / reject buttons), and memory never kept in the browser's cache.
HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                                 b"form-action 'self'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def new_token() -> str:
    return secrets.token_urlsafe(24)


def cookie_name(port: int) -> str:
    """Cookies are shared by every port of a host: one name per port keeps two servers apart."""
    return f"sheriff_vault_{port}"


def allowed_hosts(port: int, extra: Iterable[str] = ()) -> set[str]:
    """Host header values the server answers to."""
    names = [*LOCAL_NAMES, *extra]
    hosts = set()
    for name in names:
        name = f"[{name}]" if ":" in name and not name.startswith("[") else name
        hosts |= {f"{name}:{port}".lower()}
        if port == 80:
            hosts.add(name.lower())
    return hosts


class Guard:
    """ASGI middleware: refuse requests that fail the Host, Origin or token checks (see module doc)."""

    def __init__(self, app: Any, *, token: str, port: int, hosts: set[str]) -> None:
        self.app, self.token, self.port, self.hosts = app, token, port, hosts
        self.origins = {f"http://{h}" for h in hosts}
        self.cookie = cookie_name(port)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "").strip().lower()
        if host not in self.hosts:
            await _refuse(send, 421, "This server answers only to its local address "
                          f"(http://127.0.0.1:{self.port}); the Host header {host!r} is refused.")
            return
        origin = headers.get("origin")
        method = scope.get("method", "GET").upper()
        if origin is not None and origin.lower() not in self.origins:
            await _refuse(send, 403, f"Requests from {origin!r} are refused: only this app's own pages may call it.")
            return
        if method not in SAFE_METHODS and origin is None:
            referer = headers.get("referer", "")
            parts = urlsplit(referer)
            if not referer or f"{parts.scheme}://{parts.netloc}".lower() not in self.origins:
                await _refuse(send, 403, "A change must come from this app's own pages (no Origin or Referer).")
                return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        given = query.get("token")
        if given is not None:
            if not secrets.compare_digest(given, self.token):
                await _refuse(send, 403, "Wrong token: open the URL `vault serve` printed when it started.")
                return
            rest = urlencode([(k, v) for k, v in query.items() if k != "token"])
            # One leading slash: `//host` would be a redirect to another site.
            location = "/" + scope.get("path", "/").lstrip("/") + (f"?{rest}" if rest else "")
            await send({"type": "http.response.start", "status": 303, "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", f"{self.cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()),
                (b"cache-control", b"no-store"), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is the same as none
            jar = SimpleCookie()
        held = jar.get(self.cookie)
        if held is None or not secrets.compare_digest(held.value, self.token):
            await _refuse(send, 401, "This memory browser needs its token: open the URL `vault serve` printed "
                          "when it started (it ends in ?token=...).")
            return
        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in HEADERS if h[0] not in names)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = (f"<!doctype html><meta charset=utf-8><title>refused</title>"
            f"<p>{_escape(message)}</p>").encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
