"""Claude Code and Codex transcripts as sleep input (store/transcripts.py), and `vault sleep PATH` on them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_count, git

from sheriff_vault.errors import ConversationFormatError
from sheriff_vault.store.buffer import load_buffer, parse_markdown
from sheriff_vault.store.transcripts import detect, parse, read_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"


def test_formats_are_told_apart():
    assert detect((FIXTURES / "claude_tool_heavy.jsonl").read_text()) == "claude"
    assert detect((FIXTURES / "claude_compacted.jsonl").read_text()) == "claude"
    assert detect((FIXTURES / "codex_rollout.jsonl").read_text()) == "codex"
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


def test_a_torn_last_line_is_skipped_but_a_broken_middle_line_is_an_error(tmp_path):
    lines = (FIXTURES / "claude_compacted.jsonl").read_text().splitlines()
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(lines) + '\n{"type": "user", "mess')
    assert len(read_file(torn)) == 8
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    with pytest.raises(ConversationFormatError, match="broken.jsonl:2"):
        read_file(broken)


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
