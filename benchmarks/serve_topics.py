"""Server time of `vault serve`'s topics page on a large vault (target: <= 300 ms at 10k topics).

    python benchmarks/serve_topics.py --topics 10000            # a synthetic vault in a temp folder
    python benchmarks/serve_topics.py --vault ~/notes            # a vault of your own

Starts the real server (uvicorn on 127.0.0.1, in a thread), logs in with its token, loads the
topics page once cold (every file read once) and then `--runs` times per view: newest first,
most facts, stale, and a filter. "Server" is the handler's own time (the page's Server-Timing
`topics` entry: listing, filtering, sorting, one page of 100 rows rendered); "wall" adds HTTP on
loopback. Prints one JSON object.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--vault", type=Path, help="Use this vault instead of a synthetic one.")
    ap.add_argument("--runs", type=int, default=30)
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
    out: dict = {"vault": str(vault.root), "topics": len(vault.topics.names()), "runs": args.runs}
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
        conn.close()
    out["mean_server_p50_ms"] = round(statistics.mean(v["server_p50_ms"] for k, v in out.items()
                                                      if isinstance(v, dict) and "server_p50_ms" in v), 1)
    print(json.dumps(out, indent=2))
    if made is not None:
        made.cleanup()


if __name__ == "__main__":
    main()
