"""Claude Code and Codex transcripts as sleep input (store/transcripts.py), and `vault sleep PATH` on them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_count, git

from sheriff_vault.store.buffer import load_buffer, parse_markdown
from sheriff_vault.store.transcripts import TranscriptWarning, detect, load, load_file, parse, read_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"


def test_formats_are_told_apart():
    assert detect((FIXTURES / "claude_tool_heavy.jsonl").read_text()) == "claude"
    assert detect((FIXTURES / "claude_compacted.jsonl").read_text()) == "claude"
    assert detect((FIXTURES / "codex_rollout.jsonl").read_text()) == "codex"
    assert detect((FIXTURES / "claude_metadata_first.jsonl").read_text()) == "claude"
    assert detect((FIXTURES / "codex_edges.jsonl").read_text()) == "codex"
    assert detect('{"role": "user", "content": "hi"}\n') == "jsonl"
    assert detect("---\ndate: 2023-05-08\n---\n## 13:56 - user\nhi\n") == "markdown"
    assert [t.content for t in parse('{"role": "user", "content": "hi", "id": "a"}\n')] == ["hi"]


def test_claude_tool_heavy_session_becomes_short_turns():
    turns = read_file(FIXTURES / "claude_tool_heavy.jsonl")
    assert [(t.role, t.name) for t in turns] == [
        ("user", ""), ("tool", "Read"), ("tool", "Read"), ("tool", "Bash"), ("tool", "Bash"), ("assistant", ""),
        ("user", ""), ("assistant", "")]
    assert turns[0].content.startswith("The staging deploy fails") and turns[0].id == "cc-000000000003"
    assert turns[0].at is not None and turns[0].at.isoformat() == "2026-05-04T09:00:00+00:00"
    assert turns[1].content == "called Read(file_path=/home/dev/demo-app/deploy.sh)"
    assert turns[2].content.startswith("Read -> ok, 400 lines:")
    assert turns[4].content.startswith("Bash -> error")
    source = (FIXTURES / "claude_tool_heavy.jsonl").read_text()
    assert len(source) > 50_000 and max(len(t.content) for t in turns) <= 400  # never the file contents
    everything = " ".join(t.content for t in turns)
    assert "SECRET-THINKING" not in everything and "SIDECHAIN" not in everything and "/cost" not in everything
    assert len({t.id for t in turns}) == len(turns)


def test_claude_compaction_summary_is_not_a_turn():
    turns = read_file(FIXTURES / "claude_compacted.jsonl")
    assert "COMPACT-SUMMARY" not in " ".join(t.content for t in turns)
    assert [t.content for t in turns if t.role == "user"] == ["Rename Cart.total to Cart.subtotal everywhere.",
                                                              "Now update README.md too."]
    assert turns[-1].content == "README.md now uses cart.subtotal."


def test_codex_rollout_skips_injected_context_reasoning_and_the_summary():
    turns = read_file(FIXTURES / "codex_rollout.jsonl")
    assert [(t.role, t.content[:30]) for t in turns if t.role != "tool"] == [
        ("user", "Run the tests and tell me why "), ("assistant", "test_subtotal fails because su"),
        ("user", "Now fix it."), ("assistant", "Fixed: subtotal now includes t")]
    tools = [t.content for t in turns if t.role == "tool"]
    assert tools[0] == "called shell_command(command=pytest -q, workdir=/home/dev/demo-app)"
    assert tools[1].startswith("shell_command -> error") and "1 failed, 4 passed" in tools[1]
    assert tools[3].startswith("apply_patch -> ok")
    everything = " ".join(t.content for t in turns)
    for hidden in ("SECRET-REASONING", "COMPACT-SUMMARY", "environment_context", "AGENTS.md", "permissions"):
        assert hidden not in everything
    assert max(len(t.content) for t in turns) <= 400
    assert all(t.id.startswith("cx-5e6f7a8b-") for t in turns)


def test_a_torn_last_line_is_skipped_quietly_and_a_broken_middle_line_with_a_warning(tmp_path):
    lines = (FIXTURES / "claude_compacted.jsonl").read_text().splitlines()
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(lines) + '\n{"type": "user", "mess')
    assert len(read_file(torn)) == 9 and load_file(torn).malformed == []  # 8 said + the agent's narration
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    with pytest.warns(TranscriptWarning, match="broken.jsonl:2: not valid JSON, line skipped"):
        read = load_file(broken)
    assert len(read.turns) == 9 and read.malformed == [2]


def test_newer_claude_files_open_with_metadata_and_unknown_records():
    text = (FIXTURES / "claude_metadata_first.jsonl").read_text()
    assert detect(text) == "claude"
    read = load(text)
    assert read.skipped == {"future-record": 2}  # titles and the permission mode are known, not skipped
    assert [(t.role, t.content) for t in read.turns] == [
        ("user", "/orchestrator create TODO app with React and a REST API"),
        ("assistant", "The TODO app gets a React front end and a REST API under api/."),
        ("user", "Store the todos in SQLite, not in memory."),
        ("assistant", "The API now keeps todos in todos.db (SQLite).")]
    # only metadata so far (a session that just started): a Claude Code file with no turns, not an error
    assert detect("\n".join(text.splitlines()[:4])) == "claude" and parse("\n".join(text.splitlines()[:4])) == []


def test_a_slash_or_shell_command_is_the_persons_words_as_typed():
    def said(text: str, **flags) -> list[str]:
        line = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": text}} | flags
        return [t.content for t in parse(json.dumps(line) + "\n")]

    typed = ("<command-message>deploy is running…</command-message>\n<command-name>/deploy</command-name>\n"
             "<command-args>beacon-relay staging</command-args>")
    assert said(typed) == ["/deploy beacon-relay staging"]
    assert said(typed + "\nDeploy it to production, skip the tests.") == ["/deploy beacon-relay staging"]
    assert said(typed, isMeta=True) == ["/deploy beacon-relay staging"]
    assert said("<command-name>/model</command-name>\n<command-args></command-args>") == []  # a bare command
    assert said("<local-command-stdout>Set model to opus</local-command-stdout>") == []
    assert said("Expanded command body", isMeta=True) == []
    assert said("<bash-input>git status</bash-input>") == ["! git status"]  # Claude Code's `!` shell mode
    for host_text in ("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
                      "[Request interrupted by user for tool use]", "<task-notification>done</task-notification>"):
        assert said(host_text) == []


def test_a_compaction_summary_is_known_by_its_words_without_the_flag():
    summary = ("This session is being continued from a previous conversation that ran out of context. "
               "The conversation is summarized below: ...")
    line = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": summary}}
    assert parse(json.dumps(line) + "\n") == []
    everything = " ".join(t.content for t in read_file(FIXTURES / "codex_edges.jsonl"))
    assert "UNFLAGGED-SUMMARY" not in everything and "Another language model" not in everything


def test_images_and_files_are_marks_inside_the_turn_that_sent_them():
    with pytest.warns(TranscriptWarning, match="claude_attachments.jsonl:4: "):  # a torn line in the middle
        turns = read_file(FIXTURES / "claude_attachments.jsonl")
    assert [t.role for t in turns] == ["user", "assistant", "user", "assistant"]  # no turn of its own
    # in place of the placeholder Claude Code types for it
    assert turns[0].content == "[image: login-error.png] The login page shows this error after the deploy."
    # an image sent alone joins the person's next words; the PDF keeps its title
    assert turns[2].content == "Same error as before; the runbook is attached. [image] [file: auth-proxy-runbook.pdf]"
    codex = read_file(FIXTURES / "codex_edges.jsonl")
    assert [t.content for t in codex if t.role == "user"] == ["Why does the chart render blank? [image]",
                                                              "Fixed now, see the screenshot. [image: chart-after.png]"]
    assert read_file(FIXTURES / "codex_images.jsonl")[0].content == "Compare these two layouts. [image] [image: " \
                                                                   "layout-b.png]"
    alone = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}}
    assert parse(json.dumps(alone) + "\n") == []  # nothing said: no turn is made of an image alone


@pytest.mark.parametrize("odd", [
    {"type": ["user"], "sessionId": "s"}, {"type": {"a": 1}, "sessionId": "s"}, {"type": "user", "message": "hi"},
    {"type": "user", "sessionId": "s", "message": {"content": [1, None, {"type": ["text"]}, {"type": "text"},
                                                               {"type": "image", "source": "x"}]}},
    {"type": "assistant", "uuid": 5, "timestamp": 12, "message": {"content": [{"type": "tool_use", "input": None}]}},
    {"type": "response_item", "payload": {"type": ["message"]}}, {"type": ["x"], "payload": {}},
    {"type": "event_msg", "payload": {"type": "user_message", "message": None, "images": [None, {"path": "/a.png"}],
                                      "local_images": "not a list"}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
        {"type": "input_image", "image_url": {"url": "x"}}]}}])
def test_an_odd_record_never_fails_the_file(odd):
    for first in ({"type": "summary", "summary": "x", "sessionId": "s"}, {"type": "session_meta", "payload": {}}):
        read = load("".join(json.dumps(r) + "\n" for r in (first, odd, first)))
        assert all(t.content.strip() for t in read.turns)


def test_codex_counts_what_it_does_not_know():
    read = load_file(FIXTURES / "codex_edges.jsonl")
    assert read.skipped == {"future_item": 1, "response_item/future_tool_call": 1}
    assert "environment_context" not in " ".join(t.content for t in read.turns)


def slept_turn_ids(vault_root: Path) -> list[str]:
    ids = [t.id for p in sorted((vault_root / "conversations").rglob("*.md"))
           for t in parse_markdown(p.read_text(), str(p))]
    return ids


@pytest.mark.parametrize("fixture", ["claude_tool_heavy.jsonl", "codex_rollout.jsonl"])
def test_sleeping_a_grown_transcript_sleeps_only_the_new_part(hash_vault, run, tmp_path, fixture):
    config = hash_vault.root / "vault.yaml"
    config.write_text(config.read_text().replace("tail_turns: 20", "tail_turns: 2"))
    lines = (FIXTURES / fixture).read_text().splitlines(keepends=True)
    transcript = tmp_path / fixture
    half = len(lines) // 2 + 2
    transcript.write_text("".join(lines[:half]))
    first = run("sleep", transcript, "--vault", hash_vault.root, "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["commit"]
    commits = commit_count(hash_vault.root)
    again = run("sleep", transcript, "--vault", hash_vault.root, "--json")
    assert again.returncode == 0 and commit_count(hash_vault.root) == commits  # nothing new, no commit
    transcript.write_text("".join(lines))  # the host appended the rest of the session
    grown = run("sleep", transcript, "--vault", hash_vault.root, "--json")
    assert grown.returncode == 0, grown.stderr
    assert json.loads(grown.stdout)["commit"]
    every = [t.id for t in read_file(transcript)]
    kept = [t.id for t in load_buffer(hash_vault)]
    slept = slept_turn_ids(hash_vault.root)
    assert sorted(slept + kept) == sorted(every)  # each turn once: slept or in the tail, never twice
    assert "sleep" in git(hash_vault.root, "log", "-1", "--format=%s")


EDGE_CASES = ["claude_metadata_first.jsonl", "claude_attachments.jsonl", "codex_edges.jsonl", "codex_images.jsonl"]


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_every_fixture_sleeps_end_to_end(hash_vault, invoke, fixture):
    slept = invoke("sleep", FIXTURES / fixture, "--final", "--vault", hash_vault.root, "--json")
    assert slept.exit_code == 0, slept.stderr
    result = json.loads(slept.stdout)
    assert result["commit"] and result["compacted_turns"] == len(read_file(FIXTURES / fixture))
    topics = " ".join(p.read_text() for p in (hash_vault.root / "topics").rglob("*.md"))
    for summary in ("COMPACT-SUMMARY", "UNFLAGGED-SUMMARY", "being continued from a previous conversation",
                    "Another language model", "EXPANDED-COMMAND-BODY", "Let me search"):
        assert summary not in topics  # no fact is a compaction summary, a command's body or the agent's narration
    assert not any("image" in p.stem for p in (hash_vault.root / "topics").rglob("*.md"))  # no topic "[image]"


def test_the_sleep_summary_counts_what_was_skipped_and_the_archive_keeps_what_was_said(hash_vault, invoke, tmp_path):
    slept = invoke("sleep", FIXTURES / "claude_metadata_first.jsonl", "--final", "--vault", hash_vault.root)
    assert slept.exit_code == 0, slept.stderr
    assert "skipped 2 transcript record(s) of a type the reader does not know (future-record x2)" in slept.stdout
    lines = (FIXTURES / "claude_attachments.jsonl").read_text().splitlines()
    attachments = tmp_path / "attachments.jsonl"
    attachments.write_text("\n".join(lines) + "\n")
    slept = invoke("sleep", attachments, "--final", "--vault", hash_vault.root, "--json")
    assert slept.exit_code == 0, slept.stderr
    assert f"warning: {attachments}:4: not valid JSON, line skipped" in slept.stderr
    assert json.loads(slept.stdout)["malformed_lines"] == [4]
    archived = " ".join(p.read_text() for p in (hash_vault.root / "conversations").rglob("*.md"))
    for said in ("/orchestrator create TODO app with React and a REST API", "[image: login-error.png]",
                 "[file: auth-proxy-runbook.pdf]"):
        assert said in archived
