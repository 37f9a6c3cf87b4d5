"""The LoCoMo quality benchmark: evidence recall at a fixed context budget, the vault against
raw-turn retrieval (BM25, dense, and their reciprocal-rank fusion), all in one run.

For each conversation: a fresh vault; each session slept in order with now = its own date, turn
ids kept as citations, the offline extractor, default settings; then every question of
categories 1-4 recalled just after the last session. A question scores the share of its evidence
turn ids cited inside the first B characters of the rendered context.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sheriff_vault.store.buffer import Turn

BUDGETS = (1000, 2000, 4000)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]
_CITE = re.compile(r"\[([^\[\]]+)\]")


def parse_session_time(text: str) -> dt.datetime:
    """LoCoMo's '1:56 pm on 8 May, 2023'."""
    clean = " ".join(text.replace(",", " ").split())
    return dt.datetime.strptime(clean, "%I:%M %p on %d %B %Y").replace(tzinfo=dt.UTC)


def sessions(conv: dict) -> list[tuple[int, dt.datetime, list[dict]]]:
    nums = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    return [(n, parse_session_time(conv[f"session_{n}_date_time"]), conv[f"session_{n}"]) for n in nums
            if conv.get(f"session_{n}")]


def session_turns(turns: list[dict], at: dt.datetime) -> list[Turn]:
    return [Turn("user", t.get("text", ""), at, t["dia_id"], t.get("speaker", "")) for t in turns if t.get("text")]


def cited_ids(text: str) -> set[str]:
    ids: set[str] = set()
    for group in _CITE.findall(text):
        ids.update(p.strip() for p in group.split(","))
    return ids


def plain_date(answer: Any) -> tuple[str, int, int | None, int | None] | None:
    """(kind, year, month, day) for a gold answer that is a plain date; None for relative answers."""
    text = " ".join(str(answer).replace(",", " ").replace(".", " ").split()).lower()
    month = "|".join(MONTHS)
    if m := re.fullmatch(rf"(\d{{1,2}}) ({month}) (\d{{4}})", text):
        return "day", int(m.group(3)), MONTHS.index(m.group(2)) + 1, int(m.group(1))
    if m := re.fullmatch(rf"({month}) (\d{{1,2}}) (\d{{4}})", text):
        return "day", int(m.group(3)), MONTHS.index(m.group(1)) + 1, int(m.group(2))
    if m := re.fullmatch(rf"({month}) (\d{{4}})", text):
        return "month", int(m.group(2)), MONTHS.index(m.group(1)) + 1, None
    if m := re.fullmatch(r"(\d{4})", text):
        return "year", int(m.group(1)), None, None
    return None


def date_spellings(kind: str, year: int, month: int | None, day: int | None) -> list[str]:
    """Regular expressions for the ways a context can state the gold date; a month or year
    answer is also stated by any day inside it ("2023-02-08" states "February 2023")."""
    if kind == "year":
        return [str(year)]
    assert month is not None
    name = MONTHS[month - 1]
    if kind == "month":
        return [rf"(?:\d{{1,2}} )?{name} {year}", rf"{name} \d{{1,2}} {year}", rf"{year}-{month:02d}(?:-\d{{2}})?"]
    return [rf"{day} {name} {year}", rf"{name} {day} {year}", rf"{year}-{month:02d}-{day:02d}"]


def has_date(context: str, gold: tuple[str, int, int | None, int | None]) -> bool:
    text = " ".join(context.lower().replace(",", " ").split())
    return any(re.search(rf"(?<![\w-]){spelling}(?![\w-])", text) for spelling in date_spellings(*gold))


@dataclass
class MethodScores:
    recall: dict[int, dict[int, list[float]]] = field(default_factory=dict)
    temporal: list[bool] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    shown: list[tuple[int, int, int]] = field(default_factory=list)  # (category, facts, topics) at 2000

    def add(self, budget: int, category: int, value: float) -> None:
        self.recall.setdefault(budget, {}).setdefault(category, []).append(value)

    def mean(self, budget: int, category: int | None = None) -> float:
        per = self.recall.get(budget, {})
        vals = [v for c, vs in per.items() if category in (None, c) for v in vs]
        return sum(vals) / len(vals) if vals else float("nan")


class RawTurns:
    """The baselines: raw turns rendered `(<session date>) <speaker>: <text>`, ranked by BM25, by
    the same embedding model, or by reciprocal-rank fusion of the two."""

    def __init__(self, conv: dict, embedder: Any) -> None:
        import tantivy

        self.items: list[tuple[str, str]] = []
        for _, at, turns in sessions(conv):
            date = f"{at.day} {at:%B %Y}"
            for t in turns:
                if t.get("text"):
                    self.items.append((t["dia_id"], f"({date}) {t.get('speaker', '')}: {t['text']}"))
        sb = tantivy.SchemaBuilder()
        sb.add_integer_field("i", stored=True, indexed=True)
        sb.add_text_field("text", tokenizer_name="en_stem")
        self.index = tantivy.Index(sb.build())
        writer = self.index.writer(heap_size=15_000_000, num_threads=1)
        for i, (_, text) in enumerate(self.items):
            writer.add_document(tantivy.Document(i=i, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.embedder = embedder
        self.vectors = embedder.encode([text for _, text in self.items])

    def bm25(self, question: str) -> list[int]:
        from sheriff_vault.index.engine import query_terms

        terms = query_terms(question)
        if not terms:
            return []
        searcher = self.index.searcher()
        hits = searcher.search(self.index.parse_query(terms, ["text"]), 100).hits
        return [searcher.doc(addr)["i"][0] for _, addr in hits]

    def dense(self, question: str) -> list[int]:
        scores = self.vectors @ self.embedder.encode([question])[0]
        return [int(i) for i in np.argsort(-scores)[:100]]

    def fusion(self, question: str, k: int = 60) -> list[int]:
        score: dict[int, float] = {}
        for ranking in (self.bm25(question), self.dense(question)):
            for rank, i in enumerate(ranking):
                score[i] = score.get(i, 0.0) + 1.0 / (k + rank + 1)
        return sorted(score, key=lambda i: -score[i])

    def render(self, ranking: list[int], budget: int) -> tuple[str, set[str]]:
        out, ids, used = [], set(), 0
        for i in ranking:
            turn_id, text = self.items[i]
            if used + len(text) + 1 > budget:
                continue
            out.append(text)
            ids.add(turn_id)
            used += len(text) + 1
        return "\n".join(out), ids


def run(folder: Path, *, limit_sessions: int | None = None, limit_questions: int | None = None,
        progress: Callable[[str], None] = print, work_dir: Path | None = None) -> dict:
    """Run every LoCoMo conversation in `folder`; returns the report (also rendered by `report_markdown`)."""
    from sheriff_vault.compaction.compact import sleep
    from sheriff_vault.index.embed import Embedder
    from sheriff_vault.index.engine import Index
    from sheriff_vault.retrieval.ranking import recall
    from sheriff_vault.store.vault import init_vault

    files = sorted(Path(folder).glob("*.json"))
    if not files:
        from sheriff_vault.errors import VaultError

        raise VaultError(f"no LoCoMo .json files in {folder}", hint="point it at a folder like ../shared/bench/locomo")
    embedder: Embedder | None = None
    methods = {name: MethodScores() for name in ("vault", "bm25", "dense", "fusion")}
    conversations = []
    base = Path(work_dir or tempfile.mkdtemp(prefix="locomo-"))
    for file in files:
        conv = json.loads(file.read_text())
        vault = init_vault(base / file.stem).vault
        index = Index(vault)
        embedder = embedder or index.embedder
        index.embedder = embedder
        sess = sessions(conv)[:limit_sessions]
        sleep_times = []
        commits_before = _commit_count(vault)
        for n, at, turns in sess:
            started = time.perf_counter()
            sleep(vault, session_turns(turns, at), now=at, index=index)
            sleep_times.append(time.perf_counter() - started)
            progress(f"{file.stem}: slept session {n} ({len(turns)} turns) in {sleep_times[-1]:.1f}s")
        commits = _commit_count(vault) - commits_before
        last = sess[-1][1] + dt.timedelta(minutes=1)
        seen = {t["dia_id"] for _, _, turns in sess for t in turns}
        questions = [q for q in conv.get("qa", []) if q.get("category") in CATEGORIES
                     and q.get("evidence") and set(q["evidence"]) <= seen][:limit_questions]
        raw = RawTurns({k: v for k, v in conv.items() if not k.startswith("session_") or
                        k in {f"session_{n}" for n, _, _ in sess} or k.endswith("date_time")}, embedder)
        for q in questions:
            evidence = set(q["evidence"])
            gold = plain_date(q["answer"]) if q["category"] == 2 else None
            started = time.perf_counter()
            result = recall(vault, q["question"], index=index, now=last)
            methods["vault"].latency.append(time.perf_counter() - started)
            for budget in BUDGETS:
                text = result.render(budget)[:budget]
                methods["vault"].add(budget, q["category"], len(evidence & cited_ids(text)) / len(evidence))
                if budget == 2000 and gold:
                    methods["vault"].temporal.append(has_date(text, gold))
                if budget == 2000:
                    lines = text.splitlines()
                    methods["vault"].shown.append((q["category"], sum(1 for x in lines if x.startswith("- ")),
                                                   sum(1 for x in lines if x.startswith("## ") and "Earlier" not in x)))
            for name, rank in (("bm25", raw.bm25), ("dense", raw.dense), ("fusion", raw.fusion)):
                started = time.perf_counter()
                ranking = rank(q["question"])
                methods[name].latency.append(time.perf_counter() - started)
                for budget in BUDGETS:
                    text, ids = raw.render(ranking, budget)
                    methods[name].add(budget, q["category"], len(evidence & ids) / len(evidence))
                    if budget == 2000 and gold:
                        methods[name].temporal.append(has_date(text, gold))
        snap = index.snapshot()
        size = sum(p.stat().st_size for p in (vault.root / "topics").glob("*.md"))
        conversations.append({
            "name": file.stem, "sessions": len(sess), "questions": len(questions), "commits": commits,
            "topics": len(snap.topics), "facts": sum(1 for d in snap.docs.values() if d.kind != "topic"),
            "topic_bytes": size, "sleep_seconds_mean": statistics.mean(sleep_times),
            "sleep_seconds_max": max(sleep_times), "vault": str(vault.root),
        })
        progress(f"{file.stem}: {len(questions)} questions, vault@2000 so far {methods['vault'].mean(2000):.3f}, "
                 f"fusion@2000 {methods['fusion'].mean(2000):.3f}")
        index.close()
    return _report(methods, conversations)


def _commit_count(vault: Any) -> int:
    from sheriff_vault.store import gitlog

    return len(gitlog.log(vault.root))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(math.ceil(q * len(ordered))) - 1)]


def _report(methods: dict[str, MethodScores], conversations: list[dict]) -> dict:
    out: dict[str, Any] = {"budgets": list(BUDGETS), "conversations": conversations, "methods": {}}
    for name, m in methods.items():
        out["methods"][name] = {
            "recall": {str(b): {"overall": m.mean(b), **{CATEGORIES[c]: m.mean(b, c) for c in CATEGORIES}}
                       for b in BUDGETS},
            "temporal_check": (sum(m.temporal) / len(m.temporal)) if m.temporal else float("nan"),
            "temporal_questions": len(m.temporal),
            "latency_ms": {"p50": 1000 * _pct(m.latency, 0.5), "p95": 1000 * _pct(m.latency, 0.95)},
        }
        if m.shown:
            single = [f for c, f, _ in m.shown if CATEGORIES[c] == "single-hop"]
            out["methods"][name]["answer_size"] = {
                "facts_mean": statistics.mean(f for _, f, _ in m.shown),
                "topics_mean": statistics.mean(t for _, _, t in m.shown),
                "single_hop_facts_median": statistics.median(single) if single else float("nan")}
    return out


def report_markdown(report: dict) -> str:
    lines = ["| method | budget | overall | " + " | ".join(CATEGORIES.values()) + " |",
             "|---|---:|---:|" + "---:|" * len(CATEGORIES)]
    for name, m in report["methods"].items():
        for b in report["budgets"]:
            r = m["recall"][str(b)]
            lines.append(f"| {name} | {b} | {r['overall']:.3f} | " +
                         " | ".join(f"{r[c]:.3f}" for c in CATEGORIES.values()) + " |")
    lines += ["", "| method | temporal answer check @2000 | recall p50 ms | p95 ms |", "|---|---:|---:|---:|"]
    for name, m in report["methods"].items():
        lines.append(f"| {name} | {m['temporal_check']:.3f} ({m['temporal_questions']} q) | "
                     f"{m['latency_ms']['p50']:.1f} | {m['latency_ms']['p95']:.1f} |")
    lines += ["", "| conversation | sessions | questions | commits | topics | facts | topic bytes | sleep s/session |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in report["conversations"]:
        lines.append(f"| {c['name']} | {c['sessions']} | {c['questions']} | {c['commits']} | {c['topics']} | "
                     f"{c['facts']} | {c['topic_bytes']} | "
                     f"{c['sleep_seconds_mean']:.2f} (max {c['sleep_seconds_max']:.2f}) |")
    return "\n".join(lines)


def summary_lines(report: dict) -> list[str]:
    out = [f"{name}: evidence recall @1000 {m['recall']['1000']['overall']:.3f}, "
           f"@2000 {m['recall']['2000']['overall']:.3f}, "
           f"@4000 {m['recall']['4000']['overall']:.3f}; temporal check {m['temporal_check']:.3f}"
           for name, m in report["methods"].items()]
    for name, m in report["methods"].items():
        if "answer_size" in m:
            a = m["answer_size"]
            out.append(f"{name}: answer @2000 shows {a['facts_mean']:.1f} facts under {a['topics_mean']:.1f} topics "
                       f"on average; median single-hop answer {a['single_hop_facts_median']:g} facts")
    return out
