"""Subject clustering on its own (compaction/subjects.py, as compact.extract reads a slice): a
conversation's turns become one candidate per subject, a subject that pauses and comes back is
still one subject. The hash embedder stands in for the model: these tests check the segmentation
logic, not the model."""
from __future__ import annotations

import datetime as dt

import pytest

from sheriff_vault import nlp
from sheriff_vault.compaction.compact import extract
from sheriff_vault.compaction.cues import heading_nouns, refers_to
from sheriff_vault.index.embed import hash_vectors
from sheriff_vault.store.buffer import Turn
from sheriff_vault.text import stem

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
GARDEN = ["The tomato seedlings in the greenhouse need repotting into bigger clay pots.",
          "The greenhouse tomato seedlings get compost and clay pots on Saturday.",
          "Repotting the tomato seedlings takes about twenty clay pots from the greenhouse shelf."]
DATABASE = ["The Postgres database migration moves the invoices table to a new schema.",
            "The invoices table migration in Postgres needs a schema lock during the database cutover.",
            "Postgres schema changes for the invoices database migration run on the replica first."]


def turns(*texts: str) -> list[Turn]:
    return [Turn("user", text, T0 + dt.timedelta(minutes=i), f"t{i + 1}")
            for i, text in enumerate(texts)]


def subjects_of(conversation: list[Turn]) -> list[set[str]]:
    found = extract(conversation, [], hash_vectors)
    return [{u.turn.id for u in cand.units} for cand in found.candidates]


def test_two_subjects_one_after_the_other_become_two_candidates():
    got = subjects_of(turns(*GARDEN, *DATABASE))
    assert {"t1", "t2", "t3"} in got and {"t4", "t5", "t6"} in got and len(got) == 2


def test_a_subject_that_comes_back_is_one_candidate():
    got = subjects_of(turns(GARDEN[0], GARDEN[1], DATABASE[0], DATABASE[1], DATABASE[2], GARDEN[2]))
    assert {"t1", "t2", "t6"} in got and {"t3", "t4", "t5"} in got


def test_every_informative_turn_lands_in_exactly_one_subject():
    got = subjects_of(turns(*GARDEN, *DATABASE))
    ids = [t for s in got for t in s]
    assert sorted(ids) == sorted(set(ids)) and set(ids) == {f"t{i}" for i in range(1, 7)}


def test_choose_where_an_exchange_goes():
    """The walk's decision on its own, from likeness to each subject seen so far (current = index)."""
    from sheriff_vault.compaction.subjects import _choose
    cases = [
        # likeness, current, switch, reconsider, young -> chosen (None: a new subject)
        ([0.40, 0.10], 0, False, False, False, 0),     # a follow-up stays
        ([0.05, 0.35], 0, False, False, False, 1),     # the talk went back to a subject seen before
        ([0.05, 0.12], 0, False, False, False, None),  # nothing seen fits: something new
        ([0.07, 0.26], 0, False, False, False, 1),     # an aside about a seen subject that fits it clearly better
        ([0.15, 0.26], 0, False, False, False, None),  # ... but not when the current one fits nearly as well
        ([0.40, 0.10], 0, True, False, False, None),   # "other thing": a switch phrase leaves the subject
        ([0.25, 0.10], 1, False, False, True, 1),      # a subject just raised keeps its details
    ]
    for likeness, current, switch, reconsider, young, want in cases:
        assert _choose(likeness, current, switch, reconsider, young) == want, (likeness, current, want)


def test_a_one_line_subject_joins_the_subject_it_is_close_to_and_a_lone_one_stays():
    """_fold_strays on its own, with hand-made unit vectors."""
    import numpy as np

    from sheriff_vault.compaction.parts import Candidate, Unit
    from sheriff_vault.compaction.subjects import _fold_strays

    def unit(n: int, vec: list[float]) -> Unit:
        v = np.asarray(vec, dtype=np.float32)
        return Unit(Turn("user", f"turn {n}", T0, f"t{n}"), 0, f"turn {n}", vec=v / np.linalg.norm(v))

    garden = Candidate([unit(1, [1, 0, 0]), unit(2, [1, 0.1, 0])], vector=np.asarray([1, 0, 0], np.float32))
    database = Candidate([unit(3, [0, 1, 0]), unit(4, [0, 1, 0.1])], vector=np.asarray([0, 1, 0], np.float32))
    remark = Candidate([unit(5, [0.6, 0, 0.8])])      # cos 0.6 to garden: a remark about it
    lone = Candidate([unit(6, [0, 0, 1])])            # like nothing else said: its own subject
    lone.units[0].text = lone.units[0].body = "I'm allergic to penicillin."
    order = [*garden.units, *database.units, *remark.units, *lone.units]
    got = _fold_strays([garden, database, remark, lone], {id(u): i for i, u in enumerate(order)})
    assert [[u.turn.id for u in c.units] for c in got] == [["t1", "t2", "t5"], ["t3", "t4"], ["t6"]]


@pytest.mark.parametrize(("said", "kept"), [
    ("Righto.", False), ("Have a lovely Sunday!", False), ("Ta muchly.", False), ("Sorted.", False),
    ("I'm allergic to penicillin.", True), ("Lifelong Arsenal supporter.", True), ("Rent is 950.", True),
])
def test_a_lone_line_that_says_next_to_nothing_makes_no_topic(said: str, kept: bool):
    """A one-line subject like nothing else said stays a topic only if it says something."""
    import numpy as np

    from sheriff_vault.compaction.parts import Candidate
    from sheriff_vault.compaction.subjects import _fold_strays
    from sheriff_vault.compaction.units import make_units

    garden = Candidate(make_units(turns(*GARDEN), "UTC", set()), vector=np.asarray([1, 0, 0], np.float32))
    [line] = make_units([Turn("user", said, T0 + dt.timedelta(hours=1), "t9")], "UTC", set())
    for u, vec in zip([*garden.units, line], [[1, 0, 0]] * len(garden.units) + [[0, 0, 1]], strict=True):
        u.vec = np.asarray(vec, dtype=np.float32)
    order = [*garden.units, line]
    got = _fold_strays([garden, Candidate([line])], {id(u): i for i, u in enumerate(order)})
    assert (["t9"] in [[u.turn.id for u in c.units] for c in got]) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("My sister and I run a flower stall, and there are four things I need to get done by June.", False),
    ("Morning! A few questions for you today, all about the garden.", False),
    ("My sister and I run a flower stall, and there are four vans on the road.", True),
    ("I measured the two good ones again: 41 and 43 cm.", True),
])
def test_a_turn_that_only_announces_the_matters_to_come_makes_no_topic(said: str, kept: bool):
    """A subject of one turn that announces a count of matters ("three things", "a few things") is
    about all of them: its lines join a subject they are close to or stay in the archive, however
    much they say. A count of anything else, or "ones" pointing back, announces nothing."""
    import numpy as np

    from sheriff_vault.compaction.parts import Candidate
    from sheriff_vault.compaction.subjects import _fold_strays
    from sheriff_vault.compaction.units import make_units

    garden = Candidate(make_units(turns(*GARDEN), "UTC", set()), vector=np.asarray([1, 0, 0], np.float32))
    lines = make_units([Turn("user", said, T0 + dt.timedelta(hours=1), "t9")], "UTC", set())
    for u, vec in zip([*garden.units, *lines], [[1, 0, 0]] * len(garden.units) + [[0, 0, 1]] * len(lines),
                      strict=True):
        u.vec = np.asarray(vec, dtype=np.float32)
    order = [*garden.units, *lines]
    got = _fold_strays([garden, Candidate(lines)], {id(u): i for i, u in enumerate(order)})
    assert any("t9" in {u.turn.id for u in c.units} for c in got) == kept


@pytest.mark.parametrize(("cosine", "moved_to", "joined"), [
    (0.7, False, True),   # alike enough: one subject a pause had split
    (0.7, True, False),   # ... but the person moved the talk to it ("Speaking of X:"): their own subject
    (0.9, True, True),    # so alike it is the same thing however it was announced
    (0.3, False, False),
])
def test_a_subject_the_talk_was_moved_to_joins_another_only_when_far_more_alike(cosine, moved_to, joined):
    """_join_alike on its own, with hand-made vectors and no shared words."""
    import numpy as np

    from sheriff_vault.compaction.subjects import Subject, _join_alike

    first = Subject(turns("a")[:1], [np.asarray([1.0, 0.0], np.float32)])
    later = Subject([Turn("user", "b", T0, "t2")], [np.asarray([cosine, (1 - cosine**2) ** 0.5], np.float32)],
                    moved_to=moved_to)
    got = _join_alike([first, later], {}, {id(first.turns[0]): 0, id(later.turns[0]): 1})
    assert (len(got) == 1) == joined


@pytest.mark.parametrize(("cosine", "held", "joined"), [
    (0.56, 1, True),    # one exchange somewhat alike: a remark the walk could not place
    (0.56, 2, False),   # two exchanges held the talk: they need JOIN
    (0.65, 2, True),
    (0.50, 1, False),
])
def test_a_subject_of_one_exchange_joins_another_more_readily(cosine, held, joined):
    """_join_alike on its own: hand-made vectors, no shared words (likeness is 0.65 x cosine)."""
    import numpy as np

    from sheriff_vault.compaction.subjects import Subject, _join_alike

    first = Subject(turns("a")[:1], [np.asarray([1.0, 0.0], np.float32)])
    vec = np.asarray([cosine, (1 - cosine**2) ** 0.5], np.float32)
    later = Subject([Turn("user", "b", T0, "t2")], [vec] * held)
    got = _join_alike([first, later], {}, {id(first.turns[0]): 0, id(later.turns[0]): 1})
    assert (len(got) == 1) == joined


def test_the_line_that_sums_a_subject_up_drops_how_it_was_opened():
    from sheriff_vault.compaction.cues import OPENER
    cases = {
        "Separate thing, at weekends I coach the under-12s": "at weekends I coach the under-12s",
        "Second thing, completely unrelated: my tax return for 2025.": "my tax return for 2025.",
        "First, work: I'm leading our migration": "I'm leading our migration",
        "And the third thing, because apparently i like suffering: we're renovating": "we're renovating",
        "Other thing. Daniel asked me": "Daniel asked me",
        "The first one is cheaper.": "The first one is cheaper.",
        "I booked Umzugsfix": "I booked Umzugsfix",
        "Next: the shed roof leaks again.": "the shed roof leaks again.",
    }
    assert {said: OPENER.sub("", said, count=1) for said in cases} == cases


@pytest.mark.parametrize("text,switch", [
    # a list the person walks through moves on at each item
    ("Second thing: Kowal Timber, our wood supplier, sent an invoice.", True),
    ("Third, and this one is huge: we want to redo the patio at last.", True),
    ("right. ok second: the lab results. batch 4 came back", True),
    ("Next, the car: the garage rang.", True),
    # a word of list position alone before a colon heads an item, as "Second:" does
    ("Sorted, thanks. Next: the shed roof, it leaks again.", True),
    ("ok last: my passport runs out in May", True),
    ("Also: the gutter is blocked", True),
    ("next week: the shed roof", False),
    ("The next step: call the bank.", False),
    ("fine, will check. other thing, we're moving from 3.11 to 3.12", True),
    ("other thing. Marco wants me to give the toast!!", True),
    ("And the third point is the kitchen. We're ripping it all out.", True),
    ("ok other topic. iceland!! we got the tickets for march.", True),
    ("and the fun one: we are getting chickens!! signed up for a workshop", True),
    ("that one is the best one, I think", False),
    ("The picnic is the second thing. Whole street is invited.", True),
    ("Next thing is the boat. We sold it in May.", True),  # the article dropped, as in speech
    ("Second thing is good thing. In our town is new pool.", True),
    ("Second time is always easier.", False),
    ("Number two: band. I'm the treasurer of the band.", True),
    ("Ok so number one, we're selling the caravan.", True),
    ("Number three, the nervy one. I sent off a grant application.", True),
    ("my number one priority is sleep", False),
    ("And bridge: Im running the pairs night at our club on friday", True),
    ("Also my knee: it clicks on the stairs since the hike", True),
    ("and then: we went home", False),
    ("and bridge. im running the pairs night at our club on friday", True),
    ("also my knee. it clicks on the stairs since the hike", True),
    ("And that's it. Bye", False),
    ("and the kids. they loved it", True),
    ("and the time was 10:30 when we left", False),
    ("I bought number 3 of the series", False),
    # ordinals that are not a list
    ("I came second in the 10k, fine", False),
    ("the second time it failed on the same test", False),
    ("next week we fly to Lisbon", False),
    ("Last night we went out for dinner", False),
    # "now" before a heading walks on to the next item; "one" after a modifier stands for a noun
    ("Now the garden one. The hedge needs cutting before May.", True),
    ("Now, the boat. We sold it in May.", True),
    ("Now the quote is 300 and they start on Monday.", False),
    ("The blue one. It fits better with the sofa.", False),
    # after a short acknowledgement a turn's own words begin; a dash after a heading is a colon
    ("Got it. Oh, also the kettle - it trips the fuse again.", True),
    ("Also the kettle - it trips the fuse again.", True),
    ("Thanks. The plumber came and fixed the tap today.", False),
    ("The garage rang. Also the car was fine after all.", False),
    # a heading may say when its item is, or whose, before its mark; a place it names is no such phrase
    ("Cheers. And one more thing for this week, the gutters are full again.", True),
    ("Second point for tonight: the parking permit.", True),
    ("Last question from me, the flights.", True),
    ("Next step on the form: sign page two.", False),
    ("And the quote for today, it came in at 300.", False),
])
def test_a_switch_cue_anywhere_a_sentence_starts(text, switch):
    from sheriff_vault.compaction.cues import SWITCH

    assert bool(SWITCH.search(text)) is switch


def test_an_answer_to_the_assistant_stays_on_its_subject():
    """"yes that's the plan. doing it in pandas" answers the assistant's advice on the survey data;
    it shares more words with the proposal's "doing" and "plan" than with the data, and still
    belongs to the data. A bare "sure" is no such answer."""
    from sheriff_vault.compaction.subjects import _answers

    advice = Turn("assistant", "I'd dedupe on respondent id first, then normalise the dates.", T0, "t10", "assistant")
    assert _answers(Turn("user", "yes that's the plan. doing it in pandas, one notebook", T0, "t11", "Ana"), advice)
    assert _answers(Turn("user", "ugh yes that'll haunt us in the export step", T0, "t28", "Ana"), advice)
    assert not _answers(Turn("user", "sure", T0, "t48", "Ana"), advice)
    assert _answers(Turn("user", "repair came to 384 EUR, so less than you said", T0, "t46", "Ana"),
                    advice)
    assert not _answers(Turn("user", "yes that's the plan. doing it in pandas", T0, "t11", "Ana"),
                        Turn("user", "the survey data came back", T0, "t9", "Ana"))
    switch = Turn("assistant", "Got it: no surprises. Shall we switch to the refactor?", T0, "t8", "assistant")
    assert not _answers(Turn("user", "Yes. For the Sheriff memory refactor we decided to use Tantivy.", T0, "t9", "U"),
                        switch)


def _walk(user_vectors: list[list[float]], trace: list[dict] | None = None, first: str = "") -> list[list[str]]:
    """find_subjects over exchanges whose meaning is given as vectors (each user turn answered by a
    bare "ok"); their words are all different, so likeness is meaning alone. `first`: the first
    user turn's words, when they matter. Returns the user turn ids of each subject."""
    from sheriff_vault.compaction.subjects import find_subjects

    words = ["amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]
    talk: list[Turn] = []
    table: dict[str, list[float]] = {}
    for i, vec in enumerate(user_vectors):
        text = first if first and i == 0 else f"{words[i]} {words[i]}s"
        talk += [Turn("user", text, T0 + dt.timedelta(minutes=2 * i), f"u{i}"),
                 Turn("assistant", "ok", T0 + dt.timedelta(minutes=2 * i + 1), f"a{i}")]
        table[f"{text} ok"] = vec

    def encode(texts: list[str]):
        import numpy as np

        rows = np.asarray([table[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return [[t.id for t in s.turns if t.role == "user"] for s in find_subjects(talk, encode, trace=trace)]


A, NEAR_A = [1.0, 0.0, 0.0], [0.95, 0.3, 0.0]
UNLIKE_A = [0.25, 0.0, 0.97]  # likeness to A about 0.16: over the walk's stay threshold, under OPENS_BELOW


def test_an_unannounced_new_subject_opens_where_the_next_exchange_takes_it_up():
    """Examples: a person finishes one matter and, with no "other thing", starts on another that
    their next message goes on with."""
    assert _walk([A, NEAR_A, A, UNLIKE_A, UNLIKE_A]) == [["u0", "u1", "u2"], ["u3", "u4"]]


def test_an_unlike_exchange_the_talk_leaves_again_stays_with_its_subject():
    """Counter-example: one exchange unlike the subject (a detail, an aside), and the next goes
    on with the subject: no new subject opens."""
    assert _walk([A, NEAR_A, A, UNLIKE_A, A, NEAR_A]) == [["u0", "u1", "u2", "u3", "u4", "u5"]]


B = [0.0, 1.0, 0.0]
BOTH = [0.7, 0.7, 0.0]  # as like A as like B


@pytest.mark.parametrize("first,got", [
    # an opening that counts the matters to come, like all of them: the first is judged without it
    ("Three things this week, starting with the amber one.", [["u0", "u1"], ["u2", "u3"]]),
    ("A few matters first, amber then the rest.", [["u0", "u1"], ["u2", "u3"]]),
    # counter-example: an opening about one matter is that matter, and what is like it stays
    ("The amber and its basil.", [["u0", "u1", "u2", "u3"]]),
])
def test_an_opening_that_counts_the_matters_to_come_does_not_hold_the_next_one(first: str, got: list):
    """Example: "three things this week: the boiler, the car, the tax. boiler first" goes on about
    the boiler; when the car comes up it opens its own subject, though the opening named it too."""
    assert _walk([BOTH, A, B, B], first=first) == got


def test_joining_subjects_found_apart_reads_the_opening_that_counted_the_matters():
    """Example: "Three things. First: the roof is leaking" opens the roof subject with the roof's own
    account; a remark the walk placed apart, like that account and unlike the roof's later talk,
    joins the roof at the end. Counter-example: without the opening, it stays apart."""
    import numpy as np

    from sheriff_vault.compaction.subjects import Subject, _join_alike

    def unit(*xs: float) -> np.ndarray:
        v = np.asarray(xs, dtype=np.float32)
        return v / np.linalg.norm(v)

    def subjects(counted: bool) -> list[Subject]:
        talk = turns("opening", "roof", "remark")
        roof = Subject(talk[:2], [unit(0.7, 0, 0.7), unit(1, 0, 0)] if counted else [unit(1, 0, 0)], counted=counted)
        return [roof, Subject(talk[2:], [unit(0.3, 0, 0.95)])]

    assert len(_join_alike(subjects(True), {}, {})) == 1
    assert len(_join_alike(subjects(False), {}, {})) == 2


def test_the_last_exchange_opens_nothing_unannounced():
    """Counter-example: nothing follows the unlike exchange, so nothing shows the talk moved."""
    assert _walk([A, NEAR_A, A, UNLIKE_A]) == [["u0", "u1", "u2", "u3"]]


@pytest.mark.parametrize("text,named", [
    # news or an update about a known thing, in a phrase with no verb
    ("A short word on the roof from Tuesday: the tiler came.", True),
    ("Back to the budget for a minute. The printer quote is in.", True),
    ("Hi! About the van.", True),
    ("So, news on that. The seller wrote back.", True),
    # a compound noun standing as the turn's heading
    ("Garage update: the clutch is done.", True),
    # a phrase with a verb names nothing this way; neither does a place or a question
    ("We talked about the garage yesterday.", False),
    ("Back from the coast on Sunday. It rained.", False),
    ("What about a hedge instead?", False),
    ("Five days until the move!", False),
])
def test_a_turn_that_names_its_subject_first(text, named):
    from sheriff_vault.compaction.cues import RETURN_CUE

    assert bool(RETURN_CUE.search(text)) is named


@pytest.mark.parametrize("text,unlike", [
    ("This is a different party, the one at work.", True),
    ("One more thing, and a different one: the boiler broke.", True),
    ("It has nothing to do with the flat.", True),
    ("Separately, my cousin is planning her wedding, different crowd.", True),
    ("Totally different: the boiler broke.", True),
    ("We tried a different approach to the boiler.", False),
    ("The other day the boiler broke.", False),
])
def test_a_thing_said_to_be_another(text, unlike):
    from sheriff_vault.compaction.cues import DIFFERENT

    assert bool(DIFFERENT.search(text)) is unlike


@pytest.mark.parametrize("text,closing", [
    ("ok thanks, bye", True),
    ("great. off to bed", True),
    ("will do", True),
    ("that's it for now", True),
    ("cheers", True),
    ("ok so the deposit is 450", False),      # a figure is a fact
    ("should I call them first?", False),     # a question asks for more
    ("hello, new week", False),               # a greeting opens
    ("the plumber came", False),
])
def test_a_closing_names_nothing(text, closing):
    from sheriff_vault.compaction.subjects import _closing

    assert _closing(Turn("user", text, T0, "t1")) is closing


@pytest.mark.parametrize("text,opening", [
    ("yes that works, booking it tonight", "yes"),
    ("Good idea, I'll ask the landlord.", "Good idea"),
    ("Agreed. The deadline stays.", "Agreed"),
    ("Oh, and the plumber came.", None),          # "and" adds a new thing: no answer
    ("Hello! The plumber came.", None),           # a greeting answers nothing
    ("Garage update: the clutch is done.", None),  # a heading, not an evaluation
    ("Second, the plumber came.", None),
])
def test_where_a_reply_opens(text, opening):

    from sheriff_vault.compaction.cues import reply_end

    end = reply_end(nlp.parse_one(text))
    assert (text[:end] if end is not None else None) == opening


def test_a_subject_belongs_to_a_named_person_never_to_a_role():
    """Where two people talk, a subject one of them carries takes their name ("Dana's ..."); a
    speaker the transcript does not name is "User", which names no one's subject."""
    talk = [Turn("user", text, T0 + dt.timedelta(minutes=i), f"t{i + 1}", "" if i < 3 else "Dana")
            for i, text in enumerate(GARDEN + DATABASE)]
    names = [cand.name for cand in extract(talk, [], hash_vectors).candidates]
    assert not any(n.startswith("User's") for n in names), names
    assert any(n.startswith("Dana's") for n in names), names


@pytest.mark.parametrize(("text", "nouns"), [
    ("Coffee first, then: the greenhouse. We repot the seedlings on Saturday.", {"coffee", "greenhouse"}),
    ("Back to the invoices for a second. The schema lock is lifted.", {"invoices", "second"}),
    ("gutters: the plumber says they need a new bracket", {"gutters"}),
])
def test_a_turn_that_heads_itself_with_a_noun_phrase_names_its_subject(text: str, nouns: set[str]) -> None:
    assert heading_nouns(nlp.parse_one(text)) == {stem(n) for n in nouns}


@pytest.mark.parametrize("text", [
    "ugh. ok I will ask the neighbour for a ladder",  # one word before a full stop is an exclamation
    "Nicer for us anyway, ten minutes by bike instead of forty by bus. I need to check the van.",
    "next fitting friday 4 june, same place",  # phrases alone head no clause
    "Quick update on Monday's thing: it moved a week.",  # general nouns and dates name no subject
    "We repotted the seedlings yesterday.",
])
def test_a_turn_that_opens_on_a_clause_or_an_exclamation_heads_nothing(text: str) -> None:
    assert heading_nouns(nlp.parse_one(text)) == set()


def test_a_heading_the_current_subject_never_named_moves_the_talk() -> None:
    from sheriff_vault.compaction.subjects import find_subjects

    talk = turns(*GARDEN, "Seedlings: all twenty are in clay pots now.",
                 "Coffee first, then: the invoices. " + DATABASE[0], DATABASE[1])
    trace: list[dict] = []
    found = find_subjects(talk, hash_vectors, trace=trace)
    cues = {entry["turn"]: entry["cues"] for entry in trace}
    assert "heading" not in cues["t4"] and "heading" in cues["t5"]
    assert any({"t5", "t6"} <= {t.id for t in s.turns} and "t1" not in {t.id for t in s.turns} for s in found)


def test_after_a_turn_that_counts_its_matters_the_next_need_not_be_its_detail() -> None:
    """A subject just raised keeps its short details (`_choose`'s young subject); one raised by a turn
    that says "two matters to sort out" has raised several, so a short turn after it is weighed as
    any turn is, not held as its detail."""
    from sheriff_vault.compaction.subjects import find_subjects

    def talk(*said: str) -> list[Turn]:
        at = [T0 + dt.timedelta(minutes=2 * i) for i in range(len(said))]
        return [turn for i, text in enumerate(said) for turn in
                (Turn("user", text, at[i], f"t{2 * i + 1}"), Turn("assistant", "Noted.", at[i], f"t{2 * i + 2}"))]

    aside = "Postgres schema lock tonight."
    trace: list[dict] = []
    find_subjects(talk("Two matters to sort out this month. " + GARDEN[0], aside, DATABASE[0]), hash_vectors,
                  trace=trace)
    assert "detail" not in trace[1]["cues"]
    trace = []
    find_subjects(talk(GARDEN[0], aside, DATABASE[0]), hash_vectors, trace=trace)
    assert "detail" in trace[1]["cues"]


@pytest.mark.parametrize(("text", "nouns"), [
    ("Also my kettle is broken. It trips the fuse.", {"kettle"}),
    ("Meanwhile the bakery website is nearly done.", {"bakery", "website"}),
    ("oh and also my knee is sore again", {"knee"}),
    ("Also, the choir asked for a second rehearsal.", {"choir"}),
    ("And the boiler is leaking again.", {"boiler"}),
    # the phrase up to its head: what is said after it is no part of what the clause is about
    ("And the annual boat licence is coming up: 120 due on 3 April, same as in May.", {"boat", "licence"}),
])
def test_a_clause_added_with_also_names_its_matter_by_its_subject(text: str, nouns: set[str]) -> None:
    from sheriff_vault.compaction.cues import added_nouns

    assert added_nouns(nlp.parse_one(text)) == {stem(n) for n in nouns}


@pytest.mark.parametrize("text", [
    "also booked a second session for Thursday",  # no subject: the matter already talked about
    "Also it rained all day.",  # a pronoun names nothing
    "Then the plumber came.",  # an adverb of sequence adds nothing beside
    "The kettle is also broken.",  # "also" inside a clause, not opening it
    "But the boiler is leaking again.",  # a contrast goes on about the matter talked about
    "And it is leaking again.",
])
def test_a_clause_without_an_added_subject_names_nothing(text: str) -> None:
    from sheriff_vault.compaction.cues import added_nouns

    assert added_nouns(nlp.parse_one(text)) == set()


def test_a_matter_added_with_also_that_the_subject_never_named_moves_the_talk() -> None:
    """"Also my knee is sore" after two turns of greenhouse talk starts another subject, however
    young the one before; "also, the seedlings ..." stays with the greenhouse, which named them."""
    from sheriff_vault.compaction.subjects import find_subjects

    knee = ["Also my knee is sore from kneeling by the tomato seedlings in the greenhouse.",
            "The sore knee swells at night from all that kneeling."]
    trace: list[dict] = []
    found = find_subjects(turns(*GARDEN[:2], *knee), hash_vectors, trace=trace)
    cues = {entry["turn"]: entry["cues"] for entry in trace}
    assert "beside" in cues["t3"]
    assert any({"t3", "t4"} <= {t.id for t in s.turns} and "t1" not in {t.id for t in s.turns} for s in found)
    trace = []
    find_subjects(turns(*GARDEN[:2], "Also, the seedlings want more light in the greenhouse."), hash_vectors,
                  trace=trace)
    assert "beside" not in trace[-1]["cues"]


def _alike(ratio: float):
    """A stand-in model under which every two texts are alike by meaning through one part they all
    share (cosine 1 / (1 + ratio**2)), whatever their words: only the words then tell subjects apart."""
    import numpy as np

    seen: dict[str, int] = {}

    def encode(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 128), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, 0] = 1.0
            out[row, 1 + seen.setdefault(text, len(seen)) % 127] = ratio
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    return encode


BOILER = ["The plumber looked at the boiler this morning: the heat exchanger and the circulating pump both "
          "failed, and the gas safety certificate expires at the end of next month.",
          "The plumber wants two days to fit the new heat exchanger and the pump, and the gas safety "
          "check is free if he does the boiler work himself."]
PIANO = ["our daughter Mia has been going to piano lessons with a teacher from the music school every "
         "Tuesday evening and her grade one exam is booked for late June at the town hall",
         "Mia's piano teacher wants twenty minutes of scales every evening before the June exam."]


def test_a_long_turn_that_says_nothing_the_subject_said_moves_the_talk() -> None:
    """Someone dictating in one breath moves on with no cue: a long turn that names none of the
    things, people or places of the subject being talked about starts another, however alike the
    two are by meaning; a long turn that names them again, or a short one, stays."""
    from sheriff_vault.compaction.subjects import find_subjects

    def exchange(i: int, text: str) -> list[Turn]:
        at = T0 + dt.timedelta(minutes=2 * i)
        return [Turn("user", text, at, f"t{2 * i + 1}"), Turn("assistant", "Noted.", at, f"t{2 * i + 2}")]

    talk = [turn for i, text in enumerate([*BOILER, *PIANO]) for turn in exchange(i, text)]
    trace: list[dict] = []
    found = find_subjects(talk, _alike(1.5), trace=trace)
    cues = {entry["turn"]: entry["cues"] for entry in trace}
    assert "unlinked" in cues["t5"] and "unlinked" not in cues["t3"] and "unlinked" not in cues["t7"]
    assert [{t.id for t in s.turns if t.role == "user"} for s in found] == [{"t1", "t3"}, {"t5", "t7"}]
    short = [turn for i, text in enumerate([*BOILER, "and Thursday suits me fine"]) for turn in exchange(i, text)]
    trace = []
    assert len(find_subjects(short, _alike(1.5), trace=trace)) == 1 and "unlinked" not in trace[-1]["cues"]


def test_a_long_answer_to_the_assistants_question_stays_on_its_subject() -> None:
    """Asked how a first lesson went, a person answers in words the subject has not used yet (a
    metronome, a footstool): an answer is on the question's subject. Not asked, the same turn moves on."""
    from sheriff_vault.compaction.subjects import find_subjects

    lesson = "our daughter Mia had her first piano lesson at the music school on Tuesday evening"
    answer = ("it went better than we feared although her scales were wobbly; she came home humming the "
              "melody, asked for a metronome, a footstool and a songbook, and wants to practise every morning "
              "before breakfast with grandad listening from the kitchen")
    for question, parts in (("How did she find it?", 1), ("Noted.", 2)):
        talk = [Turn("user", lesson, T0, "t1"), Turn("assistant", f"A good start. {question}", T0, "t2"),
                Turn("user", answer, T0 + dt.timedelta(minutes=2), "t3"),
                Turn("assistant", "Noted.", T0 + dt.timedelta(minutes=2), "t4")]
        assert len(find_subjects(talk, _alike(1.5))) == parts, question


def test_a_change_goes_to_the_one_subject_that_said_the_old_value():
    """"the sale is now on 14 June instead of 7 June" belongs where 7 June was said, whatever its words
    are closer to; no change, or an old value two subjects said, decides nothing."""
    from sheriff_vault.compaction.subjects import Subject, _holder

    garden = Subject(turns(*GARDEN, "The greenhouse plant sale is on 7 June.")[:4])
    database = Subject(turns(*DATABASE))
    vault_topic = Subject(lines=["Lena: The replica cutover window is 20:00, after the backups."])
    moved = turns("The schema lock clashes, so it's now 14 June instead of 7 June.")
    assert _holder(moved, [garden, database, vault_topic]) == 0
    assert _holder(turns("The cutover is now at 22:00 instead of 20:00."), [garden, database, vault_topic]) == 2
    assert _holder(turns("The schema lock takes about an hour."), [garden, database, vault_topic]) is None
    both = Subject(turns("Pick up the pots on 7 June."))
    assert _holder(moved, [garden, database, both]) is None
    crowd = Subject(turns("We were 9 people at the planning session."))
    assert _holder(turns("The standup is now at 10 instead of 9."), [crowd, database]) is None  # a small count


# Two subjects of one trade: every exchange shares a large part of its meaning with every other
SHARED_X, SHARED_Y = [0.59, 0.807, 0.0], [0.59, 0.0, 0.807]  # alike at 0.35 through what all share


def _unit(rows: list[list[float]]):
    import numpy as np

    vectors = np.asarray(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_an_exchange_like_everything_in_ordinary_talk_is_judged_against_that_background():
    """Examples: in talk of separate subjects, a generic exchange alike to all of them ("any other
    costs to think of?") is lowered by how far it is more alike than usual; the specific ones are not."""
    from sheriff_vault.compaction.subjects import _shifts

    specific = [[1.0, 0, 0, 0], [0.95, 0.3, 0, 0], [0, 0, 1.0, 0], [0, 0, 0.95, 0.3], [0, 1.0, 0, 0], [0, 0, 0, 1.0]]
    shifts = _shifts(_unit([*specific, [0.5, 0.5, 0.5, 0.5]]))
    assert shifts[-1] > 0.1 and max(shifts[:-1]) < shifts[-1] / 2


def test_explain_says_which_turn_was_judged_against_its_background():
    """`vault sleep --explain` shows how much a turn's likeness was lowered, so a person can see why
    a turn alike to everything did not simply join the subject before it."""
    from sheriff_vault.compaction.result import SleepResult

    specific = [[1.0, 0, 0, 0], [0.95, 0.3, 0, 0], [0, 0, 1.0, 0], [0, 0, 0.95, 0.3], [0, 1.0, 0, 0], [0, 0, 0, 1.0]]
    trace: list[dict] = []
    _walk([*specific, [0.5, 0.5, 0.5, 0.5]], trace)
    assert trace[-1]["lowered"] > 0.1 and trace[0]["lowered"] == 0.0
    shown = SleepResult(dt.datetime(2026, 3, 1, tzinfo=dt.UTC), "s1", placement=trace).explain().splitlines()
    assert "lowered" in shown[-1] and "by its background" in shown[-1] and "lowered" not in shown[1]


def test_in_talk_that_is_all_alike_only_what_stands_above_it_is_lowered():
    """Counter-example: small talk, or a transcript with a speaker's name on every turn, is alike
    everywhere; that shared likeness is the register, so an exchange no more alike than the rest of
    its slice is not lowered (lowering all of it split chats into many topics and lost evidence)."""
    from sheriff_vault.compaction.subjects import _shifts

    assert max(_shifts(_unit([SHARED_X] * 6 + [SHARED_Y] * 6))) < 0.02


def test_the_background_of_a_short_slice_leans_on_the_usual_one():
    """Counter-example: two exchanges alone say little about what is usual in their talk, so their
    background stays near the usual one and their likeness is hardly moved."""
    import numpy as np

    from sheriff_vault.compaction.subjects import BACKGROUND, _backgrounds

    rows = _unit([SHARED_X, SHARED_Y])
    assert abs(float(_backgrounds(rows)[0]) - BACKGROUND) < 0.05
    many = np.repeat(rows, 6, axis=0)
    assert float(_backgrounds(many)[0]) > BACKGROUND + 0.2


def test_the_placement_trace_is_plain_json_when_an_assistant_speaks() -> None:
    """The trace goes to the sleep journal, `--explain` and the MCP sleep tool, which serialise it:
    a likeness judged against its background must come out as a number JSON knows."""
    import json

    from sheriff_vault.compaction.subjects import find_subjects

    talk = [Turn("assistant" if i % 2 else "user", text, T0 + dt.timedelta(minutes=i), f"t{i + 1}")
            for i, text in enumerate([*GARDEN, *DATABASE])]
    trace: list[dict] = []
    find_subjects(talk, hash_vectors, trace=trace)
    assert trace and all(type(v) is float for entry in trace for v in entry["likeness"].values())
    json.dumps(trace)


@pytest.mark.parametrize(("text", "name", "refers"), [
    ("The loft conversion is signed off.", "Loft conversion", True),
    ("Our loft conversion is signed off.", "Loft conversion", True),
    ("That conversion took a month.", "Conversion", True),
    ("Ilse's recital went well.", "Recital", True),
    ("Harrowgate Stores rang back.", "Harrowgate Stores", True),
    ("A loft conversion is what we want next.", "Loft conversion", False),  # a new one
    ("We convert the loft in May.", "Conversion", False),  # no noun of that name
    ("The conversion of the shed is done.", "Loft conversion", False),  # not the whole name
    ("The 14 May slot is gone.", "14 May", False),  # a date names no topic
    ("Any news on the loft conversion?", "Loft conversion", True),
    ("The drawings were due before the knee gave way.", "Knee", False),  # it dates something else
    ("Backups go to a bucket in Harrowgate.", "Harrowgate", False),  # a place said on the way
])
def test_a_turn_refers_to_a_thing_by_the_name_it_has(text: str, name: str, refers: bool) -> None:
    assert refers_to(nlp.parse_one(text), name) is refers


def test_words_said_past_what_the_model_reads_still_link_the_next_turn():
    """The model reads an exchange's first 1,200 characters and its words are read whole: a reply
    that ends, far past that cut, on what to check next is what the person's next turn takes up."""
    import numpy as np

    from sheriff_vault.compaction.subjects import find_subjects

    filler = " ".join(["The weather held all week and the garden looked fine."] * 20)
    talk = [Turn("user", f"I am the executor of my aunt's estate. {filler}", T0, "t1", "Ru"),
            Turn("assistant", f"Happy to help. {filler} Before the valuation, find the pension statements, "
                              "the premium bonds and the lodge subscription.", T0 + dt.timedelta(minutes=1), "t2",
                 "assistant"),
            Turn("user", "Found the pension statements and the premium bonds certificates in the bureau, and the "
                         "lodge subscription is cancelled, so the valuation can go ahead with the solicitor next "
                         "month.",
                 T0 + dt.timedelta(minutes=2), "t3", "Ru"),
            Turn("assistant", "Good.", T0 + dt.timedelta(minutes=3), "t4", "assistant")]

    def encode(texts: list[str]):
        return np.eye(len(texts), 8, dtype=np.float32)  # no two exchanges alike in meaning: words decide

    assert len(" ".join(t.content for t in talk[:2])) > 1200
    assert [[t.id for t in s.turns] for s in find_subjects(talk, encode)] == [["t1", "t2", "t3", "t4"]]
