"""The English progress.py still reads by word: idioms of being part way through a task, and the
closed classes of verbs whose lemma says the work ended, goes on, or waits. Tense, aspect, mood,
negation and who the subject is come from the parse (compaction/progress.py)."""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue, Words

MIDWAY = Cue(
    "midway",
    r"\b(?:in the middle of|(?:half|part) ?way through)\b",
    "prepositional idioms that place the speaker between the start and the end of an activity",
    examples=("They are in the middle of a rebuild.", "She is halfway through her novel.",
              "We are partway through an audit.", "Half way through painting it."),
    counter=("We walked halfway home.", "The middle child is ours.", "Go through the door."),
)

IN_PROGRESS = Cue(
    "in_progress",
    r"\bin progress\b",
    "the predicate phrase for work started and not ended, said of the work itself",
    examples=("The upload is still in progress.", "Step two in progress."),
    counter=("Progress was slow last year.", "We made progress on it."),
)

COMPLETE = Words(
    "complete",
    frozenset({"done", "finish", "complete", "submit", "send", "merge", "book", "sort", "ship", "wrap"}),
    "telic verbs (and the participle 'done', not the light verb 'do') whose perfect, past or passive reports "
    "the work ended",
    examples=("done", "finish", "submit"),
    counter=("do", "write", "start"),
)

CONTINUE = Words(
    "continue",
    frozenset({"continue", "resume", "proceed", "carry on", "pick up", "get back", "keep going", "finish"}),
    "aspectual verbs of going on with an activity or ending it (phrasal ones with their particle): they "
    "presuppose the work under way",
    examples=("continue", "get back", "finish"),
    counter=("stop", "begin", "get"),
)

REMAINDER = Words(
    "remainder",
    frozenset({"go", "left"}),
    "'go' as an infinitive and the participle 'left', after a count, say how much of the work remains "
    "('3 to go', 'two rooms left to paint')",
    examples=("go", "left"),
    counter=("done", "gone", "right"),
)

BEGIN = Words(
    "begin",
    frozenset({"start", "begin"}),
    "aspectual verbs of beginning: their progressive reports work just under way without a time adverb",
    examples=("start", "begin"),
    counter=("stop", "finish", "plan"),
)

NOTHING_LEFT = Cue(
    "nothing_left",
    r"\bnothing (?:more|else|left)\b",
    "a negative quantifier with a word of remainder: no work is left, so every open task is closed",
    examples=("There is nothing more to do here.", "Nothing else needed.", "Nothing left on the list."),
    counter=("Nothing happened.", "I need more time.", "Is there anything else?"),
)

NOW = Words(
    "now",
    frozenset({"now", "currently", "still"}),
    "adverbs of the moment of speech: they select the ongoing reading of a present progressive over the "
    "futurate or extended one",
    examples=("now", "currently", "still"),
    counter=("soon", "tomorrow", "then"),
)

PART_DONE = Words(
    "part_done",
    frozenset({"half", "partly", "partially", "mostly"}),
    "degree adverbs of part: on a participle of work they report it begun and not ended ('half written', "
    "'partly done'), so the work is still open",
    examples=("half", "partly", "mostly"),
    counter=("fully", "completely", "all"),
)

STILL_AHEAD = Words(
    "still_ahead",
    frozenset({"still", "yet"}),
    "aspectual adverbs of what has not happened: with a 'to' infinitive ('still to do', 'yet to be written'), "
    "or 'yet' in a negated passive ('not chosen yet'), they report work expected and not done",
    examples=("still", "yet"),
    counter=("already", "now", "again"),
)

WAIT = Words(
    "wait",
    frozenset({"wait", "block"}),
    "verbs of work stopped until something happens: open work, and blocked when the listener is what it waits on",
    examples=("wait", "block"),
    counter=("want", "hold", "stop"),
)

NEED = Words(
    "need",
    frozenset({"need", "require"}),
    "verbs of needing: with the listener (or the listener's answer) as object the work cannot go on without them",
    examples=("need", "require"),
    counter=("want", "ask", "give"),
)

WHOLE = Words(
    "whole",
    frozenset({"all", "everything", "nothing"}),
    "quantifiers over the whole: as the subject of a completion they close every task, not one",
    examples=("all", "everything", "nothing"),
    counter=("some", "one", "part"),
)
