"""Structured logs (spec 9): each model call, tool call, sleep, recall and hook run is a JSON line in
.vault/logs/, `vault log` shows them all, and a log never fails or slows what it records."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fake_openai import function_call
from memory_fixtures import build, day

from sheriff_vault.agent.loop import Agent
from sheriff_vault.agent.tools import Toolbox
from sheriff_vault.compaction.compact import sleep
from sheriff_vault.daemon.client import recall
from sheriff_vault.store import logs
from sheriff_vault.store.logs import args_hash, read_logs, write_log

NOW = day("2026-02-24T10:00:00")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "conversation.jsonl"


def _lines(vault, name: str) -> list[dict]:
    path = vault.logs / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_an_agent_turn_logs_its_model_calls_tool_calls_and_recall(hash_vault, fake_openai, tmp_path, invoke):
    hash_vault.config.llm.base_url = fake_openai.base_url
    build(hash_vault)
    arguments = {"query": "party budget", "k": 2, "time_window": None, "filters": None, "deep": None}
    fake_openai.queue({"output": [function_call("topics_search", arguments)]})
    fake_openai.queue("400 USD.")
    Agent(hash_vault, repo=tmp_path, now=lambda: NOW).ask("what is the budget for Caroline's birthday party?")
    first, second = _lines(hash_vault, "model")
    party = hash_vault.topics.get("Caroline's birthday party").id
    assert first["ok"] and party in first["topics"] and first["tool_calls"] == 1 and first["continues"] == ""
    assert first["input_chars"] > 500 and first["tools"] == 17 and first["response_id"].startswith("resp_")
    assert second["continues"] == first["response_id"] and second["tool_calls"] == 0
    assert all(isinstance(e["duration_ms"], float) for e in (first, second))
    [tool] = _lines(hash_vault, "tools")
    assert tool | {"duration_ms": 0, "at": ""} == {"at": "", "tool": "topics_search", "args_hash": args_hash(arguments),
                                                   "ok": True, "duration_ms": 0, "caller": "agent", "error": ""}
    recalls = _lines(hash_vault, "recall")
    assert [r["query"] for r in recalls][-2:] == ["what is the budget for Caroline's birthday party?", "party budget"]
    top = recalls[-1]["candidates"][0]
    assert top["id"] == party and top["score"] > 0 and recalls[-1]["chosen"][0] == party
    shown = invoke("log", "--vault", hash_vault.root, "--only", "model", "--only", "tools").stdout.splitlines()
    assert len(shown) == 3 and "topics_search args#" in shown[1] and "-> 1 tool call(s)" in shown[0]
    assert all(e["log"] == "recall" for e in json.loads(invoke("log", "--vault", hash_vault.root, "--only",
                                                                "recall", "--json").stdout))


def test_a_failed_model_call_and_a_failed_tool_call_are_logged(hash_vault, fake_openai, tmp_path):
    hash_vault.config.llm.base_url = fake_openai.base_url
    Toolbox(hash_vault, caller="skill:x").call("repo_read_file", {"path": "../x"})
    [tool] = _lines(hash_vault, "tools")
    assert not tool["ok"] and "without .." in tool["error"] and tool["caller"] == "skill:x"
    fake_openai.mode = "error"
    with pytest.raises(Exception, match="HTTP 500"):
        Agent(hash_vault, repo=tmp_path, now=lambda: NOW).ask("hello there")
    [call] = _lines(hash_vault, "model")
    assert not call["ok"] and "HTTP 500" in call["error"]


@pytest.mark.slow
def test_a_sleep_logs_what_it_created_and_the_wake_size(vault):
    from sheriff_vault.store.transcripts import read_file

    result = sleep(vault, read_file(EXAMPLE), now=day("2026-02-20T03:31:00"))
    [entry] = _lines(vault, "sleep")
    assert entry["commit"] == result.commit and entry["created"] == len(result.created) > 0
    assert entry["updated"] == len(result.updated) and entry["compacted"] == result.compacted
    assert entry["wake_bytes"] == (vault.root / result.wake).stat().st_size > 0
    assert sorted(entry["topics"]) == sorted(t["path"] for t in result.created + result.updated)


def test_logging_never_fails_the_operation(hash_vault, tmp_path):
    build(hash_vault)
    logs_dir = hash_vault.logs
    for f in logs_dir.glob("*"):
        f.unlink()
    logs_dir.rmdir()
    logs_dir.write_text("a file where the logs folder should be")
    assert write_log(hash_vault, "tools", {"x": 1}) is None
    reply = Toolbox(hash_vault, repo=tmp_path).call("topics_search", {"query": "the garden"})
    assert reply["topics"][0]["name"] == "Vegetable garden"
    assert recall(hash_vault, "the garden", use_daemon=False).json["topics"]
    assert write_log(hash_vault, "tools", {"not json": object()}) is None  # default=str: still written nowhere


def test_logs_are_cheap_to_write_and_to_read(hash_vault, monkeypatch):
    started = time.monotonic()
    for i in range(2000):
        write_log(hash_vault, "tools", {"tool": "topics_search", "i": i})
    assert time.monotonic() - started < 5.0, "2000 log lines should take well under a second"
    with open(hash_vault.logs / "tools.jsonl", "a") as fh:
        fh.write('{"torn": ')
    started = time.monotonic()
    newest = read_logs(hash_vault, tail=3)
    assert [e["i"] for e in newest] == [1997, 1998, 1999]
    assert time.monotonic() - started < 0.5
    monkeypatch.setattr(logs, "MAX_BYTES", 10_000)
    write_log(hash_vault, "tools", {"i": "after"})
    assert (hash_vault.logs / "tools.jsonl.1").stat().st_size > 10_000
    assert [e["i"] for e in read_logs(hash_vault, tail=5)] == ["after"]
