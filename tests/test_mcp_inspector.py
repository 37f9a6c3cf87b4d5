"""`vault mcp` under the official MCP inspector's CLI (`npx @modelcontextprotocol/inspector --cli`),
run offline from npm's cache: it lists every tool with its title and annotations, and calls one.

Skipped, with the reason, where npx is missing or the inspector is not in npm's cache (nothing is
downloaded: `npx --offline`). Fill the cache once with `npx @modelcontextprotocol/inspector --help`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sheriff_vault.agent.registry import TOOLS

NPM_CACHE = Path(os.environ.get("npm_config_cache") or Path.home() / ".npm")  # before tests get a fresh HOME
READ_ONLY = {"recall", "topic_get", "topic_list", "wake", "history", "diff", "time", "skills_search"}
DESTRUCTIVE = {"sleep", "topic_upsert", "topic_link", "topic_fact", "note"}


def inspector(vault: Path, *method: str) -> dict:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed")
    env = dict(os.environ, npm_config_cache=str(NPM_CACHE))
    env.pop("SHERIFF_VAULT", None)
    done = subprocess.run([npx, "--offline", "--yes", "@modelcontextprotocol/inspector", "--cli",
                           sys.executable, "-m", "sheriff_vault", "mcp", "--vault", str(vault), *method],
                          capture_output=True, text=True, env=env, timeout=180)
    if done.returncode != 0 and "ENOTCACHED" in done.stderr:
        pytest.skip(f"the MCP inspector is not in npm's cache ({NPM_CACHE}); this test downloads nothing")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_inspector_lists_every_tool_with_its_title_and_annotations(hash_vault):
    tools = {t["name"]: t for t in inspector(hash_vault.root, "--method", "tools/list")["tools"]}
    assert set(tools) == set(TOOLS)
    for name, tool in tools.items():
        hints = tool["annotations"]
        assert tool["title"] and hints["title"] == tool["title"], name
        assert tool["inputSchema"]["additionalProperties"] is False, name
        assert not tool["description"].startswith((" ", "\n")), name
        assert hints["readOnlyHint"] is (name in READ_ONLY), name
        if name in DESTRUCTIVE:
            assert hints["destructiveHint"] is True, name


def test_the_inspector_calls_a_tool(hash_vault):
    reply = inspector(hash_vault.root, "--method", "tools/call", "--tool-name", "time", "--tool-arg",
                      "phrase=last week")
    assert reply.get("isError") in (None, False)
    assert reply["structuredContent"]["granularity"] == "week"
