"""Skills (spec sec. 3): a folder with manifest.json, skill.py and README.md. Recall routes a
message to the few skills that fit; `run` executes one in a child process with a timeout and
only the tools its manifest names.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import SkillError
from .text import content_words, stem

MANIFEST = "manifest.json"
REQUIRED = ("skill_id", "name", "description")


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
        raise SkillError("no manifest.json", path=folder, hint="a skill folder needs manifest.json, skill.py, README.md") from None
    except json.JSONDecodeError as exc:
        raise SkillError(f"manifest is not valid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    missing = [k for k in REQUIRED if not str(data.get(k) or "").strip()] if isinstance(data, dict) else list(REQUIRED)
    if missing:
        raise SkillError(f"manifest lacks {', '.join(missing)}", path=path, hint="see the spec's manifest schema")
    if not re.fullmatch(r"[a-z][a-z0-9_\-]{1,63}", data["skill_id"]):
        raise SkillError(f"skill_id {data['skill_id']!r} must be lowercase letters, digits, _ or -", path=path)
    from .tools import canonical

    tools = [canonical(t) for t in data.get("requires_tools") or []]
    return Skill(data["skill_id"], data["name"], data["description"], Path(folder), tools,
                 data.get("inputs_schema") or {}, data.get("outputs_schema") or {},
                 data.get("default_reasoning_effort") or "medium", list(data.get("tags") or []),
                 list(data.get("examples") or []), builtin)


def builtin_dir() -> Path:
    local = Path(__file__).resolve().parent.parent / "skills"
    if local.is_dir():
        return local
    return Path(str(resources.files("sheriff_vault.builtin_skills")))


def registry(vault: Any, errors: list[SkillError] | None = None) -> list[Skill]:
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


def get(vault: Any, skill_id: str) -> Skill:
    for skill in registry(vault):
        if skill.skill_id == skill_id:
            return skill
    raise SkillError(f"no skill {skill_id!r}", hint="`vault skills list` shows them")


_DEEP = re.compile(r"\b(?:implement|refactor|migrate|rename|restructure|across (?:the )?modules|write (?:the )?docs?|"
                   r"document|fix|debug|failing|broken|error|traceback|architect|design|plan)\b", re.I)


def search(vault: Any, query: str, k: int = 2, embedder: Any = None) -> list[tuple[Skill, float]]:
    """Skills whose name, description and tags fit the query: word overlap plus, when the model is
    loaded, embedding similarity. Routing is light (k) unless the request is about changing code."""
    skills = registry(vault)
    if not skills or not query.strip():
        return []
    words = {stem(w) for w in content_words(query)}
    scored = []
    sims = None
    if embedder is not None:
        try:
            vecs = embedder.encode([query] + [f"{s.name}. {s.description} {' '.join(s.tags)}" for s in skills])
            sims = vecs[1:] @ vecs[0]
        except Exception:  # routing without the model still works on words
            sims = None
    for i, skill in enumerate(skills):
        own = {stem(w) for w in content_words(f"{skill.name} {skill.description} {' '.join(skill.tags)} {skill.skill_id}")}
        overlap = len(words & own) / (len(words) or 1)
        score = overlap + (float(sims[i]) if sims is not None else 0.0)
        if score > 0.25:
            scored.append((skill, round(score, 4)))
    scored.sort(key=lambda x: -x[1])
    return scored[: (max(k, 3) if _DEEP.search(query) else k)]


def run(vault: Any, skill_id: str, args: dict, *, repo: Path | None = None, timeout: float | None = None) -> dict:
    """Run skill.py's `run(args, tools)` in a child process; it may call only its manifest's tools."""
    skill = get(vault, skill_id)
    if not (skill.path / "skill.py").is_file():
        raise SkillError("skill has no skill.py", path=skill.path)
    timeout = timeout or vault.config.skills.timeout_seconds
    request = {"skill_dir": str(skill.path), "vault": str(vault.root), "args": args, "tools": skill.requires_tools,
               "repo": str(repo or vault.config_repo())}
    # Its own session, so a timeout stops every process the skill started, not just the first.
    proc = subprocess.Popen([sys.executable, "-m", "sheriff_vault.skillrun"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(json.dumps(request), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise SkillError(f"skill {skill_id} ran longer than {timeout:.0f}s and was stopped",
                         hint="raise skills.timeout_seconds in vault.yaml if it needs longer") from None
    except BaseException:
        _kill_group(proc)
        raise
    _kill_group(proc)  # a process the skill left running in the background goes with it
    if proc.returncode != 0:
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        raise SkillError(f"skill {skill_id} failed: {tail}", path=skill.path)
    try:
        return json.loads(stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise SkillError(f"skill {skill_id} did not print a JSON result", path=skill.path) from None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        proc.communicate()
