"""Routing a message to the few skills that fit, and running one in a child process with a timeout
and only the tools its manifest names."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import SkillError
from sheriff_vault.store.skills import Skill, get, registry
from sheriff_vault.text import content_words, stem

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

_DEEP = re.compile(r"\b(?:implement|refactor|migrate|rename|restructure|across (?:the )?modules|write (?:the )?docs?|"
                   r"document|fix|debug|failing|broken|error|traceback|architect|design|plan)\b", re.I)


def search(vault: Vault, query: str, k: int = 2, embedder: Any = None) -> list[tuple[Skill, float]]:
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
        described = f"{skill.name} {skill.description} {' '.join(skill.tags)} {skill.skill_id}"
        own = {stem(w) for w in content_words(described)}
        overlap = len(words & own) / (len(words) or 1)
        score = overlap + (float(sims[i]) if sims is not None else 0.0)
        if score > 0.25:
            scored.append((skill, round(score, 4)))
    scored.sort(key=lambda x: -x[1])
    return scored[: (max(k, 3) if _DEEP.search(query) else k)]


def run(vault: Vault, skill_id: str, args: dict, *, repo: Path | None = None, timeout: float | None = None,
        ctx: dict | None = None) -> dict:
    """Run skill.py's `run(args, tools[, ctx])` in a child process; it may call only its manifest's
    tools. Arguments its inputs_schema refuses are a SkillError before anything starts."""
    from sheriff_vault.agent.schema import problems

    skill = get(vault, skill_id)
    if not (skill.path / "skill.py").is_file():
        raise SkillError("skill has no skill.py", path=skill.path)
    wrong = problems(skill.inputs_schema, args) if skill.inputs_schema else []
    if wrong:
        raise SkillError(f"bad arguments for skill {skill_id}: " + "; ".join(wrong),
                         hint=f"its inputs: {json.dumps(skill.inputs_schema.get('properties', {}))[:300]}")
    timeout = timeout or vault.config.skills.timeout_seconds
    request = {"skill_dir": str(skill.path), "skill_id": skill_id, "vault": str(vault.root), "args": args,
               "tools": skill.requires_tools, "repo": str(repo or vault.config_repo()), "ctx": ctx or {}}
    # Its own session, so a timeout stops every process the skill started, not just the first.
    proc = subprocess.Popen([sys.executable, "-m", "sheriff_vault.agent.skillrun"], stdin=subprocess.PIPE,
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
