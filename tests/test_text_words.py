"""The word classes hold on examples: a feeling or a word of talk is never a key word of a search,
nor a word sleep counts as said; a subject's noun always is; a class of nouns holds their plurals."""
from __future__ import annotations

import pytest

from sheriff_vault.compaction.parts import said_words
from sheriff_vault.search_words import FILLER, key_words
from sheriff_vault.text import content_words, finite_forms, names_money, plural, sentences, spoken_numbers, stem


@pytest.mark.parametrize(("noun", "many"), [("memory", "memories"), ("day", "days"), ("box", "boxes"),
                                            ("church", "churches"), ("moment", "moments")])
def test_a_noun_has_its_regular_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize(("verb", "forms"), [("cost", {"cost", "costs", "costed"}), ("carry", {"carries", "carried"}),
                                              ("go", {"go", "goes", "went", "gone"}), ("say", {"says", "said"}),
                                              ("be", {"is", "are", "was", "were", "been"}), ("have", {"has", "had"})])
def test_a_verb_has_its_finite_forms_irregular_ones_from_the_lemmatizer(verb: str, forms: set[str]) -> None:
    assert forms <= finite_forms(verb)


@pytest.mark.parametrize(("verb", "not_a_form"), [("spend", "spending"), ("go", "going"), ("go", "gos"),
                                                  ("say", "sayed"), ("be", "bes"), ("have", "haves")])
def test_a_gerund_or_a_regular_form_of_an_irregular_verb_is_no_finite_form(verb: str, not_a_form: str) -> None:
    assert not_a_form not in finite_forms(verb)


def test_without_the_pipeline_package_a_verb_has_no_irregular_forms() -> None:
    from sheriff_vault.nlp import _irregular_verbs

    assert _irregular_verbs("no_such_pipeline_package") == {}
    assert _irregular_verbs()["go"] >= {"went", "gone"}


@pytest.mark.parametrize(("said", "key"), [("the guest count will be 40", "guest_count"),
                                           ("the tanks cost 4,200 EUR", "tanks"),
                                           ("the rent went up to 1,340 EUR", "rent"),
                                           ("the spending is 400 EUR", "spending"), ("they earned 900 EUR", "amount")])
def test_a_verb_between_an_amount_and_its_subject_is_passed_by_in_any_finite_form(said: str, key: str) -> None:
    from sheriff_vault.quantities import quantities_in

    assert [q.key for q in quantities_in(said)] == [key]


@pytest.mark.parametrize("word", ["awesome", "felt", "thanks", "sharing", "memories"])
def test_feeling_and_talk_are_filler(word: str) -> None:
    assert word in FILLER


@pytest.mark.parametrize("word", ["budget", "roof", "passport", "kitchen", "visa", "quote", "greenhouse"])
def test_subject_nouns_are_not_filler(word: str) -> None:
    assert word not in FILLER


def test_key_words_keep_the_subject_and_drop_the_talk() -> None:
    said = "Honestly I was hoping you'd say the greenhouse quote was about glazing, it means a lot"
    assert key_words(said) == ["greenhouse", "quote", "glazing"]


@pytest.mark.parametrize("said", ["Thanks so much, have a lovely weekend!", "Wow, that's great news today",
                                  "Honestly it was a pretty big day"])
def test_sleep_hears_nothing_said_in_pleasantries(said: str) -> None:
    assert said_words(said) in ([], ["news"])


def test_sleep_hears_the_subject_and_what_happened_to_it() -> None:
    assert said_words("Thanks! The new greenhouse quote arrived this week") == ["greenhouse", "quote", "arrived"]


@pytest.mark.parametrize("noun", ["hearing", "meaning"])
def test_a_gerund_english_uses_as_a_noun_of_its_own_is_content(noun: str) -> None:
    assert noun in content_words(f"The {noun} was long")


def test_a_capitalised_word_of_talk_is_no_name() -> None:
    from sheriff_vault.compaction.parts import proper_names

    assert proper_names("Thanks Priya, the Harbour Cafe said yes. Wow Congrats") == ["Priya", "Harbour Cafe"]


@pytest.mark.parametrize(("said", "key"), [("The right one is 86 cm.", "length"),
                                           ("A new quote of 3,200 euro came in.", "quote")])
def test_a_word_of_talk_keys_no_quantity(said: str, key: str) -> None:
    """"right" and "new" judge the thing measured; the quantity is keyed by what it measures."""
    from sheriff_vault.compaction.english.talk import is_talk
    from sheriff_vault.quantities import quantities_in

    assert [q.key for q in quantities_in(said, is_talk)] == [key]


@pytest.mark.parametrize(("word", "only"), [("great", True), ("new", True), ("weekend", False), ("day", False),
                                            ("wooden", False)])
def test_before_a_noun_praise_describes_and_a_time_classifies(word: str, only: bool) -> None:
    from sheriff_vault.compaction.english.talk import describes_only

    assert describes_only(word) is only


@pytest.mark.parametrize(("text", "split"), [
    ("I saw Dr. Okafor today. She said rest.", ["I saw Dr. Okafor today.", "She said rest."]),
    ("The lease is with Harbour Ltd. and runs a year.", ["The lease is with Harbour Ltd. and runs a year."]),
    ("Bring tools, e.g. a drill. Then start.", ["Bring tools, e.g. a drill.", "Then start."]),
    ("It moved to Sept. The venue agreed.", ["It moved to Sept. The venue agreed."]),
    ("Ask Sr. Ruiz first. He owns it.", ["Ask Sr. Ruiz first.", "He owns it."]),
    # counter-examples: a time of day and a plain word end their sentence
    ("We start at 9 a.m. Bring lunch.", ["We start at 9 a.m.", "Bring lunch."]),
    ("I will miss. Next time.", ["I will miss.", "Next time."]),
])
def test_a_sentence_goes_on_after_an_abbreviation(text: str, split: list[str]) -> None:
    """The abbreviations are spaCy's English table, read without importing spaCy."""
    assert sentences(text) == split


@pytest.mark.parametrize(("text", "split"), [
    # a pasted message is read without its quote marks, and the speaker's own line after it is a
    # sentence of its own, not the end of the quote's last one; the name that signs it is no sentence
    ("My sister wrote:\n> Can't make Sunday, sorry. Jo\nFine, I'll move it.",
     ["My sister wrote: Can't make Sunday, sorry.", "Fine, I'll move it."]),
    ("Got this:\n> The van is ready. Call us. Kerr Motors, Leith\nGreat news.",
     ["Got this: The van is ready.", "Call us.", "Great news."]),
    ("Mum wrote:\n> Train at 6, don't be late.\n> Mum\nOk.", ["Mum wrote: Train at 6, don't be late.", "Ok."]),
    # a quote of one line that is only a name is what was said, not a signature
    ("Where to?\n> Lisbon\nShe chose it.", ["Where to?", "Lisbon", "She chose it."]),
    # a quote's lines run on as one paragraph, as the message was written
    ("Draft:\n> Dear Sam,\n> please hold two rooms for the 4th.\nOk?",
     ["Draft: Dear Sam, please hold two rooms for the 4th.", "Ok?"]),
    # a last sentence that is a name with a verb is no signature
    ("He replied:\n> Fine. Anna agrees.\nGood.", ["He replied: Fine.", "Anna agrees.", "Good."]),
    # counter-examples: a ">" inside a line quotes nothing
    ("Speed went from 40 -> 60 this week\nand held there.", ["Speed went from 40 -> 60 this week and held there."]),
])
def test_a_quoted_message_is_read_as_a_paragraph_of_its_own(text: str, split: list[str]) -> None:
    assert sentences(text) == split


@pytest.mark.parametrize("forms", [("painted", "paints", "painting", "Paint"), ("parties", "party"),
                                   ("renovation", "renovations"), ("booked", "booking", "books")])
def test_inflections_of_a_word_share_its_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(f) for f in forms}) == 1


@pytest.mark.parametrize("a, b", [("party", "part"), ("bus", "busy"), ("painting", "pain")])
def test_different_words_keep_different_stems(a: str, b: str) -> None:
    assert stem(a) != stem(b)


@pytest.mark.parametrize("word", ["kroner", "Dollars", "euro", "rupees", "zloty", "bucks", "NOK", "eur", "CUP"])
def test_a_currency_is_named_by_its_english_name_or_its_code(word: str) -> None:
    assert names_money(word)


@pytest.mark.parametrize("word", ["cup", "all", "try", "marks", "won", "guests", "minutes", "km"])
def test_an_everyday_word_in_lower_case_or_another_noun_names_no_money(word: str) -> None:
    assert not names_money(word)


@pytest.mark.parametrize(("said", "numbers"), [
    ("seventy one of them came", [("seventy one", 71)]),
    ("they want a hundred up front", [("a hundred", 100)]),
    ("sixteen hundred for the lot", [("sixteen hundred", 1600)]),
    ("three hundred and forty pages", [("three hundred and forty", 340)]),
    ("thirty-six runners", [("thirty-six", 36)]),
    ("two million three thousand and nine", [("two million three thousand and nine", 2003009)]),
    ("a Ninety-minute class", [("Ninety", 90)]),
    # counter-examples: numbers said side by side are each their own, and a bare scale is no number
    ("one or two tickets", [("one", 1), ("two", 2)]),
    ("four two-day passes", [("four", 4), ("two", 2)]),
    ("built in nineteen eighty", [("nineteen", 19), ("eighty", 80)]),
    ("five, six at most", [("five", 5), ("six", 6)]),
    ("hundreds of emails and thousands of calls", []),
    ("a cat and a dog, someone said", []),
])
def test_a_number_said_in_words_is_read_as_people_say_it(said: str, numbers: list[tuple[str, int]]) -> None:
    assert [(said[a:b], value) for a, b, value in spoken_numbers(said)] == numbers
