"""The LoCoMo harness keeps working: a small conversation in LoCoMo's format, run end to end."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo_harness import cited_ids, date_spellings, has_date, plain_date, run

pytestmark = pytest.mark.slow
DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo"


def tiny_conversation() -> dict:
    a, b = "Ava", "Ben"
    s1 = [(a, "Hi Ben! I adopted a greyhound named Pixel yesterday."), (b, "No way! What's Pixel like?"),
          (a, "Pixel is shy but loves long walks by the harbour."), (b, "I started a pottery class last week."),
          (a, "Pottery sounds relaxing, what are you making?"), (b, "A blue tea bowl for my mother.")]
    s1 += [(a if i % 2 else b, f"Also, the community garden plot number {i} got {i + 2} new tomato plants.")
           for i in range(10)]
    s2 = [(b, "Ava! I finished the blue tea bowl and my mother loved it."), (a, "Lovely! Pixel learned to sit."),
          (b, "My pottery teacher says I should try a kiln firing next month."), (a, "Pixel and I hiked Mount Tam.")]
    s2 += [(b if i % 2 else a, f"The book club read chapter {i} of the lighthouse novel this week.") for i in range(12)]
    conv = {"speaker_a": a, "speaker_b": b,
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_2_date_time": "10:00 am on 25 May, 2023",
            "session_1": [{"speaker": s, "dia_id": f"D1:{i + 1}", "text": t} for i, (s, t) in enumerate(s1)],
            "session_2": [{"speaker": s, "dia_id": f"D2:{i + 1}", "text": t} for i, (s, t) in enumerate(s2)],
            "qa": [{"question": "When did Ava adopt Pixel?", "answer": "7 May 2023",
                    "evidence": ["D1:1"], "category": 2},
                   {"question": "What did Ben make in his pottery class?", "answer": "a blue tea bowl",
                    "evidence": ["D1:6", "D2:1"], "category": 1},
                   {"question": "What is Pixel like?", "answer": "shy, loves walks",
                    "evidence": ["D1:3"], "category": 4},
                   {"question": "Is this adversarial?", "answer": "n/a", "evidence": ["D1:2"], "category": 5}]}
    return conv


def test_harness_runs_end_to_end_on_a_small_conversation(tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(tiny_conversation()))
    report = run(folder, work_dir=tmp_path / "work", progress=lambda m: None)
    vault = report["methods"]["vault"]
    assert set(report["methods"]) == {"vault", "bm25", "dense", "fusion"}
    conv = report["conversations"][0]
    assert conv["questions"] == 3 and conv["sessions"] == 2 and conv["commits"] >= 1
    assert conv["topics"] >= 1 and conv["facts"] >= 1
    for method in report["methods"].values():
        for budget in ("1000", "2000", "4000"):
            assert 0.0 <= method["recall"][budget]["overall"] <= 1.0
    assert vault["temporal_questions"] == 1
    assert vault["latency_ms"]["p50"] > 0


@pytest.mark.skipif(not DEV.is_dir(), reason="the shared LoCoMo dev set is not next to this checkout")
def test_harness_on_a_slice_of_the_dev_set(tmp_path: Path):
    folder = tmp_path / "dev"
    folder.mkdir()
    source = sorted(DEV.glob("*.json"))[0]
    (folder / source.name).write_text(source.read_text())
    report = run(folder, limit_sessions=3, limit_questions=8, work_dir=tmp_path / "work", progress=lambda m: None)
    assert report["conversations"][0]["sessions"] == 3
    assert report["methods"]["vault"]["recall"]["2000"]["overall"] >= 0.0


def test_scoring_helpers():
    assert cited_ids("- fact [D1:3, D1:5]\n- other [t2]") == {"D1:3", "D1:5", "t2"}
    assert plain_date("7 May 2023") == ("day", 2023, 5, 7)
    assert plain_date("January 5, 2024") == ("day", 2024, 1, 5)
    assert plain_date("May, 2023") == ("month", 2023, 5, None)
    assert plain_date(2022) == ("year", 2022, None, None)
    assert plain_date("The week before 9 June 2023") is None
    assert len(date_spellings("day", 2023, 5, 7)) == 3
    assert has_date("went on 7 May, 2023!", ("day", 2023, 5, 7))
    assert has_date("(2023-05-07)", ("day", 2023, 5, 7))
    assert not has_date("17 May 2023", ("day", 2023, 5, 7))
    assert has_date("- 2023-02-08 Gina: just teamed up", ("month", 2023, 2, None))  # a day inside the month
    assert has_date("on 8 February 2023", ("month", 2023, 2, None))
    assert not has_date("2023-12-08", ("month", 2023, 2, None)) and not has_date("2023-02", ("month", 2022, 2, None))
