"""Turn English time phrases into half-open UTC windows [start, end).

Used by `vault time`, by recall (to spot "last week" inside a question and filter on it) and by the
conversation extractor (to pin "yesterday" in a turn to "7 May 2023" using that turn's own timestamp).
Calendar boundaries (midnight, Monday, the 1st) are built as wall-clock times in the caller's IANA
zone and only then converted to UTC, so a day is 23 or 25 hours long across a DST change, as it is
on the wall. Every supported form is one row of `_ENTRIES`: read that list to see what is understood.
"""
from __future__ import annotations

import functools
import re
import string
from calendar import monthrange
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sheriff_vault.errors import TimePhraseError

__all__ = ["Window", "resolve", "find", "find_all", "parse_instant", "to_iso", "utcnow"]

UTC = UTC
_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTHS = {name[:3].lower(): i + 1 for i, name in enumerate(_MONTH_NAMES)}
_WDAYS = {name: i for i, name in enumerate("mon tue wed thu fri sat sun".split())}
_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
_PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "night": (18, 30)}
_PART_NAMES = {lo: name for name, (lo, _) in _PARTS.items()}
_REL = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
_EXAMPLES = ("yesterday, this morning, last night, 3 days ago, a few weeks ago, last week, next month, "
             "last weekend, since Monday, on Friday, in May, the first Monday in May, May 2023, 7 May 2023, "
             "2023-05-07, 5/7, between May 1 and May 7, the past 7 days, recently, before you slept, "
             "since you woke up, two sleeps ago")


def utcnow() -> datetime:
    """The current time, UTC-aware (one place to patch in tests)."""
    return datetime.now(UTC)


def to_iso(t: datetime) -> str:
    """UTC ISO-8601 to the second with a Z: the one form the vault writes."""
    return _as_utc(t).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def parse_instant(value: str | datetime, tz: str = "UTC") -> datetime:
    """Read an ISO-8601 timestamp or date (--now, a turn's `at`); naive values are wall-clock time in tz."""
    if isinstance(value, datetime):
        return _as_utc(value) if value.tzinfo else _utc(value, _zone(tz))
    zone = _zone(tz)
    try:
        t = datetime.fromisoformat(value.strip().upper())
        return t.astimezone(UTC) if t.tzinfo else _utc(t, zone)
    except (AttributeError, TypeError, ValueError, OverflowError):
        raise TimePhraseError(f"not an ISO-8601 time: {value!r}",
                              hint="use e.g. 2023-05-08T13:56:00Z, 2023-05-08T13:56 or 2023-05-08") from None


@dataclass(frozen=True)
class Window:
    """A half-open UTC window [start, end) and where its phrase sat in the text; None means open."""

    start: datetime | None
    end: datetime | None
    phrase: str
    span: tuple[int, int]
    granularity: str  # instant|part_of_day|day|week|weekend|month|year|range
    relative: bool
    tz: str = field(default="UTC", compare=False)  # zone it was resolved in; label() defaults to it

    def contains(self, t: datetime) -> bool:
        t = _as_utc(t)
        return (self.start is None or self.start <= t) and (self.end is None or t < self.end)

    def overlaps(self, start: datetime | None, end: datetime | None) -> bool:
        start, end = (_as_utc(start) if start else None), (_as_utc(end) if end else None)
        return ((self.start is None or end is None or self.start < end)
                and (start is None or self.end is None or start < self.end))

    def label(self, tz: str | None = None) -> str:
        """Human form in tz (default: the zone it was resolved in), e.g. "7 May 2023", "week of 1 May 2023"."""
        name = tz or self.tz
        zone = _zone(name)
        s = self.start.astimezone(zone) if self.start else None
        e = self.end.astimezone(zone) if self.end else None
        if s is None:
            return f"before {_fmt(e, name)}" if e else "any time"
        if e is None:
            return f"after {_fmt(s, name, inclusive_end=True)}"
        day, g = _fmt_day(s.date()), self.granularity
        if g == "day":
            return day
        if g in ("week", "weekend"):
            return f"{g} of {day}"
        if g == "month":
            return f"{_MONTH_NAMES[s.month - 1]} {s.year}"
        if g == "year":
            return str(s.year)
        if g == "part_of_day" and s.minute == 0 and s.hour in _PART_NAMES:
            return f"{day} {_PART_NAMES[s.hour]}"
        if g == "instant":
            return _fmt(s, name, with_time=True)
        first, last = _fmt(s, name), _fmt(e, name, inclusive_end=True)
        return first if first == last else f"{first} to {last}"

    def to_json(self) -> dict:
        return {"start": to_iso(self.start) if self.start else None, "end": to_iso(self.end) if self.end else None,
                "phrase": self.phrase, "granularity": self.granularity, "relative": self.relative,
                "label": self.label()}


def _fmt_day(d: date) -> str:
    return f"{d.day} {_MONTH_NAMES[d.month - 1]} {d.year}"


def _fmt(t: datetime, tzname: str, *, inclusive_end: bool = False, with_time: bool = False) -> str:
    """A boundary as a date when it is local midnight (an exclusive end shows the day before), else date+time."""
    if not with_time and t.time() == time(0):
        return _fmt_day(t.date() - timedelta(days=1) if inclusive_end else t.date())
    return f"{_fmt_day(t.date())} {t:%H:%M} {tzname}"


# ---------------------------------------------------------------- local-calendar helpers

@dataclass(frozen=True)
class _Ctx:
    """Everything a handler needs: now in UTC, the zone calendar boundaries live in, and preferences."""

    now: datetime
    zone: ZoneInfo
    tzname: str
    prefer: str
    slept_at: datetime | None
    local: datetime  # naive wall-clock now in the zone
    today: date  # local date of now
    sleeps: tuple[datetime, ...] = ()  # every sleep, newest first ("two sleeps ago")


def _as_utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError, TypeError, OSError):
        raise TimePhraseError(f"unknown time zone {tz!r}",
                              hint="use an IANA name such as UTC or Europe/Berlin") from None


def _utc(local: datetime, zone: ZoneInfo) -> datetime:
    """Wall-clock time in zone -> UTC. Always re-localise this way; never add timedeltas to aware local times."""
    return local.replace(tzinfo=zone).astimezone(UTC)


def _at(c: _Ctx, d: date, hour: int = 0) -> datetime:
    """Local d at hour (hour may pass 24, meaning the next day), as UTC."""
    return _utc(datetime.combine(d + timedelta(days=hour // 24), time(hour % 24)), c.zone)


def _days(c: _Ctx, first: date, last: date) -> tuple[datetime, datetime]:
    """Whole local days first..last inclusive."""
    return _at(c, first), _at(c, last + timedelta(days=1))


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _add_months(y: int, m: int, k: int) -> tuple[int, int]:
    y2, m0 = divmod(y * 12 + m - 1 + k, 12)
    return y2, m0 + 1


def _month(c: _Ctx, y: int, m: int) -> tuple[datetime, datetime]:
    return _at(c, date(y, m, 1)), _at(c, date(*_add_months(y, m, 1), 1))


def _year(c: _Ctx, y: int) -> tuple[datetime, datetime]:
    return _at(c, date(y, 1, 1)), _at(c, date(y + 1, 1, 1))


def _unit(c: _Ctx, unit: str, k: int) -> tuple[datetime, datetime]:
    """The calendar day/week(Monday)/month/year k units from the current one."""
    t = c.today
    if unit == "day":
        return _days(c, t + timedelta(days=k), t + timedelta(days=k))
    if unit == "week":
        monday = _monday(t) + timedelta(weeks=k)
        return _days(c, monday, monday + timedelta(days=6))
    if unit == "month":
        return _month(c, *_add_months(t.year, t.month, k))
    return _year(c, t.year + k)


def _shift(c: _Ctx, unit: str, n: int) -> datetime:
    """now moved n units on the wall clock ("the past week" ends at this time of day a week ago)."""
    if unit == "hour":
        return c.now + timedelta(hours=n)
    loc = c.local
    if unit in ("day", "week"):
        return _utc(loc + timedelta(days=n * (7 if unit == "week" else 1)), c.zone)
    y, m = _add_months(loc.year, loc.month, n * (12 if unit == "year" else 1))
    return _utc(loc.replace(year=y, month=m, day=min(loc.day, monthrange(y, m)[1])), c.zone)


def _weekday(c: _Ctx, wd: int, how: str) -> date:
    """past: latest such day before today; future: first after today; this: in the current week,
    or looking ahead, the coming one once this week's has gone ("this Wednesday", said on a Saturday)."""
    t = c.today
    if how == "this":
        d = _monday(t) + timedelta(days=wd)
        return d + timedelta(days=7) if d < t and c.prefer == "future" else d
    if how == "past":
        return t - timedelta(days=(t.weekday() - wd - 1) % 7 + 1)
    return t + timedelta(days=(wd - t.weekday() - 1) % 7 + 1)


def _month_year(c: _Ctx, mon: int, how: str) -> int:
    """The year a month name without one refers to; past/future include the current month, last/next do not."""
    y, cur = c.today.year, c.today.month
    return {"past": y if mon <= cur else y - 1, "last": y if mon < cur else y - 1, "this": y,
            "future": y if mon >= cur else y + 1, "next": y if mon > cur else y + 1}[how]


def _pick_date(c: _Ctx, mon: int, day: int) -> date | None:
    """A month-day without a year: by default the nearest occurrence (14 February said on 10 February
    is in four days, not last year); prefer="past"/"future" take the latest/first on that side."""
    found = []
    for y in range(c.today.year - 8, c.today.year + 9):  # 29 Feb may be up to 8 years away
        try:
            found.append(date(y, mon, day))
        except ValueError:
            pass
    if c.prefer == "future":
        return min((d for d in found if d >= c.today), default=None)
    if c.prefer == "past":
        return max((d for d in found if d <= c.today), default=None)
    return min(found, key=lambda d: (abs((d - c.today).days), d > c.today), default=None)


def _count(s: str) -> tuple[int, int]:
    """A count as (low, high): "3" -> (3, 3); vague counts span what people usually mean."""
    s = " ".join(s.lower().split())
    if "couple" in s:
        return 1, 3
    if "few" in s or "several" in s:
        return 2, 5
    n = int(s) if s.isdigit() else _WORDS.get(s, 1)
    return n, n


# ---------------------------------------------------------------- handlers: match -> (start, end, gran., relative)

_R = tuple[datetime | None, datetime | None, str, bool]
Handler = Callable[[re.Match, _Ctx], _R | None]


def _h_instant(m: re.Match, c: _Ctx) -> _R | None:
    """A full timestamp names one minute."""
    try:
        t = parse_instant(m.group(0), c.tzname)
    except TimePhraseError:
        return None
    return t, t + timedelta(minutes=1), "instant", False


def _h_date(m: re.Match, c: _Ctx) -> _R | None:
    """A calendar date; without a year, the one `prefer` points at; a 2-digit year is at most 10 years ahead."""
    mon = _MONTHS[m["mon"][:3].lower()] if m.groupdict().get("mon") else int(m["mo"])
    y, day = m.groupdict().get("y"), int(m["d"])
    if y:
        year = int(y) + (0 if len(y) == 4 else 2000 if 2000 + int(y) <= c.today.year + 10 else 1900)
        d: date | None = date(year, mon, day)
    else:
        d = _pick_date(c, mon, day)
        if d is not None and m.groupdict().get("wd"):
            d = _on_weekday(c, mon, day, _WDAYS[m["wd"][:3].lower()]) or d
    return (*_days(c, d, d), "day", not y) if d else None


def _on_weekday(c: _Ctx, mon: int, day: int, wd: int) -> date | None:
    """The month-day said with its weekday ("booked for Saturday 11 July"): of its last occurrence
    and its next, the one that falls on that weekday (a year apart, they never both do); the weekday
    tells which is meant, as `prefer` (a past tense) cannot: a booking said in March is for this
    July. None when neither does: a weekday said wrongly moves no date to another year, and `prefer`
    decides."""
    ahead, back = (_pick_date(replace(c, prefer=side), mon, day) for side in ("future", "past"))
    return next((d for d in (back, ahead) if d is not None and d.weekday() == wd), None)


def _h_named(m: re.Match, c: _Ctx) -> _R:
    """A weekday or month name: after last/this/next as said, else the one `prefer` points at."""
    g = m.groupdict()
    rel = _REL.get((g.get("w") or "").lower())
    how = {-1: "last", 0: "this", 1: "next"}[rel] if rel is not None else c.prefer
    if g.get("wd"):
        wd = _WDAYS[g["wd"][:3].lower()]
        if how == "nearest":  # "rerun it on Thursday", said on Tuesday: in two days, not five days ago
            past, future = _weekday(c, wd, "past"), _weekday(c, wd, "future")
            d = future if (future - c.today).days < (c.today - past).days else past
        else:
            d = _weekday(c, wd, {"last": "past", "next": "future"}.get(how, how))
        return (*_days(c, d, d), "day", True)
    mon, y = _MONTHS[g["mon"][:3].lower()], g.get("y")
    return (*_month(c, int(y) if y else _named_month_year(c, mon, how), mon), "month", not y)


def _named_month_year(c: _Ctx, mon: int, how: str) -> int:
    """The year of a month named without one; "nearest": the closer of the last and the next ("her
    party in June", said in February: this June)."""
    if how != "nearest":
        return _month_year(c, mon, how)
    back, ahead = _month_year(c, mon, "past"), _month_year(c, mon, "future")
    gap_back = (c.today.year - back) * 12 + c.today.month - mon
    gap_ahead = (ahead - c.today.year) * 12 + mon - c.today.month
    return ahead if gap_ahead < gap_back else back


_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "last": -1}


def _h_nth_weekday(m: re.Match, c: _Ctx) -> _R | None:
    """"the first Monday in May", "the last Friday of next month": that weekday's first
    (second, ..., last) day in the month; a month named without a year is the one `prefer` points
    at, as for the month alone. No such day ("the fifth Monday" of a month with four) is no match."""
    g = m.groupdict()
    wd = _WDAYS[g["wd"][:3].lower()]
    if g.get("mon"):
        mon, y = _MONTHS[g["mon"][:3].lower()], g.get("y")
        year = int(y) if y else _named_month_year(c, mon, c.prefer)
    else:
        year, mon = _add_months(c.today.year, c.today.month, _REL[g["w"].lower()])
    days = [day for day in range(1, monthrange(year, mon)[1] + 1) if date(year, mon, day).weekday() == wd]
    n = _ORDINALS[g["o"].lower()]
    if n > len(days):
        return None
    d = date(year, mon, days[n - 1 if n > 0 else -1])
    return (*_days(c, d, d), "day", not g.get("y"))


def _h_day(m: re.Match, c: _Ctx) -> _R:
    """today/yesterday/tomorrow (and the days either side), whole or one part of it ("last night")."""
    w = m.group(0).lower()
    k = (-2 if "before" in w else 2 if "after tomorrow" in w else -1 if w.startswith(("yesterday", "last"))
         else 1 if w.startswith("tomorrow") else 0)
    d, part = c.today + timedelta(days=k), m.groupdict().get("p") or ("night" if w == "tonight" else None)
    if part is None:
        return (*_days(c, d, d), "day", True)
    lo, hi = _PARTS[part.lower()]
    return _at(c, d, lo), _at(c, d, hi), "part_of_day", True


def _h_count(sign: int) -> Handler:
    """"N units ago" (sign -1) / "in N units" (+1): that calendar unit; a vague N gives a range of them."""
    def handler(m: re.Match, c: _Ctx) -> _R:
        lo, hi = _count(m["n"])
        unit = m["u"].lower()
        a, b = sorted((sign * lo, sign * hi))
        return _unit(c, unit, a)[0], _unit(c, unit, b)[1], unit if lo == hi else "range", True
    return handler


def _h_rolling(sign: int) -> Handler:
    """"the past N days" / "the next N days": a rolling range ending (or starting) now."""
    def handler(m: re.Match, c: _Ctx) -> _R:
        edge = _shift(c, m["u"].lower(), sign * (_count(m["n"])[1] if m["n"] else 1))
        return (edge, c.now, "range", True) if sign < 0 else (c.now, edge, "range", True)
    return handler


def _h_rel_unit(m: re.Match, c: _Ctx) -> _R:
    unit = m["u"].lower()
    return (*_unit(c, unit, _REL[m["w"].lower()]), unit, True)


def _h_weekend(m: re.Match, c: _Ctx) -> _R:
    k = _REL.get(m["w"].lower())
    if k is None:  # "the weekend": this one if we are in it or prefer the future, else the last one
        k = 0 if c.prefer == "future" or c.today.weekday() >= 5 else -1
    saturday = _monday(c.today) + timedelta(days=5 + 7 * k)
    return (*_days(c, saturday, saturday + timedelta(days=1)), "weekend", True)


def _h_loose(m: re.Match, c: _Ctx) -> _R:
    """recently/lately (two weeks), the other day (the week before today), earlier/later today."""
    w = m.group(0).lower()
    if w.startswith("earlier"):
        return _at(c, c.today), c.now, "range", True
    if w.startswith("later"):
        return c.now, _at(c, c.today + timedelta(days=1)), "range", True
    if "other" in w:
        return (*_days(c, c.today - timedelta(days=7), c.today - timedelta(days=1)), "range", True)
    return _shift(c, "day", -14), c.now, "range", True


def _h_around(kind: str) -> Handler:
    """since/before/after/until X, between X and Y: a range bounded by X's (and Y's) start or end, or now."""
    def handler(m: re.Match, c: _Ctx) -> _R | None:
        p = _point(m["a"], replace(c, prefer="past") if kind == "since" else c)  # "since" always looks back
        q = _point(m["b"], c) if kind == "between" else p
        if (kind == "between" and p and q and p[0] is not None and q[1] is not None
                and q[1] <= p[0]):  # "from May 1 to May 7" on 3 May: read the ends apart
            p, q = _point(m["a"], replace(c, prefer="past")), _point(m["b"], replace(c, prefer="future"))
        if not p or not q:
            return None
        s, e = {"since": (p[0], c.now), "before": (None, p[0]), "after": (p[1], None), "until": (None, p[1]),
                "between": (p[0], q[1])}[kind]
        return s, e, "range", p[3] or q[3] or kind == "since"
    return handler


def _h_slept(before: bool) -> Handler:
    """Windows around the last sleep (slept_at); without one they do not match (resolve() explains why)."""
    def handler(m: re.Match, c: _Ctx) -> _R | None:
        if c.slept_at is None:
            return None
        return (None, c.slept_at, "range", True) if before else (c.slept_at, c.now, "range", True)
    return handler


def _h_sleeps_ago(m: re.Match, c: _Ctx) -> _R | None:
    """"N sleeps ago": the awake time that sleep N (1 = the last one) closed, from the sleep before it
    (open when there is none) to it; "one sleep ago" is the day before the last sleep, like "yesterday".
    A vague N ("a few sleeps ago") spans those periods. Without N sleeps it does not match."""
    lo, hi = _count(m["n"])
    if lo > len(c.sleeps) or lo < 1:
        return None
    hi = min(hi, len(c.sleeps))  # "a few sleeps ago" in a vault that slept three times
    start = c.sleeps[hi] if hi < len(c.sleeps) else None
    return start, c.sleeps[lo - 1], "sleep" if lo == hi else "range", True


# ---------------------------------------------------------------- the table of every supported form

_MAY_VERB = (r"(?!\s+(?:be|have|not|never|also|well|still|just|need|want|help|take|get|go|come|make|seem"
             r"|become|work|mean|feel|look)\b)")  # "this may be" is not the month
_MARKERS = {
    "<MON>": (r"(?P<mon>january|february|march|april|may" + _MAY_VERB + r"|june|july|august|september|october"
              r"|november|december|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?)"),
    "<WD>": (r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday"
             r"|(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?)"),
    "<NUM>": (r"(?P<n>\d{1,4}|a couple(?: of)?|couple of|a few|few|several|an?|one|two|three|four|five|six|seven"
              r"|eight|nine|ten|eleven|twelve)"),
    "<UNIT>": r"(?P<u>day|week|month|year)s?",
    "<SPAN>": r"(?P<u>hour|day|week|month|year)s?",
    "<D>": r"(?P<d>\d{1,2})(?:st|nd|rd|th)?",
    "<Y>": r"(?P<y>\d{4})",
}
POINT, BARE, TEXT = "point", "bare", "text"  # POINT: stands alone and follows since/before/...;
# BARE: only after a preposition, or as the whole phrase given to resolve(); TEXT: prepositions and ranges.
_NTH_WEEKDAY = (r"(?:the )?(?P<o>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th) <WD> (?:in|of) "
                r"(?:<MON>(?:,? <Y>)?|(?P<w>this|next|last) month)")
_ENTRIES: list[tuple[str, Handler, str]] = [
    (r"\d{4}-\d\d-\d\d(?:T|\s)\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?",  # 2023-05-07T13:56Z
     _h_instant, POINT),
    (r"<Y>[-/](?P<mo>\d{1,2})[-/](?P<d>\d{1,2})", _h_date, POINT),          # 2023-05-07, 2023/05/07
    (r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d\d)", _h_date, POINT),    # 5/7/2023, 5/7/23 (US order)
    (r"(?:<WD>,? )?<MON> (?:the )?<D>(?:,? <Y>)?", _h_date, POINT),           # May 7, May 7th, Sunday May 7, 2023
    (r"(?:<WD>,? )?(?:the )?<D> (?:of )?<MON>(?:,? <Y>)?", _h_date, POINT),   # 7 May 2023, Saturday 14 February
    (r"<MON>,? <Y>", _h_named, POINT),                                        # May 2023
    (r"(?P<w>today|yesterday|tomorrow|this|last) (?P<p>morning|afternoon|evening|night)|tonight", _h_day, POINT),
    (r"today|yesterday|tomorrow|(?:the )?day (?:before yesterday|after tomorrow)", _h_day, POINT),
    (r"(?P<w>earlier|later) today", _h_loose, POINT),
    (r"<NUM> <UNIT> ago", _h_count(-1), POINT),                               # 3 days ago, a few weeks ago
    (r"<NUM> sleeps? ago", _h_sleeps_ago, POINT),                             # two sleeps ago (sleep tags)
    (r"in <NUM> <UNIT>", _h_count(1), POINT),                                 # in two weeks
    (r"<NUM> <UNIT> from now", _h_count(1), POINT),
    (r"(?:(?:the )?(?:past|last) <NUM>|(?:the )?past) <SPAN>", _h_rolling(-1), POINT),  # the past week, last 7 days
    (r"(?:the )?(?:next|coming) <NUM> <SPAN>", _h_rolling(1), POINT),         # the next few days
    (r"(?P<w>last|this|next|previous|coming|current) (?P<u>week|month|year)", _h_rel_unit, POINT),
    (r"(?P<w>last|this|next|coming|the) weekend", _h_weekend, POINT),
    (_NTH_WEEKDAY, _h_nth_weekday, POINT),                                     # the first Monday in May
    (r"(?P<w>last|this|next|previous|coming) (?:<WD>|<MON>)(?! (?:of|in) (?:the|each|every) month)",
     _h_named, POINT),                                                        # last Friday, next May
    (r"recently|lately", _h_loose, POINT),
    (r"the other day", _h_loose, POINT),
    (r"<WD>", _h_named, BARE),                                              # Friday
    (r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})", _h_date, BARE),                       # 5/7 (but not "a 1/2 cup")
    (r"<MON>", _h_named, BARE),                                               # May
    (r"(?P<y>(?:19|20)\d\d)", lambda m, c: (*_year(c, int(m["y"])), "year", False), BARE),  # 2022
    (r"on <A>", lambda m, c: _point(m["a"], c), TEXT),                        # on Friday, on 5/7
    (r"(?:in|during|of|early|late|mid)[\s-]+(?P<a><MON>(?:,? <Y>)?|(?:19|20)\d\d)",  # in May, mid-May, in 2022
     lambda m, c: _point(m["a"], c), TEXT),
    (r"since <A>", _h_around("since"), TEXT),                                 # since Monday, since May 1
    (r"before <A>", _h_around("before"), TEXT),
    (r"after <A>", _h_around("after"), TEXT),
    (r"(?:until|till|by|up to) <A>", _h_around("until"), TEXT),               # by Friday: up to its end
    (r"between <A> and <B>", _h_around("between"), TEXT),
    (r"from <A> (?:to|until|till|through|thru) <B>", _h_around("between"), TEXT),
    (r"before (?:you (?:last )?(?:slept|went to sleep|fell asleep)|sleep(?:ing)?)", _h_slept(True), TEXT),
    (r"(?:since|after) (?:you (?:last )?(?:slept|woke(?: up)?|went to sleep|fell asleep)|sleep|waking(?: up)?)",
     _h_slept(False), TEXT),
]


def _expand(src: str) -> str:
    for marker, rx in _MARKERS.items():
        src = src.replace(marker, rx)
    return src


def _nocap(src: str) -> str:
    """Turn groups into non-capturing ones so a pattern can sit inside another (since <A>)."""
    return re.sub(r"\((?!\?)", "(?:", re.sub(r"\(\?P<\w+>", "(?:", src))


def _compile(src: str) -> re.Pattern:
    """Spaces mean any whitespace; a phrase never starts or ends inside a word, number or a/b/c date."""
    return re.compile(r"(?<![\w/])(?:" + src.replace(" ", r"\s+") + r")(?![\w/])", re.I | re.A)


@functools.cache
def _tables() -> tuple[list, list, list]:
    """Compile the table on first use (about 60 ms), so commands that never parse time do not pay it."""
    point_alt = "|".join(f"(?:{_nocap(_expand(s))})(?![\\w/])" for s, _, kind in _ENTRIES if kind != TEXT)
    compiled = [(_compile(_expand(s).replace("<A>", f"(?P<a>{point_alt})").replace("<B>", f"(?P<b>{point_alt})")),
                 h, k) for s, h, k in _ENTRIES]
    points = [(rx, h) for rx, h, k in compiled if k != TEXT]   # what may follow since/before/after/between
    in_text = [(rx, h) for rx, h, k in compiled if k != BARE]  # what find() looks for in free text
    whole = [(rx, h) for rx, h, _ in compiled]                  # what resolve() accepts as the whole phrase
    return points, in_text, whole


def counts_weekday(phrase: str) -> bool:
    """Whether a phrase picks its day by counting a weekday in a month ("the first Monday in May"):
    a day nobody said by its date, unlike "Monday 1 May"."""
    return _counted().search(phrase) is not None


@functools.cache
def _counted() -> re.Pattern:
    return _compile(_expand(_NTH_WEEKDAY))


def without_weekday(phrase: str) -> str:
    """A date phrase without the weekday it opens on ("on Saturday 11 July" -> "11 July"): the date
    whose year that weekday picks (`_on_weekday`), as it reads without that help."""
    return _weekday_lead().sub("", phrase, count=1)


@functools.cache
def _weekday_lead() -> re.Pattern:
    return re.compile(r"^\s*(?:on\s+)?" + _nocap(_expand("<WD>")) + r"(?![a-z]),?\s*", re.I)


_SLEEPY = re.compile(r"\b(?:slept|sleeps?|sleeping|asleep|woke|waking)\b", re.I)
_SLEEPS_AGO = re.compile(r"\b(\w+(?: of)?)\s+sleeps?\s+ago\b", re.I)


def mentions_sleep(text: str) -> bool:
    """Whether a phrase needs the sleep times ("before you slept", "two sleeps ago"): callers read
    them from git only then."""
    return bool(_SLEEPY.search(text))


# ---------------------------------------------------------------- matching

def _call(fn: Handler, m: re.Match, c: _Ctx) -> _R | None:
    """Run a handler; impossible dates (31 April, year 0) and empty or inverted windows count as no match."""
    try:
        r = fn(m, c)
    except (ValueError, OverflowError):
        return None
    if r is None or (r[0] is None and r[1] is None) or (r[0] is not None and r[1] is not None and r[0] >= r[1]):
        return None
    return r


def _point(text: str, c: _Ctx) -> _R | None:
    for rx, fn in _tables()[0]:
        m = rx.fullmatch(text)
        r = _call(fn, m, c) if m else None
        if r:
            return r
    return None


def _ctx(now: datetime, tz: str, slept_at: datetime | None, prefer: str, sleeps: Sequence[datetime] = ()) -> _Ctx:
    if prefer not in ("nearest", "past", "future"):
        raise TimePhraseError(f"prefer must be 'nearest', 'past' or 'future', not {prefer!r}")
    utc, zone = _as_utc(now), _zone(tz)
    local = utc.astimezone(zone).replace(tzinfo=None)
    times = tuple(sorted({_as_utc(t) for t in sleeps if _as_utc(t) <= utc}, reverse=True))
    slept = _as_utc(slept_at) if slept_at else (times[0] if times else None)
    if slept is not None and (not times or times[0] < slept):
        times = (slept, *times)
    return _Ctx(utc, zone, tz, prefer, slept, local, local.date(), times)


def _scan(text: str, c: _Ctx) -> list[Window]:
    """All matches of all rows; keep the earliest, longest at a tie, then the next that does not overlap."""
    found = []
    for rx, fn in _tables()[1]:
        for m in rx.finditer(text):
            r = _call(fn, m, c)
            if r:
                found.append((m.start(), -m.end(), m, r))
    found.sort(key=lambda f: (f[0], f[1]))
    out: list[Window] = []
    pos = 0
    for start, _, m, r in found:
        if start >= pos:
            out.append(Window(r[0], r[1], m.group(0), m.span(), r[2], r[3], c.tzname))
            pos = m.end()
    return out


def find_all(text: str, now: datetime, tz: str = "UTC", *, slept_at: datetime | None = None,
             prefer: str = "nearest", sleeps: Sequence[datetime] = ()) -> list[Window]:
    """Every non-overlapping time phrase in free text, in order; bare "May"/"Friday"/"2022" need a preposition.

    slept_at is the last sleep ("before you slept"); sleeps are all of them, any order ("two sleeps ago")."""
    return _anchor(text, _scan(text, _ctx(now, tz, slept_at, prefer, sleeps)), tz, slept_at, prefer)


def _anchor(text: str, found: list[Window], tz: str, slept_at: datetime | None, prefer: str) -> list[Window]:
    """"last weekend before 10 April 2023" is last weekend as seen from 10 April 2023, not from now."""
    out: list[Window] = []
    i = 0
    while i < len(found):
        a = found[i]
        b = found[i + 1] if i + 1 < len(found) else None
        if (b is not None and a.relative and not b.relative and b.start is None and b.end is not None
                and not text[a.span[1] : b.span[0]].strip()
                and re.match(r"(?:before|prior to)\b", b.phrase.strip(), re.I)):
            again = _scan(a.phrase, _ctx(b.end, tz, slept_at, prefer))
            if again:
                w = again[0]
                out.append(Window(w.start, w.end, text[a.span[0] : b.span[1]], (a.span[0], b.span[1]),
                                  w.granularity, False, tz))
                i += 2
                continue
        out.append(a)
        i += 1
    return out


def find(text: str, now: datetime, tz: str = "UTC", *, slept_at: datetime | None = None,
         prefer: str = "nearest", sleeps: Sequence[datetime] = ()) -> Window | None:
    """The first time phrase in free text, or None."""
    found = find_all(text, now, tz, slept_at=slept_at, prefer=prefer, sleeps=sleeps)
    return found[0] if found else None


def resolve(phrase: str, now: datetime, tz: str = "UTC", *, slept_at: datetime | None = None,
            prefer: str = "nearest", sleeps: Sequence[datetime] = ()) -> Window:
    """A phrase that is a time (or contains one) -> its window; otherwise TimePhraseError saying what works."""
    c = _ctx(now, tz, slept_at, prefer, sleeps)
    core = phrase.strip(string.whitespace + string.punctuation)
    if core:
        for rx, fn in _tables()[2]:
            m = rx.fullmatch(core)
            r = _call(fn, m, c) if m else None
            if r:
                return Window(r[0], r[1], phrase, (0, len(phrase)), r[2], r[3], tz)
        found = _scan(phrase, c)
        if found:
            return found[0]
    if c.slept_at is None and _SLEEPY.search(phrase):
        raise TimePhraseError(f"{phrase!r} needs the time of the last sleep",
                              hint="there is no wake packet yet; run `vault sleep` first")
    if (ago := _SLEEPS_AGO.search(phrase)) and ago.group(1).lower() not in ("a", "an", "one", "1"):
        raise TimePhraseError(f"{phrase!r} goes back further than the {len(c.sleeps)} sleep(s) this vault has had",
                              hint="`vault sleeps` lists them; ask for a more recent one")
    raise TimePhraseError(f"{phrase!r} is not a time phrase I understand", hint=f"phrases that work: {_EXAMPLES}")
