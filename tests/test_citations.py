"""Citations pinned to what git stored: `conversations/...md#t12-t14@<sha>` parses (alone and as a
fact's link), reads the turns from that commit or blob so they never drift when the archive is
edited later, and sleep pins them when `sleep.pin_citations` is on. Real git, real subprocesses."""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from conftest import git, run_vault, use_hash_embedder

from sheriff_vault.compaction.compact import sleep
from sheriff_vault.errors import CitationError
from sheriff_vault.store.buffer import Turn
from sheriff_vault.store.citations import blob_id, parse_ref
from sheriff_vault.store.items import Citation, parse_item
from sheriff_vault.store.vault import Vault, init_vault

CONV = "conversations/2026/02/10/090000-c391.md"


@pytest.mark.parametrize(("ref", "file", "turns", "commit"), [
    (f"{CONV}#t12-t14@1A2B3C4", CONV, ("t12-t14",), "1a2b3c4"),
    (f"{CONV}#t12,t14@1a2b3c4d5e6f", CONV, ("t12", "t14"), "1a2b3c4d5e6f"),
    (f"../{CONV}#t12..t14", CONV, ("t12..t14",), ""),
    (f"{CONV}#D1:3", CONV, ("D1:3",), ""),
    (f"{CONV}@1a2b3c4", CONV, (), "1a2b3c4"),
    (CONV, CONV, (), ""),
])
def test_a_citation_string_parses(ref, file, turns, commit):
    cite = parse_ref(ref)
    assert (cite.file, cite.turns, cite.commit) == (file, turns, commit)
    assert parse_ref(cite.ref) == cite  # the string form reads back the same


@pytest.mark.parametrize("ref", ["topics/party.md#t1", "conversations/x.txt#t1", "", "#t1@abc1234"])
def test_what_is_not_a_citation_says_how_to_write_one(ref):
    with pytest.raises(CitationError) as err:
        parse_ref(ref)
    assert "does not name an archived conversation" in str(err.value) and "#t12-t14@1a2b3c4" in err.value.hint


def test_a_fact_line_keeps_its_pin_and_its_turn_ids():
    line = f"- 2026-02-10 — User: The party is on Saturday. [t2, t3](../{CONV}#t2,t3@1a2b3c4)"
    item = parse_item(line, "fact")
    assert item is not None and item.text == "User: The party is on Saturday."
    assert item.citations == (Citation(CONV, ("t2", "t3"), "1a2b3c4"),) and item.turn_ids == ["t2", "t3"]
    assert item.render() == line
    plain = f"- 2026-02-10 — User: The party is on Saturday. [t2](../{CONV})"
    assert parse_item(plain, "fact").render() == plain  # today's format is unchanged
    assert parse_item(plain, "fact").citations[0].to_json() == {"file": CONV, "turns": ["t2"]}


def turns(prefix: str, stamp: str, lines: list[str]) -> list[Turn]:
    start = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return [Turn("user", text, start + dt.timedelta(minutes=i), f"{prefix}{i}")
            for i, text in enumerate([*lines, "ok", "bye"], 1)]


def slept_vault(tmp_path: Path, pin: bool) -> tuple[Vault, str]:
    vault = use_hash_embedder(init_vault(tmp_path / "vault").vault)
    if pin:
        cfg = vault.root / "vault.yaml"
        cfg.write_text(cfg.read_text().replace("pin_citations: false", "pin_citations: true"))
        vault = Vault(vault.root)
    git(vault.root, "commit", "-qam", "settings")
    vault.config.sleep.tail_turns = 2
    result = sleep(vault, turns("a", "2026-02-10T09:00:00Z", [
        "Caroline's birthday party is at Riverside Park on Saturday.",
        "The party budget is 400 USD.", "Melanie bakes the cake."]), now=dt.datetime(2026, 2, 10, 10, tzinfo=dt.UTC))
    assert result.commit
    return vault, result.conversation


def fact_lines(vault: Vault) -> list[str]:
    return [line for p in (vault.root / "topics").glob("*.md") for line in p.read_text().splitlines()
            if "](../conversations/" in line]


def edit_archive(vault: Vault, conv: str) -> None:
    """A person rewrites what was said in the archive, and commits it."""
    path = vault.root / conv
    path.write_text(path.read_text().replace("400 USD", "900 USD"))
    git(vault.root, "commit", "-qam", "edit the archive")


def test_a_pinned_citation_reads_the_commit_it_names_and_never_drifts(tmp_path: Path):
    vault, conv = slept_vault(tmp_path, pin=False)
    root = vault.root
    assert all(re.search(r"\[a\d(, a\d)*\]\(\.\./conversations/[^#)]+\.md\)$", line) for line in fact_lines(vault))
    pinned = run_vault("cite", f"{conv}#a2", "--pin", cwd=root)
    assert pinned.returncode == 0, pinned.stderr
    ref = pinned.stdout.strip()
    short = git(root, "rev-parse", "--short", "HEAD").strip()
    assert ref == f"{conv}#a2@{short}"
    edit_archive(vault, conv)

    then = json.loads(run_vault("cite", ref, "--json", cwd=root).stdout)
    assert then["version"].startswith(f"commit {short}") and [t["id"] for t in then["turns"]] == ["a2"]
    assert then["turns"][0]["content"] == "The party budget is 400 USD."
    now = json.loads(run_vault("cite", f"{conv}#a2", "--json", cwd=root).stdout)
    assert now["version"] == "working tree" and now["turns"][0]["content"] == "The party budget is 900 USD."

    span = json.loads(run_vault("cite", f"{conv}#a1-a3@{short}", "--json", cwd=root).stdout)
    assert [t["id"] for t in span["turns"]] == ["a1", "a2", "a3"]
    text = run_vault("cite", f"{conv}#a1..a2@{short}", cwd=root).stdout
    assert text.startswith(f"{conv}#a1..a2@{short}  (commit ") and "[a2] 2026-02-10 09:02 user\n" in text

    missing = run_vault("cite", f"{conv}#a2,zz9@{short}", cwd=root)
    assert missing.returncode == 1 and "not in that version: zz9" in missing.stdout
    unknown = run_vault("cite", f"{conv}#a2@deadbeef", cwd=root)
    assert unknown.returncode != 0
    assert "deadbeef is not a commit or file of this vault's git history" in unknown.stderr
    before = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    too_early = run_vault("cite", f"{conv}#a2", "--pin", before, cwd=root)
    assert too_early.returncode != 0 and f"commit {before[:8]} has no file {conv}" in too_early.stderr


def test_sleep_pins_citations_to_the_archived_blob_when_asked(tmp_path: Path):
    vault, conv = slept_vault(tmp_path, pin=True)
    root = vault.root
    blob = blob_id((root / conv).read_bytes())
    assert git(root, "rev-parse", f"HEAD:{conv}").strip() == blob  # the id git gave the archive
    lines = fact_lines(vault)
    assert lines and all(line.endswith(f"@{blob[:12]})") for line in lines)
    budget = next(line for line in lines if "400 USD" in line)
    assert re.search(r" \[a2\]\(\.\./conversations/.+\.md#a2@[0-9a-f]{12}\)$", budget)  # [a2] as before
    edit_archive(vault, conv)
    ref = parse_item(budget.strip(), "fact").citations[0].ref
    cited = json.loads(run_vault("cite", ref, "--json", cwd=root).stdout)
    assert cited["version"] == f"blob {blob[:12]}" and cited["turns"][0]["content"] == "The party budget is 400 USD."
    doctor = run_vault("doctor", cwd=root)
    assert doctor.returncode == 0, doctor.stdout


def test_doctor_names_a_pin_git_does_not_have(tmp_path: Path):
    vault, conv = slept_vault(tmp_path, pin=False)
    path = next(p for p in (vault.root / "topics").glob("*.md") if "400 USD" in p.read_text())
    path.write_text(re.sub(r"(\]\(\.\./conversations/[^)#]+\.md)\)", r"\1#a2@0badc0de)", path.read_text()))
    out = run_vault("doctor", cwd=vault.root)
    assert out.returncode == 1
    assert re.search(rf"{vault.rel(path)}:\d+: cites {re.escape(conv)}#a\d@0badc0de: 0badc0de is not a commit "
                     r"or file of this vault's git history; use a commit from `git log`", out.stdout), out.stdout
