"""Tests for sheriff_vault.timewin: every expected window is written out by hand as literal ISO text."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheriff_vault.errors import TimePhraseError
from sheriff_vault.timewin import Window, counts_weekday, find, find_all, parse_instant, resolve, to_iso, utcnow

N = "2023-05-08T13:56:00Z"  # a Monday
SLEPT = "2023-05-08T02:00:00Z"


def iso(s: str | None) -> datetime | None:
    """Literal ISO text -> aware UTC datetime, without touching the code under test."""
    return None if s is None else datetime.fromisoformat(s.replace("Z", "+00:00"))


# (phrase, now, tz, expected start, expected end)
CASES = [
    # days and parts of days
    ("today", N, "UTC", "2023-05-08T00:00:00Z", "2023-05-09T00:00:00Z"),
    ("tonight", N, "UTC", "2023-05-08T18:00:00Z", "2023-05-09T06:00:00Z"),
    ("yesterday", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("  Yesterday! ", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("the day before yesterday", N, "UTC", "2023-05-06T00:00:00Z", "2023-05-07T00:00:00Z"),
    ("tomorrow", N, "UTC", "2023-05-09T00:00:00Z", "2023-05-10T00:00:00Z"),
    ("the day after tomorrow", N, "UTC", "2023-05-10T00:00:00Z", "2023-05-11T00:00:00Z"),
    ("tomorrow night", N, "UTC", "2023-05-09T18:00:00Z", "2023-05-10T06:00:00Z"),
    ("earlier today", N, "UTC", "2023-05-08T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("this morning", N, "UTC", "2023-05-08T05:00:00Z", "2023-05-08T12:00:00Z"),
    ("this afternoon", N, "UTC", "2023-05-08T12:00:00Z", "2023-05-08T17:00:00Z"),
    ("this evening", N, "UTC", "2023-05-08T17:00:00Z", "2023-05-09T00:00:00Z"),
    ("last night", N, "UTC", "2023-05-07T18:00:00Z", "2023-05-08T06:00:00Z"),
    ("yesterday morning", N, "UTC", "2023-05-07T05:00:00Z", "2023-05-07T12:00:00Z"),
    ("yesterday afternoon", N, "UTC", "2023-05-07T12:00:00Z", "2023-05-07T17:00:00Z"),
    ("yesterday evening", N, "UTC", "2023-05-07T17:00:00Z", "2023-05-08T00:00:00Z"),
    # N units ago, exact and vague
    ("3 days ago", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("three days ago", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("a week ago", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("2 weeks ago", N, "UTC", "2023-04-24T00:00:00Z", "2023-05-01T00:00:00Z"),
    ("a month ago", N, "UTC", "2023-04-01T00:00:00Z", "2023-05-01T00:00:00Z"),
    ("two months ago", N, "UTC", "2023-03-01T00:00:00Z", "2023-04-01T00:00:00Z"),
    ("a year ago", N, "UTC", "2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z"),
    ("5 years ago", N, "UTC", "2018-01-01T00:00:00Z", "2019-01-01T00:00:00Z"),
    ("a few days ago", N, "UTC", "2023-05-03T00:00:00Z", "2023-05-07T00:00:00Z"),
    ("a couple of days ago", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("several days ago", N, "UTC", "2023-05-03T00:00:00Z", "2023-05-07T00:00:00Z"),
    ("a few weeks ago", N, "UTC", "2023-04-03T00:00:00Z", "2023-05-01T00:00:00Z"),
    ("a couple of weeks ago", N, "UTC", "2023-04-17T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("a few months ago", N, "UTC", "2022-12-01T00:00:00Z", "2023-04-01T00:00:00Z"),
    ("a few years ago", N, "UTC", "2018-01-01T00:00:00Z", "2022-01-01T00:00:00Z"),
    ("in 3 days", N, "UTC", "2023-05-11T00:00:00Z", "2023-05-12T00:00:00Z"),
    ("in two weeks", N, "UTC", "2023-05-22T00:00:00Z", "2023-05-29T00:00:00Z"),
    # calendar weeks, months, years, weekends
    ("last week", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("this week", N, "UTC", "2023-05-08T00:00:00Z", "2023-05-15T00:00:00Z"),
    ("next week", N, "UTC", "2023-05-15T00:00:00Z", "2023-05-22T00:00:00Z"),
    ("last month", N, "UTC", "2023-04-01T00:00:00Z", "2023-05-01T00:00:00Z"),
    ("this month", N, "UTC", "2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    ("next month", N, "UTC", "2023-06-01T00:00:00Z", "2023-07-01T00:00:00Z"),
    ("last year", N, "UTC", "2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z"),
    ("this year", N, "UTC", "2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z"),
    ("next year", N, "UTC", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
    ("last weekend", N, "UTC", "2023-05-06T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("this weekend", N, "UTC", "2023-05-13T00:00:00Z", "2023-05-15T00:00:00Z"),
    ("next weekend", N, "UTC", "2023-05-20T00:00:00Z", "2023-05-22T00:00:00Z"),
    ("last weekend", "2023-05-13T10:00:00Z", "UTC", "2023-05-06T00:00:00Z", "2023-05-08T00:00:00Z"),  # Saturday
    ("last weekend", "2023-05-14T10:00:00Z", "UTC", "2023-05-06T00:00:00Z", "2023-05-08T00:00:00Z"),  # Sunday
    ("last weekend", "2023-05-12T10:00:00Z", "UTC", "2023-05-06T00:00:00Z", "2023-05-08T00:00:00Z"),  # Friday
    ("this weekend", "2023-05-14T10:00:00Z", "UTC", "2023-05-13T00:00:00Z", "2023-05-15T00:00:00Z"),
    # rolling and vague ranges
    ("the past week", N, "UTC", "2023-05-01T13:56:00Z", "2023-05-08T13:56:00Z"),
    ("the last 7 days", N, "UTC", "2023-05-01T13:56:00Z", "2023-05-08T13:56:00Z"),
    ("past 3 days", N, "UTC", "2023-05-05T13:56:00Z", "2023-05-08T13:56:00Z"),
    ("recently", N, "UTC", "2023-04-24T13:56:00Z", "2023-05-08T13:56:00Z"),
    ("lately", N, "UTC", "2023-04-24T13:56:00Z", "2023-05-08T13:56:00Z"),
    ("the other day", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T00:00:00Z"),
    # weekdays (today is Monday 8 May)
    ("since Friday", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since Monday", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since thurs", N, "UTC", "2023-05-04T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since Sunday", "2023-05-14T10:00:00Z", "UTC", "2023-05-07T00:00:00Z", "2023-05-14T10:00:00Z"),
    ("on Friday", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("Friday", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("on 5/7", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("last Friday", N, "UTC", "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("last tues", N, "UTC", "2023-05-02T00:00:00Z", "2023-05-03T00:00:00Z"),
    ("this Friday", N, "UTC", "2023-05-12T00:00:00Z", "2023-05-13T00:00:00Z"),
    # not looking ahead, this week's, gone or not ("what did I do this Wednesday?", asked on a Saturday)
    ("this Wednesday", "2023-05-13T10:00:00Z", "UTC", "2023-05-10T00:00:00Z", "2023-05-11T00:00:00Z"),
    ("next Fri", N, "UTC", "2023-05-12T00:00:00Z", "2023-05-13T00:00:00Z"),
    ("next Monday", N, "UTC", "2023-05-15T00:00:00Z", "2023-05-16T00:00:00Z"),
    # months
    ("in June", N, "UTC", "2023-06-01T00:00:00Z", "2023-07-01T00:00:00Z"),  # nearest: next month, not last year
    ("in May", N, "UTC", "2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    ("May", N, "UTC", "2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    ("mid-May", N, "UTC", "2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    ("during March 2021", N, "UTC", "2021-03-01T00:00:00Z", "2021-04-01T00:00:00Z"),
    ("May 2022", N, "UTC", "2022-05-01T00:00:00Z", "2022-06-01T00:00:00Z"),
    ("last May", N, "UTC", "2022-05-01T00:00:00Z", "2022-06-01T00:00:00Z"),
    ("this June", N, "UTC", "2023-06-01T00:00:00Z", "2023-07-01T00:00:00Z"),
    ("next May", N, "UTC", "2024-05-01T00:00:00Z", "2024-06-01T00:00:00Z"),
    # explicit dates and years
    ("2023-05-07", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("2023/05/07", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("May 7", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("May 7th", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("May 7, 2023", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("7 May 2023", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("7th of May 2023", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("5/7", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("5/7/2023", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("5/7/23", N, "UTC", "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("May 9", N, "UTC", "2023-05-09T00:00:00Z", "2023-05-10T00:00:00Z"),  # nearest: tomorrow, not last year
    ("Dec 25", N, "UTC", "2022-12-25T00:00:00Z", "2022-12-26T00:00:00Z"),
    ("Feb 29", N, "UTC", "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z"),  # nearest 29 Feb to May 2023
    ("2023-05-07T10:00Z", N, "UTC", "2023-05-07T10:00:00Z", "2023-05-07T10:01:00Z"),
    ("in 2022", N, "UTC", "2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z"),
    ("2022", N, "UTC", "2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z"),
    # since / before / after / until / between / from-to
    ("since 2021", N, "UTC", "2021-01-01T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since May 1", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since last week", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("since April", N, "UTC", "2023-04-01T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("before May 7", N, "UTC", None, "2023-05-07T00:00:00Z"),
    ("after May 7", N, "UTC", "2023-05-08T00:00:00Z", None),
    ("until May 7", N, "UTC", None, "2023-05-08T00:00:00Z"),
    ("between May 1 and May 7", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("from May 1 to May 3", N, "UTC", "2023-05-01T00:00:00Z", "2023-05-04T00:00:00Z"),
    ("between May 1 and May 7", "2023-05-03T09:00:00Z", "UTC", "2023-05-01T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("from Monday to Friday", "2023-05-10T09:00:00Z", "UTC", "2023-05-08T00:00:00Z", "2023-05-13T00:00:00Z"),
    ("since yesterday morning", N, "UTC", "2023-05-07T05:00:00Z", "2023-05-08T13:56:00Z"),
    # month, year and leap-day boundaries
    ("last month", "2024-01-15T12:00:00Z", "UTC", "2023-12-01T00:00:00Z", "2024-01-01T00:00:00Z"),
    ("yesterday", "2024-03-01T12:00:00Z", "UTC", "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z"),
    ("yesterday", "2023-03-01T12:00:00Z", "UTC", "2023-02-28T00:00:00Z", "2023-03-01T00:00:00Z"),
    ("last week", "2024-01-02T12:00:00Z", "UTC", "2023-12-25T00:00:00Z", "2024-01-01T00:00:00Z"),
    ("next month", "2023-12-10T12:00:00Z", "UTC", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"),
    ("next month", "2023-01-31T12:00:00Z", "UTC", "2023-02-01T00:00:00Z", "2023-03-01T00:00:00Z"),
    ("next year", "2023-12-31T12:00:00Z", "UTC", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
    ("a month ago", "2024-03-31T12:00:00Z", "UTC", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"),
    ("3 months ago", "2023-02-10T12:00:00Z", "UTC", "2022-11-01T00:00:00Z", "2022-12-01T00:00:00Z"),
    ("4 weeks ago", "2024-01-10T12:00:00Z", "UTC", "2023-12-11T00:00:00Z", "2023-12-18T00:00:00Z"),
    ("a few days ago", "2024-03-03T12:00:00Z", "UTC", "2024-02-27T00:00:00Z", "2024-03-02T00:00:00Z"),
    # other zones and DST changes
    ("last week", "2024-01-02T12:00:00Z", "Europe/Berlin", "2023-12-24T23:00:00Z", "2023-12-31T23:00:00Z"),
    ("this week", "2023-05-08T02:00:00Z", "America/New_York", "2023-05-01T04:00:00Z", "2023-05-08T04:00:00Z"),
    ("yesterday", "2023-03-13T16:00:00Z", "America/New_York", "2023-03-12T05:00:00Z", "2023-03-13T04:00:00Z"),
    ("yesterday", "2023-10-30T12:00:00Z", "Europe/Berlin", "2023-10-28T22:00:00Z", "2023-10-29T23:00:00Z"),
    ("last night", "2023-10-29T12:00:00Z", "Europe/Berlin", "2023-10-28T16:00:00Z", "2023-10-29T05:00:00Z"),
    ("the past week", "2023-03-14T16:00:00Z", "America/New_York", "2023-03-07T17:00:00Z", "2023-03-14T16:00:00Z"),
    ("today", "2023-05-08T20:00:00Z", "Asia/Tokyo", "2023-05-08T15:00:00Z", "2023-05-09T15:00:00Z"),
    ("last month", N, "Europe/Berlin", "2023-03-31T22:00:00Z", "2023-04-30T22:00:00Z"),
    ("last year", "2024-01-01T05:00:00Z", "America/Los_Angeles", "2022-01-01T08:00:00Z", "2023-01-01T08:00:00Z"),
]


@pytest.mark.parametrize(("phrase", "now", "tz", "start", "end"), CASES)
def test_resolve_table(phrase: str, now: str, tz: str, start: str | None, end: str | None) -> None:
    w = resolve(phrase, iso(now), tz)
    assert (w.start, w.end) == (iso(start), iso(end))
    assert w.phrase == phrase and w.span == (0, len(phrase))


# prefer="future" flips only the ambiguous forms; explicit ones ("last", "yesterday", "since") ignore it.
FUTURE_CASES = [
    ("in June", N, "2023-06-01T00:00:00Z", "2023-07-01T00:00:00Z"),
    ("in April", N, "2024-04-01T00:00:00Z", "2024-05-01T00:00:00Z"),
    ("in May", N, "2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z"),
    ("May 9", N, "2023-05-09T00:00:00Z", "2023-05-10T00:00:00Z"),
    ("May 7", N, "2024-05-07T00:00:00Z", "2024-05-08T00:00:00Z"),
    ("5/7", N, "2024-05-07T00:00:00Z", "2024-05-08T00:00:00Z"),
    ("on Friday", N, "2023-05-12T00:00:00Z", "2023-05-13T00:00:00Z"),
    ("Friday", N, "2023-05-12T00:00:00Z", "2023-05-13T00:00:00Z"),
    ("the weekend", N, "2023-05-13T00:00:00Z", "2023-05-15T00:00:00Z"),
    ("last Friday", N, "2023-05-05T00:00:00Z", "2023-05-06T00:00:00Z"),
    ("yesterday", N, "2023-05-07T00:00:00Z", "2023-05-08T00:00:00Z"),
    ("since Friday", N, "2023-05-05T00:00:00Z", "2023-05-08T13:56:00Z"),
    ("next month", "2023-01-20T09:00:00Z", "2023-02-01T00:00:00Z", "2023-03-01T00:00:00Z"),
    # this week's Wednesday has gone (N is a Monday, this is the Saturday after): looking ahead, the coming one
    ("this Wednesday", "2023-05-13T10:00:00Z", "2023-05-17T00:00:00Z", "2023-05-18T00:00:00Z"),
    ("this Saturday", "2023-05-13T10:00:00Z", "2023-05-13T00:00:00Z", "2023-05-14T00:00:00Z"),
]


@pytest.mark.parametrize(("phrase", "now", "start", "end"), FUTURE_CASES)
def test_prefer_future(phrase: str, now: str, start: str, end: str) -> None:
    w = resolve(phrase, iso(now), prefer="future")
    assert (w.start, w.end) == (iso(start), iso(end))


SLEEP_CASES = [
    ("before you slept", None, SLEPT),
    ("before sleep", None, SLEPT),
    ("before you went to sleep", None, SLEPT),
    ("since you slept", SLEPT, N),
    ("since you woke up", SLEPT, N),
    ("since you woke", SLEPT, N),
    ("after you woke up", SLEPT, N),
]


@pytest.mark.parametrize(("phrase", "start", "end"), SLEEP_CASES)
def test_sleep_phrases(phrase: str, start: str | None, end: str) -> None:
    w = resolve(phrase, iso(N), slept_at=iso(SLEPT))
    assert (w.start, w.end) == (iso(start), iso(end))


def test_sleep_phrase_without_wake_packet() -> None:
    with pytest.raises(TimePhraseError) as err:
        resolve("before you slept", iso(N))
    assert "vault sleep" in str(err.value) and "wake packet" in (err.value.hint or "")
    assert find("what happened since you slept?", iso(N)) is None
    w = find("what happened since you slept?", iso(N), slept_at=iso(SLEPT))
    assert w is not None and w.phrase == "since you slept" and w.start == iso(SLEPT)


SLEEPS = ["2023-05-05T22:00:00Z", "2023-05-07T13:56:00Z", "2023-05-06T23:00:00Z"]  # any order
SLEEPS_AGO_CASES = [
    ("one sleep ago", "2023-05-06T23:00:00Z", "2023-05-07T13:56:00Z", "sleep"),
    ("two sleeps ago", "2023-05-05T22:00:00Z", "2023-05-06T23:00:00Z", "sleep"),
    ("three sleeps ago", None, "2023-05-05T22:00:00Z", "sleep"),
    ("a couple of sleeps ago", None, "2023-05-07T13:56:00Z", "range"),  # one to three: all of them
    ("since two sleeps ago", "2023-05-05T22:00:00Z", N, "range"),
    ("since you woke up", "2023-05-07T13:56:00Z", N, "range"),
]


@pytest.mark.parametrize(("phrase", "start", "end", "granularity"), SLEEPS_AGO_CASES)
def test_sleeps_ago(phrase: str, start: str | None, end: str, granularity: str) -> None:
    w = resolve(phrase, iso(N), sleeps=[iso(s) for s in SLEEPS])
    assert (w.start, w.end, w.granularity) == (iso(start), iso(end), granularity)


def test_sleeps_ago_needs_that_many_sleeps() -> None:
    with pytest.raises(TimePhraseError) as err:
        resolve("four sleeps ago", iso(N), sleeps=[iso(s) for s in SLEEPS])
    assert "further than the 3 sleep(s)" in str(err.value) and "vault sleeps" in (err.value.hint or "")
    later_only = resolve("one sleep ago", iso("2023-05-07T00:00:00Z"), sleeps=[iso(s) for s in SLEEPS])
    assert later_only.end == iso("2023-05-06T23:00:00Z")  # a sleep after now does not count
    w = find("what did we decide two sleeps ago?", iso(N), sleeps=[iso(s) for s in SLEEPS])
    assert w is not None and w.phrase == "two sleeps ago"


@pytest.mark.parametrize("phrase", ["banana", "", "   ", "the party", "I may go", "?!"])
def test_not_a_time(phrase: str) -> None:
    with pytest.raises(TimePhraseError) as err:
        resolve(phrase, iso(N))
    text = str(err.value)
    assert repr(phrase) in text
    assert "yesterday" in text and "last week" in text  # it says what works


@pytest.mark.parametrize("phrase,prefer,start", [
    ("May 9", "past", "2022-05-09T00:00:00Z"),
    ("Feb 29", "past", "2020-02-29T00:00:00Z"),
    ("14 February", "nearest", "2024-02-14T00:00:00Z"),
    ("Saturday 14 February", "nearest", "2024-02-14T00:00:00Z"),
    ("June 1", "nearest", "2023-06-01T00:00:00Z"),
    ("in June", "past", "2022-06-01T00:00:00Z"),
    ("on Friday", "nearest", "2023-05-05T00:00:00Z"),
    ("December 25", "nearest", "2022-12-25T00:00:00Z"),
])
def test_month_day_without_year(phrase: str, prefer: str, start: str) -> None:
    now = "2024-02-10T09:00:00Z" if "February" in phrase else N
    assert resolve(phrase, iso(now), prefer=prefer).start == iso(start)


@pytest.mark.parametrize("phrase,prefer,start", [
    ("booked for Saturday 11 July", "past", "2026-07-11T00:00:00Z"),   # a past tense, a date ahead on its weekday
    ("Saturday 14 February", "future", "2026-02-14T00:00:00Z"),        # ... and a date behind
    ("Thursday 5 March 2026", "future", "2026-03-05T00:00:00Z"),       # a year said is kept
    ("on Tuesday 11 July", "past", "2025-07-11T00:00:00Z"),            # neither the last nor the next has it
    ("on Sunday 11 July", "future", "2026-07-11T00:00:00Z"),           # ... however near a year that does
    ("on 11 July", "past", "2025-07-11T00:00:00Z"),                    # no weekday: the tense decides
])
def test_a_weekday_said_with_a_date_fixes_its_year(phrase: str, prefer: str, start: str) -> None:
    assert resolve(phrase, iso("2026-03-06T16:00:00Z"), prefer=prefer).start == iso(start)


def test_a_date_reads_without_the_weekday_it_opens_on() -> None:
    from sheriff_vault.timewin import without_weekday

    assert without_weekday("on Saturday 11 July") == "11 July"
    assert without_weekday("tues. 3 June") == "3 June" and without_weekday("Thurs, 5 March") == "5 March"
    assert without_weekday("11 July") == "11 July" and without_weekday("Sundays 11 July") == "Sundays 11 July"


def test_bad_zone_and_prefer() -> None:
    with pytest.raises(TimePhraseError):
        resolve("yesterday", iso(N), "Mars/Olympus_Mons")
    with pytest.raises(TimePhraseError):
        resolve("yesterday", iso(N), prefer="sideways")


# ---------------------------------------------------------------- labels, json, helpers on Window

LABELS = [
    ("yesterday", "UTC", "7 May 2023"),
    ("yesterday", "Europe/Berlin", "7 May 2023"),
    ("last week", "UTC", "week of 1 May 2023"),
    ("last week", "America/New_York", "week of 1 May 2023"),
    ("last weekend", "UTC", "weekend of 6 May 2023"),
    ("this morning", "UTC", "8 May 2023 morning"),
    ("last night", "UTC", "7 May 2023 night"),
    ("last month", "UTC", "April 2023"),
    ("last month", "Europe/Berlin", "April 2023"),
    ("last year", "UTC", "2022"),
    ("between May 1 and May 7", "UTC", "1 May 2023 to 7 May 2023"),
    ("since Friday", "UTC", "5 May 2023 to 8 May 2023 13:56 UTC"),
    ("before May 7", "UTC", "before 7 May 2023"),
    ("after May 7", "UTC", "after 7 May 2023"),
    ("2023-05-07T10:00Z", "UTC", "7 May 2023 10:00 UTC"),
]


@pytest.mark.parametrize(("phrase", "tz", "label"), LABELS)
def test_labels(phrase: str, tz: str, label: str) -> None:
    assert resolve(phrase, iso(N), tz).label() == label


def test_label_of_open_start_and_other_zone() -> None:
    w = resolve("before you slept", iso(N), slept_at=iso("2023-05-07T13:56:00Z"))
    assert w.label() == "before 7 May 2023 13:56 UTC"
    berlin = resolve("yesterday", iso(N), "Europe/Berlin")
    assert berlin.start == iso("2023-05-06T22:00:00Z")
    assert berlin.label("Europe/Berlin") == "7 May 2023"


def test_to_json_and_iso() -> None:
    assert resolve("yesterday", iso(N)).to_json() == {
        "start": "2023-05-07T00:00:00Z", "end": "2023-05-08T00:00:00Z", "phrase": "yesterday",
        "granularity": "day", "relative": True, "label": "7 May 2023"}
    j = resolve("before 7 May 2023", iso(N)).to_json()
    assert j["start"] is None and j["end"] == "2023-05-07T00:00:00Z" and j["relative"] is False
    assert to_iso(datetime(2023, 5, 8, 15, 56, 7, 999, tzinfo=UTC)) == "2023-05-08T15:56:07Z"
    assert to_iso(datetime(2023, 5, 8, 13, 56)) == "2023-05-08T13:56:00Z"
    assert utcnow().tzinfo is not None


def test_relative_and_granularity() -> None:
    assert resolve("7 May 2023", iso(N)).relative is False
    assert resolve("2023-05-07", iso(N)).granularity == "day"
    assert resolve("yesterday", iso(N)).relative is True
    assert resolve("May 7", iso(N)).relative is True
    assert resolve("a few days ago", iso(N)).granularity == "range"
    assert resolve("last weekend", iso(N)).granularity == "weekend"
    assert resolve("this morning", iso(N)).granularity == "part_of_day"
    assert resolve("in 2022", iso(N)).granularity == "year"


def test_contains_and_overlaps() -> None:
    w = resolve("yesterday", iso(N))
    assert w.contains(iso("2023-05-07T00:00:00Z")) and w.contains(iso("2023-05-07T23:59:59Z"))
    assert not w.contains(iso("2023-05-08T00:00:00Z"))  # end is exclusive
    assert w.contains(datetime(2023, 5, 7, 12))  # naive means UTC
    assert w.overlaps(iso("2023-05-07T23:00:00Z"), iso("2023-05-09T00:00:00Z"))
    assert not w.overlaps(iso("2023-05-08T00:00:00Z"), None)
    assert w.overlaps(None, None)
    before = resolve("before May 7", iso(N))
    assert before.contains(iso("1999-01-01T00:00:00Z")) and not before.contains(iso("2023-05-07T00:00:00Z"))
    assert before.overlaps(None, iso("2000-01-01T00:00:00Z"))


# ---------------------------------------------------------------- finding phrases inside text

def test_find_in_question() -> None:
    text = "what did we decide last week about the party"
    w = find(text, iso(N))
    assert w is not None and w.phrase == "last week" and w.span == (19, 28)
    assert (w.start, w.end) == (iso("2023-05-01T00:00:00Z"), iso("2023-05-08T00:00:00Z"))


def test_find_for_extractor_with_naive_now() -> None:
    text = "I went to a quiz night yesterday, we came third"
    w = find(text, datetime(2023, 5, 8, 13, 56))
    assert w is not None and w.phrase == "yesterday" and w.span == (23, 32)
    assert w.label() == "7 May 2023"
    assert w.start == iso("2023-05-07T00:00:00Z")


@pytest.mark.parametrize("text", ["I may go", "May I ask?", "this may be hard", "Friday is my favourite",
                                  "the year 2022 was odd", "we sat down", "a 1/2 cup", "call me at 12:30",
                                  "the last day of school", "version 2.0.1"])
def test_find_nothing(text: str) -> None:
    assert find(text, iso(N)) is None


def test_find_labels() -> None:
    w = find("what happened last year?", iso("2023-05-08T00:00:00Z"))
    assert w is not None and w.label() == "2022"
    w = find("let's plan it next month", iso("2023-01-20T10:00:00Z"), prefer="future")
    assert w is not None and w.label() == "February 2023"


@pytest.mark.parametrize(("text", "phrase", "label", "counted"), [
    # a weekday counted within a month: its first, second, ... or last such day
    ("the fair is the first Monday in May", "the first Monday in May", "1 May 2023", True),
    ("we fly on the last Friday in January", "on the last Friday in January", "27 January 2023", True),
    ("it was the second Saturday of October 2021", "the second Saturday of October 2021", "9 October 2021", True),
    ("book the 3rd Wednesday of next month", "the 3rd Wednesday of next month", "21 June 2023", True),
    ("the last Sunday of this month", "the last Sunday of this month", "28 May 2023", True),
    # counter-examples: no month, a month without that many such days, a habit, a weekday on its own
    ("the first Friday I was in Berlin", None, None, False),
    ("the fifth Monday in February 2023", "in February 2023", "February 2023", True),
    ("rent is due the last Friday of each month", None, None, False),
    ("we met last Friday in Berlin", "last Friday", "5 May 2023", False),
])
def test_a_weekday_counted_in_its_month(text: str, phrase: str | None, label: str | None, counted: bool) -> None:
    w = find(text, iso(N))
    assert (w.phrase, w.label()) == (phrase, label) if w else phrase is None
    assert counts_weekday(text) == counted


def test_a_weekday_with_its_date_is_not_counted() -> None:
    assert not counts_weekday("Monday 1 May") and not counts_weekday("on the first of May")


def test_find_longest_and_prepositions() -> None:
    w = find("it was the day before yesterday, I think", iso(N))
    assert w is not None and w.phrase == "the day before yesterday"
    w = find("we met in May I think", iso(N))
    assert w is not None and w.phrase == "in May" and w.label() == "May 2023"
    w = find("anything since 2021?", iso(N))
    assert w is not None and w.phrase == "since 2021"


def test_find_all_several() -> None:
    text = "Yesterday we planned next week's trip, and on Friday we booked it for 2023-06-01."
    found = find_all(text, iso(N))
    assert [w.phrase for w in found] == ["Yesterday", "next week", "on Friday", "2023-06-01"]
    assert [w.label() for w in found] == ["7 May 2023", "week of 15 May 2023", "5 May 2023", "1 June 2023"]
    for w in found:
        assert text[w.span[0]:w.span[1]] == w.phrase
    assert found[3].relative is False and found[0].relative is True
    assert find_all("nothing to see", iso(N)) == []


def test_resolve_contains_phrase() -> None:
    w = resolve("what did we decide last week?", iso(N))
    assert w.phrase == "last week" and w.granularity == "week"


# ---------------------------------------------------------------- parse_instant

@pytest.mark.parametrize(("value", "tz", "expected"), [
    ("2023-05-08T13:56:00Z", "UTC", "2023-05-08T13:56:00Z"),
    ("2023-05-08T13:56", "UTC", "2023-05-08T13:56:00Z"),
    ("2023-05-08", "UTC", "2023-05-08T00:00:00Z"),
    ("2023-05-08T15:56:00+02:00", "UTC", "2023-05-08T13:56:00Z"),
    ("2023-05-08T13:56", "Europe/Berlin", "2023-05-08T11:56:00Z"),
    ("2023-05-08", "Europe/Berlin", "2023-05-07T22:00:00Z"),
    (" 2023-05-08t13:56:00z ", "UTC", "2023-05-08T13:56:00Z"),
])
def test_parse_instant(value: str, tz: str, expected: str) -> None:
    t = parse_instant(value, tz)
    assert t == iso(expected) and t.utcoffset() is not None and t.utcoffset().total_seconds() == 0


@pytest.mark.parametrize("value", ["yesterday", "", "2023-13-01", "2023-05-08T25:00", "8/5/2023"])
def test_parse_instant_bad(value: str) -> None:
    with pytest.raises(TimePhraseError):
        parse_instant(value)


# ---------------------------------------------------------------- property: never crash, always well-formed

WORDS = ["yesterday", "today", "last", "next", "this", "week", "weekend", "May", "may", "June", "Friday", "fri",
         "since", "before", "after", "between", "and", "from", "to", "in", "on", "ago", "a", "few", "couple", "of",
         "3", "12", "2023", "2023-05-07", "5/7", "29", "31", "Feb", "days", "months", "years", "the", "past",
         "morning", "night", "you", "slept", "woke", "up", "recently", "9999", "0", "-", ",", "/", "T", ":",
         "sleep", "sleeps", "two", "one"]
PHRASES = st.one_of(st.text(max_size=60), st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join))
NOW = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


def _well_formed(w: Window, text: str) -> None:
    assert w.start is None or w.start.tzinfo is not None
    assert w.end is None or w.end.tzinfo is not None
    assert w.start is not None or w.end is not None
    if w.start is not None and w.end is not None:
        assert w.start < w.end
    assert text[w.span[0]:w.span[1]] == w.phrase
    assert isinstance(w.label(), str) and w.to_json()["phrase"] == w.phrase


@settings(max_examples=300, deadline=None)
@given(text=PHRASES, now=NOW, tz=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]),
       prefer=st.sampled_from(["nearest", "past", "future"]), slept=st.booleans())
def test_property_never_crashes(text: str, now: datetime, tz: str, prefer: str, slept: bool) -> None:
    slept_at = now.replace(hour=0) if slept else None
    sleeps = [now.replace(hour=0) - timedelta(days=d) for d in (0, 1, 1, 3)] if slept else []  # one a day, twice
    try:
        _well_formed(resolve(text, now, tz, slept_at=slept_at, prefer=prefer, sleeps=sleeps), text)
    except TimePhraseError:
        pass
    found = find_all(text, now, tz, slept_at=slept_at, prefer=prefer, sleeps=sleeps)
    for w in found:
        _well_formed(w, text)
    assert all(a.span[1] <= b.span[0] for a, b in zip(found, found[1:], strict=False))
    first = find(text, now, tz, slept_at=slept_at, prefer=prefer, sleeps=sleeps)
    assert first == (found[0] if found else None)


def test_every_phrase_an_error_offers_works() -> None:
    """The phrases a bad phrase's error lists as working each resolve (with three sleeps behind)."""
    from sheriff_vault.timewin import _EXAMPLES

    for phrase in _EXAMPLES.split(", "):
        assert resolve(phrase, iso(N), sleeps=[iso(s) for s in SLEEPS]).phrase == phrase
