"""Plan and execute: an ordered plan for a multi-step request, kept in memory, run step by step.

The model usually passes the steps it planned (each a sentence, or {do, skill_id, args} when a skill
can do it); without them the goal is split at "then", ";", new lines and numbered items. Each step
without a skill_id is matched to the best skill by the host's routing. The first `execute` steps
(default 1) then run in order: a step with a skill runs it, a step no skill fits is handed back
("yours": do it with the repo tools), and a failure stops the run. The plan is saved as a topic
(`Plan: <goal>`): steps done as facts, the rest as open loops, so a sleep or a new session can
pick it up where it stopped.
"""
from __future__ import annotations

import re

SELF = "plan_and_execute"
_SPLIT = re.compile(r"(?:\n+|;|,?\s*\band then\b|,?\s*\bthen\b|,?\s*\bafter that\b|,?\s*\bfinally\b|(?:^|\s)\d+[.)]\s)",
                    re.I)


def split_steps(goal: str) -> list[str]:
    """The steps a goal names in order; the goal itself when it names none."""
    parts = [p.strip(" ,.-*") for p in _SPLIT.split(goal)]
    steps = [p for p in parts if len(p) > 2]
    return steps or [goal.strip()]


def _step(raw) -> dict:
    if isinstance(raw, str):
        return {"do": raw.strip(), "skill_id": None, "args": None}
    return {"do": raw["do"].strip(), "skill_id": raw.get("skill_id") or None, "args": raw.get("args")}


def _route(tools, step: dict) -> None:
    if step["skill_id"]:
        return
    found = [s for s in tools.skills.search(query=step["do"], k=2)["skills"] if s["skill_id"] != SELF]
    step["skill_id"] = found[0]["skill_id"] if found else None
    step["inputs"] = found[0].get("inputs_schema", {}).get("required", []) if found else []


def run(args: dict, tools, ctx: dict | None = None) -> dict:
    from sheriff_vault.errors import ToolError

    goal = " ".join(args["goal"].split())
    steps = [_step(s) for s in args.get("steps") or []] or [_step(s) for s in split_steps(args["goal"])]
    execute = int(args.get("execute", 1))
    context = [t["name"] for t in (ctx or {}).get("topics", [])]
    memory = tools.topics.search(query=" ".join([goal, *context]))["markdown"]
    for step in steps:
        _route(tools, step)
    ran = 0
    for i, step in enumerate(steps):
        step["n"] = i + 1
        if ran >= execute or any(s.get("status") in ("failed", "yours") for s in steps[:i]):
            step["status"] = "pending"
            continue
        ran += 1
        missing = [k for k in step.pop("inputs", []) if k not in (step["args"] or {})]
        if not step["skill_id"] or missing:
            step["status"] = "yours"
            step["why"] = (f"{step['skill_id']} needs {', '.join(missing)}" if step["skill_id"]
                           else "no skill fits; do it with the repo tools")
            continue
        try:
            step["result"] = tools.skills.run(skill_id=step["skill_id"], args=step["args"] or {})
            step["status"] = "done"
        except ToolError as exc:
            step["status"], step["error"] = "failed", str(exc)[:500]
    for step in steps:
        step.pop("inputs", None)
    topic = f"Plan: {goal[:70]}"
    tools.topics.upsert(name=topic, one_liner=goal[:200],
                        facts=[f"Step {s['n']} done: {s['do']}" for s in steps if s["status"] == "done"],
                        open_loops=[f"Step {s['n']}: {s['do']}" for s in steps if s["status"] != "done"])
    upcoming = next((s for s in steps if s["status"] != "done"), None)
    return {"goal": goal, "plan": steps, "topic": topic, "context": context, "memory": memory,
            "next_step": f"Step {upcoming['n']}: {upcoming['do']}" if upcoming else None}
