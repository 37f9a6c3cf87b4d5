"""The English that placement reads by word (compaction/subjects.py): which words announce a new
subject, which nouns are general enough to head "other thing:", and the few fixed phrases of moving
the talk on. Where a cue has grammar (a list item is an ordinal heading, a reply opens on an
interjection, a closing names nothing), subjects.py reads it from the parse, not from here.
"""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue, Words, talk

DIFFERENCE = Words(
    "difference",
    frozenset({"another", "other", "different", "separate", "separately", "unrelated"}),
    "a determiner or adjective of difference before a general noun announces a thing not talked about yet",
    examples=("another", "different", "separately"),
    counter=("same", "the", "second"),
)

ADDITION = Words(
    "addition",
    frozenset({"also", "more", "next", "last", "final", "now"}),
    "an additive adverb, a list position that is not a numeral, or 'now' of going on to the next thing "
    "('Now, the boat.') opens a further item of a list",
    examples=("also", "next", "more", "now"),
    counter=("then", "first", "so"),
)

BESIDE = Words(
    "beside",
    frozenset({"and", "meanwhile"}),
    "the additive conjunction, or an adverb of what goes on at the same time, opening a turn and a clause of "
    "its own, adds a matter beside the one talked about, as an additive adverb does (supersede.ADDITIVE: "
    "'also'); the clause's subject says which",
    examples=("and", "meanwhile"),
    counter=("but", "so", "then", "next", "still"),
)

GENERAL = Words(
    "general",
    frozenset({"thing", "topic", "question", "matter", "subject", "point", "item", "issue", "one", "note", "number",
               "news"}),
    "a general noun names no subject: after an ordinal or a word of difference, or before a numeral, it stands for any",
    examples=("thing", "topic", "number"),
    counter=("party", "car", "time"),
)

LIST_START = Words(
    "list_start",
    frozenset({"first", "firstly", "1st"}),
    "the first item of a list opens it and leaves no subject behind, unlike second, third and next",
    examples=("first", "firstly"),
    counter=("second", "third"),
)

COURTESY = Words(
    "courtesy",
    talk.THANKING.words | talk.ACKNOWLEDGING.words | frozenset({"thx", "bye", "night", "goodnight", "care"}),
    "acknowledgements, thanks and farewells, which the tagger often reads as nouns, close a turn and carry no subject",
    examples=("thanks", "cheers", "bye"),
    counter=("dinner", "meeting", "yes"),
)

GREETING = Words(
    "greeting",
    frozenset({"hi", "hello", "hey", "morning", "evening", "hola", "bonjour", "ciao", "hallo", "kia", "namaste",
               "aloha", "salut"}),
    "a greeting opens a turn, often a session, and answers nothing the assistant said; the parser reads one "
    "borrowed from another language as a name, and one by the time of day as a noun",
    examples=("hello", "morning", "hola", "kia"),
    counter=("yes", "thanks", "lisbon"),
)


def social(word: str) -> bool:
    """Whether a word only greets, thanks or takes leave (GREETING, COURTESY): talk about the talk."""
    return word in COURTESY or word in GREETING


ABOUT = Words(
    "about",
    frozenset({"about", "on", "re", "regarding"}),
    "prepositions of aboutness name the subject that news or an update is about",
    examples=("about", "re", "regarding"),
    counter=("at", "from", "off"),
)

BACK_TO = Cue(
    "back_to",
    r"\bback to\b",
    "'back to' before a noun phrase returns the talk to a subject it left",
    examples=("Back to the budget for a second.", "ok back to the speech"),
    counter=("Back from the trip on Saturday.", "We drove back home."),
)

SHIFT = Cue(
    "shift",
    r"^\W*(?:by the way|btw|oh and|quick (?:one|question)|switching|changing the (?:subject|topic)|"
    r"moving on|on another note|speaking of)\b",
    "fixed phrases of moving the talk on, said at the start of a turn, that have no grammar of their own",
    examples=("By the way, the van is booked.", "oh and I sent the form", "Quick question about the roof",
              "switching gears: the budget", "Moving on, the tiles arrived.",
              "Speaking of Jonas: he starts in May."),
    counter=("We are moving on Friday.", "The way back was long.", "A quick lunch and then home.",
             "She was speaking of her trip."),
)

UNLIKE = Cue(
    "unlike",
    r"\b(?:nothing to do with|not the same)\b",
    "a negated likeness says the thing now talked about is not the one before",
    examples=("This has nothing to do with the flat.", "It's not the same party as last week."),
    counter=("It is the same party.", "We did nothing all day."),
)

MOVE_ON = Cue(
    "move_on",
    r"\b(?:switch(?:ing)? to|mov(?:e|ing) on|turn to|what else)\b",
    "a speaker proposes to leave the subject with a verb of moving the talk or by asking what else there is",
    examples=("Shall we switch to the refactor?", "Want to move on to the budget?", "What else is on your list?"),
    counter=("It switches to streaming at noon.", "Turn left at the church.", "Nothing else to add."),
)
