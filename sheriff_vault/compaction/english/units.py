"""The English that turning turns into facts (compaction/units.py) reads by word: small closed classes
the parse tags but does not name (which verbs decide or complete; the adverbs that only intensify are
talk.STANCE), and the talk about the talk, which is an idiom, not a structure. Everything else
units.py reads from the parse: tense, interjections, names, second person, imperatives, nouns and
numbers."""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue, Words

DECIDING = Words(
    "deciding",
    frozenset({"decide", "agree", "choose", "opt"}),
    "verbs of deciding: said as done (past or participle) they report a decision; negated or still needed, an open one",
    examples=("decide", "agree"),
    counter=("think", "wonder"),
)

LOOKING_AHEAD = Words(
    "looking_ahead",
    DECIDING.words | frozenset({"plan", "promise", "arrange", "intend"}),
    "verbs of deciding, planning and promising: the act their infinitive names is still to come when they"
    " are said, so their past tense does not put its day behind ('agreed to meet on Thursday')",
    examples=("agree", "promise", "plan"),
    counter=("have", "mean", "manage", "try"),  # "had to stop", "meant to call": the day is the verb's own
)

FINDING_OUT = Words(
    "finding_out",
    frozenset({"check", "figure", "confirm"}),
    "verbs of finding out: after 'need to' they name an open question",
    examples=("check", "figure"),
    counter=("buy", "write"),
)

COMPLETING = Words(
    "completing",
    frozenset({"finish", "complete", "ship", "merge", "resolve", "fix"}),
    "verbs whose past or participle reports a task completed ('merged', 'finished the draft')",
    examples=("finish", "merge"),
    counter=("start", "plan"),
)

SETTLED = Words(
    "settled",
    frozenset({"do", "book", "sort"}),
    "verbs whose participle after 'be' reports a state reached ('is done', 'is booked', 'all sorted')",
    examples=("do", "book"),
    counter=("finish", "plan"),
)

TAKING_PLACE = Words(
    "taking_place",
    frozenset({"go", "happen", "visit", "celebrate", "attend", "bear"}),
    "verbs that report an event taking place: in the past tense, a date they carry is behind",
    examples=("go", "happen"),
    counter=("move", "book"),
)

CORRECTING = Words(
    "correcting",
    frozenset({"no", "nope", "actually", "wrong", "correction"}),
    "words that open a reply as a correction when punctuation sets them off ('No, ...', 'Correction: ...')",
    examples=("no", "correction"),
    counter=("yes", "also"),
)

TALK_ABOUT_THE_TALK = Cue(
    "talk_about_the_talk",
    r"\bbrain ?dump\b|\b(?:keep(?:ing)?|los(?:e|ing)) (?:track|notes|tabs)\b|\borgani[sz]ed\b|"
    r"\bone (?:by|at a) (?:one|time)\b|\bthings (?:going on|on my \w+)\b(?![^.!?]*:)|\buse you (?:as|to|for)\b|"
    r"\bset (?:this|it|you) up\b|\bsomewhere to (?:put|keep)\b|\bfor (?:all )?(?:your|the) help\b|"
    r"^\W*(?:\w+ )?(?:update|news)\W*$",
    "a speaker talks about the conversation or the note-taking itself, not about their life",
    examples=("This will be a brain dump.", "I keep losing track of stuff.", "Shall we go one by one?",
              "Cheers for keeping notes!", "My son set it up so I can ask.", "So many things going on lately.",
              "Weekly update"),
    counter=("I track my runs in an app.", "The help desk closes at five.", "We keep the notes in the shed.",
             "I use it to cut wood.", "Two things on my mind: the roof and the car.", "The update broke my phone."),
)
