"""The words a search keys on: a query's and a document's content words, less the words that carry
feeling, praise or the talk itself. Recall, excerpts and skills match on these. Sleep reads its own
table of talk words, in classes with examples (compaction/english/talk.py): what a search keys on
and what a sleep keeps are measured apart (LoCoMo's recall; the labelled sets), so they may part."""
from __future__ import annotations

from sheriff_vault.text import CHAT, content_words

# Words that carry feeling, praise or the talk itself: no key word of a search (stop words are
# spaCy's and not repeated). Listed form by form: the same list written once per lemma with every
# regular form (hopes, shared, talked) lost LoCoMo evidence (benchmarks/RESULTS.md, ninth session).
FILLER = CHAT | frozenset("""
wow cool awesome amazing great good nice glad thanks thank lol haha yay love loved lovely super totally absolutely
definitely sure sounds sound feel feeling felt lot lots bit kind sort pretty today yesterday tomorrow week month
year time times day days way ways stuff man dude guys hello bye look looks looking happy excited exciting fun
incredible fantastic wonderful beautiful proud hope hoping want wanted making took taking kept new old big little
right enjoy enjoyed share sharing mean means meant said saying talk talking told telling hear heard went goes come
came gone getting saw seen gave try tried trying journey emotions emotion feelings life moment moments memory
memories experience experiences passion dream dreams inspiration inspiring inspired happiness joy blast vibe vibes
reminder reminds remind special appreciate appreciated appreciating grateful thankful lucky blessed honestly
seriously
""".split())


def key_words(text: str) -> list[str]:
    """Content words a search matches on: no stop word, no word of chat or feeling."""
    return [w for w in content_words(text) if w not in FILLER]
