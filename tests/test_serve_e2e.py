"""`vault serve` in a real browser: headless Chromium from the distribution's packages, driven by
Selenium through the distribution's chromedriver (never a browser download). Each scenario is what
a person does: open the topics, open a topic, follow a citation, review a `--review` sleep (one
topic accepted, one rejected, checked with git), edit a fact and find the commit in the history,
recall with its explanation. A screenshot of every page goes to $SHERIFF_VAULT_SCREENSHOTS
(`make screenshots` points it at docs/screenshots/), else to the test's temporary folder.

Skipped, with the reason, when chromium, chromedriver or selenium is missing (`make browser`
installs the first two)."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import git
from serve_fixtures import copy_vault, make_vault

from sheriff_vault.store.vault import Vault
from sheriff_vault.web.server import Server

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
CHROMEDRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    SELENIUM = True
except ImportError:
    SELENIUM = False

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="no chromium/chromedriver on PATH: `make browser` "
                       "installs the distribution's packages (apt-get install chromium chromium-driver)"),
    pytest.mark.skipif(not SELENIUM, reason="selenium is not installed: pip install -e '.[test]'"),
]
TOPIC = "caroline-birthday-party"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("SHERIFF_VAULT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Vault, Server]]:
    top = tmp_path_factory.mktemp("e2e")
    vault = copy_vault(make_vault(top / "template"), top / "vault")
    server = Server(vault).start()
    try:
        yield vault, server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser(served: tuple[Vault, Server]) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch a browser or driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000", "--no-first-run", "--disable-extensions", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    try:
        driver.get(served[1].url)  # trades the token for the cookie
        yield driver
    finally:
        driver.quit()


def shoot(driver, folder: Path, name: str) -> None:
    """A full-page screenshot: the window grows to the page's height first."""
    height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 2400)")
    driver.set_window_size(1280, max(700, int(height) + 140))  # the window's frame takes ~90 px
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 5000 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    driver.set_window_size(1280, 1000)


def wait(driver, css: str, timeout: float = 60):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


def test_open_topics_and_a_topic(browser, served, shots: Path):
    from selenium.webdriver.common.by import By

    browser.get(served[1].base + "/topics")
    rows = wait(browser, "#topics").find_elements(By.CSS_SELECTOR, "a.topic-link")
    assert {r.text for r in rows} >= {"Caroline's birthday party", "Postgres 16 move"}
    shoot(browser, shots, "topics")
    next(r for r in rows if r.text == "Caroline's birthday party").click()
    assert wait(browser, "#topic-name").text == "Caroline's birthday party"
    struck = browser.find_elements(By.CSS_SELECTOR, "li.item.superseded s")
    assert struck and "400 USD" in struck[0].text
    assert browser.find_elements(By.CSS_SELECTOR, "#related a")
    shoot(browser, shots, "topic")


def test_follow_a_citation(browser, served, shots: Path):
    from selenium.webdriver.common.by import By

    browser.get(served[1].base + f"/topics/{TOPIC}")
    wait(browser, "a.cite").click()
    turns = wait(browser, "#turns")
    assert "Riverside Park" in turns.text
    assert browser.find_elements(By.CSS_SELECTOR, ".turn.user")
    shoot(browser, shots, "citation")


def test_review_a_sleep_accepting_one_topic_and_rejecting_the_other(browser, served, shots: Path):
    from selenium.webdriver.common.by import By

    vault = served[0]
    browser.get(served[1].base + "/sleeps")
    wait(browser, "#sleeps")
    shoot(browser, shots, "sleeps")
    browser.find_element(By.CSS_SELECTOR, "a.sleep-link").click()
    assert "slept_at" in wait(browser, "#packet").text
    shoot(browser, shots, "sleep")
    browser.get(served[1].base + "/sleeps")
    wait(browser, "a.review-link").click()
    fieldsets = browser.find_elements(By.CSS_SELECTOR, "fieldset.review-topic")
    assert len(fieldsets) == 2
    paths = [f.get_attribute("data-path") for f in fieldsets]
    created = next(p for p in paths if not (vault.root / p).exists())
    updated = next(p for p in paths if p != created)
    slug = created.removeprefix("topics/").removesuffix(".md")
    browser.find_element(By.ID, f"reject-{slug}").click()
    shoot(browser, shots, "review")
    browser.find_element(By.ID, "decide").click()
    assert "Accepted 1, rejected 1" in wait(browser, "#decision").text
    assert git(vault.root, "branch", "--list", "sleep/*").strip() == ""
    assert git(vault.root, "ls-tree", "--name-only", "HEAD", created).strip() == ""
    assert "chocolate cake" in git(vault.root, "show", f"HEAD:{updated}")


def test_edit_a_fact_and_see_the_commit_in_history(browser, served, shots: Path):
    from selenium.webdriver.common.by import By

    vault = served[0]
    browser.get(served[1].base + "/topics/postgres-16-move")
    wait(browser, "#edit-link").click()
    area = wait(browser, "#text")
    fact_line = r"/(\n- [^\n]*)Postgres 16/"  # the fact line, not the one-liner
    browser.execute_script(f"arguments[0].value = arguments[0].value.replace({fact_line}, '$1Postgres 17')", area)
    browser.find_element(By.ID, "message").send_keys("Postgres 17, not 16")
    shoot(browser, shots, "edit")
    browser.find_element(By.ID, "save").click()
    assert "Saved as commit" in wait(browser, "#saved").text
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "Postgres 17, not 16"
    fact = next(line for line in (vault.root / "topics" / "postgres-16-move.md").read_text().splitlines()
                if line.startswith("- 2026"))
    assert "Postgres 17" in fact
    first = browser.find_element(By.CSS_SELECTOR, "#history details.commit")
    assert "Postgres 17, not 16" in first.text
    first.find_element(By.TAG_NAME, "summary").click()
    diff = wait(browser, "#history .diff-slot.loaded .diff")
    assert "Postgres 17" in diff.text
    shoot(browser, shots, "history")


def test_recall_with_its_explanation(browser, served, shots: Path):
    from selenium.webdriver.common.by import By

    browser.get(served[1].base + "/recall")
    wait(browser, "#q").send_keys("what is the budget for Caroline's party?")
    browser.find_element(By.ID, "now").send_keys("2026-02-13T09:00:00Z")
    browser.find_element(By.ID, "budget").send_keys("1500")
    browser.find_element(By.ID, "go").click()
    context = wait(browser, "#agent-context")
    assert "500 USD" in context.text
    rows = browser.find_elements(By.CSS_SELECTOR, "#explain tbody tr")
    assert rows and "relevance=" in rows[0].text
    shoot(browser, shots, "recall")


def test_health(browser, served, shots: Path):
    import time

    from selenium.webdriver.common.by import By

    vault = served[0]
    (vault.root / "topics" / "garden-shed.md").write_text(
        "---\nid: 6f1d7a52-3c8e-4b7a-9d0e-5a2b8c4e1f31\nname: Garden shed\nlast_seen: next tuesday\n---\n\n"
        "# Garden shed\n\n## Facts\n\n- 2026-02-31 — The roof leaks.\n")
    deadline = time.monotonic() + 90
    while True:  # the check runs in the background; the page reloads itself until it is done
        browser.get(served[1].base + "/health")
        found = browser.find_elements(By.CSS_SELECTOR, "#problems")
        if found or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert found and "topics/garden-shed.md:" in found[0].text and "not a real date" in found[0].text
    assert "injection" in wait(browser, "#quarantine").text
    assert browser.find_element(By.ID, "index-status").text
    shoot(browser, shots, "health")
