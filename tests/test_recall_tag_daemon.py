"""`vault recall --tag` through a running watch daemon: the daemon filters by tag itself (protocol 5),
and a daemon of an older protocol, which would ignore the tag, is not asked a tagged recall."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import run_vault, watching

from sheriff_vault.daemon import rpc
from sheriff_vault.store.vault import Vault


def tagged_vault(hash_vault: Vault) -> Vault:
    root = hash_vault.root
    for name, fact, tags in (("Garden party", "The garden party is in June.", ["--tag", "family"]),
                             ("Office party", "The office party is in December.", ["--tag", "work/events"])):
        made = run_vault("topic", "new", name, *tags, "--fact", fact, "--vault", root)
        assert made.returncode == 0, made.stderr
    return hash_vault


def recalled(root: Path, *extra: str) -> tuple[list[str], dict]:
    out = run_vault("recall", "when is the party", "--json", *extra, "--vault", root)
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout)
    return [t["path"] for t in reply["topics"]], reply


def test_the_daemon_answers_a_tagged_recall(hash_vault):
    root = tagged_vault(hash_vault).root
    with watching(hash_vault):
        assert rpc.read_state(hash_vault)["protocol"] >= rpc.TAG_SINCE
        paths, reply = recalled(root, "--tag", "work")  # `work` holds `work/events`
        assert paths == ["topics/office-party.md"] and reply["via"] == "daemon"
        paths, reply = recalled(root, "--tag", "family")
        assert paths == ["topics/garden-party.md"] and reply["via"] == "daemon"
        paths, reply = recalled(root)
        assert set(paths) == {"topics/garden-party.md", "topics/office-party.md"} and reply["via"] == "daemon"
        out = run_vault("recall", "when is the party", "--tag", "nothing-here", "--vault", root)
        assert out.returncode == 0 and "no topic has the tag 'nothing-here'" in out.stderr
        # the same request an agent sends over MCP's recall tool, through the daemon too
        from sheriff_vault.agent.tools import Toolbox

        found = Toolbox(Vault(root), caller="test").call("recall", {"query": "when is the party", "tag": "family"})
        assert [t["path"] for t in found["topics"]] == ["topics/garden-party.md"]


def test_a_daemon_older_than_the_tag_request_is_not_asked_a_tagged_recall(hash_vault):
    root = tagged_vault(hash_vault).root
    with watching(hash_vault):
        state_file = hash_vault.cache / rpc.STATE_FILE
        written = state_file.read_text()
        state_file.write_text(json.dumps(json.loads(written) | {"protocol": rpc.TAG_SINCE - 1}))
        try:
            paths, reply = recalled(root, "--tag", "work")
            assert paths == ["topics/office-party.md"] and reply["via"] == "process"
            _, reply = recalled(root)  # an untagged recall still goes to that daemon
            assert reply["via"] == "daemon"
        finally:
            state_file.write_text(written)
