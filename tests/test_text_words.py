"""The word classes of text.py hold on examples: a verb or noun listed once per lemma also covers
the forms nobody listed, and a feeling or a word of talk is never a content word."""
from __future__ import annotations

import pytest

from sheriff_vault.text import FILLER, content_words, inflections, plural


@pytest.mark.parametrize(("verb", "forms"), [
    ("hope", {"hope", "hopes", "hoped", "hoping"}),
    ("try", {"try", "tries", "tried", "trying"}),
    ("get", {"get", "gets", "getting"}),
    ("go", {"go", "goes", "going"}),
    ("enjoy", {"enjoy", "enjoys", "enjoyed", "enjoying"}),
    ("agree", {"agree", "agrees", "agreed", "agreeing"}),
])
def test_a_verb_has_its_regular_forms(verb: str, forms: set[str]) -> None:
    assert forms <= inflections(verb)


@pytest.mark.parametrize(("noun", "many"), [("memory", "memories"), ("day", "days"), ("box", "boxes"),
                                            ("church", "churches"), ("moment", "moments")])
def test_a_noun_has_its_regular_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize("word", ["hopes", "talked", "sharing", "memories", "awesome", "felt", "thanks"])
def test_feeling_and_talk_are_filler(word: str) -> None:
    assert word in FILLER


@pytest.mark.parametrize("word", ["budget", "roof", "passport", "kitchen", "visa", "quote", "greenhouse"])
def test_subject_nouns_are_not_filler(word: str) -> None:
    assert word not in FILLER


def test_content_words_keep_the_subject_and_drop_the_talk() -> None:
    said = "Honestly I was hoping you'd say the greenhouse quote talked about glazing, it means a lot"
    assert content_words(said) == ["greenhouse", "quote", "glazing"]


def test_a_verb_of_feeling_is_no_key_word_but_is_part_of_what_a_sentence_says() -> None:
    said = "We loved the ferry and talked to the captain"
    assert content_words(said) == ["ferry", "captain"]
    assert content_words(said, talk_verbs=True) == ["loved", "ferry", "talked", "captain"]
    assert content_words("Yeah going to get there", talk_verbs=True) == []


@pytest.mark.parametrize("noun", ["hearing", "meaning"])
def test_a_gerund_english_uses_as_a_noun_of_its_own_is_content(noun: str) -> None:
    assert noun in content_words(f"The {noun} was long")
