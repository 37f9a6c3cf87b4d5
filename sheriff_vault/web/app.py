"""The memory browser's web app (Starlette + Jinja2): one route per page, each a thin shell over
views.py; errors a person can act on become a page that says what to do, never a traceback.

Pages and their stable URLs: /topics, /topics/<slug>, /topics/<slug>/edit, /commits/<sha>,
/cite?ref=..., /sleeps, /sleeps/<stamp>, /review/<stamp>, /recall, /health.
"""
from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sheriff_vault.errors import CitationError, EditConflict, LockTimeout, TopicFormatError, TopicNotFound, VaultError
from sheriff_vault.retrieval.changes import describe
from sheriff_vault.store.catalog import TopicCatalog
from sheriff_vault.store.links import Resolver
from sheriff_vault.store.vault import Vault
from sheriff_vault.web import render, views
from sheriff_vault.web.security import Guard, allowed_hosts

log = logging.getLogger("sheriff_vault.serve")
HERE = Path(str(resources.files("sheriff_vault.web")))


def _day(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d")
    return str(value or "")[:10]


def _ago(value: Any) -> str:
    if not isinstance(value, dt.datetime):
        return ""
    days = (dt.datetime.now(dt.UTC) - value).days
    return "today" if days <= 0 else "yesterday" if days == 1 else f"{days} days ago"


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(day=_day, ago=_ago, topic_url=render.topic_url, item_line=render.item_line,
                       q=lambda v: quote(str(v), safe=""), change=describe)
    env.globals.update(urlencode=urlencode, parse_diff=render.parse_diff)
    return env


class HealthChecks:
    """The newest health report, remade in a thread when the vault changed (HEAD or any file in
    topics/, wake/, quarantine/ or vault.yaml)."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.report: dict[str, Any] | None = None
        self.key: tuple | None = None
        self.running = False
        self.lock = threading.Lock()

    def _key(self) -> tuple:
        from sheriff_vault.store import gitlog

        stamps: list[tuple[int, int] | None] = []
        for name in ("topics", "wake", "quarantine", "vault.yaml"):
            try:
                st = (self.vault.root / name).stat()
                stamps.append((st.st_mtime_ns, st.st_size))
            except OSError:
                stamps.append(None)
        latest = 0
        if len(self.vault.topics.names()) <= 2000:  # a small vault: catch edits made in place too
            for path in self.vault.topics.paths():
                try:
                    latest = max(latest, path.stat().st_mtime_ns)
                except OSError:  # removed meanwhile: the folder's own stamp says so
                    pass
        return (gitlog.head(self.vault.root), tuple(stamps), latest)

    def get(self) -> tuple[dict[str, Any] | None, bool]:
        """(the newest report or None, whether a newer one is being made)."""
        key = self._key()
        with self.lock:
            if self.report is not None and key == self.key:
                return self.report, False
            if not self.running:
                self.running = True
                threading.Thread(target=self._run, args=(key,), name="vault-serve-health", daemon=True).start()
            report = self.report
        if report is None:  # first time: wait a little, a small vault is checked at once
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and self.report is None:
                time.sleep(0.05)
            report = self.report
        with self.lock:
            return report, self.running or key != self.key

    def _run(self, key: tuple) -> None:
        try:
            report = views.health(self.vault)
        except Exception as exc:  # the page says what failed; the next visit tries again
            log.exception("health check failed")
            report = {"problems": [], "summary": f"the check failed: {type(exc).__name__}: {exc}", "ok": False,
                      "index": {}, "index_error": "", "head": None, "at_head": False, "quarantined": []}
            key = ()
        with self.lock:
            self.report, self.key, self.running = report, key, False


class Pages:
    """The routes, holding the vault, the topic catalog and the templates."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.catalog = TopicCatalog(vault)
        self.checks = HealthChecks(vault)
        self.env = _environment()

    def page(self, name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        started = time.perf_counter()
        html = self.env.get_template(name).render(request=request, vault=self.vault, nav=name.split(".")[0],
                                                  **context)
        response = HTMLResponse(html, status_code=status)
        response.headers["server-timing"] = f"render;dur={(time.perf_counter() - started) * 1000:.1f}"
        return response

    def error(self, request: Request, exc: Exception) -> HTMLResponse:
        status = 404 if isinstance(exc, (TopicNotFound, CitationError)) else 409 if isinstance(
            exc, (EditConflict, LockTimeout)) else 400 if isinstance(exc, VaultError) else 500
        if status == 500:
            log.exception("unexpected error on %s", request.url.path)
            message = f"unexpected {type(exc).__name__}: {exc} (the server log has the details)"
        else:
            message = str(exc)
        fix = None
        slug = request.path_params.get("slug")
        if isinstance(exc, TopicFormatError) and slug and views.SLUG.match(slug):
            fix = render.topic_url(slug) + "/edit"
        return self.page("error.html", request, status=status, message=message, fix=fix)

    # -- topics --------------------------------------------------------------------------------
    def topics(self, request: Request) -> Response:
        q = request.query_params
        started = time.perf_counter()
        data = views.topics_page(self.catalog, query=q.get("q", ""), sort=q.get("sort", "recent"),
                                 stale_days=_int(q.get("stale"), 30, 1, 36500), page=_int(q.get("page"), 1, 1, 10**6))
        response = self.page("topics.html", request, data=data)
        response.headers["server-timing"] += f", topics;dur={(time.perf_counter() - started) * 1000:.1f}"
        return response

    def topic(self, request: Request) -> Response:
        slug = request.path_params["slug"]
        topic = views.load_topic(self.vault, slug)
        around = views.neighbours(topic, self.catalog)
        links = Resolver(self.catalog.summaries())
        return self.page("topic.html", request, topic=topic, body=render.body_html(topic.body, links),
                         neighbours=around, graph=views.graph(topic.name, around),
                         history=views.topic_history(self.vault, topic), saved=request.query_params.get("saved"),
                         problems=topic.problems())

    async def edit(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        slug = views.check_slug(request.path_params["slug"])
        if request.method == "GET":
            try:
                topic = await run_in_threadpool(views.load_topic, self.vault, slug)
            except TopicFormatError as exc:  # a broken file opens as it is, with what is wrong
                text = await run_in_threadpool(views.topic_text, self.vault, slug)
                return self.page("edit.html", request, topic=None, slug=slug, text=text, base=text, message="",
                                 error=str(exc))
            text = topic.render()
            return self.page("edit.html", request, topic=topic, slug=slug, text=text, base=text, message="",
                             error=None)
        form = await request.form()
        text, base, message = str(form.get("text", "")), str(form.get("base", "")), str(form.get("message", ""))
        from sheriff_vault.store.edits import save_topic_text

        try:
            result = await run_in_threadpool(save_topic_text, self.vault, slug, text, base=base or None,
                                             message=message)
        except (TopicFormatError, EditConflict, LockTimeout) as exc:
            status = 400 if isinstance(exc, TopicFormatError) else 409
            return self.page("edit.html", request, status=status, topic=None, slug=slug, text=text, base=base,
                             message=message, error=str(exc))
        target = render.topic_url(slug) + (f"?saved={result.commit[:12]}" if result.commit else "?saved=none")
        return RedirectResponse(target, status_code=303)

    def commit(self, request: Request) -> Response:
        path = request.query_params.get("path") or None
        info, diff = views.commit_diff(self.vault, request.path_params["sha"], path)
        partial = request.query_params.get("partial") == "1"
        return self.page("diff_partial.html" if partial else "commit.html", request, info=info, diff=diff, path=path)

    def cite(self, request: Request) -> Response:
        return self.page("cite.html", request, cited=views.citation(self.vault, request.query_params.get("ref", "")))

    # -- sleeps --------------------------------------------------------------------------------
    def sleeps(self, request: Request) -> Response:
        return self.page("sleeps.html", request, sleeps=views.sleeps(self.vault), reviews=views.reviews(self.vault))

    def sleep(self, request: Request) -> Response:
        return self.page("sleep.html", request, s=views.sleep_detail(self.vault, request.path_params["stamp"]))

    async def review(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        stamp = request.path_params["stamp"]
        if request.method == "GET":
            data = await run_in_threadpool(views.review_detail, self.vault, stamp)
            return self.page("review.html", request, r=data, error=None)
        form = await request.form()
        choices = {k.removeprefix("choice:"): str(v) for k, v in form.items() if k.startswith("choice:")}
        try:
            decision = await run_in_threadpool(views.decide_review, self.vault, stamp, choices)
        except VaultError as exc:
            data = await run_in_threadpool(views.review_detail, self.vault, stamp)
            return self.page("review.html", request, status=400, r=data, error=str(exc))
        return self.page("reviewed.html", request, d=decision.to_json())

    # -- recall, health ------------------------------------------------------------------------
    def recall(self, request: Request) -> Response:
        q = request.query_params
        query, now_text, budget = q.get("q", "").strip(), q.get("now", "").strip(), q.get("budget", "").strip()
        result, error = None, None
        if query:
            try:
                result = views.recall(self.vault, query, now_text=now_text,
                                      budget=_int(budget, 0, 0, 10_000_000) or None)
            except VaultError as exc:
                error = str(exc)
        return self.page("recall.html", request, query=query, now_text=now_text, budget=budget, result=result,
                         error=error)

    def health(self, request: Request) -> Response:
        """`vault doctor` reads every file (~50 s at 10k topics): the check runs in the background
        and the page shows the newest report, saying when it is being brought up to date."""
        report, checking = self.checks.get()
        if report is None:
            return self.page("health_wait.html", request)
        return self.page("health.html", request, h=report, checking=checking)

    def home(self, request: Request) -> Response:
        return RedirectResponse("/topics", status_code=303)


def _int(value: str | None, default: int, low: int, high: int) -> int:
    try:
        return min(max(int(value or ""), low), high)
    except ValueError:
        return default


def create_app(vault: Vault, *, token: str, port: int, hosts: set[str] | None = None) -> Any:
    """The app behind the Host/Origin/token guard (security.py). `hosts` defaults to the local names."""
    pages = Pages(vault)

    def wrap(handler: Any) -> Any:
        import inspect

        if inspect.iscoroutinefunction(handler):
            async def run_async(request: Request) -> Response:
                try:
                    return await handler(request)
                except Exception as exc:  # a page says what went wrong
                    return pages.error(request, exc)
            return run_async

        def run(request: Request) -> Response:
            try:
                return handler(request)
            except Exception as exc:
                return pages.error(request, exc)
        return run

    routes = [
        Route("/", wrap(pages.home)),
        Route("/topics", wrap(pages.topics)),
        Route("/topics/{slug}", wrap(pages.topic)),
        Route("/topics/{slug}/edit", wrap(pages.edit), methods=["GET", "POST"]),
        Route("/commits/{sha}", wrap(pages.commit)),
        Route("/cite", wrap(pages.cite)),
        Route("/sleeps", wrap(pages.sleeps)),
        Route("/sleeps/{stamp}", wrap(pages.sleep)),
        Route("/review/{stamp}", wrap(pages.review), methods=["GET", "POST"]),
        Route("/recall", wrap(pages.recall)),
        Route("/health", wrap(pages.health)),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.pages = pages
    return Guard(app, token=token, port=port, hosts=hosts or allowed_hosts(port))
