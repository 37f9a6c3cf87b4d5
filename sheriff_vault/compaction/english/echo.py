"""The English of echoes (compaction/echo.py) that the parser does not give: the hedges by which
an assistant turns a restatement into advice or a judgement of its own. Acknowledgements, modals,
commands and first-person plans come from the parse."""
from __future__ import annotations

from sheriff_vault.compaction.english import Words

HEDGES = Words(
    "hedges",
    frozenset({"maybe", "perhaps", "usually", "typically", "worth", "better"}),
    "adverbs of likelihood and frequency, and adjectives of value, mark a speaker's own judgement",
    examples=("maybe", "usually", "worth"),
    counter=("noted", "now", "same"),
)

ASSENT = Words(
    "assent",
    frozenset({"yes", "yeah", "yep", "yup", "ye", "yea", "aye", "correct", "exactly"}),
    "interjections and adjectives by which a speaker answers a yes-no question in the affirmative, with "
    "the spellings chat and dialect give 'yes'",
    examples=("yep", "correct", "ye", "aye"),
    counter=("no", "nope", "maybe"),
)
