"""Review shows what changed in meaning (retrieval/changes.py): a superseded value is one change
with its old value, the value now current, when and the turns; a fact is new, removed, done or
edited; `vault diff` and `vault history` (text and --json) show the same kinds; never `X -> X`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import git, run_vault

from sheriff_vault.retrieval.changes import changes_between, describe
from sheriff_vault.store.topics import Topic

CONV = "(../conversations/2026/02/10/090000-c391.md)"
HEAD = """---
schema_version: 1
id: 3f6c2a8e-9b1d-4c1e-8f7a-2d5e6b7c8d90
name: Party
---

# Party

"""


def items(body: str) -> list:
    return Topic.parse(HEAD + body, Path("topics/party.md"), "topics/party.md").items()


BEFORE = f"""## Facts

- 2026-02-10 — Dana: The party is at Riverside Park. [t1]{CONV}
- 2026-02-10 — Dana: Budget is 400 USD. [t2]{CONV}
- 2026-02-10 — Dana: Cake from the corner bakery. [t3]{CONV}

## Open loops

- [ ] 2026-02-10 — Dana: Book the park shelter. [t4]{CONV}
"""
AFTER = f"""## Facts

- 2026-02-10 — Dana: The party is at Riverside Park. [t1]{CONV}
- 2026-02-17 — Dana: The budget is 500 USD now. [t9]{CONV}
- 2026-02-10 — ~~Dana: Budget is 400 USD.~~ (superseded 2026-02-17) [t2]{CONV}
- 2026-02-17 — Dana: Twelve guests are coming. [t10]{CONV}

## Open loops

- [x] 2026-02-10 — Dana: Book the park shelter. [t4]{CONV}
"""


def test_a_strike_is_one_supersession_with_both_values_and_the_rest_keeps_its_kind():
    changes = changes_between(items(BEFORE), items(AFTER))
    kinds = [c["kind"] for c in changes]
    assert kinds == ["superseded", "new", "removed", "done"]
    struck = changes[0]
    assert struck["item"]["text"] == "Dana: Budget is 400 USD." and struck["when"] == "2026-02-17"
    assert struck["replaced_by"]["text"] == "Dana: The budget is 500 USD now."
    assert changes[1]["item"]["text"] == "Dana: Twelve guests are coming."  # the new value is not "new" too
    assert changes[2]["item"]["text"] == "Dana: Cake from the corner bakery."
    lines = [describe(c) for c in changes]
    assert lines[0] == ("superseded 2026-02-17: 2026-02-10 Dana: Budget is 400 USD. [t2] -> now: 2026-02-17 Dana: "
                        "The budget is 500 USD now. [t9]")
    assert lines[3] == "done: 2026-02-10 [x] Dana: Book the park shelter. [t4]"


def test_a_typo_fixed_is_an_edit_and_a_citation_change_never_reads_x_to_x():
    typo = changes_between(items(BEFORE), items(BEFORE.replace("Riverside Park.", "Riverside Prak.")))
    assert [c["kind"] for c in typo] == ["edited"]
    assert describe(typo[0]).startswith("edited: 2026-02-10 Dana: The party is at Riverside Park. -> ")
    recited = changes_between(items(BEFORE), items(BEFORE.replace("[t3]", "[t3, t5]")))
    assert [describe(c) for c in recited] == [
        "edited: 2026-02-10 Dana: Cake from the corner bakery. (its date or citations changed)"]


def test_the_line_a_strike_names_is_the_value_that_replaced_it():
    """Sleep's mark names the turn that corrected the line: its line is the replacement, though another
    line of that day restates the old one's words more closely."""
    after = AFTER.replace("(superseded 2026-02-17)", "(superseded 2026-02-17 by t10)").replace(
        "Dana: Twelve guests are coming.", "Dana: Make that 450, not 400.").replace(
        "Dana: The budget is 500 USD now.", "Dana: Budget is 500 USD, she said.")
    [struck] = [c for c in changes_between(items(BEFORE), items(after)) if c["kind"] == "superseded"]
    assert struck["replaced_by"]["text"] == "Dana: Make that 450, not 400."
    unnamed = after.replace(" by t10)", ")")
    [guessed] = [c for c in changes_between(items(BEFORE), items(unnamed)) if c["kind"] == "superseded"]
    assert guessed["replaced_by"]["text"] == "Dana: Budget is 500 USD, she said."


def test_a_value_struck_with_no_current_line_says_so():
    alone = AFTER.replace(f"- 2026-02-17 — Dana: The budget is 500 USD now. [t9]{CONV}\n", "")
    only = [c for c in changes_between(items(BEFORE), items(alone)) if c["kind"] == "superseded"]
    assert only[0]["replaced_by"] is None  # "Twelve guests", said that day, is no budget
    assert describe(only[0]).endswith("[t2] (no current line gives the new value)")


@pytest.fixture(scope="module")
def corrected(tmp_path_factory) -> Path:
    """Two real sleeps: a budget said, then corrected two days later."""
    root = tmp_path_factory.mktemp("changes") / "vault"
    assert run_vault("init", root).returncode == 0
    days = [("2027-04-01", ["We are planning Ada's retirement party at the boathouse.", "Lovely. What is the budget?",
                            "The retirement party budget is 400 USD.", "Got it."]),
            ("2027-04-03", ["About Ada's retirement party at the boathouse: the budget is 550 USD now, not 400 USD.",
                            "Updated."])]
    for day, lines in days:
        path = root.parent / f"{day}.jsonl"
        path.write_text("".join(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                                            "at": f"{day}T10:0{i}:00Z", "name": "Jon" if i % 2 == 0 else ""}) + "\n"
                                for i, text in enumerate(lines)))
        out = run_vault("sleep", path, "--final", "--now", f"{day}T20:00:00Z", "--vault", root)
        assert out.returncode == 0, out.stderr
    return root


def no_same_sides(text: str) -> None:
    for left, right in re.findall(r"~ (.+?) -> (.+)", text):
        assert left.strip() != right.strip(), text


def test_history_and_diff_show_the_correction_as_a_supersession(corrected):
    topic = next((corrected / "topics").glob("*retirement*.md")).stem
    history = run_vault("history", topic, "--vault", corrected)
    assert history.returncode == 0, history.stderr
    assert "~ superseded 2027-04-03: 2027-04-01 Jon" in history.stdout and "400 USD" in history.stdout
    assert "-> now: 2027-04-03 Jon: About Ada's retirement party" in history.stdout
    no_same_sides(history.stdout)
    diff = run_vault("diff", "--since", "2027-04-02", "--until", "2027-04-04", "--now", "2027-04-05T00:00:00Z",
                     "--vault", corrected)
    assert diff.returncode == 0, diff.stderr
    assert "~ superseded 2027-04-03:" in diff.stdout and "+ new: 2027-04-03" not in diff.stdout
    no_same_sides(diff.stdout)
    data = json.loads(run_vault("diff", "--since", "2027-04-02", "--until", "2027-04-04", "--now",
                                "2027-04-05T00:00:00Z", "--json", "--vault", corrected).stdout)
    assert [c["kind"] for c in data["topics"][0]["changes"]] == ["superseded"]
    entries = json.loads(run_vault("history", topic, "--json", "--vault", corrected).stdout)
    assert entries[0]["changes"][0]["kind"] == "superseded" and entries[0]["changes"][0]["replaced_by"]
    timeline = run_vault("history", "--vault", corrected).stdout
    assert "Ada's retirement party: superseded 2027-04-03:" in timeline


def test_history_now_shows_the_history_as_it_was_then(corrected):
    topic = next((corrected / "topics").glob("*retirement*.md")).stem
    then = run_vault("history", topic, "--now", "2027-04-02T00:00:00Z", "--json", "--vault", corrected)
    assert then.returncode == 0, then.stderr
    assert [e["date"][:10] for e in json.loads(then.stdout)] == ["2027-04-01"]
    timeline = run_vault("history", "--now", "2027-04-02T00:00:00Z", "--vault", corrected).stdout
    assert "2027-04-01" in timeline and "2027-04-03" not in timeline
    assert len(json.loads(run_vault("history", topic, "--json", "--vault", corrected).stdout)) == 2
    bad = run_vault("history", "--now", "soon-ish", "--vault", corrected)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert git(corrected, "log", "-1", "--format=%cI").startswith("2027-04-03")
