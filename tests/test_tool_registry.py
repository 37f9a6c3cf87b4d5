"""One tool registry: the awake loop offers the model the same memory tools `vault mcp` serves, with
the same names, descriptions and arguments (the loop's schemas are the strict form of the MCP ones)."""
from __future__ import annotations

from test_mcp import run_session

from sheriff_vault.agent.registry import TOOLS, strict
from sheriff_vault.agent.tools import Toolbox, check_arguments, tool_specs


def test_the_loop_and_the_mcp_server_list_the_same_tools_from_one_definition(hash_vault):
    async def body(session):
        return (await session.list_tools()).tools

    served = {t.name: t for t in run_session(hash_vault.root, body)}
    offered = {s["name"]: s for s in tool_specs()}
    shared = set(served) & set(offered)
    assert shared == set(TOOLS) - {"note"}  # the loop notes every turn itself
    assert set(served) == set(TOOLS)
    for name in shared:
        mcp_tool, spec = served[name], offered[name]
        assert mcp_tool.description == spec["description"] == TOOLS[name].description, name
        assert mcp_tool.input_schema == TOOLS[name].input_schema(), name
        assert spec["parameters"] == strict(mcp_tool.input_schema), name
        assert list(spec["parameters"]["properties"]) == list(mcp_tool.input_schema["properties"]), name
        assert spec["strict"] is True and spec["parameters"]["additionalProperties"] is False


def test_the_loop_refuses_an_unknown_argument_too_and_still_takes_the_old_names(hash_vault):
    _, wrong = check_arguments("recall", {"query": "x", "topk": 3})
    assert wrong and "'topk' was unexpected" in wrong[0]
    box = Toolbox(hash_vault)
    made = box.call("topic_upsert", {"name": "Billing", "facts": ["The invoice cutoff is the 25th."]})
    fixed = box.call("topic_fact", {"topic": "billing", "fact": "cutoff", "action": "supersede",
                                    "replacement": "The invoice cutoff is the 28th."})
    assert made["path"] == "topics/billing.md" and fixed["asked_by"] == "the agent", fixed
    assert "28th" in box.call("recall", {"query": "invoice cutoff"})["markdown"]
    assert "28th" in box.call("topics.search", {"query": "invoice cutoff"})["markdown"]
    assert [t["name"] for t in box.call("topic_list", {"limit": 1})["topics"]] == ["Billing"]
    assert "bad arguments" in box.call("recall", {"query": "x", "topk": 3})["error"]
