"""Transcripts as sleep input: the vault's own JSONL and Markdown (buffer.py), Claude Code session
JSONL and Codex rollout JSONL, told apart by the first records that identify them.

Host transcripts become turns the way sleep wants them: user and assistant text with its time and
a stable id (so sleeping a grown transcript again adds only the new turns); each tool call and
each tool result one short `tool` turn (name, arguments summarised, outcome), never the file
contents; thinking and reasoning skipped; a compaction summary skipped (flagged or not), since the
turns it summarises are in the transcript already; injected context (environment, AGENTS.md,
command output, interruption notices, subagent side chains) skipped. A slash command is kept as
typed ("/deploy staging"), and so is a shell command run from the prompt ("! git status"); an image
or file becomes `[image: name]` inside the turn that carried it.

Hosts add record types between versions, so a record of a type the reader does not know is
skipped and counted (the sleep summary says how many), and a line that is not JSON is skipped
with a warning naming it: one bad record must not cost the whole session. Codex rollouts written
before Codex wrapped its lines (2025 versions) are read as well. Neither host documents its format; see
docs or README.
"""
from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sheriff_vault import timewin
from sheriff_vault.store import buffer
from sheriff_vault.store.buffer import Turn

CLAUDE_TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress",
                "attachment"}
# Session metadata Claude Code 2.x writes (titles, the permission mode, the last prompt): known,
# holding no conversation, and able to open a file, so they neither identify it nor count as skipped.
CLAUDE_META = {"permission-mode", "custom-title", "ai-title", "last-prompt", "agent-name", "mode"}
CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
CODEX_ITEMS = {"message", "function_call", "custom_tool_call", "local_shell_call", "function_call_output",
               "custom_tool_call_output", "reasoning", "web_search_call", "compaction", "ghost_snapshot"}
SHORT = 160       # characters of one summarised argument or output line
TOOL_TURN = 400   # characters of a whole tool turn
INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions", "<permissions",
            "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "<bash-stdout>",
            "<bash-stderr>", "<task-notification>", "<user-prompt-submit-hook>", "[Request interrupted by user",
            "Caveat: The messages below were generated", "<system-reminder>")
# How each host opens the summary it writes when it compacts a conversation (Claude Code; Codex).
COMPACT_SUMMARY = ("This session is being continued from a previous conversation",
                   "Another language model started to solve this problem and produced a summary")
COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
PLACEHOLDER = re.compile(r"\[Image #\d+\]")
# The texts Codex wraps around an image in a user message item: `<image>`, `<image name=[Image #1]>`
# or `<image name=[Image #1] path="/abs/shot.png">` before it, `</image>` after (codex-rs protocol).
CODEX_IMAGE_TAG = re.compile(r'<image(?: name=\[Image #\d+\](?: path="(?P<path>[^"]*)")?)?>|</image>')


class TranscriptWarning(UserWarning):
    """A transcript line was skipped (not JSON); the message names the file and line."""


@dataclass
class Transcript:
    """A transcript as sleep takes it: its turns, and what the reader passed over, so the sleep
    summary can say so instead of losing it silently."""

    turns: list[Turn] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # record type the reader does not know -> how many
    malformed: list[int] = field(default_factory=list)     # line numbers that were not JSON

    def skip(self, kind: Any) -> None:
        name = str(kind) if kind else "(no type)"
        self.skipped[name] = self.skipped.get(name, 0) + 1


def detect(text: str) -> str:
    """"claude", "codex", "jsonl" or "markdown", from the first record that says which: records
    that identify nothing (metadata a newer host writes first, a broken line) are passed over."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith("{"):
        return "markdown"
    claude_like = False
    for line in stripped.split("\n"):
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        kind = _type(data)
        if data.get("record_type") == "state" or (kind in CODEX_ITEMS and "payload" not in data):
            return "codex"  # a rollout from before Codex wrapped its lines (see _unwrapped)
        if "role" in data and "content" in data:
            return "jsonl"
        if kind in CODEX_TYPES and "payload" in data:
            return "codex"
        if kind in CLAUDE_TYPES and ("sessionId" in data or "message" in data or "summary" in data
                                     or "snapshot" in data):
            return "claude"
        claude_like = claude_like or kind in CLAUDE_META or "sessionId" in data
    return "claude" if claude_like else "jsonl"  # only metadata: a Claude Code session with no turns yet


def load(text: str, source: str = "<stdin>") -> Transcript:
    """Any transcript sleep reads, with what was skipped."""
    kind = detect(text)
    if kind == "claude":
        return parse_claude(text, source)
    if kind == "codex":
        return parse_codex(text, source)
    return Transcript(buffer.parse(text, source))


def load_file(path: Path) -> Transcript:
    return load(buffer.read_text(path), str(path))


def parse(text: str, source: str = "<stdin>") -> list[Turn]:
    """Turns from any transcript sleep reads."""
    return load(text, source).turns


def read_file(path: Path) -> list[Turn]:
    return load_file(path).turns


def _records(text: str, source: str, out: Transcript) -> Iterator[tuple[int, dict]]:
    """(line number, object) per line. A torn last line (the host is still writing) is skipped
    quietly; a line that is not JSON elsewhere is skipped with a warning and noted in `out`."""
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
            out.malformed.append(i + 1)
            warnings.warn(f"{source}:{i + 1}: not valid JSON, line skipped (a transcript has one JSON object "
                          "a line)", TranscriptWarning, stacklevel=2)
            continue
        if isinstance(data, dict):
            yield i + 1, data


def _type(record: dict) -> str:
    """A record's or block's `type`, "" when it has none or it is not a string (no record may fail the file)."""
    kind = record.get("type")
    return kind if isinstance(kind, str) else ""


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


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


def _said(text: str, *, commands_only: bool = False) -> str:
    """The words of a message worth remembering: a slash command as the person typed it
    ("/deploy staging", from the host's <command-name> and <command-args> echo) or a shell command
    run from the prompt ("! git status"), else the text; "" for what the host put there
    (environment, command output, an interruption notice, a compaction summary) and for a bare
    command (/clear, /cost), which carries nothing to remember."""
    stripped = text.strip()
    if stripped.startswith("<bash-input>"):
        shell = BASH_INPUT.search(stripped)
        return f"! {shell.group(1).strip()}" if shell and shell.group(1).strip() and not commands_only else ""
    if stripped.startswith(("<command-name>", "<command-message>")):
        name, args = COMMAND_NAME.search(stripped), COMMAND_ARGS.search(stripped)
        words = args.group(1).strip() if args else ""
        if not name or not words:
            return ""
        command = name.group(1).strip()
        return f"{command if command.startswith('/') else '/' + command} {words}"
    if commands_only or stripped.startswith(INJECTED) or stripped.startswith(COMPACT_SUMMARY):
        return ""
    return stripped


def _mark(kind: str, name: Any) -> str:
    """`[image: login.png]`: an attachment named inside its turn's text; `[image]` when it has no
    name (pasted bytes, a data: URL)."""
    if isinstance(name, dict):
        name = name.get("path") or name.get("name") or name.get("url") or ""
    text = str(name or "").strip()
    if text.startswith("data:"):
        text = ""
    text = re.split(r"[/\\]", text.split("?")[0].rstrip("/\\"))[-1].strip() if text else ""
    return f"[{kind}: {text}]" if text else f"[{kind}]"


def _attachment(part: dict) -> str:
    """An image or document content block as a mark in its turn's text."""
    raw = part.get("source")
    source: dict[str, Any] = raw if isinstance(raw, dict) else {}
    name = (part.get("title") or part.get("name") or part.get("filename") or source.get("path")
            or source.get("url") or part.get("image_url") or "")
    return _mark("image" if part.get("type") in ("image", "input_image") else "file", name)


def _join(body: str, marks: list[str]) -> str:
    """The text with its attachments' marks: each image in place of the `[Image #1]` placeholder
    Claude Code types into the prompt for it, the rest after the text."""
    rest = []
    for mark in marks:
        if mark.startswith("[image") and (found := PLACEHOLDER.search(body)):
            body = body[:found.start()] + mark + body[found.end():]
        else:
            rest.append(mark)
    return " ".join([body, *rest]) if rest else body


def _hold_over(turns: list[Turn], pending: dict[str, list[str]]) -> None:
    """Attachments sent with no words wait for their role's next turn; those still waiting when the
    transcript ends join the role's last turn, never a turn of their own."""
    for role, marks in pending.items():
        last = next((t for t in reversed(turns) if t.role == role), None)
        if last is not None and marks:
            last.content = _join(last.content, marks)


# -- Claude Code: ~/.claude/projects/<project>/<session>.jsonl ----------------------------------
def parse_claude(text: str, source: str = "<stdin>") -> Transcript:
    out = Transcript()
    names: dict[str, str] = {}
    pending: dict[str, list[str]] = {}
    for _, rec in _records(text, source, out):
        kind = _type(rec)
        if kind not in CLAUDE_TYPES:
            if kind not in CLAUDE_META:
                out.skip(kind)
            continue
        message = rec.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue  # summary titles, snapshots, system lines, compact boundaries
        if rec.get("isSidechain") or rec.get("isCompactSummary") or rec.get("isVisibleInTranscriptOnly"):
            continue
        meta = bool(rec.get("isMeta"))  # host-written (an expanded command body, a caveat): only a command counts
        at = _at(rec.get("timestamp"))
        base = "cc-" + str(rec.get("uuid") or "").replace("-", "")[-12:]
        found: list[list[str]] = []  # [role, content, name]
        marks: list[str] = []
        content = message.get("content")
        if isinstance(content, str):
            if body := _said(content, commands_only=meta):
                found.append([kind, body, ""])
        elif isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                ptype = _type(part)
                if ptype == "text":
                    if body := _said(str(part.get("text") or ""), commands_only=meta):
                        found.append([kind, body, ""])
                elif meta:
                    continue
                elif ptype == "tool_use":
                    name = str(part.get("name") or "tool")
                    names[str(part.get("id"))] = name
                    found.append(["tool", _call(name, part.get("input")), name])
                elif ptype == "tool_result":
                    name = names.get(str(part.get("tool_use_id")), "")
                    found.append(["tool", _outcome(name, _text_of(part.get("content")), bool(part.get("is_error"))),
                                  name])
                elif ptype in ("image", "document"):
                    marks.append(_attachment(part))
                # thinking and redacted_thinking are skipped
        marks = pending.pop(kind, []) + marks
        said = next((f for f in found if f[0] == kind), None)
        if said is not None:
            said[1] = _join(said[1], marks)
        elif marks:
            pending[kind] = marks
        for i, (role, body, name) in enumerate(found):
            turn_id = base if i == 0 else f"{base}-{i + 1}"
            out.turns.append(Turn(role, body, at, turn_id if base != "cc-" else "", name if role == "tool" else "",
                                  {"source": "claude-code"}))
    _hold_over(out.turns, pending)
    return out


# -- Codex: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl ---------------------------------------
def _codex_user(content: Any) -> tuple[str, list[str]]:
    """A Codex user message item: its words, and a mark for each image, named by the path in the
    tag Codex put before it; the tags themselves are not the person's words."""
    if not isinstance(content, list):
        return _text_of(content), []
    words: list[str] = []
    marks: list[str] = []
    path = ""
    for part in content:
        if not isinstance(part, dict):
            continue
        if _type(part) == "input_image":
            marks.append(_mark("image", path) if path else _attachment(part))
            path = ""
        elif _type(part) in ("input_text", "text"):
            text = str(part.get("text") or "")
            if tag := CODEX_IMAGE_TAG.fullmatch(text.strip()):
                path = tag.group("path") or path
            else:
                words.append(text)
    return "\n".join(words), marks


def _unwrapped(records: list[tuple[int, dict]]) -> Iterator[tuple[int, dict]]:
    """Records of a rollout Codex wrote before it wrapped each line as {timestamp, type, payload}
    (Codex CLI versions of 2025: a bare header {id, timestamp, instructions}, `{"record_type": "state"}`
    markers, then bare response items with no time of their own) as the wrapped records they stand
    for; an item without a time takes the last time seen. Wrapped records pass as they are."""
    last: Any = None
    for n, rec in records:
        kind = _type(rec)
        if "payload" in rec or kind in CODEX_TYPES:
            last = rec.get("timestamp") or last
            yield n, rec
        elif rec.get("record_type") == "state":
            continue
        elif not kind and "id" in rec and "timestamp" in rec:
            last = rec.get("timestamp")
            yield n, {"timestamp": last, "type": "session_meta", "payload": rec}
        elif kind:
            last = rec.get("timestamp") or last
            yield n, {"timestamp": last, "type": "response_item", "payload": rec}
        else:
            yield n, rec


def parse_codex(text: str, source: str = "<stdin>") -> Transcript:
    out = Transcript()
    records = list(_unwrapped(list(_records(text, source, out))))
    session = next((str(r["payload"].get("id") or "") for _, r in records
                    if r.get("type") == "session_meta" and isinstance(r.get("payload"), dict)), "")
    prefix = "cx-" + (session.replace("-", "")[-8:] + "-" if session else "")
    # The clean user text is in event_msg user_message; response_item user messages also carry
    # injected context. Use the events when the file has them, else the filtered messages.
    has_events = any(r.get("type") == "event_msg" and isinstance(r.get("payload"), dict)
                     and r["payload"].get("type") == "user_message" for _, r in records)
    names: dict[str, str] = {}
    pending: dict[str, list[str]] = {}

    def add(n: int, role: str, body: str, at: Any, name: str = "", marks: list[str] | None = None) -> None:
        marks = pending.pop(role, []) + (marks or [])
        if body.strip():
            out.turns.append(Turn(role, _join(body.strip(), marks), at, f"{prefix}{n}", name, {"source": "codex"}))
        elif marks:
            pending[role] = marks

    for n, rec in records:
        kind, payload = _type(rec), rec.get("payload")
        if kind not in CODEX_TYPES:
            out.skip(kind)
            continue
        if not isinstance(payload, dict):
            continue
        ptype, at = _type(payload), _at(rec.get("timestamp"))
        if kind == "event_msg" and ptype == "user_message":
            images = [_mark("image", i) for key in ("images", "local_images") for i in _list(payload.get(key))
                      if isinstance(i, (str, dict))]
            add(n, "user", _said(str(payload.get("message") or "")), at, marks=images)
        elif kind != "response_item":
            continue  # session_meta, turn_context, compacted summaries, other events
        elif ptype == "message":
            role, content = payload.get("role"), payload.get("content")
            if role == "assistant":
                add(n, "assistant", _text_of(content), at)
            elif role == "user" and not has_events:
                body, images = _codex_user(content)
                add(n, "user", _said(body), at, marks=images)
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
        elif ptype not in CODEX_ITEMS:
            out.skip(f"response_item/{ptype}")
        # reasoning, web_search_call, compaction and ghost snapshots are skipped
    _hold_over(out.turns, pending)
    return out
