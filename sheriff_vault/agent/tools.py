"""The host tools an agent calls (docs/agent.md), as OpenAI function tools and as plain calls.

Every tool returns JSON-able data; a bad call returns {"error": ...} instead of raising, so the
model can correct itself. Repo tools never leave the repository: no absolute paths, no `..`,
no symlinks pointing out, nothing under .git/.
"""
from __future__ import annotations

import datetime as dt
import fnmatch
import json
import os
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sheriff_vault.agent.registry import LINK_TYPES, TOOLS, strict
from sheriff_vault.errors import ToolError, VaultError
from sheriff_vault.store.logs import args_hash, write_log
from sheriff_vault.store.skills import canonical

if TYPE_CHECKING:
    from sheriff_vault.store.vault import Vault

MAX_READ = 1024 * 1024
PRESETS = {"full": [], "last_failed": ["--lf"], "first_failure": ["-x"]}  # repo_run_tests presets (pytest flags)


def _obj(required: dict, optional: dict | None = None) -> dict:
    """An object schema OpenAI's strict mode accepts (see registry.strict)."""
    return strict({"type": "object", "properties": required | (optional or {}), "required": list(required)})


_S = {"type": "string"}
_LIST = {"type": "array", "items": _S}
_WINDOW = _obj({}, {"since": _S | {"description": "start: a phrase (last week, since you slept) or a date"},
                    "until": _S | {"description": "end: a phrase or a date"}})
_FILTERS = _obj({}, {"kinds": {"type": "array", "items": {"type": "string", "enum": ["fact", "loop", "event",
                                                                                     "note"]},
                               "description": "keep only these kinds of item (loop = open question or task)"},
                     "topics": _LIST | {"description": "keep only these topics (ids, slugs or names)"}})
_NUMBER = _obj({"key": _S, "value": {"type": "number"}}, {"unit": _S})
MCP_ONLY = {"note"}  # the awake loop notes every turn itself
REPO: dict[str, tuple[str, dict]] = {
    "repo_list_files": ("List repository files matching a glob (default all).", _obj({}, {"pattern": _S})),
    "repo_read_file": ("Read a text file from the repository.", _obj({"path": _S})),
    "repo_write_file": ("Write a text file in the repository.", _obj({"path": _S, "content": _S})),
    "repo_run_tests": ("Run the repository's tests (agent.test_command in vault.yaml). preset: full (default), "
                       "last_failed (only the tests that failed last run) or first_failure (stop at the first); "
                       "paths: only these test files or test ids.",
                       _obj({}, {"preset": {"type": "string", "enum": list(PRESETS)},
                                 "paths": _LIST | {"maxItems": 50}})),
}
# The names skills and older callers used before the memory tools took their MCP names; callable,
# never offered to the model.
LEGACY: dict[str, tuple[str, dict]] = {
    "topics_search": ("Find the topics and dated facts that matter for a query (use recall).",
                      _obj({"query": _S}, {"time_window": _WINDOW, "k": {"type": "integer", "minimum": 1,
                                                                          "maximum": 50},
                                          "filters": _FILTERS, "deep": {"type": "boolean"}})),
    "topics_get": ("Read whole topics by id, slug or name (use topic_get).",
                   _obj({"topic_ids": _LIST | {"maxItems": 20}})),
    "topics_upsert": ("Create or update a topic (use topic_upsert).",
                      _obj({}, {"topic_id": _S, "name": _S, "one_liner": _S, "aliases": _LIST, "facts": _LIST,
                                "open_loops": _LIST, "numbers": {"type": "array", "items": _NUMBER}})),
    "topics_link": ("Add or strengthen a link between two topics (use topic_link).",
                    _obj({"from": _S, "to": _S},
                         {"type": {"type": "string", "enum": LINK_TYPES}, "weight_delta": {"type": "number"}})),
    "memory_sleep": ("Compact the conversation buffer into topics now (use sleep).", _obj({})),
    "memory_wake": ("Load the wake context (use wake).", _obj({}, {"user_msg": _S})),
}
OFFERED: dict[str, tuple[str, dict]] = {
    name: (tool.description, tool.strict_schema()) for name, tool in TOOLS.items() if name not in MCP_ONLY} | REPO
SPECS: dict[str, tuple[str, dict]] = OFFERED | LEGACY


def tool_specs(allowed: set[str] | None = None) -> list[dict]:
    """The tools offered to the model in the Responses API's function-tool shape, strict (what
    `vault tools` prints): the memory tools from the registry `vault mcp` serves, and the repository
    tools."""
    return [{"type": "function", "name": name, "description": desc, "parameters": params, "strict": True}
            for name, (desc, params) in OFFERED.items() if allowed is None or name in allowed]


def check_arguments(name: str, args: Any) -> tuple[dict, list[str]]:
    """(the arguments to dispatch, what is wrong with them) for tool `name` against its schema. A
    property left out that may be null counts as null (a model not in strict mode may omit it)."""
    from sheriff_vault.agent.schema import problems

    schema = SPECS[name][1]
    if not isinstance(args, dict):
        return {}, ["arguments must be a JSON object"]
    filled = dict(args)
    for key, prop in schema["properties"].items():
        if key not in filled and "null" in prop.get("type", []):
            filled[key] = None
    found = problems(schema, filled)
    if not found and name in TOOLS:  # the limits strict mode cannot carry (lengths), as `vault mcp` checks them
        full = TOOLS[name].input_schema()
        given = {k: v for k, v in filled.items() if v is not None
                 and not (isinstance(v, str) and full["properties"][k].get("type") == "object")}
        found = problems(full, given)
    return filled, found


def _offset(cursor: str | None) -> int:
    """Where a page starts: the `next_cursor` the page before gave (an offset), 0 without one."""
    try:
        start = int(cursor or 0)
        if start < 0:
            raise ValueError
    except ValueError:
        raise ToolError(f"cursor {cursor!r} is not one this list gave",
                        hint="pass the next_cursor of the page before, or leave cursor out for the first page") \
            from None
    return start


def list_topics(vault: Vault, *, limit: int = 50, cursor: str | None = None) -> dict:
    """One page of topics, newest first; `next_cursor` continues where it ends (None on the last
    page). A topic that cannot be read is named in `errors` instead of failing the list."""
    start = _offset(cursor)
    problems: list[VaultError] = []
    topics = vault.topics.all(on_error=problems.append)
    topics.sort(key=lambda t: (t.last_seen.timestamp() if t.last_seen else 0, t.slug), reverse=True)
    page = topics[start:start + limit]
    end = start + len(page)
    return {"topics": [{"id": t.id, "slug": t.slug, "name": t.name, "one_liner": t.one_liner,
                        "last_seen": t.last_seen.isoformat() if t.last_seen else None, "facts": len(t.facts)}
                       for t in page],
            "total": len(topics), "next_cursor": str(end) if end < len(topics) else None,
            "errors": [str(p) for p in problems]}


class Toolbox:
    def __init__(self, vault: Vault, *, repo: Path | None = None, allowed: list[str] | None = None,
                 now: Callable[[], dt.datetime] | None = None, caller: str = "") -> None:
        self.vault = vault
        self.repo = Path(repo or vault.config_repo()).resolve()
        self.allowed = None if allowed is None else {canonical(a) for a in allowed}
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.caller = caller  # who calls, for the tools log: "agent", "skill:debug"

    def specs(self) -> list[dict]:
        """Tools in the Responses API's function-tool shape."""
        return tool_specs(self.allowed)

    def call(self, name: str, args: Any = None) -> dict:
        """Run one tool call; a bad call (unknown tool, arguments the schema refuses, a failure the
        caller can fix) returns {"error": ...}. Every call is logged (.vault/logs/tools.jsonl)."""
        started = time.monotonic()
        result = self._call(canonical(name), {} if args is None else args)
        error = result.get("error") if set(result) == {"error"} else None
        write_log(self.vault, "tools", {"tool": canonical(name), "args_hash": args_hash(args), "ok": error is None,
                                        "duration_ms": round((time.monotonic() - started) * 1000, 1),
                                        "caller": self.caller, "error": str(error)[:300] if error else ""})
        return result

    def _call(self, name: str, args: Any) -> dict:
        if name not in SPECS:
            return {"error": f"unknown tool {name!r}"}
        if self.allowed is not None and name not in self.allowed:
            return {"error": f"tool {name!r} is not allowed here (allowed: {', '.join(sorted(self.allowed))})"}
        args, wrong = check_arguments(name, args)
        if wrong:
            return {"error": f"bad arguments for {name}: " + "; ".join(wrong)}
        try:
            return getattr(self, name)(**{k: v for k, v in args.items() if v is not None})
        except TypeError as exc:
            return {"error": f"bad arguments for {name}: {exc}"}
        except VaultError as exc:
            return {"error": str(exc)}
        except OSError as exc:  # EACCES, EISDIR, ENAMETOOLONG...: the model can fix its call, so tell it
            return {"error": f"{name} failed: {exc.strerror or exc}"}

    # -- memory (the registry's tools, as `vault mcp` serves them) ---------------------------
    def recall(self, query: str, since: str | None = None, until: str | None = None, budget: int | None = None,
               as_of: str | None = None, deep: bool = False, tag: str | None = None) -> dict:
        tagged: dict[str, Any] = {"tag": tag} if tag else {}
        if as_of:
            from sheriff_vault.retrieval.timetravel import recall_as_of

            reply = recall_as_of(self.vault, as_of, query, budget=budget, since=since, until=until, deep=deep,
                                 **tagged)
        else:
            from sheriff_vault.daemon.client import recall

            reply = recall(self.vault, query, budget=budget, since=since, until=until, deep=deep, now=self.now(),
                           **tagged)
        return {"markdown": reply.markdown or "Nothing in memory matches this.", "topics": reply.json["topics"],
                "window": reply.json.get("window"), "warnings": reply.json.get("warnings", [])}

    def topic_get(self, ref: str) -> dict:
        topic = self.vault.topics.get(ref)
        return {"path": topic.rel, "markdown": topic.render()}

    def topic_list(self, limit: int = 50, cursor: str | None = None) -> dict:
        return list_topics(self.vault, limit=limit, cursor=cursor)

    def topic_upsert(self, **update: Any) -> dict:
        from sheriff_vault.store.edits import upsert_topic

        if not (update.get("name") or update.get("topic_id")):
            raise ToolError("topic_upsert needs name (to create or find a topic) or topic_id (an existing one)")
        return upsert_topic(self.vault, update, now=self.now()).to_json()

    def topic_fact(self, topic: str, fact: str, action: str, replacement: str = "", asked_by: str = "",
                   reason: str = "") -> dict:
        from sheriff_vault.store.edits import correct_fact

        return correct_fact(self.vault, topic, fact, action, now=self.now(), replacement=replacement,
                            asked_by=asked_by or f"the {self.caller or 'agent'}", reason=reason).to_json()

    def topic_link(self, src: str, dst: str, type: str = "RELATES_TO", weight: float = 1.0) -> dict:
        from sheriff_vault.store.edits import link_topics

        return link_topics(self.vault, src, dst, type, weight).to_json()

    def sleep(self, transcript_path: str | None = None, dry_run: bool = False, final: bool = False) -> dict:
        from sheriff_vault.daemon.client import sleep

        read = None
        if transcript_path:
            from sheriff_vault.store.transcripts import load_file

            read = load_file(Path(transcript_path).expanduser())
        result = sleep(self.vault, read.turns if read else None, dry_run=dry_run, final=final, now=self.now())
        if read is not None:
            result.add_reading(read)
        return {k: v for k, v in result.to_json().items() if k != "subjects"} | {"summary": result.describe()}

    def wake(self, message: str = "") -> dict:
        return self.memory_wake(message)

    def history(self, topic: str, limit: int = 20, cursor: str | None = None) -> dict:
        from sheriff_vault.retrieval.timetravel import history

        start = _offset(cursor)
        entries = history(self.vault, topic, limit=start + limit + 1)
        page = entries[start:start + limit]
        return {"commits": [e.to_json() for e in page],
                "next_cursor": str(start + limit) if len(entries) > start + limit else None}

    def diff(self, since: str, until: str | None = None) -> dict:
        from sheriff_vault.retrieval.timetravel import diff_since

        return diff_since(self.vault, since, self.now(), until=until, open_end=True)

    def time(self, phrase: str) -> dict:
        from sheriff_vault.store.sleeps import resolve_time

        return resolve_time(self.vault, phrase, self.now(), self.vault.config.timezone).to_json()

    # -- memory, under the names skills used before (LEGACY) -------------------------------
    def topics_search(self, query: str, k: int | None = None, time_window: dict | None = None,
                      filters: dict | None = None, deep: bool = False) -> dict:
        from sheriff_vault.daemon.client import recall

        window = time_window or {}
        narrowed = bool(filters and (filters.get("kinds") or filters.get("topics")))
        reply = recall(self.vault, query, k=k, since=window.get("since"), until=window.get("until"),
                       deep=deep or narrowed, now=self.now())  # a filter keeps less: search wider first
        topics = [{"id": t["id"], "name": t["name"], "path": t["path"], "score": t["score"],
                   "facts": [{"kind": f["kind"], "text": f["text"], "date": f["date"], "citations": f["citations"]}
                             for f in t["facts"]]} for t in reply.json["topics"]]
        markdown = reply.markdown
        if filters and narrowed:
            topics = self._filtered(topics, filters.get("kinds"), filters.get("topics"))
            markdown = "\n\n".join(f"## {t['name']}\n" + "\n".join(f"- {f['date'][:10] or 'undated'} {f['text']}"
                                                                  for f in t["facts"]) for t in topics)
        return {"markdown": markdown, "topics": topics, "window": reply.json["window"]}

    def _filtered(self, topics: list[dict], kinds: list[str] | None, refs: list[str] | None) -> list[dict]:
        """Only the facts of `kinds`, only the topics `refs` name (a ref that names no topic is an error)."""
        if refs:
            wanted = {self.vault.topics.get(ref).id for ref in refs}
            topics = [t for t in topics if t["id"] in wanted]
        if kinds:
            topics = [t | {"facts": [f for f in t["facts"] if f["kind"] in kinds]} for t in topics]
            topics = [t for t in topics if t["facts"]]
        return topics

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

    def skills_search(self, query: str, k: int = 3) -> dict:
        from sheriff_vault.agent.skills import search

        return {"skills": [s.summary() | {"score": score} for s, score in search(self.vault, query, k)]}

    def skills_run(self, skill_id: str, args: str | dict | None = None, ctx_refs: list[str] | None = None) -> dict:
        from sheriff_vault.agent.skills import run

        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError as exc:
                raise ToolError(f"args is not JSON: {exc}", hint='pass a JSON object in a string: {"path": "a.py"}')\
                    from None
            if not isinstance(args, dict):
                raise ToolError("args must hold a JSON object, e.g. {\"path\": \"a.py\"}")
        ctx = {"topics": [self.vault.topics.get(ref).to_json() for ref in ctx_refs]} if ctx_refs else None
        return run(self.vault, skill_id, args or {}, repo=self.repo, ctx=ctx)

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

    def repo_run_tests(self, preset: str = "full", paths: list[str] | None = None) -> dict:
        command = shlex.split(self.vault.config.agent.test_command)
        if preset != "full" and "pytest" not in " ".join(command):
            raise ToolError(f"preset {preset!r} needs a pytest test_command (it is {' '.join(command)!r})",
                            hint="use preset full")
        targets = []
        for path in paths or []:
            if path.startswith("-"):
                raise ToolError(f"{path!r} is not a test path", hint="give test files or ids, not options")
            self.safe_path(path.split("::", 1)[0])
            targets.append(path)
        command += PRESETS[preset] + targets
        try:
            proc = subprocess.run(command, cwd=self.repo, capture_output=True, text=True, timeout=600)
        except FileNotFoundError:
            raise ToolError(f"test command not found: {command[0]}") from None
        except subprocess.TimeoutExpired:
            return {"passed": False, "returncode": None, "output": "timed out after 600s", "command": command}
        output = (proc.stdout + proc.stderr)[-8000:]
        return {"passed": proc.returncode == 0, "returncode": proc.returncode, "output": output,
                "command": shlex.join(command)}


class Restricted:
    """What a skill gets: `tools.repo.read_file(path=...)` or `tools.call("repo.read_file", {...})`,
    every call checked against the skill's manifest (a guard against mistakes, not a sandbox)."""

    def __init__(self, box: Toolbox, prefix: str = "") -> None:
        self._box, self._prefix = box, prefix

    def call(self, name: str, args: dict | None = None) -> dict:
        args = dict(args or {})
        if canonical(name) == "skills_run" and isinstance(args.get("args"), dict):
            args["args"] = json.dumps(args["args"])  # the tool takes a skill's arguments as a JSON string
        result = self._box.call(name, args)
        if set(result) == {"error"}:
            raise ToolError(result["error"])
        return result

    def __getattr__(self, name: str) -> Any:
        if not self._prefix and name in ("topics", "memory", "skills", "repo"):
            return Restricted(self._box, name)
        full = f"{self._prefix}_{name}" if self._prefix else name
        return lambda **kwargs: self.call(full, kwargs)
