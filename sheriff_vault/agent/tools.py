"""The host tools an agent calls (docs/agent.md), as OpenAI function tools and as plain calls.

Every tool returns JSON-able data; a bad call returns {"error": ...} instead of raising, so the
model can correct itself. Repo tools never leave the repository: no absolute paths, no `..`,
no symlinks pointing out, nothing under .git/.
"""
from __future__ import annotations

import datetime as dt
import fnmatch
import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.errors import ToolError, VaultError
from sheriff_vault.store.skills import canonical

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

MAX_READ = 1024 * 1024
def _obj(props: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


_S = {"type": "string"}
SPECS: dict[str, tuple[str, dict]] = {
    "topics_search": ("Find the topics and dated facts that matter for a query; a time phrase in it "
                      "(last week, before you slept) restricts the window.",
                      _obj({"query": _S, "k": {"type": "integer"}, "since": _S, "until": _S,
                            "deep": {"type": "boolean"}}, ["query"])),
    "topics_get": ("Read whole topics by id, slug or name.",
                   _obj({"topic_ids": {"type": "array", "items": _S}}, ["topic_ids"])),
    "topics_upsert": ("Create or update a topic: name or topic_id, optional one_liner, aliases, facts, open_loops, "
                      "numbers [{key, value, unit}].",
                      _obj({"topic_id": _S, "name": _S, "one_liner": _S, "aliases": {"type": "array", "items": _S},
                            "facts": {"type": "array", "items": _S}, "open_loops": {"type": "array", "items": _S},
                            "numbers": {"type": "array", "items": {"type": "object"}}}, [])),
    "topics_link": ("Add or strengthen a link between two topics.",
                    _obj({"from": _S, "to": _S,
                          "type": {"type": "string", "enum": ["RELATES_TO", "DEPENDS_ON", "PART_OF", "NEXT", "PREV"]},
                          "weight_delta": {"type": "number"}}, ["from", "to"])),
    "memory_sleep": ("Compact the conversation buffer into topics now (one git commit).", _obj({}, [])),
    "memory_wake": ("Load the wake context: resume state, recent turns, memory and skills for a message.",
                    _obj({"user_msg": _S}, [])),
    "skills_search": ("Find skills for a task.", _obj({"query": _S, "k": {"type": "integer"}}, ["query"])),
    "skills_run": ("Run a skill with arguments.", _obj({"skill_id": _S, "args": {"type": "object"}}, ["skill_id"])),
    "repo_list_files": ("List repository files matching a glob (default all).", _obj({"pattern": _S}, [])),
    "repo_read_file": ("Read a text file from the repository.", _obj({"path": _S}, ["path"])),
    "repo_write_file": ("Write a text file in the repository.", _obj({"path": _S, "content": _S}, ["path", "content"])),
    "repo_run_tests": ("Run the repository's test command (agent.test_command in vault.yaml).", _obj({}, [])),
}


def tool_specs(allowed: set[str] | None = None) -> list[dict]:
    """The host tools in the Responses API's function-tool shape (what `vault tools` prints)."""
    return [{"type": "function", "name": name, "description": desc, "parameters": params}
            for name, (desc, params) in SPECS.items() if allowed is None or name in allowed]


class Toolbox:
    def __init__(self, vault: Vault, *, repo: Path | None = None, allowed: list[str] | None = None,
                 now: Callable[[], dt.datetime] | None = None) -> None:
        self.vault = vault
        self.repo = Path(repo or vault.config_repo()).resolve()
        self.allowed = None if allowed is None else {canonical(a) for a in allowed}
        self.now = now or (lambda: dt.datetime.now(dt.UTC))

    def specs(self) -> list[dict]:
        """Tools in the Responses API's function-tool shape."""
        return tool_specs(self.allowed)

    def call(self, name: str, args: dict | None = None) -> dict:
        name = canonical(name)
        if name not in SPECS:
            return {"error": f"unknown tool {name!r}"}
        if self.allowed is not None and name not in self.allowed:
            return {"error": f"tool {name!r} is not allowed here (allowed: {', '.join(sorted(self.allowed))})"}
        try:
            return getattr(self, name)(**(args or {}))
        except TypeError as exc:
            return {"error": f"bad arguments for {name}: {exc}"}
        except VaultError as exc:
            return {"error": str(exc)}
        except OSError as exc:  # EACCES, EISDIR, ENAMETOOLONG...: the model can fix its call, so tell it
            return {"error": f"{name} failed: {exc.strerror or exc}"}

    # -- memory ----------------------------------------------------------------------------
    def topics_search(self, query: str, k: int | None = None, since: str | None = None, until: str | None = None,
                      deep: bool = False) -> dict:
        from sheriff_vault.daemon.client import recall

        reply = recall(self.vault, query, k=k, since=since, until=until, deep=deep, now=self.now())
        return {"markdown": reply.markdown, "topics": [
            {"id": t["id"], "name": t["name"], "path": t["path"], "score": t["score"],
             "facts": [{"text": f["text"], "date": f["date"], "citations": f["citations"]} for f in t["facts"]]}
            for t in reply.json["topics"]], "window": reply.json["window"]}

    def topics_get(self, topic_ids: list[str]) -> dict:
        return {"topics": [self.vault.topics.get(ref).to_json() for ref in topic_ids[:20]]}

    def topics_upsert(self, **update: Any) -> dict:
        from sheriff_vault.store.edits import upsert_topic

        return upsert_topic(self.vault, update, now=self.now()).to_json()

    def topics_link(self, weight_delta: float = 1.0, type: str = "RELATES_TO", **ends: str) -> dict:
        from sheriff_vault.store.edits import link_topics

        return link_topics(self.vault, ends["from"], ends["to"], type, weight_delta).to_json()

    def memory_sleep(self) -> dict:
        from sheriff_vault.daemon.client import sleep

        result = sleep(self.vault, now=self.now())
        return {k: v for k, v in result.to_json().items() if k not in ("subjects",)}

    def memory_wake(self, user_msg: str = "") -> dict:
        from sheriff_vault.agent.wake import wake

        result = wake(self.vault, user_msg, now=self.now())
        return {"decision": result.decision, "bundle": result.bundle, "in_progress": result.in_progress.to_json()}

    def skills_search(self, query: str, k: int = 2) -> dict:
        from sheriff_vault.agent.skills import search

        return {"skills": [s.summary() | {"score": score} for s, score in search(self.vault, query, k)]}

    def skills_run(self, skill_id: str, args: dict | None = None) -> dict:
        from sheriff_vault.agent.skills import run

        return run(self.vault, skill_id, args or {}, repo=self.repo)

    # -- repository ------------------------------------------------------------------------
    def safe_path(self, path: str) -> Path:
        """Resolve a repo-relative path, refusing anything that would leave the repository."""
        raw = Path(str(path))
        if raw.is_absolute() or ".." in raw.parts or not str(path).strip():
            raise ToolError(f"path {path!r} must be relative to the repository, without ..")
        if "\0" in str(path):
            raise ToolError("a path cannot contain a NUL byte")
        try:
            target = (self.repo / raw).resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop; a name too long for the file system
            raise ToolError(f"path {str(path)[:200]!r} cannot be resolved: {exc}"[:400]) from None
        if target != self.repo and self.repo not in target.parents:
            raise ToolError(f"path {path!r} leads outside the repository (through a symlink)")
        if ".git" in target.relative_to(self.repo).parts:
            raise ToolError("the .git folder is off limits")
        return target

    def repo_list_files(self, pattern: str = "*") -> dict:
        out = []
        for folder, dirs, files in os.walk(self.repo, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in (".git", ".vault", "__pycache__", ".venv", "node_modules"))
            for name in sorted(files):
                rel = (Path(folder) / name).relative_to(self.repo).as_posix()
                if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern):
                    out.append(rel)
                if len(out) >= 2000:
                    return {"files": out, "truncated": True}
        return {"files": out, "truncated": False}

    def repo_read_file(self, path: str) -> dict:
        target = self.safe_path(path)
        if not target.is_file():
            raise ToolError(f"no file {path!r} in the repository")
        if target.stat().st_size > MAX_READ:
            raise ToolError(f"{path} is over {MAX_READ // 1024} KB")
        return {"path": path, "content": target.read_text(encoding="utf-8", errors="replace")}

    def repo_write_file(self, path: str, content: str) -> dict:
        from sheriff_vault.store.fsutil import atomic_write

        target = self.safe_path(path)
        atomic_write(target, content)
        return {"path": path, "bytes": len(content.encode())}

    def repo_run_tests(self) -> dict:
        command = shlex.split(self.vault.config.agent.test_command)
        try:
            proc = subprocess.run(command, cwd=self.repo, capture_output=True, text=True, timeout=600)
        except FileNotFoundError:
            raise ToolError(f"test command not found: {command[0]}") from None
        except subprocess.TimeoutExpired:
            return {"passed": False, "returncode": None, "output": "timed out after 600s"}
        output = (proc.stdout + proc.stderr)[-8000:]
        return {"passed": proc.returncode == 0, "returncode": proc.returncode, "output": output}


class Restricted:
    """What a skill gets: `tools.repo.read_file(path=...)` or `tools.call("repo.read_file", {...})`,
    every call checked against the skill's manifest (a guard against mistakes, not a sandbox)."""

    def __init__(self, box: Toolbox, prefix: str = "") -> None:
        self._box, self._prefix = box, prefix

    def call(self, name: str, args: dict | None = None) -> dict:
        result = self._box.call(name, args or {})
        if set(result) == {"error"}:
            raise ToolError(result["error"])
        return result

    def __getattr__(self, name: str) -> Any:
        if not self._prefix and name in ("topics", "memory", "skills", "repo"):
            return Restricted(self._box, name)
        full = f"{self._prefix}_{name}" if self._prefix else name
        return lambda **kwargs: self.call(full, kwargs)
