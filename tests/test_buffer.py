"""Conversation input: JSONL and Markdown transcripts, `vault note`, and bad input to `vault sleep`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_count, git

from sheriff_vault.errors import ConversationFormatError
from sheriff_vault.store.buffer import Turn, load_buffer, parse, render_markdown

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def lexical(vault):
    """A vault that never loads the embedding model (sleep and recall still work, lexically)."""
    path = vault.root / "vault.yaml"
    path.write_text(path.read_text().replace("  enabled: true", "  enabled: false"))
    git(vault.root, "commit", "-qam", "lexical only")
    return vault


def test_jsonl_keeps_ids_names_and_times():
    turns = parse('{"role": "user", "content": "hi", "at": "2023-05-08T13:56:00Z", "id": "D1:3", "name": "Caroline"}\n'
                  '{"role": "assistant", "content": "hello"}\n')
    assert turns[0].id == "D1:3" and turns[0].name == "Caroline" and turns[0].speaker == "Caroline"
    assert turns[0].at.isoformat() == "2023-05-08T13:56:00+00:00"
    assert turns[1].at is None and turns[1].speaker == "Assistant"


def test_markdown_transcript_round_trips():
    turns = parse((EXAMPLES / "transcript.md").read_text(), "transcript.md")
    assert [t.role for t in turns] == ["user", "assistant"] * 4
    assert turns[0].name == "Dana" and turns[0].at.isoformat() == "2026-02-24T10:00:00+00:00"
    text = render_markdown(turns, {"id": "x"})
    assert parse(text) == turns


def test_a_turn_that_looks_like_a_heading_stays_one_turn():
    turns = [Turn("user", "see this:\n## 12:00 - user\nnot a turn", None, "t1")]
    turns[0].at = parse('{"role":"user","content":"x","at":"2023-01-01T00:00:00Z"}')[0].at
    assert parse(render_markdown(turns, {})) == turns


@pytest.mark.parametrize("text,line,words", [
    ('{"role": "user", "content": "ok"}\n{"role": "user", "content": \n', 2, "not valid JSON"),
    ('{"role": "wizard", "content": "ok"}\n', 1, "unknown role"),
    ('{"role": "user", "content": 5}\n', 1, "must be text"),
    ('{"role": "user", "text": "hi"}\n', 1, "a turn has no `content` (it has `text`)"),
    ('{"role": "user", "content": "x", "at": "soon"}\n', 1, "not an ISO-8601 time"),
    ("---\ndate: 2023-05-08\n---\nhello\n## 13:00 - user\nhi\n", 4, "before the first"),
    ("---\ndate: 2023-05-08\n---\n## 13:00 - wizard\nhi\n", 4, "unknown role"),
    ("## 13:00 - user\nhi\n", 1, "no date"),
])
def test_bad_input_names_the_line(text: str, line: int, words: str):
    with pytest.raises(ConversationFormatError) as err:
        parse(text, "in.txt")
    assert words in str(err.value) and f"in.txt:{line}:" in str(err.value)


def test_malformed_line_writes_nothing(lexical, run, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "ok"}\n{broken\n')
    before = commit_count(lexical.root)
    out = run("sleep", bad, "--vault", lexical.root)
    assert out.returncode == 1
    assert "bad.jsonl:2: not valid JSON" in out.stderr and "Traceback" not in out.stderr
    assert commit_count(lexical.root) == before
    assert load_buffer(lexical) == []


def test_empty_buffer_and_short_buffer_make_no_commit(lexical, run, tmp_path):
    before = commit_count(lexical.root)
    empty = run("sleep", "--vault", lexical.root)
    assert empty.returncode == 0 and "buffer is empty" in empty.stdout
    run("note", "user", "just one thing", "--vault", lexical.root)
    short = run("sleep", "--vault", lexical.root)
    assert short.returncode == 0 and "nothing to compact" in short.stdout
    assert commit_count(lexical.root) == before


def test_turns_without_times_use_now_and_say_so(lexical, run, tmp_path):
    convo = tmp_path / "c.jsonl"
    convo.write_text("".join(json.dumps({"role": "user", "content": f"Fact number {i} about the zebra project."}) + "\n"
                             for i in range(25)))
    out = run("sleep", convo, "--now", "2026-03-01T12:00:00Z", "--vault", lexical.root)
    assert out.returncode == 0, out.stderr
    assert "25 turn(s) had no timestamp; used 2026-03-01T12:00:00Z" in out.stderr
    assert [t.id for t in load_buffer(lexical)] == [f"t{i}" for i in range(6, 26)]


def test_note_appends_with_continuing_ids(lexical, run):
    for text in ("first", "second"):
        assert run("note", "user", text, "--vault", lexical.root).returncode == 0
    out = run("note", "assistant", "third", "--id", "custom-1", "--json", "--vault", lexical.root)
    assert json.loads(out.stdout)[0]["id"] == "custom-1"
    assert [t.id for t in load_buffer(lexical)] == ["t1", "t2", "custom-1"]
    again = run("note", "assistant", "third", "--id", "custom-1", "--vault", lexical.root)
    assert "already in the buffer" in again.stdout
    other = run("note", "assistant", "third again", "--id", "custom-1", "--vault", lexical.root)
    assert other.stdout == "noted t3 (id custom-1 belongs to another turn in the buffer)\n"
    assert [t.content for t in load_buffer(lexical)] == ["first", "second", "third", "third again"]


def test_a_5mb_turn_is_refused_and_a_big_one_is_slept(lexical, run, tmp_path):
    huge = tmp_path / "huge.jsonl"
    huge.write_text(json.dumps({"role": "user", "content": "x" * (9 * 1024 * 1024)}) + "\n")
    out = run("sleep", huge, "--vault", lexical.root)
    assert out.returncode == 1 and "over the 8 MB limit" in out.stderr
    big = tmp_path / "big.jsonl"
    words = " ".join(f"word{i}" for i in range(700_000))
    rows = [{"role": "user", "content": f"Notes about the glacier survey. {words}."}]
    rows += [{"role": "user", "content": f"Short turn {i}."} for i in range(25)]
    big.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert big.stat().st_size > 5 * 1024 * 1024
    out = run("sleep", big, "--vault", lexical.root, timeout=600)
    assert out.returncode == 0, out.stderr[-500:]
    archive = next((lexical.root / "conversations").rglob("*.md"))
    assert "glacier survey" in archive.read_text()


def test_dry_run_changes_nothing(lexical, run):
    before = commit_count(lexical.root)
    out = run("sleep", EXAMPLES / "conversation.jsonl", "--dry-run", "--json", "--now", "2026-02-20T03:31:00Z",
              "--vault", lexical.root)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["dry_run"] and data["compacted_turns"] == 22 and data["created"]
    assert commit_count(lexical.root) == before
    assert not list((lexical.root / "topics").glob("*.md"))
    assert load_buffer(lexical) == []
