"""A real HTTP server speaking the part of POST /v1/responses that sheriff_vault.llm uses.

Tests point the real `openai` client at it, so requests and replies go through the same HTTP,
JSON and pydantic parsing as against api.openai.com, with no network. Without a scripted reply it
answers deterministically: a topic update built from the conversation for the `topic_updates`
schema, a call to the first tool when tools are offered, a message quoting a tool's output.
"""
from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

MODES = ("normal", "error", "garbage", "slow", "refuse", "incomplete")
TURN_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<at>\S+) (?P<role>\w+)(?: \((?P<name>[^)]*)\))?: (?P<text>.*)$")
NUMBER = re.compile(r"(?P<value>\d+(?:\.\d+)?)\s?(?P<unit>USD|EUR|GBP|%|ms|GB|MB|kg|km)\b")
KNOWN = re.compile(r"^- \[(?P<id>[^\]]+)\] (?P<name>.+)$", re.M)  # a topic memory holds, as offered
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_ids = itertools.count(1)


class FakeOpenAI:
    """The server's state: what it received, what it will answer next, and how it misbehaves."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: deque[Any] = deque()
        self.mode = "normal"
        self.slow_seconds = 3.0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def queue(self, reply: Any) -> None:
        """Script the next answer: a str or JSON-able value becomes the message text (dicts and lists
        as JSON); {"output": [...]} is sent as the output items; {"status_code": N} as an HTTP error."""
        self.replies.append(reply)

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) for one request."""
        assert self.mode in MODES, f"unknown mode {self.mode!r}"
        if self.mode == "error":
            return 500, {"error": {"message": "the fake server broke", "type": "server_error", "code": None,
                                   "param": None}}
        if self.mode == "slow":
            time.sleep(self.slow_seconds)
        if self.replies:
            reply = self.replies.popleft()
            if isinstance(reply, dict) and "status_code" in reply:
                return reply["status_code"], {"error": {"message": reply.get("message", "scripted error"),
                                                        "type": "invalid_request_error", "code": None, "param": None}}
            if isinstance(reply, dict) and "output" in reply:
                return 200, response(body, reply["output"])
            return 200, response(body, [message(reply if isinstance(reply, str) else json.dumps(reply))])
        if self.mode == "garbage":
            return 200, response(body, [message("Sure! Here are the topics: {not json")])
        if self.mode == "refuse":
            return 200, response(body, [message(refusal="I can't help with that.")])
        if self.mode == "incomplete":
            return 200, response(body, [message('{"subjects": [')], status="incomplete")
        return 200, response(body, default_output(body))


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.rstrip("/") != "/v1/responses":
                return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            fake.requests.append(body)
            self._send(*fake.answer(body))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("retry-after-ms", "10")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


# -- Response objects ----------------------------------------------------------------------------
def response(body: dict[str, Any], output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    """A Response object as the API returns it (the fields the client's models require, and more)."""
    n = next(_ids)
    used = sum(len(json.dumps(o)) for o in output) // 4
    asked = len(json.dumps(body.get("input", ""))) // 4
    return {
        "id": f"resp_fake{n:04d}", "object": "response", "created_at": int(time.time()), "status": status,
        "model": body.get("model", "fake-model"), "output": output, "instructions": body.get("instructions"),
        "error": None, "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto",
        "tools": body.get("tools") or [], "text": body.get("text") or {"format": {"type": "text"}},
        "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
        "previous_response_id": body.get("previous_response_id"), "store": True, "truncation": "disabled",
        "usage": {"input_tokens": asked, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens": used, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": asked + used},
    }


def message(text: str = "", refusal: str = "") -> dict[str, Any]:
    part = ({"type": "refusal", "refusal": refusal} if refusal else
            {"type": "output_text", "text": text, "annotations": [], "logprobs": []})
    return {"type": "message", "id": f"msg_fake{next(_ids):04d}", "role": "assistant", "status": "completed",
            "content": [part]}


def function_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    n = next(_ids)
    return {"type": "function_call", "id": f"fc_fake{n:04d}", "call_id": f"call_fake{n:04d}", "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}


# -- default behaviour ---------------------------------------------------------------------------
def default_output(body: dict[str, Any]) -> list[dict[str, Any]]:
    fmt = ((body.get("text") or {}).get("format") or {})
    if fmt.get("type") == "json_schema" and fmt.get("name") == "topic_updates":
        return [message(json.dumps(topic_updates(_input_text(body.get("input")))))]
    items = body.get("input")
    items = [{"role": "user", "content": items}] if isinstance(items, str) else list(items or [])
    last = items[-1] if items else {}
    if last.get("type") == "function_call_output":
        return [message(f"The tool said: {str(last.get('output'))[:200]}")]
    tools = [t for t in body.get("tools") or [] if t.get("type") == "function"]
    said = _content_text(last.get("content"))
    if tools and last.get("role") == "user":
        return [function_call(tools[0]["name"], _arguments(tools[0], said))]
    return [message(f"You said: {said[:200]}")]


def topic_updates(text: str) -> dict[str, Any]:
    """One topic per speaker of the compacted part: each turn a fact citing it, numbers with units;
    a topic memory offers under the same name is the one it continues."""
    part = re.split(r"(?im)^## context only", text, maxsplit=1)[0]
    known = {name: topic_id for topic_id, name in KNOWN.findall(part)}
    topics: dict[str, dict[str, Any]] = {}
    for m in map(TURN_LINE.match, part.splitlines()):
        if not m:
            continue
        speaker = m["name"] or m["role"].title()
        topic = topics.setdefault(speaker, {
            "existing": known.get(f"{speaker}: conversation notes", ""),
            "name": f"{speaker}: conversation notes", "one_liner": "", "aliases": [f"{speaker} notes"],
            "entities": [], "facts": [], "numbers": [], "corrected": False, "constrained": False, "depends_on": []})
        said = m["text"].strip()
        date = DATE.search(said)
        kind = "loop" if said.endswith("?") else "event" if date else "fact"
        topic["facts"].append({"text": f"{speaker}: {said}", "kind": kind, "turn_ids": [m["id"]],
                               "event_date": date.group(0) if date else "", "corrects": []})
        topic["one_liner"] = topic["one_liner"] or f"{speaker}: {said}"[:120]
        topic["entities"] += [w for w in re.findall(r"\b[A-Z][a-z]{2,}\b", said)[1:] if w not in topic["entities"]]
        topic["corrected"] |= said.lower().startswith(("actually", "no,"))
        topic["constrained"] |= bool(re.search(r"\b(?:must|never)\b", said, re.I))
        for n in NUMBER.finditer(said):
            before = re.findall(r"[a-z]+", said[: n.start()].lower())[-1:] or ["value"]
            topic["numbers"].append({"key": before[0], "value": float(n["value"]), "unit": n["unit"],
                                     "turn_id": m["id"], "confidence": 0.9})
    share = 1 / len(topics) if topics else 0
    return {"subjects": [{"hint": t["name"], "salience": share} for t in topics.values()],
            "topics": list(topics.values()),
            "in_progress": {"status": "idle", "resume_hint": ""},
            "skill_refs": sorted(set(re.findall(r"\bskill:[a-z][\w-]*", text)))}


def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "\n".join(_content_text(item.get("content")) for item in value or [] if isinstance(item, dict))


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _arguments(tool: dict[str, Any], said: str) -> dict[str, Any]:
    props = (tool.get("parameters") or {}).get("properties") or {}
    args = {k: said for k, v in props.items() if v.get("type") == "string"}
    args.update({k: len(said) for k, v in props.items() if v.get("type") in ("integer", "number")})
    return args or {"text": said}


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running fake server; point llm.base_url at `.base_url`."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()
