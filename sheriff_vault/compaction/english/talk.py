"""The words of talk itself, of which no sentence's subject is made: every stage that counts what a
sentence says reads them (compaction/parts.py, `said_words`), and titles and quantities pass them
by. The stop words are spaCy's; these are the classes chat adds that its table, written for edited
prose, lacks. A search keys on a longer list of its own (sheriff_vault/search_words.py)."""
from __future__ import annotations

import functools

from sheriff_vault.compaction.english import Words

THANKING = Words(
    "thanking",
    frozenset({"thanks", "thank", "congrats", "congratulations", "cheers"}),
    "nouns and verbs of thanking and congratulating: without a complement (for/on X) they are only a lead-in",
    examples=("thanks", "congrats"),
    counter=("thankful", "birthday"),
)

ACKNOWLEDGING = Words(
    "acknowledging",
    frozenset({"ok", "okay", "alright", "understood"}),
    "words of assent that open a sentence as a lead-in, which the parser may read as adjectives",
    examples=("ok", "alright"),
    counter=("fine", "good"),
)

PHATIC = Words(
    "phatic",
    THANKING.words | frozenset("""wow cool lol haha yay hello bye please sorry""".split()),
    "interjections and the formulae of greeting, thanking and leaving keep a conversation going and say "
    "nothing of its subjects; the tagger reads one that trails a noun as that phrase's head",
    examples=("thanks", "bye", "haha", "lol"),
    counter=("gift", "invoice", "holiday"),
)

ADDRESS = Words(
    "address",
    frozenset({"man", "dude", "guys"}),
    "terms of address call on the listener and name nothing talked about",
    examples=("guys", "dude"),
    counter=("manager", "team"),
)

JUDGING = Words(
    "judging",
    frozenset("""good great nice lovely amazing awesome wonderful fantastic incredible beautiful perfect special
happy glad excited exciting fun proud lucky grateful thankful blessed sure right safe new old big little""".split()),
    "the everyday adjectives of praise, feeling, size and age judge or describe a thing and never say "
    "which thing it is (unlike classifying adjectives: an electric bike, an annual report); 'super', "
    "adjective and adverb alike, is with the adverbs of stance",
    examples=("great", "lovely", "new", "little"),
    counter=("electric", "annual", "wooden", "medical"),
)

STANCE = Words(
    "stance",
    frozenset("""really very so super totally absolutely definitely truly honestly literally seriously
pretty""".split()),
    "adverbs of degree and of the speaker's stance colour a sentence and name nothing in it; modifying an "
    "adjective or a verb they add feeling, not content, and a fact drops them (compaction/units.py)",
    examples=("totally", "honestly", "really", "so"),
    # "actually" sets what holds against what was said (a correction); "still" says when
    counter=("weekly", "not", "still", "actually"),
)

DEICTIC_TIME = Words(
    "deictic_time",
    frozenset("""today tomorrow yesterday tonight time times day days week weekend month year""".split()),
    "nouns of time counted from now (today, next week, these days) date what is said and are never what it "
    "is about; counted, a plural is a length of time, which is said ('3 weeks')",
    examples=("today", "week", "weekend", "tonight"),
    counter=("wedding", "deadline", "summer", "weeks"),
)

VAGUE = Words(
    "vague",
    frozenset("""lot bit kind sort way stuff""".split()),
    "nouns of quantity and manner that stand in for anything ('a lot of', 'kind of', 'that sort of stuff')",
    examples=("lots", "bit", "stuff"),
    counter=("parcel", "plot"),
    nouns=True,
)

FEELING = Words(
    "feeling",
    frozenset("""hope love joy happiness passion dream feeling emotion inspiration vibe blast""".split()),
    "nouns of emotion and wish say how a person feels about a thing, not which thing ('it gave me hope')",
    examples=("hope", "feelings", "dreams"),
    counter=("wedding", "garden", "therapy"),
    nouns=True,
)

EXPERIENCE = Words(
    "experience",
    frozenset("""life journey experience memory moment reminder""".split()),
    "abstract nouns of a life lived stand for any event in it ('such a journey', 'great memories')",
    examples=("life", "memories", "experiences", "moments"),
    counter=("trip", "course", "surgery"),
    nouns=True,
)

SAYING = Words(
    "saying",
    frozenset("""say said saying talk talking told telling hear heard sound sounds look looks looking feel felt mean
means meant want wanted hoping loved enjoy enjoyed share sharing appreciate appreciated appreciating
remind reminds inspired inspiring try tried trying making took taking kept went goes come came gone getting saw
seen gave""".split()),
    "verbs of saying, perceiving, wanting and feeling, and the light verbs (go, get, take, make), carry the "
    "talk; what a sentence is about is in their objects. Listed form by form: every form of each (as the "
    "lemmatizer gives them) also dropped sentences that recall needs as evidence",
    examples=("said", "told", "went", "hoping", "sounds"),
    counter=("booked", "repaint", "cancel"),
)

_CLASSES = (FEELING, EXPERIENCE, PHATIC, ADDRESS, JUDGING, STANCE, DEICTIC_TIME, VAGUE, SAYING)


@functools.lru_cache(maxsize=16384)
def is_talk(word: str) -> bool:
    """`word` (lower case) belongs to one of the classes above."""
    return any(word in c for c in _CLASSES)


@functools.lru_cache(maxsize=16384)
def describes_only(word: str) -> bool:
    """A word of talk before a noun, which praises or sizes it and says nothing of which thing it is
    ("great result", "new sheet"); a noun of time there classifies it (a weekend course, a day trip)."""
    return is_talk(word) and word not in DEICTIC_TIME
