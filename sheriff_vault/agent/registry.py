"""The vault's memory tools, defined once: name, title, description, argument schema and what a
call does to the vault. `vault mcp` serves them (sheriff_vault/agent/mcp.py) and the Responses
loop offers them to the model (sheriff_vault/agent/tools.py), so both see the same tools.

Schemas are JSON Schema with `additionalProperties: false`: an argument a tool does not know is
refused, never silently ignored. `input_schema()` is the MCP shape (optional arguments may be
left out); `strict_schema()` is the shape OpenAI's strict function calling wants (every argument
listed, the optional ones nullable).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

LINK_TYPES = ["RELATES_TO", "DEPENDS_ON", "PART_OF", "NEXT", "PREV"]
MAX_PAGE = 200


@dataclass(frozen=True)
class ToolDef:
    name: str
    title: str
    description: str
    required: dict[str, dict] = field(default_factory=dict)
    optional: dict[str, dict] = field(default_factory=dict)
    read_only: bool = False
    destructive: bool = False  # it may change or remove what memory already holds
    idempotent: bool = False  # calling it again with the same arguments changes nothing more

    def input_schema(self) -> dict:
        """The MCP input schema: required arguments listed, optional ones may be left out."""
        return {"type": "object", "properties": self.required | self.optional, "required": list(self.required),
                "additionalProperties": False}

    def strict_schema(self) -> dict:
        """The same arguments as OpenAI's strict mode takes them: all listed, the optional ones nullable."""
        return strict(self.input_schema())


def strict(schema: dict) -> dict:
    """An object schema OpenAI's strict mode accepts: every property required (an optional one as a
    nullable type), no others, and none of the keywords strict mode refuses (string lengths,
    defaults); the host still checks those against the full schema (tools.check_arguments)."""
    optional = set(schema["properties"]) - set(schema.get("required", []))
    props = {k: _plain(nullable(_json_text(v)) if k in optional else _json_text(v))
             for k, v in schema["properties"].items()}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


_NOT_STRICT = ("minLength", "maxLength", "default")


def _plain(schema: dict) -> dict:
    out = {k: v for k, v in schema.items() if k not in _NOT_STRICT}
    if isinstance(out.get("items"), dict):
        out["items"] = _plain(out["items"])
    return out


def _json_text(schema: dict) -> dict:
    """A free-form object (a skill's arguments) as strict mode can take it: JSON text in a string."""
    if schema.get("type") != "object" or "properties" in schema:
        return schema
    return {"type": "string", "description": schema.get("description", "") + " As JSON text in a string, e.g. "
            '\'{"path": "pkg/a.py"}\'.'}


def nullable(schema: dict) -> dict:
    """An optional argument in strict mode: present, but allowed to be null."""
    kind = schema["type"]
    out = {k: v for k, v in schema.items() if k != "default"}
    out["type"] = [*(kind if isinstance(kind, list) else [kind]), "null"]
    if "enum" in schema:
        out["enum"] = [*schema["enum"], None]
    return out


def _doc(text: str) -> str:
    return textwrap.dedent(text).strip()


def _str(description: str = "", **more: object) -> dict:
    return {"type": "string", **({"description": description} if description else {}), **more}


_REF = _str("A topic id, slug, name or alias.", minLength=1, maxLength=500)
_LIMIT = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 50,
          "description": f"At most this many in one page (1-{MAX_PAGE})."}
_CURSOR = _str("Where the previous page ended: its `next_cursor`. Omit for the first page.", maxLength=100)
_LIST = {"type": "array", "items": {"type": "string", "maxLength": 2000}}

TOOLS: dict[str, ToolDef] = {d.name: d for d in [
    ToolDef("recall", "Recall memory", _doc("""
        Recall what memory holds about a message: the relevant topics with their dated, cited facts,
        as Markdown ready to read. Call it before answering anything that may depend on earlier
        sessions (decisions, names, numbers, open work). Facts carry dates; prefer the newest and
        verify before acting. Returns a short note when nothing matches."""),
            {"query": _str("The person's message or a question; a time phrase in it (last week, in May, "
                           "before you slept) narrows the window.", minLength=1, maxLength=20_000)},
            {"since": _str("Only memory from this time on, e.g. 'last week'.", maxLength=200),
             "until": _str("Only memory up to the end of this time.", maxLength=200),
             "budget": {"type": "integer", "minimum": 100, "maximum": 200_000,
                        "description": "Characters of Markdown."},
             "as_of": _str("Answer from memory as it was then: a phrase, date or commit.", maxLength=200),
             "deep": {"type": "boolean", "default": False,
                      "description": "Search wider: more topics, one hop along links."},
             "tag": _str("Only topics with this tag (`work` also matches `work/alpha`).", maxLength=200)},
            read_only=True, idempotent=True),
    ToolDef("topic_get", "Read a topic", _doc("""
        Read one whole topic as Markdown (frontmatter, facts with dates and citations, open loops,
        events, links). Use it after `recall` or `topic_list` named a topic you need in full."""),
            {"ref": _REF}, read_only=True, idempotent=True),
    ToolDef("topic_list", "List topics", _doc("""
        List topics, newest first: id, slug, name, one-liner, when last seen and how many facts, one
        page at a time (`limit`, then `cursor` set to the page's `next_cursor` until it is null).
        Use it to see what memory covers; use `recall` to search it."""),
            {}, {"limit": _LIMIT, "cursor": _CURSOR}, read_only=True, idempotent=True),
    ToolDef("topic_upsert", "Create or add to a topic", _doc("""
        Create a topic or add to one, as one git commit. Use it for durable knowledge worth keeping
        past this session: a decision, a preference, a number, a name. Keep each fact one short
        sentence. Facts already there are not duplicated. To correct or remove a fact already
        there, use `topic_fact`. Returns the topic's path, id and commit."""),
            {}, {"name": _str("The topic's name; a new topic needs one.", maxLength=200),
                 "topic_id": _str("An existing topic's id, slug or name.", maxLength=500),
                 "one_liner": _str("One sentence recall matches on.", maxLength=500),
                 "facts": _LIST | {"maxItems": 50, "description": "Short facts to add, dated now."},
                 "open_loops": _LIST | {"maxItems": 50, "description": "Unfinished work to remember."},
                 "aliases": _LIST | {"maxItems": 20, "description": "Other names for it."},
                 "tags": _LIST | {"maxItems": 20, "description": "Tags to add (Obsidian's tags; recall can filter "
                                                                 "by one)."}},
            destructive=True),
    ToolDef("topic_fact", "Correct or remove a fact", _doc("""
        Correct a fact memory holds, as one git commit that names who asked and when. `supersede`
        strikes the old fact through (it stays in the file as history, marked superseded by whom)
        and, given `replacement`, adds the correct fact dated now; `remove` deletes the line (the
        commit keeps it). `fact` is the fact's text as `topic_get` shows it, or a part of it that
        matches only that fact."""),
            {"topic": _REF, "fact": _str("The fact to change: its text, or a part only it contains.",
                                         minLength=3, maxLength=2000),
             "action": {"type": "string", "enum": ["supersede", "remove"],
                        "description": "supersede (strike it, keep it as history) or remove (delete it)."}},
            {"replacement": _str("With supersede: the correct fact, added dated now.", maxLength=2000),
             "asked_by": _str("Who asked for the change (the person's name); cited in the file and the commit.",
                              maxLength=100),
             "reason": _str("Why, in a few words; kept in the commit message.", maxLength=500)},
            destructive=True),
    ToolDef("topic_link", "Link two topics", _doc("""
        Link two topics (or strengthen their link) so deep recall of one also brings the other. One
        git commit."""),
            {"src": _str("The topic the link starts at.", minLength=1, maxLength=500),
             "dst": _str("The topic it points to.", minLength=1, maxLength=500)},
            {"type": {"type": "string", "enum": LINK_TYPES, "default": "RELATES_TO"},
             "weight": {"type": "number", "minimum": -10, "maximum": 10, "default": 1.0,
                        "description": "Added to the link's weight."}},
            destructive=True),
    ToolDef("note", "Note a conversation turn", _doc("""
        Append one conversation turn to the vault's buffer; `sleep` later compacts the buffer into
        topics. Use it for things said in this session that memory should keep. Returns the turn
        id."""),
            {"role": {"type": "string", "enum": ["user", "assistant", "system", "tool"]},
             "text": _str("What was said.", minLength=1, maxLength=200_000)},
            {"name": _str("The speaker's name, kept in facts.", maxLength=100, default=""),
             "turn_id": _str("An id to cite the turn by; a turn already noted with it is skipped.", maxLength=100,
                             default="")},
            destructive=True, idempotent=True),
    ToolDef("sleep", "Compact into memory", _doc("""
        Compact the conversation into topics now, as one git commit, keeping the last turns as the
        tail (you still hold them in context), or none with `final` when the session ends. Sleeping
        a transcript again after it grew sleeps only the new turns. Returns the topics created and
        updated and the commit."""),
            {}, {"transcript_path": _str("A transcript file to sleep: Claude Code session JSONL, Codex rollout "
                                         "JSONL, or the vault's JSONL or Markdown. Omit to sleep the buffer "
                                         "`note` fills.", maxLength=4096),
                 "dry_run": {"type": "boolean", "default": False,
                             "description": "Show what would change; write nothing."},
                 "final": {"type": "boolean", "default": False,
                           "description": "The session ends: compact every turn, keeping no tail."}},
            destructive=True),
    ToolDef("wake", "Wake context", _doc("""
        The context to resume with: whether to resume or confirm the work in progress, the recent
        turns, recalled memory and recently used skills, as Markdown. Call it when a session starts
        or resumes, before the first answer."""),
            {}, {"message": _str("The person's newest message, if any.", maxLength=20_000, default="")},
            read_only=True, idempotent=True),
    ToolDef("history", "Topic history", _doc("""
        Every commit that changed a topic, newest first: what each added, removed or changed, one
        page at a time (`limit`, then `cursor` set to the page's `next_cursor` until it is null).
        Use it to see how a fact came to be or when it changed."""),
            {"topic": _REF},
            {"limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 20,
                       "description": f"At most this many commits in one page (1-{MAX_PAGE})."},
             "cursor": _CURSOR},
            read_only=True, idempotent=True),
    ToolDef("diff", "What memory learned", _doc("""
        What memory learned in a time window, from the start of `since` to the end of `until` (now
        when left out): facts added, removed and changed, per topic, with the commits. Use it for
        "what changed since yesterday" questions."""),
            {"since": _str("Where the window starts: yesterday, last week, since you slept, 2023-05-10...",
                           minLength=1, maxLength=200)},
            {"until": _str("Where it ends (the end of this time); now when left out.", maxLength=200)},
            read_only=True, idempotent=True),
    ToolDef("time", "Resolve a time phrase", _doc("""
        Resolve a time phrase to the UTC window memory uses for it (start and end, ISO-8601) and the
        commits it covers (`commits.range`, git notation)."""),
            {"phrase": _str("e.g. 'last week', 'before you slept', 'two sleeps ago'.", minLength=1,
                            maxLength=200)},
            read_only=True, idempotent=True),
    ToolDef("skills_search", "Find skills", _doc("""
        Find the vault's skills (small reviewed programs) that fit a task, best first, with the
        arguments each takes. Run one with `skills_run`."""),
            {"query": _str("The task.", minLength=1, maxLength=20_000)},
            {"k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3,
                   "description": "How many skills."}},
            read_only=True, idempotent=True),
    ToolDef("skills_run", "Run a skill", _doc("""
        Run a skill by id with arguments and return its JSON result. It may use only the tools its
        manifest lists; arguments its inputs schema refuses are an error before it starts."""),
            {"skill_id": _str("The skill's id, as `skills_search` names it.", minLength=1, maxLength=200)},
            {"args": {"type": "object", "description": "The skill's arguments as an object."},
             "ctx_refs": _LIST | {"maxItems": 20, "description": "Topics (ids, slugs or names) the skill gets "
                                                                 "as context."}}),
]}


def unknown_arguments(name: str, args: dict) -> str:
    """A sentence naming the arguments tool `name` does not take, and the ones it does; "" when none."""
    schema = TOOLS[name].input_schema()
    extra = sorted(set(args) - set(schema["properties"]))
    if not extra:
        return ""
    takes = ", ".join(schema["properties"]) or "no arguments"
    return (f"{name} does not take {', '.join(repr(e) for e in extra)}; it takes: {takes}. "
            "Leave the unknown argument out.")


def check(name: str, args: dict) -> str:
    """What is wrong with `args` for tool `name`, as sentences saying what to fix; "" when they fit."""
    from sheriff_vault.agent.schema import problems

    if extra := unknown_arguments(name, args):
        return extra
    found = problems(TOOLS[name].input_schema(), args)
    return f"bad arguments for {name}: " + "; ".join(found) + "." if found else ""
