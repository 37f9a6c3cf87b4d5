"""The English that sleep still reads by pattern: one table per stage, each entry with the grammar it
stands for, sentences it must match and sentences it must not (tests/test_english_tables.py runs
them all).

Structure (sentences, parts of speech, lemmas, noun chunks, entities, dependencies) comes from the
NLP pipeline (sheriff_vault/nlp.py); what is left here is what no library provides: discourse cues
("another thing:", "back to ..."), progress phrases ("in the middle of"), change language. An entry
names a grammar fact, never a sentence of any conversation it was tried on.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from sheriff_vault.text import plural


@dataclass(frozen=True)
class Cue:
    """A pattern for one discourse or change cue. `source`: the grammar fact it stands for, in one
    line. `examples` must match (re.search), `counter` must not."""

    name: str
    pattern: str
    source: str
    examples: tuple[str, ...]
    counter: tuple[str, ...]
    flags: int = re.IGNORECASE
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern, self.flags))

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.regex.match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.regex.finditer(text)

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        return self.regex.sub(repl, text, count=count)


@dataclass(frozen=True)
class Words:
    """A closed class of words no library lists (units people type after a number, say). `examples`
    are words that must be in it, `counter` words that must not. `nouns`: a class of nouns, written
    in the singular, that also holds each one's regular plural."""

    name: str
    words: frozenset[str]
    source: str
    examples: tuple[str, ...]
    counter: tuple[str, ...]
    nouns: bool = False

    def __post_init__(self) -> None:
        if self.nouns:
            object.__setattr__(self, "words", self.words | {plural(w) for w in self.words})

    def __contains__(self, word: object) -> bool:
        return word in self.words or (isinstance(word, str) and _HELD.search(word) is not None
                                      and any(w in self.words for w in unstretched(word)))

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)


_HELD = re.compile(r"(\w)\1{2,}")  # a letter typed three times or more: "heyyy", "sooo"


def unstretched(word: str) -> tuple[str, str]:
    """A word typed with a letter held for effect ("heyyy", "byeee", "goood"), that letter said once
    and twice: English spells no word with one letter three times running, and a doubled letter
    ("good", "all") cannot be told from a held one, so both spellings are the word's candidates."""
    return _HELD.sub(r"\1", word), _HELD.sub(r"\1\1", word)


def entries(module: object) -> list[Cue | Words]:
    """Every table entry a module defines, for the tests."""
    return [v for v in vars(module).values() if isinstance(v, Cue | Words)]
