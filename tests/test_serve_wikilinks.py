"""`vault serve` shows the `[[wikilinks]]` a person wrote in a topic as links to the topics they
name, resolved as the index resolves them for Obsidian relations; a link to no topic stays text,
marked missing. Over HTTP against a real vault (serve_fixtures)."""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from conftest import git
from serve_fixtures import copy_vault, make_vault
from test_serve import TOPIC, client_for

from sheriff_vault.index.engine import Index
from sheriff_vault.store.vault import Vault

NOTE = """
## Notes

Ask about the venue in [[Postgres 16 move|the database move]] week, see [[postgres-16-move#Facts]],
and [[Orders database]] (an alias), not [[The Moon Landing]]. Code stays code: `[[postgres-16-move]]`.
A picture is no topic: ![[cake.png]]
"""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_vault(tmp_path_factory.mktemp("serve-links"))


@pytest.fixture
def vault(template: Path, tmp_path: Path) -> Vault:
    vault = copy_vault(template, tmp_path / "vault")
    other = vault.root / "topics" / "postgres-16-move.md"
    text = other.read_text()
    other.write_text(text.replace("aliases:\n", "aliases:\n- Orders database\n", 1))
    path = vault.root / "topics" / f"{TOPIC}.md"
    path.write_text(path.read_text().rstrip("\n") + "\n" + NOTE)
    git(vault.root, "commit", "-qam", "notes written by hand in Obsidian")
    return Vault(vault.root)


def links_of(page: str) -> list[tuple[str, str]]:
    return [(href, html.unescape(text)) for href, text in
            re.findall(r'<a href="([^"]+)" class="wikilink"[^>]*>([^<]*)</a>', page)]


def test_hand_written_wikilinks_lead_to_their_topics_and_a_broken_one_is_marked_missing(vault: Vault):
    assert "- Orders database" in (vault.root / "topics" / "postgres-16-move.md").read_text()
    client = client_for(vault)
    page = client.get(f"/topics/{TOPIC}")
    assert page.status_code == 200
    assert links_of(page.text) == [("/topics/postgres-16-move", "Postgres 16 move"),  # the `## Related` section
                                   ("/topics/postgres-16-move", "the database move"),
                                   ("/topics/postgres-16-move", "postgres-16-move > Facts"),
                                   ("/topics/postgres-16-move", "Orders database")]
    missing = re.findall(r'<span class="wikilink missing" title="([^"]*)">([^<]*)</span>', page.text)
    assert [text for _, text in missing] == ["The Moon Landing"]
    assert "no topic is called The Moon Landing" in html.unescape(missing[0][0])
    assert "<code>[[postgres-16-move]]</code>" in page.text and "![[cake.png]]" in page.text
    for href, _ in links_of(page.text):  # every link opens the topic's page
        assert client.get(href).status_code == 200

    index = Index(vault)
    try:
        index.refresh()
        snap = index.snapshot()
        for target, href in (("Postgres 16 move", "/topics/postgres-16-move"),
                             ("postgres-16-move", "/topics/postgres-16-move"),
                             ("Orders database", "/topics/postgres-16-move"), ("The Moon Landing", None)):
            row = snap.resolve_link(target)  # the relation the index keeps for the same link
            assert (f"/topics/{Path(row.path).stem}" if row else None) == href, target
    finally:
        index.close()
