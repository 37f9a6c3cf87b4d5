"""The time window a question means, read as a person means it: an explicit date beats a relative
phrase in the same question ("last Friday, 23 January 2022" is 23 January), "as of X" is the state
at X (everything up to the end of X, newest first), a vague phrase only leans ("recently")."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import replace

from sheriff_vault import timewin
from sheriff_vault.errors import VaultError

_VAGUE = re.compile(r"\b(?:recent(?:ly)?|lately|the other day|a (?:few|couple)|several|a while)\b", re.I)
_AS_OF = re.compile(r"\b(?:as\s+(?:of|at)|at\s+the\s+time\s+of|by\s+the\s+end\s+of)\s*$", re.I)
_SLEEP = re.compile(r"\b(?:slept|sleeps?|sleeping|asleep|woke|wake|waking)\b", re.I)
AS_OF = "as_of"  # Window.granularity of a state-at-X window: open start, ends where X ends


def soft_window(window: timewin.Window) -> bool:
    """A vague phrase boosts what falls inside; an exact one filters."""
    return bool(_VAGUE.search(window.phrase))


def said_time(window: timewin.Window) -> bool:
    """"Before you slept", "since you woke up": a window on the conversation itself, matched by
    when things were said; every other window is matched by when they happen."""
    return bool(_SLEEP.search(window.phrase))


def as_of(window: timewin.Window | None) -> bool:
    return window is not None and window.granularity == AS_OF


def question_window(query: str, now: dt.datetime, tz: str, slept_at: dt.datetime | None,
                    sleeps: Sequence[dt.datetime] = ()) -> timewin.Window | None:
    """The one window a question asks about. Memory looks back, so an ambiguous "on Friday" or
    "in June" means the last one."""
    found = timewin.find_all(query, now, tz, slept_at=slept_at, prefer="past", sleeps=sleeps)
    if not found:
        return None
    explicit = [w for w in found if not w.relative]
    window = explicit[0] if explicit else found[0]
    prep = re.match(r"\s*(?:of|at)\b", window.phrase, re.I)
    lead = query[: window.span[0]] + (prep.group() if prep else "")
    if window.end is not None and (m := _AS_OF.search(lead)):
        return replace(window, start=None, phrase=query[m.start(): window.span[1]], span=(m.start(), window.span[1]),
                       granularity=AS_OF)
    return window


def resolve_window(query: str, now: dt.datetime, tz: str, slept_at: dt.datetime | None, since: str | None,
                   until: str | None, sleeps: Sequence[dt.datetime] = ()) -> timewin.Window | None:
    """--since/--until win over a phrase found in the message; both may be given."""
    if since or until:
        start_w = timewin.resolve(since, now, tz, slept_at=slept_at, prefer="past", sleeps=sleeps) if since else None
        end_w = timewin.resolve(until, now, tz, slept_at=slept_at, prefer="past", sleeps=sleeps) if until else None
        start = start_w.start if start_w else None
        end = end_w.end if end_w else None
        if start and end and start >= end:
            raise VaultError(f"--since {since!r} starts after --until {until!r} ends", hint="swap them")
        phrase = " / ".join(p for p in (f"since {since}" if since else "", f"until {until}" if until else "") if p)
        return timewin.Window(start, end, phrase, (0, 0), "range", True, tz)
    return question_window(query, now, tz, slept_at, sleeps)
