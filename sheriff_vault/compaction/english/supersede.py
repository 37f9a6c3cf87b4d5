"""The English of corrections (compaction/supersede.py) that the parser does not give: which verbs
name a change of value, which words mark what holds now, and the contrast constructions that tell
the old value from the new one. Values themselves (numbers, dates, the noun a number counts) and
their slots (the noun a number modifies, the subject of its clause) come from the parse."""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue, Words

CHANGE_VERBS = Words(
    "change_verbs",
    frozenset({"change", "move", "update", "correct", "revise", "reschedule", "postpone", "shift", "switch",
               "swap", "raise", "increase", "decrease", "drop", "cut", "reduce", "bump", "push"}),
    "verbs whose lemma says a value or a time was replaced by another (the moved thing keeps its slot)",
    examples=("move", "postpone", "increase", "switch"),
    counter=("buy", "book", "say"),
)

RESTATING = Words(
    "restating",
    frozenset({"make"}),
    "the verb of a small clause that restates a value said before, with a pronoun standing for it and the new "
    "value after it ('make that 12', 'make it Friday'); with a plain object it makes a thing ('made 40 cakes')",
    examples=("make",),
    counter=("do", "put"),
)

STANDING_IN = Words(
    "standing_in",
    frozenset({"instead", "cover for", "take over", "stand in for", "fill in for", "step in"}),
    "the adverb of substitution said alone (not 'instead of X', which contrasts two values), and the phrasal "
    "verbs with their particle, and 'for' where they need it, by which one person takes another's part ('Sam "
    "is coming instead', 'Ana will stand in for him'): their subject now holds the part someone else had",
    examples=("instead", "take over", "stand in for", "cover for"),
    counter=("now", "replace", "stand in", "fill in"),
)

NOW = Words(
    "now",
    frozenset({"now", "actually", "instead", "anymore", "correction"}),
    "adverbs (and the noun) by which a speaker sets what holds at the time of speaking against before",
    examples=("now", "actually", "anymore"),
    counter=("then", "also", "still"),
)

ADDITIVE = Words(
    "additive",
    frozenset({"also", "too", "another", "additionally", "either"}),
    "focus adverbs (and a determiner) that add to what holds rather than replace it: a name said with them "
    "joins the one before",
    examples=("also", "too", "another"),
    counter=("instead", "now", "only"),
)

NEW_THEN_OLD = Cue(
    "new_then_old",
    r"(?:,\s*|\s)(?:not|no longer|rather than|instead of)\s+|^\W*(?:rather than|instead of)\s+|(?:,\s*|\()was\s+",
    "a negated or displaced second term after a value names the value it replaces: X, not Y; X instead of Y; "
    "fronted, the displaced term comes first and the value that holds follows in its clause",
    examples=("It is 50 mg, no longer 25 mg.", "9 August instead of 2 August", "38 now, was 40",
              "Instead of 40 EUR it came to 35 EUR."),
    counter=("I was there on Monday.", "nothing else", "It was 40."),
)

OLD_THEN_NEW = Cue(
    "old_then_new",
    r"\bnot\s+(?P<old>(?:(?![,.;!?](?!\d)).){1,40}?),?\s+but\s+",
    "'not Y but X' negates the first term and asserts the second",
    examples=("not sage green but dark blue", "Not Tuesday, but Friday.", "not 12.50 but 14.00"),
    counter=("not bad, and cheap", "but not today"),
)

FROM_TO = Cue(
    "from_to",
    r"\bfrom\s+(?P<old>(?:(?![,.;!?](?!\d)).){1,40}?)\s+(?:to|->|→)\s+",
    "'from Y to X' after a verb of change gives the value left and the value reached; a point or a "
    "comma inside a number ends no clause",
    examples=("moved from 21 March to 28 March", "up from 20 to 24 people", "raised from 1,200.50 to 1,450"),
    counter=("from Monday until Friday", "a train to Berlin"),
)

ARROW = Cue(
    "arrow",
    r"\s?(?:->|→)\s?",
    "an arrow between two values, as notes write a change",
    examples=("600 -> 660", "3 June → 5 June"),
    counter=("600 - 660", "a to b"),
)
