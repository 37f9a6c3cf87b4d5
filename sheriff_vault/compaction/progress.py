"""Was a task in progress when the conversation stopped? Read from the last stretch of talk, in
either voice: "I'm in the middle of writing the speech" (the person), "I'm halfway through the
deploy workflow; I'll continue next" (the assistant). Finished work ("all done", "merged",
"nothing more to do") closes what it names, or everything when it says so. The wake packet keeps
the answer, so the agent resumes the right thing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.packets import InProgress
from sheriff_vault.text import content_words, sentences, stem, truncate

_I = re.IGNORECASE
OPEN = re.compile(
    r"\b(?:in the middle of|halfway through|half way through|part way through|partway through|"
    r"(?:i'?m|i am|we'?re|we are)\s+(?:still\s+|now\s+|currently\s+|just\s+)?(?:working on|busy with|drafting|"
    r"writing|fixing|building|editing|finishing|implementing|migrating|debugging|refactoring|reviewing)|"
    r"still (?:need|have|got) to|(?:next|then|after that),? (?:i'?ll|i will|we'?ll|we will)|"
    r"i'?ll (?:continue|carry on|pick (?:it|this|that) up|get back to|finish)|"
    r"(?:continue|carry on|keep going|pick up) (?:with|on) (?:that|this|it)\b.{0,20}\b(?:next|tomorrow|later)|"
    r"now on (?:the|step|part)|continuing (?:with|on)|haven'?t (?:finished|done)|not (?:done|finished) (?:yet|with)|"
    r"left to (?:do|write|finish)|getting back to|will continue|(?:is|are) (?:still )?in progress|"
    r"next step\b|(?:^|now )working on|keep going with)\b", _I)
# Work under way now, as against the next steps a turn lists after it.
DOING = re.compile(r"\b(?:in the middle of|halfway through|half way through|part way through|partway through|"
                   r"(?:i'?m|i am|we'?re|we are)\s+(?:still\s+|now\s+|currently\s+|just\s+)?(?:working on|busy with|"
                   r"drafting|writing|fixing|building|editing|finishing|implementing|migrating|debugging|refactoring|"
                   r"reviewing|carrying|entering|doing)|now on (?:the|step|part)|continuing (?:with|on))\b", _I)
BLOCKED = re.compile(r"\b(?:blocked (?:on|by)|waiting (?:for|on) (?:you|your)|need (?:you|your) to|can'?t proceed|"
                     r"cannot proceed|need (?:your )?(?:permission|approval|access|password|answer))\b", _I)
DONE = re.compile(
    r"\b(?:(?:is|are|'s|was|were) (?:all |now )?(?:done|finished|complete|completed|submitted|sent|merged|booked|"
    r"sorted|live|shipped)|all done|done now|finished|completed|wrapped up|sent off|shipped|merged|nothing "
    r"(?:more|else|left) to do|nothing is (?:hanging|pending|open|left)|that'?s everything|everything'?s "
    r"(?:done|sorted|booked)|all set|all sorted)\b", _I)
ALL_DONE = re.compile(r"\b(?:nothing (?:more|else|left)|nothing is|everything|all done|all set|all sorted)\b", _I)
PARTIAL = re.compile(r"\b(?:done|finished)\b.*\b(?:now (?:on|with)|next|then|but)\b", _I)
SESSION_GAP_HOURS = 3
WINDOW = 12  # turns at most: older talk is the slept past, not the task at hand


@dataclass
class _Task:
    turn: Turn
    text: str
    words: set[str] = field(default_factory=set)
    blocked: bool = False


def in_progress(turns: list[Turn]) -> InProgress:
    """idle, running or blocked, with a resume hint naming the unfinished step and its context."""
    talk = [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]
    if not talk:
        return InProgress()
    recent = _last_stretch(talk)
    tasks = _open_tasks(recent)
    if not tasks:
        return _left_unfinished(talk, recent)
    task = tasks[-1]
    stopped = task.text
    # "I'm halfway through rewriting the retry logic. Next step is the time budget. Then I'll run CI":
    # the work under way leads; the steps after it are its plan, not where it stopped
    same = [t for t in tasks if t.turn is task.turn]
    doing = [t for t in same if DOING.search(t.text)]
    after = [t.text for t in same if not DOING.search(t.text)]
    if doing and after and not DOING.search(task.text):
        stopped = " ".join(t.text for t in doing) + " Next: " + " ".join(after)
        task = doing[-1]
    # another task named before is the goal only when it is about the same thing (not an aside
    # "quick py312 thing: ... now on the upgrade branch" in the middle of the retry work)
    goal = _goal(recent, task) or next((t.text for t in tasks if t.turn is not task.turn and t.words & task.words), "")
    hint = " ".join(p for p in (f"Goal: {goal}" if goal and goal != task.text else "",
                                f"Where it stopped ({task.turn.speaker}): {stopped}") if p)
    return InProgress("blocked" if task.blocked else "running", truncate(hint, 400))


def _open_tasks(turns: list[Turn]) -> list[_Task]:
    """Work opened in `turns` and not said finished later in them, oldest first."""
    tasks: list[_Task] = []
    for turn in turns:
        for sent in sentences(turn.content):
            words = {stem(w) for w in content_words(sent)}
            opened = OPEN.search(sent)
            closed = DONE.search(sent) and not PARTIAL.search(sent)
            if closed:
                everything = bool(ALL_DONE.search(sent))
                tasks = [t for t in tasks if not (everything or t.words & words)]
            if opened or (turn is turns[-1] and turn.role == "assistant" and BLOCKED.search(sent)):
                tasks.append(_Task(turn, sent, words, blocked=bool(BLOCKED.search(sent)) and not opened))
    return tasks


def _left_unfinished(talk: list[Turn], recent: list[Turn]) -> InProgress:
    """Nothing is running now, but the session before this one stopped mid-task and nothing since
    finished it: still idle (the person moved on, so nothing resumes by itself), with a hint that
    names it, so the agent can ask."""
    before = talk[: len(talk) - len(recent)]
    if not before:
        return InProgress()
    earlier = _last_stretch(before)
    left = [t for t in _open_tasks(earlier + recent) if t.turn in earlier and not t.blocked]
    if not left:
        return InProgress()
    task = left[-1]
    when = f" on {task.turn.at:%-d %B}" if task.turn.at else ""
    said = " ".join(task.turn.content.split())
    return InProgress("idle", truncate(f"Left unfinished{when} ({task.turn.speaker}): {said}", 400))


def _last_stretch(talk: list[Turn]) -> list[Turn]:
    """The last turns without a long pause between them, at most WINDOW."""
    start = len(talk) - 1
    while start > 0 and len(talk) - start < WINDOW:
        a, b = talk[start - 1].at, talk[start].at
        if a and b and (b - a).total_seconds() > SESSION_GAP_HOURS * 3600:
            break
        start -= 1
    return talk[start:]


def _goal(recent: list[Turn], task: _Task) -> str:
    """What the task is for: the person's last request or statement of intent before it."""
    i = recent.index(task.turn)
    for turn in reversed(recent[: i + 1]):
        if turn.role != "user":
            continue
        for sent in reversed(sentences(turn.content)):
            if sent != task.text and re.search(r"\b(?:need to|want to|have to|going to|plan to|help me|can you|"
                                               r"could you|please|let'?s|keep going|continue|go on)\b", sent, _I):
                return truncate(sent, 160)
    return ""
