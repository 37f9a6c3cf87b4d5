"""The word classes of text.py hold on examples: a feeling or a word of talk is never a content
word, a subject's noun always is, and a class of nouns holds their plurals."""
from __future__ import annotations

import pytest

from sheriff_vault.text import FILLER, content_words, plural


@pytest.mark.parametrize(("noun", "many"), [("memory", "memories"), ("day", "days"), ("box", "boxes"),
                                            ("church", "churches"), ("moment", "moments")])
def test_a_noun_has_its_regular_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize("word", ["awesome", "felt", "thanks", "sharing", "memories"])
def test_feeling_and_talk_are_filler(word: str) -> None:
    assert word in FILLER


@pytest.mark.parametrize("word", ["budget", "roof", "passport", "kitchen", "visa", "quote", "greenhouse"])
def test_subject_nouns_are_not_filler(word: str) -> None:
    assert word not in FILLER


def test_content_words_keep_the_subject_and_drop_the_talk() -> None:
    said = "Honestly I was hoping you'd say the greenhouse quote was about glazing, it means a lot"
    assert content_words(said) == ["greenhouse", "quote", "glazing"]


@pytest.mark.parametrize("noun", ["hearing", "meaning"])
def test_a_gerund_english_uses_as_a_noun_of_its_own_is_content(noun: str) -> None:
    assert noun in content_words(f"The {noun} was long")
