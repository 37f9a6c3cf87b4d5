"""Server time of `vault serve`'s topics page on a large vault (target: <= 300 ms at 10k topics).

    python benchmarks/serve_topics.py --topics 10000            # a synthetic vault in a temp folder
    python benchmarks/serve_topics.py --vault ~/notes            # a vault of your own

Starts the real server (uvicorn on 127.0.0.1, in a thread), logs in with its token, loads the
topics page once cold (every file read once) and then `--runs` times per view: newest first,
most facts, stale, and a filter. "Server" is the handler's own time (the page's Server-Timing
`topics` entry: listing, filtering, sorting, one page of 100 rows rendered); "wall" adds HTTP on
loopback. Prints one JSON object.

    python benchmarks/serve_topics.py --topics 10000 --pages     # also every other page, once

`--pages` first sleeps two conversations into the vault (examples/conversation.jsonl as a sleep,
examples/transcript.md as a `--review` sleep; in this process, no daemon), then asks each other
page twice (first, again) and checks it answers 200: a topic (the one with the most related
topics), its edit form, a commit's diff and a citation from it, the sleeps, the first sleep, the
review, recall (no daemon: in the server's process, which builds the index once), and health
(the time until its `vault doctor` report is ready). Wall time on loopback.
"""
from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed_get(conn: http.client.HTTPConnection, path: str, cookie: str) -> tuple[float, float, int]:
    started = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": cookie})
    response = conn.getresponse()
    body = response.read()
    wall = (time.perf_counter() - started) * 1000
    timing = response.getheader("server-timing") or ""
    m = re.search(r"topics;dur=([\d.]+)", timing)
    assert response.status == 200, (path, response.status, body[:300])
    return float(m.group(1)) if m else float("nan"), wall, len(body)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 1)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def sleep_into(vault) -> dict:
    """A sleep and a `--review` sleep of the examples' conversations, in this process; their seconds."""
    from sheriff_vault.daemon.client import sleep
    from sheriff_vault.daemon.review import sleep_for_review
    from sheriff_vault.store import transcripts
    from sheriff_vault.timewin import parse_instant

    t0 = time.perf_counter()
    sleep(vault, transcripts.read_file(EXAMPLES / "conversation.jsonl"),
          now=parse_instant("2026-02-20T03:31:00Z", "UTC"))
    t1 = time.perf_counter()
    _, branch = sleep_for_review(vault, transcripts.read_file(EXAMPLES / "transcript.md"),
                                 now=parse_instant("2026-02-24T10:15:00Z", "UTC"), final=True)
    t2 = time.perf_counter()
    assert branch, "the --review sleep made no branch"
    return {"sleep_s": round(t1 - t0, 1), "review_sleep_s": round(t2 - t1, 1), "branch": branch}


def page(conn: http.client.HTTPConnection, path: str, cookie: str) -> tuple[float, str]:
    """One request on a connection of its own (the server drops a connection idle for 5 s)."""
    fresh = http.client.HTTPConnection(conn.host, conn.port, timeout=conn.timeout)
    started = time.perf_counter()
    fresh.request("GET", path, headers={"Cookie": cookie})
    response = fresh.getresponse()
    body = response.read().decode()
    fresh.close()
    assert response.status == 200, (path, response.status, body[:300])
    return round((time.perf_counter() - started) * 1000, 1), body


def other_pages(conn: http.client.HTTPConnection, cookie: str, vault) -> dict:
    """Each page but the topics list, asked twice: {name: {"url", "first_ms", "again_ms"}}."""
    from html import unescape
    from urllib.parse import quote

    from sheriff_vault.store.catalog import TopicCatalog

    busiest = max(TopicCatalog(vault).summaries(), key=lambda t: (len(t.related), t.facts))
    topic = f"/topics/{busiest.slug}"
    urls = {"topic": topic, "edit": f"{topic}/edit"}
    _, body = page(conn, topic, cookie)
    commit = re.search(r'data-src="(/commits/[0-9a-f]{40}[^"]*)"', body)
    cite = re.search(r'class="cite" href="([^"]+)"', body)
    if commit:
        urls["commit diff"] = unescape(commit.group(1))
    if cite:
        urls["citation"] = unescape(cite.group(1))
    _, sleeps = page(conn, "/sleeps", cookie)
    urls["sleeps"] = "/sleeps"
    if m := re.search(r'href="(/sleeps/[0-9TZ]+)"', sleeps):
        urls["a sleep"] = m.group(1)
    if m := re.search(r'href="(/review/[0-9TZ]+)"', sleeps):
        urls["review"] = m.group(1)
    query = quote("what did we decide about the trip to Lisbon?")
    urls["recall"] = f"/recall?q={query}&now=2026-02-24T10:10:00Z&budget=2000"
    out = {}
    for name, url in urls.items():
        first, _ = page(conn, url, cookie)
        again, _ = page(conn, url, cookie)
        out[name] = {"url": url, "first_ms": first, "again_ms": again}
    started = time.perf_counter()
    first, body = page(conn, "/health", cookie)
    while 'id="doctor-summary"' not in body and time.perf_counter() - started < 600:
        time.sleep(1)
        _, body = page(conn, "/health", cookie)
    assert 'id="doctor-summary"' in body, "no doctor report within 600 s"
    ready = round(time.perf_counter() - started, 1)
    again, _ = page(conn, "/health", cookie)
    out["health"] = {"url": "/health", "first_ms": first, "report_ready_s": ready, "again_ms": again}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--vault", type=Path, help="Use this vault instead of a synthetic one.")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--pages", action="store_true", help="Also sleep two conversations in, then time every page.")
    args = ap.parse_args()

    from sheriff_vault.store.vault import Vault
    from sheriff_vault.web.server import Server

    made = None
    if args.vault:
        vault = Vault(args.vault)
    else:
        from benchmarks.synthetic import generate

        made = tempfile.TemporaryDirectory(prefix="serve-bench-")
        t0 = time.perf_counter()
        generate(Path(made.name) / "vault", args.topics, embedding=False)
        print(f"wrote {args.topics} topics in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        vault = Vault(Path(made.name) / "vault")
    if args.pages:
        out_sleeps = sleep_into(vault)
    out: dict = {"vault": str(vault.root), "topics": len(vault.topics.names()), "runs": args.runs}
    if args.pages:
        out["sleeps"] = out_sleeps
    with Server(vault) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        cookie = f"sheriff_vault_{server.port}={server.token}"
        server_ms, wall_ms, size = timed_get(conn, "/topics", cookie)
        out["cold"] = {"server_ms": round(server_ms, 1), "wall_ms": round(wall_ms, 1), "bytes": size}
        views = {"recent": "/topics", "size": "/topics?sort=size", "stale": "/topics?sort=stale&stale=90",
                 "filter": "/topics?q=trip", "page 5": "/topics?page=5"}
        for name, path in views.items():
            server_times, walls = [], []
            for _ in range(args.runs):
                s, w, size = timed_get(conn, path, cookie)
                server_times.append(s)
                walls.append(w)
            out[name] = {"server_p50_ms": pct(server_times, 0.5), "server_p95_ms": pct(server_times, 0.95),
                         "server_max_ms": round(max(server_times), 1), "wall_p50_ms": pct(walls, 0.5),
                         "bytes": size}
        if args.pages:
            out["pages"] = other_pages(conn, cookie, vault)
        conn.close()
    out["mean_server_p50_ms"] = round(statistics.mean(v["server_p50_ms"] for k, v in out.items()
                                                      if isinstance(v, dict) and "server_p50_ms" in v), 1)
    print(json.dumps(out, indent=2))
    if made is not None:
        made.cleanup()


if __name__ == "__main__":
    main()
