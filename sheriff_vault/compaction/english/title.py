"""What titling a subject still reads by word (compaction/naming.py): classes of nouns that the
parse calls nouns like any other but that never name what a subject is about, nouns English makes
from verbs with no suffix, and the verbs whose object names the work a person takes on or the trip
they make. What the other clauses of a first turn say (an -ing verb's object, "from X to Y", a
visit, a replacement) and how it heads its own subject (compaction/cues.py `introductions`) are
read from the parse."""
from __future__ import annotations

from sheriff_vault.compaction.english import Words, place, talk

KIN = Words(
    "kin",
    frozenset("""mum mom mother dad father sister brother son daughter wife husband partner friend colleague boss
aunt uncle grandma grandpa grandmother grandfather cousin kid baby parent family guy people person team""".split()),
    "relationship and person nouns name who takes part in a subject, not what it is about",
    examples=("sister", "colleagues", "team", "kids"),
    counter=("wedding", "party", "contract"),
    nouns=True,
)

HONORIFIC = Words(
    "honorific",
    frozenset("mr mrs ms miss dr prof".split()),
    "titles of address stand before a person's name: the phrase names who, not what",
    examples=("mrs", "dr"),
    counter=("doctor", "lane", "house"),
)

GENERIC = Words(
    "generic",
    place.GENERAL.words | talk.VAGUE.words | frozenset("""plan idea update part time step option problem help work job
deal total amount price cost list photo pic picture image caption end start""".split()),
    "general nouns that stand in for any subject (a plan, an update, the price of anything; the nouns that head "
    "'other thing:' and those of vague quantity) title none",
    examples=("update", "problems", "price", "ideas"),
    counter=("budget", "migration", "fence"),
    nouns=True,
)

VERB_NOUNS = Words(
    "verb_nouns",
    frozenset("""move upgrade update change repair launch release rebuild redesign rewrite refactor install search
hunt visit swap transfer review test build fix switch shift plan return rollout cleanup setup checkup overhaul
transition""".split()),
    "verbs English also uses unchanged as the noun of the work (zero derivation: to move, the move)",
    examples=("move", "upgrade", "repair"),
    counter=("discover", "come", "spend"),
)

TAKING_ON = Words(
    "taking_on",
    frozenset({"sign", "register", "apply", "work", "plan", "organise", "organize", "start", "lead", "do", "book"}),
    "verbs of taking something on (signing up for it, working on it, booking or organising it) name, by their "
    "object, the work a person starts",
    examples=("sign", "organise", "book"),
    counter=("eat", "see", "like"),
)

TRAVEL = Words(
    "travel",
    frozenset({"go", "travel", "fly", "head", "off"}),
    "verbs of travelling (and 'off', which stands for one) with 'to' and a place's name make a trip there",
    examples=("go", "fly", "off"),
    counter=("send", "move", "talk"),
)
