"""What titling a subject still reads by word (compaction/naming.py): classes of nouns that the
parse calls nouns like any other but that never name what a subject is about, nouns English makes
from verbs with no suffix, and the ways a first turn names its own subject."""
from __future__ import annotations

from sheriff_vault.compaction.english import Cue, Words

KIN = Words(
    "kin",
    frozenset("""mum mom mother dad father sister brother son daughter wife husband partner friend colleague boss
aunt uncle grandma grandpa grandmother grandfather cousin kid baby parent family guy people person someone everyone
team""".split()),
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
    frozenset("""plan idea question update news stuff thing part bit lot time step point way option issue problem
help work job deal total number amount price cost list photo pic picture image caption end start one topic subject
matter""".split()),
    "general nouns that stand in for any subject (a plan, an update, the price of anything) title none",
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

_DETERMINER = r"(?:(?:the|a|an|my|our|his|her|their|its|this|some)\s+)?"
_OBJECT = r"(?P<obj>[\w'’-]+(?:\s+[\w'’-]+){0,2})"

REPLACED_WITH = Cue(
    "replaced_with",
    rf"\breplac(?:e|ing)\b[^.!?]{{0,80}}?\bwith\s+{_DETERMINER}(?:new\s+)?{_OBJECT}",
    "in 'replace X with Y' the new thing Y is what the work is about",
    examples=("We want to replace the old gate with a steel one.", "replacing the sink with a bigger basin"),
    counter=("Replace it soon.", "We went with the blue one."),
)

VISITING = Cue(
    "visiting",
    r"\b(?P<obj>(?:[A-Z][\w'’-]+\s+)?[A-Z][\w'’-]+)\b[^.!?:]{0,40}?\b(?:is|are|will be)\s+"
    r"(?:visiting|coming to visit|coming over)\b",
    "a named person as subject of 'is visiting' makes the subject that person's visit",
    examples=("Marta Lind from the Oslo office is visiting us.", "Jon will be coming over in June."),
    counter=("Marta visited us last year.", "the museum is worth visiting"),
    flags=0,
)

HEADING = Cue(
    "heading",
    r"^\W*(?:(?:also|and|plus|oh and|ok|okay|now)\s+)?(?:(?:the|my|our)\s+)?"
    r"(?P<obj>[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,2})\s*[!:.](?!\S)",
    "a turn that opens on a short phrase ended by a colon, stop or exclamation gives itself a heading",
    examples=("Roof repair! The quote came in.", "also the car: it makes a noise"),
    counter=("We fixed the roof yesterday and it holds.", "It is 3.5 metres wide"),
)

LIST_ITEM = Cue(
    "list_item",
    rf"(?:^|[.!?:]\s+)\W*(?:(?:ok|okay|so|and|right|now)\W+)?(?:first|second|third|fourth|next|last)(?:ly)?"
    rf"(?:\s+(?:thing|point|item|one))?\s*[,:]\s*{_DETERMINER}{_OBJECT}",
    "an ordinal, with or without a general noun, then a comma or colon introduces the item of a list",
    examples=("Second: the boiler service.", "ok first thing, my visa"),
    counter=("The second floor is ready.", "first of all thanks"),
)

ENUMERATION = Cue(
    "enumeration",
    rf"\b(?:two|three|four|a few|a couple of|several|\d) (?:things|items|topics|matters|projects)\b[^:.!?]{{0,40}}:"
    rf"\s*{_DETERMINER}{_OBJECT}",
    "a count of general nouns and a colon announce a list; its first item is a subject the talk takes up",
    examples=("Three things today: the roof leak, the car and my visa.", "two projects this month: my thesis and"),
    counter=("Two things can be true at once.", "three items in the basket"),
)

UPGRADE_TO = Cue(
    "upgrade_to",
    r"\b(?P<verb>upgrading|migrating|moving|switching|updating)\s+(?:\w+\s+)?from\s+\S+(?:\s+\S+)?"
    r"\s+to\s+(?P<obj>[\w'’.-]+(?:\s+[\w'’.-]+)?)",
    "a change 'from X to Y' is named by where it goes, Y, and the noun of the verb",
    examples=("we are upgrading from Node 18 to Node 22", "migrating mail from Exchange to Fastmail"),
    counter=("We drove from Lyon to Nice.", "upgrading the router firmware"),
)

TRIP_TO = Cue(
    "trip_to",
    r"\b(?:go|going|travell?ing|flying|heading|off)\s+to\s+(?P<obj>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)",
    "going (flying, heading) to a named place is a trip there",
    examples=("We're flying to Reykjavik in March.", "off to Porto next week", "in June we go to Bergen for a week"),
    counter=("going to the dentist", "I'm going to call them", "we go to the gym on Mondays"),
    flags=0,
)

DOING = Cue(
    "doing",
    rf"\b(?P<verb>[a-z]+ing)\s+{_DETERMINER}{_OBJECT}",
    "a verb in -ing with its object names the work (renovating the kitchen: kitchen renovation)",
    examples=("we're renovating the bathroom", "I'm adopting a cat"),
    counter=("It was fun.", "We met at noon."),
)

INTENDS = Cue(
    "intends",
    rf"\b(?:promised|need|needs|want|wants|have|has|plan|planning|going|decided|trying|hoping)\s+to\s+"
    rf"[a-z]+\s+{_DETERMINER}{_OBJECT}",
    "a verb of intending with an infinitive names the work by the infinitive's object",
    examples=("I promised to paint the porch.", "we need to fix the gutter"),
    counter=("I need to go.", "I want it now."),
)

TAKES_ON = Cue(
    "takes_on",
    rf"\b(?:signed up for|registered for|applying for|working on|planning|organi[sz]e|organi[sz]ing|"
    rf"started|starting|leading|doing|booked|my|our)\s+{_DETERMINER}{_OBJECT}",
    "taking something on (signing up for, working on, organising, 'my X') names it as the subject",
    examples=("I signed up for the pottery course.", "my driving licence"),
    counter=("I signed it.", "We went out."),
)
