"""A session's last sleep leaves no tail: `vault sleep --final` (in the command's process and in
the daemon), the MCP `sleep` tool with `final: true` and the SessionEnd hook compact every turn;
a mid-session sleep keeps `sleep.tail_turns` turns, which the agent still holds in context."""
from __future__ import annotations

import json

from conftest import run_vault, watching
from test_mcp import run_session

from sheriff_vault.store.buffer import load_buffer

TURNS = [{"role": "user" if i % 2 == 0 else "assistant", "id": f"t{i + 1}", "at": f"2027-05-01T10:{i:02d}:00Z",
          "content": text} for i, text in enumerate(
    ["The shed roof needs new felt before the autumn rain.", "Felt for the shed roof, noted.",
     "The felt costs 85 EUR a roll and we need two rolls.", "Two rolls at 85 EUR each.",
     "My brother Tomas will help on Saturday.", "Tomas helps on Saturday, good.",
     "We also need roofing nails, galvanised ones.", "Galvanised nails, yes.",
     "I will buy everything at the builders' yard on Friday.", "Friday at the builders' yard then."] * 3)]


def transcript(tmp_path) -> str:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(t | {"id": f"{t['id']}-{n}"}) + "\n" for n, t in enumerate(TURNS)))
    return str(path)


def test_a_final_sleep_leaves_an_empty_buffer_and_a_mid_session_sleep_the_tail(hash_vault, tmp_path):
    mid = run_vault("sleep", transcript(tmp_path), "--json", "--vault", hash_vault.root)
    assert mid.returncode == 0, mid.stderr
    assert json.loads(mid.stdout)["kept_turns"] == 20 and len(load_buffer(hash_vault)) == 20
    final = run_vault("sleep", "--final", "--json", "--vault", hash_vault.root)
    assert final.returncode == 0, final.stderr
    assert json.loads(final.stdout)["compacted_turns"] == 20 and load_buffer(hash_vault) == []
    archived = "".join(p.read_text() for p in (hash_vault.root / "conversations").rglob("*.md"))
    assert archived.count("The shed roof needs new felt") == 3


def test_a_final_sleep_in_the_daemon_leaves_an_empty_buffer(hash_vault, tmp_path):
    with watching(hash_vault):
        out = run_vault("sleep", transcript(tmp_path), "--final", "--json", "--vault", hash_vault.root)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["kept_turns"] == 0 and load_buffer(hash_vault) == []


def test_the_mcp_sleep_tool_with_final_compacts_every_turn(hash_vault):
    async def body(s):
        for text in ("The gate code is 4412.", "Noted, gate code 4412.", "The bins go out on Tuesday."):
            await s.call_tool("note", {"role": "user", "text": text})
        return await s.call_tool("sleep", {"final": True})

    slept = run_session(hash_vault.root, body)
    assert not slept.is_error and slept.structured_content["kept_turns"] == 0
    assert load_buffer(hash_vault) == []
