"""The tool layer of spec 7.3 as the model sees it, through the agent loop against the local fake
Responses API server (real HTTP, the real openai client): strict schemas, arguments checked against
them before anything runs (a bad one is an error output and the loop goes on), time_window and
filters on topics_search, ctx_refs on skills_run, presets on repo_run_tests."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fake_openai import function_call
from memory_fixtures import build, day

from sheriff_vault.agent.loop import Agent
from sheriff_vault.agent.tools import SPECS, Toolbox, check_arguments

NOW = day("2026-02-24T10:00:00")


@pytest.fixture
def agent_vault(hash_vault, fake_openai, tmp_path):
    hash_vault.config.llm.base_url = fake_openai.base_url
    hash_vault.config.agent.repo = str(tmp_path / "repo")
    (tmp_path / "repo").mkdir()
    return hash_vault


def _strict_problems(schema: dict, where: str = "") -> list[str]:
    """Where a schema breaks OpenAI's strict mode: an object that is open or leaves a property out
    of `required`, or has no properties at all (a free-form object strict mode cannot express)."""
    found = []
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    if "object" in kinds:
        if schema.get("additionalProperties") is not False:
            found.append(f"{where or '/'}: additionalProperties is not false")
        if "properties" not in schema:
            found.append(f"{where or '/'}: an object without properties")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            found.append(f"{where or '/'}: required is not every property")
    for key, sub in (schema.get("properties") or {}).items():
        found += _strict_problems(sub, f"{where}/{key}")
    if isinstance(schema.get("items"), dict):
        found += _strict_problems(schema["items"], f"{where}[]")
    return found


def test_every_tool_schema_is_strict():
    for name, (_, params) in SPECS.items():
        assert not _strict_problems(params), (name, _strict_problems(params))
    assert _strict_problems({"type": "object", "properties": {"a": {"type": "object"}}, "required": ["a"],
                             "additionalProperties": False}) == ["/a: additionalProperties is not false",
                                                                 "/a: an object without properties"]


def test_the_request_sends_strict_tools_and_a_bad_argument_is_an_error_the_model_reads(agent_vault, fake_openai):
    fake_openai.queue({"output": [function_call("topics_search", {"query": "party", "k": "many", "surprise": 1,
                                                                  "time_window": None, "filters": None,
                                                                  "deep": None})]})
    fake_openai.queue({"output": [function_call("topics_search", {"query": "party", "k": 3, "time_window": None,
                                                                  "filters": None, "deep": None})]})
    fake_openai.queue("The party is on Saturday.")
    reply = Agent(agent_vault, now=lambda: NOW).ask("when is the party?")
    first, second, third = fake_openai.requests
    assert first["tools"] and all(t["strict"] is True for t in first["tools"])
    error = json.loads(second["input"][0]["output"])["error"]
    assert "bad arguments for topics_search" in error and "'many' is not of type" in error
    assert "surprise" in error  # the property the schema does not have
    assert "error" not in json.loads(third["input"][0]["output"])
    assert [c["ok"] for c in reply.tool_calls] == [False, True]
    assert reply.text == "The party is on Saturday."


@pytest.mark.parametrize("args,complaint", [
    ({"query": 42}, "42 is not of type"),
    ({"k": 3}, "'query' is a required property"),
    ({"query": "x", "k": 0}, "0 is less than the minimum of 1"),
    ({"query": "x", "filters": {"kinds": ["gossip"], "topics": None}}, "'gossip' is not one of"),
    ({"query": "x", "time_window": {"since": "last week"}}, "'until' is a required property"),
    (["query", "x"], "arguments must be a JSON object"),
])
def test_arguments_the_schema_refuses_never_run(hash_vault, args, complaint):
    reply = Toolbox(hash_vault).call("topics_search", args)
    assert set(reply) == {"error"} and complaint in reply["error"], reply


def test_an_optional_argument_left_out_counts_as_null():
    filled, wrong = check_arguments("topics_search", {"query": "x"})
    assert not wrong and filled == {"query": "x", "time_window": None, "k": None, "filters": None, "deep": None}


def test_topics_search_time_window_and_filters(hash_vault):
    build(hash_vault)
    box = Toolbox(hash_vault, now=lambda: NOW)
    box.call("topics_upsert", {"name": "Database migration", "open_loops": ["Who signs off the cutover date?"]})
    query = "database migration cutover sign off"
    everything = box.call("topics_search", {"query": query})
    assert everything["topics"][0]["name"] == "Database migration"
    assert {f["kind"] for f in everything["topics"][0]["facts"]} >= {"fact", "loop"}
    loops = box.call("topics_search", {"query": query, "filters": {"kinds": ["loop"], "topics": None}})
    assert [f["text"] for t in loops["topics"] for f in t["facts"]] == ["Who signs off the cutover date?"]
    assert "cutover" in loops["markdown"] and "invoices" not in loops["markdown"]
    one = box.call("topics_search", {"query": "party garden", "filters": {"kinds": None, "topics": ["the garden"]}})
    assert [t["name"] for t in one["topics"]] == ["Vegetable garden"]
    assert "no topic" in box.call("topics_search", {"query": "x", "filters": {"kinds": None,
                                                                             "topics": ["Nope nope"]}})["error"].lower()
    window = box.call("topics_search", {"query": "what happened", "time_window": {"since": "2026-02-15",
                                                                                  "until": "2026-02-18"}})
    assert window["window"] and window["window"]["start"].startswith("2026-02-15")
    assert [t["name"] for t in window["topics"]][:1] == ["Database migration"]


def test_skills_run_takes_args_as_a_json_string_and_ctx_refs(agent_vault, fake_openai, tmp_path):
    folder = agent_vault.root / "skills" / "echo_ctx"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({
        "skill_id": "echo_ctx", "name": "Echo", "description": "Returns what it was given.",
        "inputs_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}))
    (folder / "skill.py").write_text("def run(args, tools, ctx):\n"
                                     "    return {'n': args['n'], 'topics': [t['name'] for t in ctx['topics']]}\n")
    box = Toolbox(agent_vault)
    box.call("topics_upsert", {"name": "Release plan", "facts": ["We ship on Friday."]})
    assert box.call("skills_run", {"skill_id": "echo_ctx", "args": '{"n": 2}', "ctx_refs": ["Release plan"]}) == {
        "n": 2, "topics": ["Release plan"]}
    assert "args is not JSON" in box.call("skills_run", {"skill_id": "echo_ctx", "args": "{n: 2"})["error"]
    assert "must hold a JSON object" in box.call("skills_run", {"skill_id": "echo_ctx", "args": "[1]"})["error"]
    refused = box.call("skills_run", {"skill_id": "echo_ctx", "args": '{"n": "two"}'})["error"]
    assert "bad arguments for skill echo_ctx" in refused and "'two' is not of type 'integer'" in refused
    fake_openai.queue({"output": [function_call("skills_run", {"skill_id": "echo_ctx", "args": {"n": 2},
                                                               "ctx_refs": None})]})
    fake_openai.queue("Done.")
    reply = Agent(agent_vault, now=lambda: NOW).ask("run the echo skill")
    assert reply.tool_calls[0]["ok"] is False  # an object where the strict schema wants a JSON string
    assert "is not of type 'string'" in json.loads(fake_openai.requests[-1]["input"][0]["output"])["error"]


@pytest.fixture
def test_repo(hash_vault, tmp_path) -> Path:
    repo = tmp_path / "proj"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_a.py").write_text("def test_ok():\n    pass\n\ndef test_bad():\n    assert 1 == 2\n")
    (repo / "tests" / "test_b.py").write_text("def test_fine():\n    pass\n")
    hash_vault.config.agent.test_command = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    return repo


def test_repo_run_tests_presets_and_paths(hash_vault, test_repo):
    box = Toolbox(hash_vault, repo=test_repo)
    full = box.call("repo_run_tests", {})
    assert not full["passed"] and "1 failed, 2 passed" in full["output"]
    first = box.call("repo_run_tests", {"preset": "first_failure", "paths": None})
    assert first["command"].endswith(" -x") and "1 failed" in first["output"]
    one = box.call("repo_run_tests", {"preset": None, "paths": ["tests/test_b.py"]})
    assert one["passed"] and "1 passed" in one["output"] and one["command"].endswith("tests/test_b.py")
    assert "not a test path" in box.call("repo_run_tests", {"paths": ["--co"]})["error"]
    assert "outside" in box.call("repo_run_tests", {"paths": ["../elsewhere/test_x.py"]})["error"] or \
        "without .." in box.call("repo_run_tests", {"paths": ["../elsewhere/test_x.py"]})["error"]
    assert "is not one of" in box.call("repo_run_tests", {"preset": "everything"})["error"]
    hash_vault.config.agent.test_command = "make test"
    assert "needs a pytest test_command" in box.call("repo_run_tests", {"preset": "last_failed"})["error"]
