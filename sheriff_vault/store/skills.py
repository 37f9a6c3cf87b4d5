"""The skill registry: a skill is a folder with manifest.json, skill.py and README.md, built in
(skills/ of this repository) or the vault's own (skills/ of the vault). Finding and reading only;
routing and running live in agent/skills.py.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import SkillError

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

MANIFEST = "manifest.json"
REQUIRED = ("skill_id", "name", "description")
_ALIASES = {name.replace("_", ".", 1): name for name in (
    "topics_search", "topics_get", "topics_upsert", "topics_link", "memory_sleep", "memory_wake", "skills_search",
    "skills_run", "repo_list_files", "repo_read_file", "repo_write_file", "repo_run_tests")}


def canonical(name: str) -> str:
    """Tool names may be written with a dot (topics.search); function names cannot, so both spellings are accepted."""
    return _ALIASES.get(name, name)


@dataclass
class Skill:
    skill_id: str
    name: str
    description: str
    path: Path
    requires_tools: list[str] = field(default_factory=list)
    inputs_schema: dict = field(default_factory=dict)
    outputs_schema: dict = field(default_factory=dict)
    default_reasoning_effort: str = "medium"
    tags: list[str] = field(default_factory=list)
    examples: list[Any] = field(default_factory=list)
    builtin: bool = False
    requests: list[str] = field(default_factory=list)  # what a person says when they want it (routing)

    def routing_texts(self) -> list[str]:
        """What routing embeds for this skill: its name and description, then each example request."""
        return [f"{self.name}. {self.description}", *self.requests]

    def summary(self) -> dict:
        """The compact manifest put into a prompt."""
        return {"skill_id": self.skill_id, "name": self.name, "description": self.description,
                "requires_tools": self.requires_tools, "inputs_schema": self.inputs_schema, "tags": self.tags}

    def to_json(self) -> dict:
        return self.summary() | {"path": str(self.path), "builtin": self.builtin,
                                 "default_reasoning_effort": self.default_reasoning_effort, "examples": self.examples}


def load(folder: Path, builtin: bool = False) -> Skill:
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SkillError("no manifest.json", path=folder,
                         hint="a skill folder needs manifest.json, skill.py, README.md") from None
    except json.JSONDecodeError as exc:
        raise SkillError(f"manifest is not valid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    missing = [k for k in REQUIRED if not str(data.get(k) or "").strip()] if isinstance(data, dict) else list(REQUIRED)
    if missing:
        raise SkillError(f"manifest lacks {', '.join(missing)}", path=path,
                         hint="see docs/agent.md for the manifest's fields")
    if not re.fullmatch(r"[a-z][a-z0-9_\-]{1,63}", data["skill_id"]):
        raise SkillError(f"skill_id {data['skill_id']!r} must be lowercase letters, digits, _ or -", path=path)
    tools = [canonical(t) for t in data.get("requires_tools") or []]
    return Skill(data["skill_id"], data["name"], data["description"], Path(folder), tools,
                 data.get("inputs_schema") or {}, data.get("outputs_schema") or {},
                 data.get("default_reasoning_effort") or "medium", list(data.get("tags") or []),
                 list(data.get("examples") or []), builtin,
                 [str(r) for r in data.get("requests") or [] if str(r).strip()][:20])


def builtin_dir() -> Path:
    local = Path(__file__).resolve().parents[2] / "skills"
    if local.is_dir():
        return local
    return Path(str(resources.files("sheriff_vault.builtin_skills")))


def registry(vault: Vault, errors: list[SkillError] | None = None) -> list[Skill]:
    """Built-in skills, then the vault's own (a vault skill with the same id wins)."""
    found: dict[str, Skill] = {}
    for base, builtin in ((builtin_dir(), True), (vault.path("skills"), False)):
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if (p / MANIFEST).is_file()):
            try:
                skill = load(folder, builtin)
            except SkillError as exc:
                if errors is not None:
                    errors.append(exc)
                continue
            found[skill.skill_id] = skill
    return list(found.values())


def get(vault: Vault, skill_id: str) -> Skill:
    for skill in registry(vault):
        if skill.skill_id == skill_id:
            return skill
    raise SkillError(f"no skill {skill_id!r}", hint="`vault skills list` shows them")


