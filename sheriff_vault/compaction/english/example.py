"""How an English table reads (a template for the stage tables beside it): one entry per cue."""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue

MOVING_ON = Cue(
    "moving_on",
    r"\b(?:another|one more|a different) (?:thing|topic|question)\b",
    "a speaker announces a new subject with a determiner of addition or difference before a general noun",
    examples=("Another thing: the car needs new tyres.", "One more question about the invoice."),
    counter=("The other day we went out.", "A thing of beauty."),
)
