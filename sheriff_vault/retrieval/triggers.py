"""When to search deep (docs/recall.md): memory language, time phrases, reintroduced entities,
context switches and recurring failures. Low-confidence routing is decided in recall, after the
light search has scores to look at.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MEMORY = re.compile(
    r"\b(remember(?:s|ed)?|recall(?:ed)?|last time|"
    r"(?:we|you|i)\s+(?:spoke|talked|chatted|discussed|agreed|decided|said|mentioned|told)|"
    r"you (?:told|said|mentioned)|as (?:we|i) (?:said|discussed)|previously|earlier|before you slept|"
    r"did we|have we|we (?:were|had) (?:talking|working) on|back when|do you know what)\b", re.I)
SWITCH = re.compile(
    r"(?:^|[.!?]\s+|\b)(anyway|anyhow|separately|new thing|new topic|on another note|switching gears|unrelated(?:ly)?|"
    r"by the way|btw|changing (?:the )?(?:topic|subject)|different question|one more thing|moving on)\b", re.I)
DEBUG = re.compile(
    r"(Traceback \(most recent call last\)|^\s+File \".+\", line \d+|^\s+at [\w.$<>]+\(.*:\d+\)|"
    r"\b\w+(?:Error|Exception):|"
    r"\bsame (?:error|failure|bug|issue|problem|crash|exception)\b|\b(?:failing|broken|crashing) again\b|"
    r"\bstill (?:failing|broken|crashing)\b|\bkeeps? (?:failing|crashing)\b|\bseen this (?:error|before)\b)",
    re.I | re.M)
ENTITY = re.compile(
    r"\"([^\"]{2,60})\"|`([^`]{2,60})`|\b([\w-]+\.(?:py|js|ts|md|json|yaml|yml|toml|go|rs|java|rb|sh))\b|"
    r"\b([a-z]+_[a-z0-9_]+|[a-z]+[A-Z]\w+|[A-Z][a-z]+[A-Z]\w*)\b|(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]{2,}(?:\s+[A-Z][a-zA-Z]+)*)")
_STOP_CAPS = {"I", "The", "This", "That", "What", "When", "Where", "Why", "How", "Who", "Which", "Can", "Could",
              "Would", "Should", "Did", "Does", "Do", "Is", "Are", "Was", "Were", "Hey", "Hi", "Ok", "Okay", "Please",
              "Thanks", "Yes", "No", "And", "But", "Also", "Anyway", "So", "Let", "Lets", "Monday", "Tuesday",
              "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May",
              "June", "July", "August", "September", "October", "November", "December"}


@dataclass(frozen=True)
class Trigger:
    name: str
    evidence: str

    def to_json(self) -> dict:
        return {"name": self.name, "evidence": self.evidence}


def entities(text: str) -> list[str]:
    """Names a person uses for things: quoted or code-like words, file names, Capitalised phrases."""
    found = []
    for m in ENTITY.finditer(text):
        value = next(g for g in m.groups() if g)
        if value in _STOP_CAPS or value.split()[0] in _STOP_CAPS and len(value.split()) == 1:
            continue
        found.append(value.strip())
    return list(dict.fromkeys(found))


def text_triggers(query: str, tail: str, window_phrase: str | None, known_names: Iterable[str]) -> list[Trigger]:
    """Triggers decidable from the text alone (everything but low confidence)."""
    fired: list[Trigger] = []
    if m := MEMORY.search(query):
        fired.append(Trigger("memory_reference", m.group(0)))
    if window_phrase:
        fired.append(Trigger("time_phrase", window_phrase))
    tail_low = tail.lower()
    known = {n.lower() for n in known_names}
    for ent in entities(query):
        low = ent.lower()
        if low not in tail_low and (low in known or any(low in k or k in low for k in known if len(k) > 3)):
            fired.append(Trigger("reintroduced_entity", ent))
            break
    if m := SWITCH.search(query):
        fired.append(Trigger("context_switch", m.group(1)))
    if m := DEBUG.search(query):
        fired.append(Trigger("debug_recurrence", m.group(0).strip()[:80]))
    return fired
