"""Titles a person would give (compaction/naming.py): the subject, not a name or a number inside it."""
from __future__ import annotations

import pytest

from sheriff_vault.compaction.naming import _with_modifier, intro_titles, name_subject, nominal, opening_titles
from sheriff_vault.compaction.parts import possessive


@pytest.mark.parametrize("first_turn,title", [
    ("First the fun one: I'm going to Japan for two weeks in May.", "Japan trip"),
    ("We're migrating our main database from Postgres 12 to Postgres 16.", "database migration"),
    ("and the third thing: we're renovating the kitchen. the current one is old", "kitchen renovation"),
    ("oh and BIG news. we're adopting a dog", "dog adoption"),
    ("signed up for the Cologne half marathon. 18 october", "Cologne half marathon"),
    ("second thing, completely unrelated: my tax return for 2025.", "tax return"),
    ("And at home I promised to repaint the garden shed before Easter.", "garden shed"),
    ("My daughter Emma turns 7 and we're doing her 7th birthday party on Saturday.", "birthday party"),
    # a list the person walks through names each item; a heading opens a turn; an upgrade is named
    # by where it goes; a replacement by the new thing; a person's visit by the person
    ("First, the glass washer. The one behind the bar stopped on Monday.", "glass washer"),
    ("True: Second: the survey data.", "survey data"),
    ("Three things this week: my sister's wedding speech, the boiler and a visa.", "wedding speech"),
    ("Poster abstract! I want to send one to the spring meeting, the deadline is 2 May.", "Poster abstract"),
    ("fine, will check. next thing, the team is upgrading from 3.11 to python 3.13.", "python 3.13 upgrade"),
    ("at last we want to replace the rotten gate at the side of the house with a steel gate.", "steel gate"),
    ("Third: Lucia Ferrante from Bologna is visiting us.", "Lucia Ferrante's visit"),
    ("Also french: the delf b2 exam is on 14 June at the institut", "french"),
    # the whole noun phrase past the few words a cue holds, and past a person it is for
    ("Mum turns 70 in May and we want to give her a big family dinner.", "family dinner"),
    ("We want to run the quarterly team offsite in the hills.", "quarterly team offsite"),
    ("canada!! we booked the train tickets for march.", "train tickets"),
])
def test_a_subject_that_names_itself_in_its_first_turn_keeps_that_name(first_turn: str, title: str):
    assert intro_titles(first_turn, set())[0] == title


@pytest.mark.parametrize("first_turn", ["My daughter Emma turns 7 next week.", "Our Octavia is due for a service.",
                                        "I need help keeping my week organised.",
                                        "I'm doing it'll give hope", "I've been reading it'll help me",
                                        # a noun that ends in -ing is no one doing something ("billion")
                                        "Ugh yes that'll haunt us in the billing module",
                                        "Bad news from school.", "Deck update: we ordered 22 oak boards",
                                        # an abbreviation's full stop is no heading's end
                                        "And my dad had his knee done at the St. Anna clinic. He's 71.",
                                        # a gerund before a noun modifies it: no one is doing the day
                                        "Moving day is the 4th, the van is booked.",
                                        # a discourse noun heads no title; a heading of one is no subject
                                        "Other topic. The boiler makes a noise again."])
def test_a_person_a_lone_name_or_a_feeling_is_no_intro_title(first_turn: str):
    assert intro_titles(first_turn, set()) == []


@pytest.mark.parametrize("first_turn,title", [
    # the object of an -ing verb, wherever the verb's other phrases stand
    ("Moving the servers from AWS to Hetzner this month.", "Hetzner move"),
    ("upgrading the router firmware", "router firmware upgrade"),
    ("Jon will be coming over in June.", "Jon's visit"),
    ("off to Porto next week", "Porto trip"),
])
def test_what_a_first_turn_says_a_person_is_doing_is_read_from_its_parse(first_turn: str, title: str):
    assert intro_titles(first_turn, set()) == [title]


@pytest.mark.parametrize("first_turn", [
    "We drove from Lyon to Nice.",  # a verb with no noun of its own ("a drive" is no title of a trip)
    "we go to the gym on Mondays",  # going to a common noun is a habit, not a trip
    "I'm going to call them",  # "going to" before a verb is the future
    "Marta visited us last year.",  # a visit that is over
    "the museum is worth visiting",  # visiting with no one who visits
    "We went with the blue one.", "I ate the cake.", "I need to go.",
])
def test_a_clause_that_does_not_take_work_on_gives_no_intro_title(first_turn: str):
    assert intro_titles(first_turn, set()) == []


def test_gerunds_become_the_nouns_english_has_for_them():
    assert [nominal(g) for g in ("migrating", "renovating", "adopting", "upgrading", "moving", "painting")] == \
        ["migration", "renovation", "adoption", "upgrade", "move", ""]
    # -ss verbs of two syllables take -ion; a one-syllable one has a noun of another meaning
    assert [nominal(g) for g in ("discussing", "missing", "passing")] == ["discussion", "", ""]


def test_a_heading_made_of_a_general_noun_gives_no_title():
    """"And the best thing last." announces a subject and names none: the trip it goes on to
    is the title; "Second: the survey data" names its item."""
    turn = "And the best thing last. In June we go to Bergen for a week, the two of us."
    assert intro_titles(turn, set()) == ["Bergen trip"]
    assert "survey data" in intro_titles("Second: the survey data. It came in today.", set())


def test_the_title_is_what_recurs_not_the_rarest_name():
    texts = ["The stag weekend is in Hamburg, 9 guys.", "Booked the stag apartment in St. Pauli.",
             "Katrin thinks the stag dinner should be near the Fischmarkt.", "Stag budget is 350 EUR per person."]
    other = [["The long run is 24 km.", "Ren changed the long run to 20 km."]]
    title = name_subject(texts, other, set())
    assert title.name.startswith("Stag") and "Katrin" not in title.name


def test_where_two_people_talk_a_persons_subject_takes_their_name():
    assert possessive("Melanie", "pottery class") == "Melanie's pottery class"
    assert possessive("Caroline", "LGBTQ support group") == "Caroline's LGBTQ support group"


def test_a_one_word_title_takes_the_phrase_it_heads():
    texts = ["Two things this week: Caroline's birthday party and the refactor.",
             "The party is on Saturday at Riverside Park.", "About 25 people are coming to the party.",
             "The party budget went up to 500 USD.", "Melanie brings the cake to the party."]
    other = [["The refactor splits the memory module.", "Tests for the refactor pass."]]
    title = name_subject(texts, other, set())
    assert title.name.lower().endswith("birthday party")
    plain = name_subject(texts[1:], other, set())  # never called anything longer: stays "Party"
    assert plain.name == "Party"
    # an adjective said once in passing describes the thing, it does not name it; a noun classifies it
    passing = name_subject([*texts[1:], "It will be a lively party, if it stays dry."], other, set())
    assert passing.name == "Party"
    kind = name_subject([*texts[1:], "It will be a garden party, if it stays dry."], other, set())
    assert kind.name == "Garden party"


def test_a_word_said_again_before_itself_classifies_nothing():
    """A list written without commas parses as one phrase whose first word is its head again: no
    person titles a note "Letters letter"; a word that classifies the head still takes it."""
    scored = [(1.0, "Letters"), (0.8, "Letters letter")]
    assert _with_modifier("Letters", scored, lambda form: True) == "Letters"
    assert _with_modifier("Letters", [*scored, (0.5, "referral letter")], lambda form: True) == "referral letter"


def test_an_interjection_after_a_noun_heads_no_title():
    """Chat ends a sentence on "lol" or "haha", which the tagger reads as the head of the noun phrase
    before it: the title is the phrase, never the phrase with the laugh."""
    texts = ["Did the car boot sale lol.", "Sold the old pram at the car boot sale.",
             "Made 85 at the car boot sale haha.", "Next car boot sale is in June."]
    other = [["The long run is 24 km.", "Ren changed the long run to 20 km."]]
    assert name_subject(texts, other, set()).name == "Car boot sale"


def test_a_subject_opened_mid_turn_on_a_list_cue_is_named_by_its_item():
    """"Good idea, she could stay at her cousin's. Second thing: the car. Our Transit is due for its
    service": the facts keep the Transit and lose "the car", but the turn from the cue on names the
    subject."""
    import datetime as dt

    from sheriff_vault.compaction.naming import _opening
    from sheriff_vault.compaction.parts import Candidate
    from sheriff_vault.compaction.units import make_units
    from sheriff_vault.store.buffer import Turn

    turn = Turn("user", "Good idea, she could stay at her cousin's. Second thing: the car. Our Transit is due for "
                "its 90,000 km service and the MOT test.", dt.datetime(2026, 4, 1, tzinfo=dt.UTC), "t7", "Sam")
    units = make_units([turn], "UTC", set())
    texts = [" ".join(u.text for u in units)]
    assert "the car" not in texts[0]

    opening = _opening(Candidate(units), {"t7": turn})
    assert opening == ["Second thing: the car. Our Transit is due for its 90,000 km service and the MOT test."]
    assert name_subject(texts, [], set(), opening=opening).name == "Car"
    assert name_subject(texts, [], set()).name != "Car"


def test_a_number_after_a_name_is_a_version_only_when_it_looks_like_one():
    """"Python 3.12" and "Windows 11" are versions; a year or a dose after a name is not: those
    turns are about an invoice and a painkiller, and a measure after a number starts no title."""
    other = [["The long run is 24 km."]]
    assert name_subject(["We upgrade to Windows 11 next week.", "Windows 11 needs new drivers."], other,
                        set()).name == "Windows 11"
    invoice = name_subject(["Invoice 2026 is still unpaid.", "I sent invoice 2026 again."], other, set())
    assert "2026" not in invoice.name
    talk = name_subject(["I give a 15 min presentation on Friday.", "The presentation slides are done."], other, set())
    assert talk.name.lower().startswith(("presentation", "slides")), talk.name


def test_a_word_the_subject_uses_as_a_verb_titles_nothing():
    """"I apologize" three times is no subject called "Apologize"; "the lake calms me" is about the
    lake, not "Lake calms"; and a gerund English has no noun for keeps no bare verb."""
    other = [["The long run is 24 km."]]
    texts = ["I apologize, I totally forgot the bake sale.", "Don't worry, you apologize too much.",
             "I apologize anyway. Next bake sale I'll bring muffins."]
    assert name_subject(texts, other, set()).name == "Bake sale"
    texts = ["The blue of the lake calms me.", "The lake calms me every morning.", "Swimming in the lake calms you."]
    assert name_subject(texts, other, set()).name == "Lake"
    assert [nominal(g) for g in ("discovering", "coming", "spending")] == ["", "", ""]
    assert all("discover" not in t for t in intro_titles("I am discovering my true potential.", set()))


@pytest.mark.parametrize("first_turn,title", [
    ("Other thing: the quarterly audit is out. Two findings on access logs.", "quarterly audit"),
    ("Can you look at the garage budget? The door alone is 900.", "garage budget"),
    ("Let's start on the billing service cleanup today. It is one huge file.", "billing service cleanup"),
    ("And the big one: my brother's graduation party on 3 July.", "graduation party"),
    ("The second thing is the allotment. We finally got a plot.", "allotment"),
])
def test_a_subject_opens_by_naming_it_as_subject_or_object_of_its_first_clause(first_turn: str, title: str):
    assert title in opening_titles(first_turn, set())


@pytest.mark.parametrize("first_turn", [
    "it's a joke, honestly.",  # what a copula says of a pronoun judges, it names nothing
    "Of course nobody called back.",  # a sentence-initial prepositional phrase is an adverbial
    "Evening! Nobody called back.",  # a greeting
    "I leave on 3 July for nine days.",  # dates and counts are facts of a subject, never its name
])
def test_a_judgement_an_adverbial_a_greeting_or_a_date_is_no_opening_title(first_turn: str):
    assert opening_titles(first_turn, set()) == []


def test_a_value_the_subject_replaced_is_not_its_title():
    """A subject whose painkiller was changed ("off the ibuprofen, on naproxen") is not titled by the
    old value, however often it was said; the next best phrase names it."""
    texts = ["On ibuprofen for the sore knee, 200 mg with every meal.",
             "Ibuprofen again today, the knee still aches on the stairs.",
             "The doctor swapped the ibuprofen for naproxen, the sore knee is easing."]
    other = [["The garden shed needs a new roof before winter."]]
    assert name_subject(texts, other, set()).name == "Ibuprofen"
    renamed = name_subject(texts, other, set(), replaced={"ibuprofen"})
    assert "ibuprofen" not in renamed.name.lower() and renamed.name


def test_a_title_that_says_a_replaced_value_among_other_words_is_not_chosen():
    """A teacher replaced ("Mr Lindqvist teaches it instead of Ms Okafor") leaves no "Okafor's Class"
    title, though the title says more than the old value."""
    texts = ["Noa starts in Ms Okafor's class at the village school after the holidays.",
             "The school visit went well, Okafor's class has a reading corner.",
             "Okafor's class is taught by Mr Lindqvist instead of Ms Okafor until the summer."]
    other = [["The garden shed needs a new roof before winter."]]
    assert "okafor" in name_subject(texts, other, set()).name.lower()
    renamed = name_subject(texts, other, set(), replaced={"Okafor"})
    assert "okafor" not in renamed.name.lower() and renamed.name


@pytest.mark.parametrize("first_turn,title,not_title", [
    # an adjective the tagger reads as a participle still describes the noun it stands before
    ("We're building fitted wardrobes in the spare bedroom this month.", "fitted wardrobes", "wardrobes"),
    # a clause that frames the main one (when, before, who ...) names a circumstance, not the subject
    ("The roof repair starts once the scaffolders arrive.", "roof repair", "scaffolders"),
    ("The neighbour who lent us the ladder wants the gutter fixed.", "neighbour", "ladder"),
])
def test_an_opening_names_its_subject_in_its_main_clause(first_turn: str, title: str, not_title: str):
    titles = opening_titles(first_turn, set())
    assert title in titles and not_title not in titles, titles


def test_an_amount_after_a_word_is_no_version_and_an_adverb_ends_no_title():
    """A version keeps its number ("python 3.13 upgrade" above); a price said after a word does not, and a
    heading that trails off in an adverb ("slow morning finally.") is titled without it."""
    assert not any("250" in t for t in opening_titles("top price 250. anything more is silly", set()))
    headed = intro_titles("Slow morning finally. The plumber came.", set())
    assert headed and not any(t.lower().endswith("finally") for t in headed), headed


def test_a_short_subject_takes_the_name_its_opening_turn_gives_a_long_one_must_come_back_to_it():
    """One session's worth of a subject (three exchanges) has had no time to repeat its name: the
    phrase its opening turn names leads. A subject that goes on for longer without coming back to
    that phrase is about what it does come back to."""
    said = "Let's get going on the invoice archive cleanup today."
    rest = ["The scanner jams on every tenth page.", "The scanner is a borrowed one from the office.",
            "I cleaned the scanner rollers, still jams.", "Maybe the scanner feeds two sheets at once.",
            "New scanner rollers are 19 euros online.", "Ordered the scanner rollers, here Friday.",
            "Fitted the rollers: the scanner runs clean now."]
    other = [["The garden shed needs a new roof before winter."]]
    short = name_subject([said, *rest[:3]], other, set(), said=said)
    assert short.name == "Invoice archive cleanup"
    long = name_subject([said, *rest], other, set(), said=said)
    assert "scanner" in long.name.lower() and "invoice" not in long.name.lower(), long.name


def test_a_name_its_opening_says_in_passing_does_not_title_a_subject_that_never_comes_back_to_it():
    """The opening's own title leads only when it is among the subject's best candidates: a phrase
    the reply to the opening says once, while the subject goes on about a boat, is not its name."""
    said = "And the hard one. My uncle has decided to stop sailing."
    reply = "When the boat is gone, someone has to do the weekly shop for him."
    assert intro_titles(reply, set()) == ["weekly shop"]
    parts = ["hull", "mast", "rudder", "keel", "winch", "tiller", "anchor", "bilge pump", "jib sail", "mainsail",
             "outboard motor", "trailer", "cockpit cushions", "bow cleat", "fuel tank", "life jackets", "boom",
             "halyard", "compass", "radio", "fender", "boat cover", "mooring fee", "logbook", "survey report"]
    rest = [f"The {parts[i]} and the {parts[(i + 1) % len(parts)]} {said_of}." for i in range(0, len(parts), 2)
            for said_of in ("on the boat need a look", "came up when a buyer saw the boat", "of the boat are fine")]
    other = [["The garden shed needs a new roof."]]
    assert name_subject([said, reply, *rest], other, set(), said=said).name == "Boat"
    # said where the subject opens and taken up again, the same phrase does lead
    shopping = [said, reply, *[f"The weekly shop and the {part} took the morning." for part in parts[:6]]]
    assert name_subject(shopping, other, set(), said=said).name == "Weekly shop"


@pytest.mark.parametrize("first_turn", ["I want to surprise my sister.", "We need to call the parents.",
                                        "I want to ask my sister Ines and her husband."])
def test_a_phrase_headed_by_a_person_is_no_intro_title(first_turn: str):
    """"my sister" says who, not what; "a family dinner" says what."""
    assert intro_titles(first_turn, set()) == []


def test_a_day_or_a_month_however_written_is_no_title():
    """"send it to the hod weds 9 june": the day dates the subject, it never names it."""
    from sheriff_vault.compaction.naming import _quality

    for phrase in ("hod weds", "deadline thurs", "Thursday", "summer", "Weekend", "march", "june"):
        assert _quality(phrase) == 0.0, phrase
    assert _quality("friday market") > 0  # a day as a modifier of what the subject is
    assert _quality("climate march") > 0  # a month's name is a word of its own too
    assert _quality("summer school") > 0 and _quality("concert") > 0


def test_a_person_addressed_by_title_is_no_title_however_tagged():
    """"mrs doyle." as a turn's second sentence is the customer, in lower case or not."""
    from sheriff_vault.compaction.naming import _quality

    for phrase in ("mrs doyle", "Dr Kessler", "Mr. Patel"):
        assert _quality(phrase) == 0.0, phrase
    assert _quality("doctor visit") > 0


def test_a_greeting_or_a_farewell_the_entity_reader_takes_for_a_name_is_no_title():
    """"Thanks again for all your help. Goodnight": the parser reads "Goodnight" as a place or a person, and
    "Heyyy!" as a person; neither names the subject, nor is one of its aliases."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction.naming import _names, _quality

    assert _names(nlp.parse_one("Heyyy! So the tickets came this morning.")) == []
    assert _names(nlp.parse_one("Goodnight, Tomas.")) == ["Tomas"]
    # the entity reader takes a greeting into the name it greets, as one organisation
    assert _names(nlp.parse_one("Goodnight, Marisol! See you tomorrow.")) == ["Marisol"]
    for phrase in ("Goodnight", "Goodnight Goodnight", "Byeee"):
        assert _quality(phrase) == 0.0, phrase
    assert _quality("Goodnight Moon") > 0  # a farewell as a modifier of what the subject is
    title = name_subject(["The money reached my sister and she bought the car, photos came today.",
                          "Thanks again for all your help. Goodnight", "Goodnight, Tomas."], [], {"tomas", "assistant"})
    assert "goodnight" not in (title.name + " " + " ".join(title.aliases)).lower()


@pytest.mark.parametrize("first_turn", ["My nephew Arlo has put this app on my phone and says I can write to you.",
                                        "Our builder Gary says the roof needs new felt."])
def test_a_name_set_beside_a_common_noun_is_a_person_not_the_subject(first_turn: str):
    """"my nephew Arlo" introduces who, though no table lists "nephew"; "Lake Garda" is a place's
    own name, not a person beside a noun."""
    assert intro_titles(first_turn, set()) == []
    assert intro_titles("We are going to Lake Garda in June.", set()) == ["Lake Garda trip"]


@pytest.mark.parametrize("phrase", ["ideas", "problems", "colleagues", "kids", "updates"])
def test_a_general_or_family_noun_titles_nothing_in_the_plural_either(phrase: str):
    from sheriff_vault.compaction.naming import _quality

    assert _quality(phrase) == 0.0, phrase


def test_frames_parsed_in_one_batch_read_as_each_parsed_alone():
    """name_subject parses the frames of all its candidate phrases in one batch (one pipeline call
    a phrase cost more than the parses); each must read exactly as it does parsed on its own."""
    from sheriff_vault import nlp
    from sheriff_vault.compaction import naming

    forms = ["garden shed", "summer", "Lake Como", "deck oven", "weekend", "rounds"]
    naming._frame_ahead(forms)
    alone = nlp.pipeline()
    for form in forms:
        text = naming._frame(form)
        batched = nlp.parse_one(text)
        single = alone(text)
        assert [(t.text, t.pos_, t.tag_, t.dep_, t.head.i, t.ent_type_) for t in batched] == \
            [(t.text, t.pos_, t.tag_, t.dep_, t.head.i, t.ent_type_) for t in single]


def test_a_noun_said_after_a_number_is_a_unit_or_a_count_not_the_title():
    """What a person counts ("45 min", "1,200 litres", "6 volunteers") measures their subject; a number
    after a noun ("Python 3", "room 12") names the thing and is no count."""
    texts = ["The pond pump moves 1,200 litres an hour, and the filter takes 45 min to clean.",
             "We put the pond pump on a timer: 20 min on, 40 min off.",
             "The new pump is quieter, about 900 litres an hour on the low setting.",
             "The pond pump cost 180 euro with the hose and 6 volunteers dug the trench."]
    other = [["The school play is on Friday.", "Tickets for the play sold out."]]
    title = name_subject(texts, other, set())
    assert title.name.lower() in ("pond pump", "pump"), title.name
    for unit in ("min", "litres", "euro", "volunteers"):
        assert unit not in title.scores, unit
    uncounted = name_subject(["The pond pump is loud at night.", "The pump needs a new filter.",
                              "We cleaned the pond pump today."], other, set())
    assert uncounted.name.lower() in ("pond pump", "pump")


def test_a_counted_noun_behind_words_of_praise_is_still_a_count():
    """"the right crates" adds nothing to "crates" that "200 crates" counts; "apple crates" names a kind."""
    texts = ["We ordered 200 crates for the farm shop.", "Those are the right crates, 200 of them.",
             "The farm shop needs 200 crates by Friday.", "The farm shop opens at ten."]
    title = name_subject(texts, [["My knee hurts after the run."]], set())
    assert "right crates" not in title.scores and "crates" not in title.scores
    assert title.name.lower() == "farm shop", title.name
    kinds = name_subject(["We ordered 200 apple crates.", "The apple crates are stacked in the barn.",
                          "Two apple crates broke."], [["My knee hurts after the run."]], set())
    assert kinds.name.lower() == "apple crates", kinds.name


@pytest.mark.parametrize("sentence,noun,counted", [
    ("The backup copies 60 MB/min over the VPN.", "min", True),
    ("The parking fine came to 40 euro.", "euro", True),
    ("We have 4 classes on Tuesdays.", "classes", True),
    ("Our daughter starts 2nd class after the summer.", "class", False),  # a rank, not a count
    ("The server still runs Python 3 in production.", "Python", False),  # a version names it
    ("The classes start on Tuesdays.", "classes", False),
])
def test_a_noun_is_counted_when_a_number_stands_before_it(sentence: str, noun: str, counted: bool):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.naming import _counted

    token = next(t for t in nlp.parse_one(sentence) if t.text == noun)
    assert _counted(token) is counted


@pytest.mark.parametrize("turn,how,words", [
    # a turn's own heading: a short phrase before a colon, full stop or exclamation mark
    ("Roof repair! The quote came in.", "=", "Roof repair"),
    ("also the car: it makes a noise", "=", "car"),
    ("Re the gutters. The man comes on Friday.", "=", "gutters"),
    # the item of a list walked through, after an ordinal heading or a count of general nouns
    ("Second: the boiler service.", "list", "the boiler service"),
    ("ok first thing, my visa", "list", "my visa"),
    ("Other thing: the conference reviews are out.", "list", "the conference reviews are out"),
    ("Three things today: the roof leak, the car and my visa.", "list", "the roof leak"),
    ("two topics this month: my thesis and the grant", "list", "my thesis and the grant"),
])
def test_how_a_turn_heads_its_subject_is_read_from_its_parse(turn: str, how: str, words: str):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.cues import introductions

    doc = nlp.parse_one(turn)
    assert [(h, turn[s:e]) for h, s, e in introductions(doc)][:1] == [(how, words)]


@pytest.mark.parametrize("turn", [
    "We fixed the roof yesterday and it holds.",         # a clause, not a heading
    "It is 3.5 metres wide",
    "The second floor is ready.",                        # an ordinal inside a noun phrase heads no list
    "first of all thanks",
    "Two things can be true at once.",                   # a count of general nouns with no list after it
    "three items in the basket",
    "Prices are up: 12 a bag now.",                      # an auxiliary: a sentence, not a heading
    "60 chairs. The hall has enough.",                   # a count answers, it heads nothing
    "right, shower. back soon",                          # taking leave
    "The easy one first, I guess, since it is quick.",  # a list item with no thing named after it
])
def test_a_clause_a_count_or_a_farewell_heads_no_subject(turn: str):
    from sheriff_vault import nlp
    from sheriff_vault.compaction.cues import introductions

    assert list(introductions(nlp.parse_one(turn))) == []


@pytest.fixture(scope="module")
def encode():
    """The real embedding model: which phrase is closest to a subject is a question of meaning."""
    import numpy as np

    from sheriff_vault.config import EmbeddingSettings
    from sheriff_vault.index.embed import Embedder

    embedder = Embedder.from_settings(EmbeddingSettings())
    return lambda texts: np.asarray(embedder.encode(list(texts)), dtype=np.float32)


OTHER_SUBJECTS = [
    ["My sister's wedding is in June and I'm giving a speech.", "The speech should be five minutes long."],
    ["The car needs its MOT before the end of the month.", "The garage can take the car on Tuesday."],
]


@pytest.mark.parametrize("texts,title", [
    # the opening names what happened; the subject is what the rest of it is about
    (["The leak came back last night.", "The roof over the back bedroom needs new felt.",
      "A roofer can look at the roof on Friday.", "The roof repair quote is 600."], "Roof repair"),
    # counter-example: an opening that names the subject keeps it while the turns go on about its parts
    (["We're renovating the kitchen this spring.", "The builder starts with the cabinets in April.",
      "We picked an oak worktop and white tiles behind the sink.",
      "The electrician moves two sockets before the tiles go on."], "Kitchen renovation"),
])
def test_the_title_closest_in_meaning_to_the_whole_subject_leads(encode, texts: list[str], title: str):
    got = name_subject(texts, OTHER_SUBJECTS, set(), encode, encode(texts).mean(axis=0))
    assert got.name == title


def test_with_vectors_that_only_share_words_the_openings_own_title_leads():
    """Hash vectors are near for shared words, so a word the subject repeats would outrank the title its
    opening gave it: without a model of meaning the counts and the opening decide, as before."""
    from sheriff_vault.index.embed import HashEmbedder, safe_encoder

    texts = ["The leak came back last night.", "The roof over the back bedroom needs new felt.",
             "A roofer can look at the roof on Friday.", "The roof repair quote is 600."]
    words = safe_encoder(HashEmbedder())
    assert name_subject(texts, OTHER_SUBJECTS, set(), words, words(texts).mean(axis=0)).name == "Leak"


def test_two_new_subjects_never_share_a_title():
    """Placement found two subjects and naming gave both "Bells" (a catch-up message mentions the
    bells beside health news): the one the name is closer to in meaning keeps it, the other takes
    its next phrase; a third subject's own name is not taken."""
    import numpy as np

    from sheriff_vault.compaction.naming import _distinct
    from sheriff_vault.compaction.parts import Candidate

    axes = {"bells": 0, "peal": 0, "flights": 1, "blood": 2}

    def encode(texts: list[str]) -> np.ndarray:  # one axis a meaning: this test checks the choice, not the model
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for i, text in enumerate(texts):
            for word, axis in axes.items():
                if word in text.lower():
                    out[i, axis] = 1.0
        return out

    ringing = Candidate([], name="Bells", phrases=["bells", "quarter peal"], vector=np.array([0.9, 0.1, 0.0]))
    trip = Candidate([], name="Bells", phrases=["bells", "blood pressure", "long flights"],
                     vector=np.array([0.3, 0.8, 0.2]))
    health = Candidate([], name="Blood Pressure", phrases=["blood pressure"], vector=np.array([0.0, 0.1, 0.9]))
    _distinct([trip, ringing, health], encode)
    assert (ringing.name, trip.name, health.name) == ("Bells", "Long flights", "Blood Pressure")
    continued = Candidate([], name="Bells", phrases=["bells"], existing="topics/bells.md")
    _distinct([continued, ringing], encode)  # a vault topic's name is the plan's to match (merge.match)
    assert (continued.name, ringing.name) == ("Bells", "Bells")
    # the second takes no name a vault topic already has: the plan would join it there by the name
    ringing = Candidate([], name="Bells", phrases=["bells", "quarter peal", "towers"], vector=np.array([0.9, 0.1, 0.0]))
    trip = Candidate([], name="Bells", phrases=["bells", "long flights", "melbourne"], vector=np.array([0.3, 0.8, 0.2]))
    _distinct([trip, ringing], encode, {"long flights"})
    assert (ringing.name, trip.name) == ("Bells", "Melbourne")
