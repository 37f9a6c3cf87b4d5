"""Every entry of the English tables (sheriff_vault/compaction/english/) holds on its own examples:
each example matches, each counter-example does not, and each says which grammar it stands for."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

from sheriff_vault.compaction import english
from sheriff_vault.compaction.english import Cue, Words, entries

TABLES = [importlib.import_module(f"{english.__name__}.{m.name}") for m in pkgutil.iter_modules(english.__path__)]
ENTRIES = [(t.__name__.rsplit(".", 1)[-1], e) for t in TABLES for e in entries(t)]


def test_there_are_tables() -> None:
    assert TABLES, "no English tables found"


@pytest.mark.parametrize(("table", "entry"), ENTRIES, ids=[f"{t}.{e.name}" for t, e in ENTRIES])
def test_entry_holds_on_its_examples(table: str, entry: Cue | Words) -> None:
    assert entry.source.strip() and "\n" not in entry.source, f"{table}.{entry.name}: one-line source"
    assert entry.examples and entry.counter, f"{table}.{entry.name}: needs examples and counter-examples"
    if isinstance(entry, Cue):
        missed = [s for s in entry.examples if not entry.search(s)]
        wrong = [s for s in entry.counter if entry.search(s)]
    else:
        missed = [w for w in entry.examples if w not in entry]
        wrong = [w for w in entry.counter if w in entry]
    assert not missed, f"{table}.{entry.name} does not match its examples: {missed}"
    assert not wrong, f"{table}.{entry.name} matches its counter-examples: {wrong}"


def test_names_are_unique_per_table() -> None:
    for table in TABLES:
        names = [e.name for e in entries(table)]
        assert len(names) == len(set(names)), table.__name__


def test_a_word_typed_with_a_held_letter_is_the_word_of_a_table() -> None:
    """"Heyyy", "byeee", "thanksss": a letter held for effect, which English never spells three times
    running; a word the table does not hold stays out however it is typed."""
    from sheriff_vault.compaction.english import place, unstretched

    assert "heyyy" in place.GREETING and "byeee" in place.COURTESY and "thanksss" in place.COURTESY
    assert "hey" in place.GREETING and "lisbooon" not in place.GREETING and "ssss" not in place.GREETING
    assert unstretched("goood") == ("god", "good") and unstretched("hello") == ("hello", "hello")
