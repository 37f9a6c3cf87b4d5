"""Transcripts as sleep input: the vault's own JSONL and Markdown (buffer.py), Claude Code session
JSONL and Codex rollout JSONL, told apart by their first records.

Host transcripts become turns the way sleep wants them: user and assistant text with its time and
a stable id (so sleeping a grown transcript again adds only the new turns); each tool call and
each tool result one short `tool` turn (name, arguments summarised, outcome), never the file
contents; thinking and reasoning skipped; a compaction summary skipped, since the turns it
summarises are in the transcript already; injected context (environment, AGENTS.md, slash-command
echoes, subagent side chains) skipped. Neither host documents its format; see docs or README.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sheriff_vault import timewin
from sheriff_vault.errors import ConversationFormatError
from sheriff_vault.store import buffer
from sheriff_vault.store.buffer import Turn

CLAUDE_TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress",
                "attachment"}
CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
SHORT = 160       # characters of one summarised argument or output line
TOOL_TURN = 400   # characters of a whole tool turn
INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions", "<permissions",
            "<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>",
            "Caveat: The messages below were generated", "<system-reminder>")


def detect(text: str) -> str:
    """"claude", "codex", "jsonl" or "markdown", from the first record."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return "markdown"
    for line in stripped.split("\n")[:20]:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict):
            break
        if "role" in data and "content" in data:
            return "jsonl"
        if data.get("type") in CODEX_TYPES and "payload" in data:
            return "codex"
        if data.get("type") in CLAUDE_TYPES and ("sessionId" in data or "message" in data or "summary" in data
                                                  or "snapshot" in data):
            return "claude"
        break
    return "jsonl"


def parse(text: str, source: str = "<stdin>") -> list[Turn]:
    """Turns from any transcript sleep reads."""
    kind = detect(text)
    if kind == "claude":
        return parse_claude(text, source)
    if kind == "codex":
        return parse_codex(text, source)
    return buffer.parse(text, source)


def read_file(path: Path) -> list[Turn]:
    return parse(buffer.read_text(path), str(path))


def _records(text: str, source: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) per line; a torn last line (the host is still writing) is skipped."""
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            if i == last:
                return
            raise ConversationFormatError("not valid JSON", path=source, line=i + 1,
                                          hint="a transcript has one JSON object a line") from None
        if isinstance(data, dict):
            yield i + 1, data


def _at(value: Any) -> Any:
    try:
        return timewin.parse_instant(str(value)) if value else None
    except Exception:
        return None


def _short(value: Any, limit: int = SHORT) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call(name: str, args: Any) -> str:
    """`Read(file_path=src/x.py)`: each argument cut short, the whole call within TOOL_TURN."""
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={_short(v, 80)}" for k, v in args.items())
    else:
        inner = _short(args, 200)
    return _short(f"called {name}({inner})", TOOL_TURN)


def _outcome(name: str, output: str, error: bool) -> str:
    """`Read -> ok, 400 lines: first line...`: the size of the output and its first words, never all of it."""
    lines = [line for line in output.split("\n") if line.strip()]
    first = _short(lines[0]) if lines else "(no output)"
    if output.startswith("Exit code: "):  # a Codex shell result: the code, then the output's last line
        error = error or not output.startswith("Exit code: 0")
        first = _short(f"{lines[0]}; {lines[-1]}")
    size = f"{len(lines)} lines" if len(lines) != 1 else "1 line"
    return _short(f"{name or 'tool'} -> {'error' if error else 'ok'}, {size}: {first}", TOOL_TURN)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
                         if not isinstance(p, dict) or p.get("type") in (None, "text", "input_text", "output_text"))
    return "" if content is None else str(content)


def _injected(text: str) -> bool:
    return text.lstrip().startswith(INJECTED)


# -- Claude Code: ~/.claude/projects/<project>/<session>.jsonl ----------------------------------
def parse_claude(text: str, source: str = "<stdin>") -> list[Turn]:
    turns: list[Turn] = []
    names: dict[str, str] = {}
    for _, rec in _records(text, source):
        kind = rec.get("type")
        message = rec.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue  # summary titles, snapshots, system lines, compact boundaries, newer record types
        if rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary") \
                or rec.get("isVisibleInTranscriptOnly"):
            continue
        at = _at(rec.get("timestamp"))
        base = "cc-" + str(rec.get("uuid") or "").replace("-", "")[-12:]
        found: list[tuple[str, str, str]] = []  # (role, content, name)
        content = message.get("content")
        if isinstance(content, str):
            if content.strip() and not _injected(content):
                found.append((kind, content.strip(), ""))
        elif isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                ptype = part.get("type")
                if ptype == "text":
                    body = str(part.get("text") or "").strip()
                    if body and not _injected(body):
                        found.append((kind, body, ""))
                elif ptype == "tool_use":
                    name = str(part.get("name") or "tool")
                    names[str(part.get("id"))] = name
                    found.append(("tool", _call(name, part.get("input")), name))
                elif ptype == "tool_result":
                    name = names.get(str(part.get("tool_use_id")), "")
                    found.append(("tool", _outcome(name, _text_of(part.get("content")), bool(part.get("is_error"))),
                                  name))
                elif ptype == "image":
                    found.append((kind, "[image]", ""))
                # thinking and redacted_thinking are skipped
        for i, (role, body, name) in enumerate(found):
            turn_id = base if i == 0 else f"{base}-{i + 1}"
            turns.append(Turn(role, body, at, turn_id if base != "cc-" else "", name if role == "tool" else "",
                              {"source": "claude-code"}))
    return turns


# -- Codex: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl ---------------------------------------
def parse_codex(text: str, source: str = "<stdin>") -> list[Turn]:
    records = list(_records(text, source))
    session = next((str(r["payload"].get("id") or "") for _, r in records
                    if r.get("type") == "session_meta" and isinstance(r.get("payload"), dict)), "")
    prefix = "cx-" + (session.replace("-", "")[-8:] + "-" if session else "")
    # The clean user text is in event_msg user_message; response_item user messages also carry
    # injected context. Use the events when the file has them, else the filtered messages.
    has_events = any(r.get("type") == "event_msg" and isinstance(r.get("payload"), dict)
                     and r["payload"].get("type") == "user_message" for _, r in records)
    names: dict[str, str] = {}
    turns: list[Turn] = []

    def add(n: int, role: str, body: str, at: Any, name: str = "") -> None:
        if body.strip():
            turns.append(Turn(role, body.strip(), at, f"{prefix}{n}", name, {"source": "codex"}))

    for n, rec in records:
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            continue
        kind, ptype, at = rec.get("type"), payload.get("type"), _at(rec.get("timestamp"))
        if kind == "event_msg" and ptype == "user_message":
            message = str(payload.get("message") or "")
            if not _injected(message):
                add(n, "user", message, at)
        elif kind != "response_item":
            continue  # session_meta, turn_context, compacted summaries, other events
        elif ptype == "message":
            role = payload.get("role")
            body = _text_of(payload.get("content"))
            if role == "assistant" or (role == "user" and not has_events and not _injected(body)):
                add(n, str(role), body, at)
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            name = str(payload.get("name") or ("shell" if ptype == "local_shell_call" else "tool"))
            names[str(payload.get("call_id"))] = name
            args: Any = payload.get("arguments", payload.get("input", payload.get("action")))
            if isinstance(args, str) and ptype == "function_call":
                try:
                    args = json.loads(args)
                except ValueError:
                    pass
            add(n, "tool", _call(name, args), at, name)
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            name = names.get(str(payload.get("call_id")), "")
            output = payload.get("output")
            if isinstance(output, dict):  # {"content": ..., "success": ...} in some versions
                error = output.get("success") is False
                output = output.get("content")
            else:
                error = False
            add(n, "tool", _outcome(name, _text_of(output), error), at, name)
        # reasoning, web_search_call, compaction and unknown items are skipped
    return turns
