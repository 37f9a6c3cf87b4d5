"""`vault tools` prints the agent's tool schemas; `vault log` shows the structured logs."""
from __future__ import annotations

import json

from sheriff_vault.agent.hooks import run_claude_hook
from sheriff_vault.agent.tools import Toolbox


def test_tools_prints_the_schemas_the_agent_loop_sends(hash_vault, invoke):
    out = invoke("tools", "--json")
    assert out.exit_code == 0
    specs = json.loads(out.stdout)
    assert specs == Toolbox(hash_vault).specs()
    assert {s["name"] for s in specs} >= {"recall", "sleep", "topic_fact", "skills_run", "repo_read_file"}
    assert all(s["type"] == "function" and s["parameters"]["type"] == "object" for s in specs)
    text = invoke("tools").stdout
    assert "recall(query, since?, until?, budget?, as_of?, deep?, tag?)" in text


def test_log_shows_each_hook_run(hash_vault, invoke):
    assert "no log entries yet" in invoke("log", "--vault", hash_vault.root).stdout
    run_claude_hook(hash_vault.root, json.dumps({"hook_event_name": "SessionStart", "source": "startup"}))
    run_claude_hook(hash_vault.root, json.dumps({"hook_event_name": "PreCompact", "transcript_path": "/nope.jsonl"}))
    entries = json.loads(invoke("log", "--vault", hash_vault.root, "--json").stdout)
    assert [(e["log"], e["event"], e["outcome"]) for e in entries] == [
        ("hooks", "SessionStart", "skipped"), ("hooks", "PreCompact", "no transcript")]
    assert all(isinstance(e["duration_ms"], int) for e in entries)
    (hash_vault.logs / "hooks.jsonl").open("a").write('{"torn": ')
    shown = invoke("log", "--vault", hash_vault.root, "--tail", "1").stdout
    assert "PreCompact" in shown and "SessionStart" not in shown
