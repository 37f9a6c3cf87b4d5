"""`vault serve` against a real vault (real git, real index, hash embedder): every page through
Starlette's test client, edits and reviews checked with git, and the guards (Host, Origin, token,
path traversal, the vault lock an edit shares with sleep)."""
from __future__ import annotations

import html
import http.client
import re
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import git, wait_for
from markupsafe import escape
from serve_fixtures import copy_vault, make_vault
from starlette.testclient import TestClient

from sheriff_vault.errors import ServeError
from sheriff_vault.store.edits import upsert_topic
from sheriff_vault.store.vault import Vault
from sheriff_vault.timewin import parse_instant
from sheriff_vault.web.app import create_app
from sheriff_vault.web.server import Server, check_host

TOKEN = "test-token-123"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN = {"Origin": BASE}
TOPIC = "caroline-birthday-party"
PARTY = str(escape("Caroline's birthday party"))  # as a page shows the topic's name


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_vault(tmp_path_factory.mktemp("serve"))


@pytest.fixture
def vault(template: Path, tmp_path: Path) -> Vault:
    return copy_vault(template, tmp_path / "vault")


def client_for(vault: Vault, *, login: bool = True) -> TestClient:
    client = TestClient(create_app(vault, token=TOKEN, port=PORT), base_url=BASE)
    if login:
        response = client.get(f"/topics?token={TOKEN}", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/topics"
    return client


@pytest.fixture
def client(vault: Vault) -> TestClient:
    return client_for(vault)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


# -- pages ---------------------------------------------------------------------------------------
def test_topics_lists_filters_and_sorts(client: TestClient):
    page = client.get("/topics")
    assert page.status_code == 200
    assert PARTY in page.text and "Postgres 16 move" in page.text
    assert "server-timing" in page.headers
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"
    only = client.get("/topics", params={"q": "postgres"}).text
    assert "Postgres 16 move" in only and PARTY not in only
    by_size = text_of(client.get("/topics", params={"sort": "size"}).text)
    assert by_size.index("Caroline's birthday party") < by_size.index("Postgres 16 move")  # 3 facts vs 1
    stale = client.get("/topics", params={"sort": "stale", "stale": "1"}).text  # dated Feb 2026: all stale
    assert PARTY in stale
    assert PARTY not in client.get("/topics", params={"sort": "stale", "stale": "36500"}).text


def test_topic_shows_dated_facts_struck_values_citations_neighbours_and_history(client: TestClient, vault: Vault):
    page = client.get(f"/topics/{TOPIC}")
    assert page.status_code == 200
    body = page.text
    assert "<time>2026-02-10</time>" in body
    assert re.search(r"<s>User: The budget for Caroline's birthday party is 400 USD\.</s>", html.unescape(body))
    assert "(superseded 2026-02-11 by l1)" in body
    assert 'href="/topics/postgres-16-move"' in body  # the related topic, one hop
    cite = re.search(r'class="cite" href="([^"]+)"', body)
    assert cite and cite.group(1).startswith("/cite?ref=conversations")
    turns = client.get(cite.group(1).replace("&amp;", "&"))
    assert turns.status_code == 200 and "Riverside Park" in turns.text
    commits = re.findall(r'data-src="(/commits/[0-9a-f]{40}[^"]*)"', body)
    assert len(commits) == len(git(vault.root, "log", "--format=%H", "--", f"topics/{TOPIC}.md").split())
    diff = client.get(commits[1].replace("&amp;", "&"))  # the second sleep, which struck 400 USD
    assert diff.status_code == 200 and 'class="l add struck"' in diff.text and "500 USD" in diff.text


def test_edit_saves_the_text_as_typed_in_one_commit_with_the_message(client: TestClient, vault: Vault):
    path = vault.root / "topics" / f"{TOPIC}.md"
    form = client.get(f"/topics/{TOPIC}/edit")
    assert form.status_code == 200 and "Save and commit" in form.text
    before = path.read_text()
    edited = before.replace("aliases:\n", "# kept by the round trip\naliases:\n").replace(
        "Melanie", "Mel").rstrip("\n") + "\n- 2026-02-12 — Caroline likes lilies.\n"
    commits = int(git(vault.root, "rev-list", "--count", "HEAD"))
    saved = client.post(f"/topics/{TOPIC}/edit", data={"text": edited, "base": before, "message": "Lilies, not roses"},
                        headers=ORIGIN, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    assert path.read_text() == edited  # written as typed: comment and layout kept
    assert int(git(vault.root, "rev-list", "--count", "HEAD")) == commits + 1
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "Lilies, not roses"
    assert git(vault.root, "status", "--porcelain", "topics").strip() == ""
    page = client.get(saved.headers["location"])
    assert "Saved as commit" in page.text and "Lilies, not roses" in page.text and "Caroline likes lilies." in page.text


def test_invalid_frontmatter_is_refused_with_its_line_and_nothing_changes(client: TestClient, vault: Vault):
    path = vault.root / "topics" / f"{TOPIC}.md"
    before, head = path.read_text(), git(vault.root, "rev-parse", "HEAD")
    broken = before.replace("touch_count: 2", "touch_count: [2")
    refused = client.post(f"/topics/{TOPIC}/edit", data={"text": broken, "base": before, "message": "x"},
                          headers=ORIGIN)
    assert refused.status_code == 400
    assert re.search(r"topics/caroline-birthday-party\.md:\d+:", refused.text)
    assert "touch_count: [2" in refused.text  # the person's text is kept in the form
    assert path.read_text() == before and git(vault.root, "rev-parse", "HEAD") == head
    (vault.root / "topics" / "broken.md").write_text(broken)
    page = client.get("/topics/broken")
    assert page.status_code == 400 and 'id="fix-link"' in page.text
    fix = client.get("/topics/broken/edit")
    assert fix.status_code == 200 and "touch_count: [2" in fix.text and 'class="error"' in fix.text
    no_id = client.post(f"/topics/{TOPIC}/edit", data={"text": before.replace("name: Caroline's birthday party\n", ""),
                                                        "base": before}, headers=ORIGIN)
    assert no_id.status_code == 400 and "no `name`" in no_id.text


def test_an_edit_from_an_old_form_is_merged_with_what_changed_since(client: TestClient, vault: Vault):
    path = vault.root / "topics" / f"{TOPIC}.md"
    opened = path.read_text()
    upsert_topic(vault, {"topic_id": TOPIC, "facts": ["Balloons are blue."]}, now=parse_instant("2026-02-13", "UTC"))
    mine = opened.rstrip("\n") + "\n- 2026-02-13 — The cake is lemon.\n"
    saved = client.post(f"/topics/{TOPIC}/edit", data={"text": mine, "base": opened, "message": "cake"},
                        headers=ORIGIN, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    text = path.read_text()
    assert "Balloons are blue." in text and "The cake is lemon." in text


def test_sleeps_timeline_detail_and_wake_packet(client: TestClient):
    page = client.get("/sleeps")
    assert page.status_code == 200
    assert "/sleeps/20260210T120000Z" in page.text and "/sleeps/20260211T120000Z" in page.text
    assert "/review/20260212T120000Z" in page.text  # the --review sleep waits above the timeline
    detail = client.get("/sleeps/20260210T120000Z")
    assert detail.status_code == 200
    assert '"slept_at": "2026-02-10T12:00:00Z"' in html.unescape(detail.text)  # the wake packet it wrote
    assert 'class="l add fact"' in detail.text and PARTY in detail.text
    assert client.get("/sleeps/20990101T000000Z").status_code == 400


def test_review_accepts_one_topic_and_rejects_the_other(client: TestClient, vault: Vault):
    page = client.get("/review/20260212T120000Z")
    assert page.status_code == 200
    paths = re.findall(r'name="choice:(topics/[^"]+)"', page.text)
    assert len(set(paths)) == 2
    created = next(p for p in set(paths) if not (vault.root / p).exists())
    updated = next(p for p in set(paths) if p != created)
    before = (vault.root / updated).read_text()
    decided = client.post("/review/20260212T120000Z", headers=ORIGIN,
                          data={f"choice:{updated}": "accept", f"choice:{created}": "reject"})
    assert decided.status_code == 200, decided.text
    assert "Accepted 1, rejected 1" in decided.text
    assert git(vault.root, "branch", "--list", "sleep/*").strip() == ""
    assert git(vault.root, "ls-tree", "--name-only", "HEAD", created).strip() == ""
    assert git(vault.root, "show", f"HEAD:{updated}") != before and "chocolate cake" in git(
        vault.root, "show", f"HEAD:{updated}")
    assert git(vault.root, "log", "-1", "--format=%s").startswith("review: accept 1 of 2")


def test_review_needs_a_choice_for_every_topic(client: TestClient, vault: Vault):
    head = git(vault.root, "rev-parse", "HEAD")
    refused = client.post("/review/20260212T120000Z", headers=ORIGIN, data={})
    assert refused.status_code == 400 and "choose accept or reject" in refused.text
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_recall_shows_what_the_agent_gets_and_why(client: TestClient):
    page = client.get("/recall", params={"q": "what is the party budget?", "now": "2026-02-13T09:00:00Z",
                                         "budget": "1500"})
    assert page.status_code == 200, page.text
    assert "Memory (dated notes from past conversations" in page.text
    assert "500 USD" in page.text
    assert 'id="explain"' in page.text and "relevance=" in page.text and "mode:" in page.text
    bad = client.get("/recall", params={"q": "party", "now": "not a time"})
    assert bad.status_code == 200 and 'class="error"' in bad.text


def test_health_shows_doctor_index_and_quarantine(client: TestClient, vault: Vault):
    page = client.get("/health")
    assert page.status_code == 200
    assert "quarantine/2026/02/11/" in page.text and "injection" in page.text
    assert 'id="index-status"' in page.text
    (vault.root / "topics" / "broken.md").write_text("---\nid: [\n---\n")
    # The check runs in the background: the page shows the last report until the new one is ready.
    wait_for(lambda: re.search(r"topics/broken\.md:\d+", client.get("/health").text), timeout=60,
             what="the new report")


# -- guards --------------------------------------------------------------------------------------
def test_no_token_no_pages(vault: Vault):
    client = client_for(vault, login=False)
    assert client.get("/topics").status_code == 401
    assert client.get(f"/topics/{TOPIC}").status_code == 401
    assert client.get("/static/style.css").status_code == 401
    assert client.get("/topics?token=wrong").status_code == 403
    client.cookies.set(f"sheriff_vault_{PORT}", "wrong")
    assert client.get("/topics").status_code == 401


def test_foreign_host_and_origin_are_refused(client: TestClient, vault: Vault):
    assert client.get("/topics", headers={"Host": "evil.example:8765"}).status_code == 421
    assert client.get("/topics", headers={"Host": "127.0.0.1:9999"}).status_code == 421
    assert client.get("/topics", headers={"Origin": "http://evil.example"}).status_code == 403
    head = git(vault.root, "rev-parse", "HEAD")
    path = vault.root / "topics" / f"{TOPIC}.md"
    text = path.read_text()
    for headers in ({"Origin": "http://evil.example"}, {}, {"Referer": "http://evil.example/x"}):
        refused = client.post(f"/topics/{TOPIC}/edit", data={"text": text + "- 2026-02-12 — x\n", "base": text},
                              headers=headers)
        assert refused.status_code == 403, headers
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert client.get("/topics", headers={"Host": f"localhost:{PORT}"}).status_code == 200


TRAVERSALS = [
    "/topics/..%2F..%2Fvault.yaml", "/topics/%2e%2e", "/topics/..", "/topics/.hidden", "/topics/..%2fvault",
    "/topics/a..b", "/topics/../../vault.yaml", "/topics/..%2F..%2Fvault.yaml/edit", "/topics/%2e%2e/edit",
    "/cite?ref=conversations/../vault.yaml.md", "/cite?ref=conversations/..%2F..%2F..%2Fetc%2Fpasswd.md",
    "/cite?ref=/etc/passwd", "/commits/HEAD", "/commits/0000?path=../../etc/passwd",
    "/commits/abcd?path=/etc/passwd", "/sleeps/..%2F..", "/review/..%2Fmain", "/static/../vault.yaml",
    "/static/..%2F..%2F..%2Fvault.yaml",
]


def test_path_traversal_is_refused(vault: Vault):
    """Raw request paths (no client normalising `..`) to a real server: nothing outside its pages."""
    with Server(vault) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        cookie = {"Cookie": f"sheriff_vault_{server.port}={server.token}"}
        for url in TRAVERSALS:
            conn.request("GET", url, headers=cookie)
            response = conn.getresponse()
            body = response.read().decode()
            assert 400 <= response.status < 500, (url, response.status)
            assert "root:" not in body and "schema_version" not in body and "embedding:" not in body, url
        conn.request("GET", f"/topics/{TOPIC}", headers=cookie)
        page = conn.getresponse()
        assert page.status == 200 and page.read()
        conn.request("GET", f"//evil.example/x?token={server.token}")
        bounce = conn.getresponse()
        bounce.read()
        assert bounce.status == 303 and bounce.getheader("location") == "/evil.example/x"  # never off-site
        conn.close()


def test_an_edit_waits_for_a_sleep_holding_the_vault_lock_and_loses_nothing(client: TestClient, vault: Vault):
    path = vault.root / "topics" / f"{TOPIC}.md"
    opened = path.read_text()
    mine = opened.rstrip("\n") + "\n- 2026-02-13 — The cake is lemon.\n"
    done: dict = {}

    def post() -> None:
        done["response"] = client.post(f"/topics/{TOPIC}/edit", data={"text": mine, "base": opened, "message": "cake"},
                                       headers=ORIGIN, follow_redirects=False)

    with vault.lock():  # what a sleep holds while it writes and commits
        editing = threading.Thread(target=post)
        editing.start()
        time.sleep(1.0)
        assert "response" not in done and path.read_text() == opened  # the edit waits
        upsert_topic(vault, {"topic_id": TOPIC, "facts": ["Balloons are blue."]},  # the sleep's own change
                     now=parse_instant("2026-02-13", "UTC"))
    editing.join(timeout=60)
    assert done["response"].status_code == 303, done["response"].text
    text = path.read_text()
    assert "Balloons are blue." in text and "The cake is lemon." in text
    assert git(vault.root, "show", f"HEAD:topics/{TOPIC}.md") == text
    subjects = git(vault.root, "log", "-2", "--format=%s").split("\n")
    assert subjects[0] == "cake" and subjects[1].startswith("topic: update")


def test_a_real_server_listens_on_loopback_and_checks_the_host(vault: Vault):
    with pytest.raises(ServeError, match="--host"):
        check_host("0.0.0.0", explicit=False)
    assert check_host("0.0.0.0", explicit=True) == "0.0.0.0"
    with Server(vault) as server:
        assert server.url.startswith("http://127.0.0.1:") and "token=" in server.url
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(server.url, timeout=30) as response:
            assert response.status == 200 and PARTY in response.read().decode()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", f"/topics?token={server.token}", headers={"Host": f"attacker.example:{server.port}"})
        assert conn.getresponse().status == 421
        conn.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url, timeout=2)  # stopped


def test_serve_help_explains_it(invoke):
    result = invoke("serve", "--help")
    assert result.exit_code == 0 and "127.0.0.1" in result.output and "--host" in result.output


def test_the_topic_list_follows_the_files(vault: Vault, monkeypatch: pytest.MonkeyPatch):
    from sheriff_vault.store import catalog as catalog_module
    from sheriff_vault.store.catalog import TopicCatalog
    from sheriff_vault.store.edits import create_topic

    listing = TopicCatalog(vault)
    assert {s.slug for s in listing.summaries()} == {TOPIC, "postgres-16-move"}
    create_topic(vault, "Garden shed", now=parse_instant("2026-02-14", "UTC"), facts=["The shed roof leaks."])
    shed = next(s for s in listing.summaries() if s.slug == "garden-shed")  # a new file: seen at once
    assert shed.facts == 1 and shed.name == "Garden shed"
    monkeypatch.setattr(catalog_module, "RESCAN_SECONDS", 0.0)  # an in-place rewrite: seen at the next full check
    path = vault.root / "topics" / "garden-shed.md"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("- 2026-02-15 — The shed door sticks.\n")
    assert next(s for s in listing.summaries() if s.slug == "garden-shed").facts == 2
    path.write_text("no frontmatter here\n")
    broken = next(s for s in listing.summaries() if s.slug == "garden-shed")
    assert "frontmatter" in broken.error and "topics/garden-shed.md" in broken.error


def test_an_edit_racing_a_real_sleep_loses_nothing(client: TestClient, vault: Vault, tmp_path: Path):
    """A real `vault sleep` that updates the same topic runs while the person saves a form opened
    before it: whichever takes the vault lock first, both the sleep's fact and the edit are in HEAD."""
    from serve_fixtures import conversation

    from sheriff_vault.daemon.client import sleep
    from sheriff_vault.store import transcripts

    path = vault.root / "topics" / f"{TOPIC}.md"
    opened = path.read_text()
    mine = opened.rstrip("\n") + "\n- 2026-02-13 — The cake is lemon.\n"
    turns = transcripts.read_file(conversation(tmp_path / "race.jsonl", "r", "2026-02-13", [
        ("user", "For Caroline's birthday party at Riverside Park, a magician will perform at 3pm."),
        ("assistant", "Noted, a magician at 3pm."),
        ("user", "Thanks!"), ("assistant", "Sure."), ("user", "Bye."), ("assistant", "Bye!")]))
    slept: dict = {}
    sleeper = threading.Thread(target=lambda: slept.update(
        result=sleep(vault, turns, now=parse_instant("2026-02-13T12:00:00Z", "UTC"))))
    sleeper.start()
    response = client.post(f"/topics/{TOPIC}/edit", data={"text": mine, "base": opened, "message": "cake"},
                           headers=ORIGIN, follow_redirects=False)
    sleeper.join(timeout=300)
    assert response.status_code == 303, response.text
    assert slept["result"].commit, slept["result"].describe()
    head = git(vault.root, "show", f"HEAD:topics/{TOPIC}.md")
    assert "The cake is lemon." in head and "magician" in head
    assert path.read_text() == head and git(vault.root, "status", "--porcelain", "topics").strip() == ""


def test_serve_says_when_the_port_is_taken(invoke, vault: Vault):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = invoke("serve", "--vault", vault.root, "--port", taken.getsockname()[1])
    assert result.exit_code == 1 and "cannot listen" in result.output


def test_topic_history_shows_a_correction_as_a_supersession_never_x_to_x(client: TestClient):
    """The History of a topic reads like `vault history`: the struck 400 USD is one supersession
    naming the 500 USD now current, not `~ 400 USD -> 400 USD`."""
    body = text_of(html.unescape(client.get(f"/topics/{TOPIC}").text))
    assert "superseded 2026-02-11: 2026-02-10 User: The budget for Caroline's birthday party is 400 USD." in body
    assert "-> now: 2026-02-11 User: The budget for Caroline's birthday party is now 500 USD." in body
    assert not re.search(r"~ (.+?) \u2192 \1 ", body)
