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
from sheriff_vault.search_words import key_words
from sheriff_vault.store.skills import Skill, get, registry
from sheriff_vault.text import stem

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

_DEEP = re.compile(r"\b(?:implement|refactor|migrate|rename|restructure|across (?:the )?modules|write (?:the )?docs?|"
                   r"document|fix|debug|failing|broken|error|traceback|architect|design|plan)\b", re.I)
# What a request looks like, beyond its words: each cue adds words that skills' tags can match.
CUES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    # a stack trace or an error line: Python, JavaScript, Rust, Go, C, pytest
    (re.compile(r"Traceback \(most recent call last\)|^\s*File \".+\", line \d+|^\s+at \S+ \(?\S+:\d+(?::\d+)?\)?$|"
                r"\b[A-Z]\w*(?:Error|Exception)\b(?::|$)|\bpanicked at\b|^goroutine \d+ \[|Segmentation fault|"
                r"core dumped|^E\s{3}|^(?:FAILED|ERROR) \S+::", re.M),
     ("traceback", "error", "debug")),
    # several steps in order, or a plan asked for
    (re.compile(r"\b(?:then|after that|afterwards|step by step|step (?:one|two|1|2)|first step|next step|"
                r"(?:make|write|draft) (?:a|the) plan|how should (?:we|i) (?:architect|structure|design|approach))\b",
                re.I),
     ("plan", "step")),
    # a sequence of actions: "first ..., then ...", "... then ... then ..."
    (re.compile(r"\bfirst\b.*\bthen\b|\bthen\b.*\bthen\b", re.I | re.S), ("orchestrate",)),
]
SEMANTIC_FLOOR = 0.3  # a skill scoring less than this fits no better than an unrelated one
TAG_WEIGHT = 0.2      # each tag the request names (up to three) adds this
WORD_WEIGHT = 0.5     # times the share of the request's words the skill's manifest uses
_VECTORS: dict[tuple[str, str], Any] = {}  # (model, text) -> unit vector, for the skills' routing texts


def request_words(query: str) -> set[str]:
    """The stems of the request's content words, plus the words its shape implies (CUES)."""
    words = {stem(w) for w in key_words(query)}
    for pattern, implied in CUES:
        if pattern.search(query):
            words |= {stem(w) for w in implied}
    return words


def search(vault: Vault, query: str, k: int = 2, *, semantic: bool = True) -> list[tuple[Skill, float]]:
    """Skills that fit the request, best first, by meaning and by words:

    score = best cosine between the request and the skill's name + description or one of its
            example `requests` (the embedding model: the daemon's, else loaded here)
          + TAG_WEIGHT x tags the request names (its words and its shape: a stack trace names
            `traceback`, "first ... then ..." names `plan`)
          + WORD_WEIGHT x the share of the request's words its name, description and tags use.
    Skills under SEMANTIC_FLOOR are left out. Without the model (embedding.enabled false, or it
    will not load) the words alone decide. Routing is light (k) unless the request is about
    changing code, then it shows at least 3."""
    skills = registry(vault)
    if not skills or not query.strip():
        return []
    words = request_words(query)
    sims = _similarities(vault, query, skills) if semantic else None
    scored = []
    for i, skill in enumerate(skills):
        tags = {stem(t) for tag in [*skill.tags, *skill.skill_id.split("_")] for t in key_words(tag) or [tag]}
        described = f"{skill.name} {skill.description} {skill.skill_id}"
        own = {stem(w) for w in key_words(described)} | tags
        overlap = len(words & own) / (len(words) or 1)
        meaning = float(sims[i]) if sims is not None else 0.0
        score = meaning + TAG_WEIGHT * min(len(words & tags), 3) + WORD_WEIGHT * overlap
        if score >= SEMANTIC_FLOOR:
            scored.append((skill, round(score, 4)))
    scored.sort(key=lambda x: -x[1])
    return scored[: (max(k, 3) if _DEEP.search(query) else k)]


def _similarities(vault: Vault, query: str, skills: list[Skill]) -> Any:
    """Per skill, the best cosine between the query and its routing texts; None without a model.
    The skills' vectors are kept for the life of the process, so each request embeds only itself."""
    import numpy as np

    from sheriff_vault.daemon.client import embed

    model = vault.config.embedding.model
    texts = [t for s in skills for t in s.routing_texts()]
    todo = [t for t in dict.fromkeys(texts) if (model, t) not in _VECTORS]
    vecs = embed(vault, [query[:2000], *todo])
    if vecs is None or len(vecs) != len(todo) + 1:
        return None
    _VECTORS.update({(model, t): v for t, v in zip(todo, vecs[1:], strict=True)})
    q = vecs[0]
    out, i = np.zeros(len(skills), dtype=np.float32), 0
    for n, skill in enumerate(skills):
        count = len(skill.routing_texts())
        out[n] = max(float(_VECTORS[(model, t)] @ q) for t in texts[i:i + count])
        i += count
    return out


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
