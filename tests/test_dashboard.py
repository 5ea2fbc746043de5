"""The dashboard in a real headless Chromium, driven by Playwright, against `engram serve`.

Needs Debian's `chromium` (apt-get install -y chromium); Playwright's own browser
download is never used. Screenshots of the main pages land in test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_support import Server, start_server

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def find_chromium() -> str | None:
    for candidate in (os.environ.get("ENGRAM_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on this machine: install Debian's package (apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("dash"))
    with running.client() as api:
        def save(content: str, **fields: object) -> None:
            assert api.post("/v1/memories", json={"content": content, **fields}).status_code == 201

        save("Flaky websocket tests were fixed by awaiting the server handshake",
             type="bug_note", project="chat", tags=["tests"], files=["tests/test_ws.py"])
        save("The chat service stores messages in PostgreSQL 16", type="project_fact",
             project="chat", provenance="human")
        save("Never push to main without a green CI run", type="constraint", project="chat",
             importance=0.9)
        save("Ran the migration script; it took 40 minutes on staging", type="episode",
             project="chat", provenance="hook")
        save("Session summary: moved the chat client to the new retry helper",
             type="task_summary", project="chat", provenance="checkpoint")
        save("Hook saw: npm test printed 3 deprecation warnings", type="episode",
             project="chat", provenance="hook")
        save("The API rate limit is 100 requests per minute", type="constraint",
             project="limits")
        save("The API rate limit is 500 requests per minute", type="constraint",
             project="limits")
        routine = [{"content": f"Routine note {i}: the nightly job {i} finished",
                    "type": "episode", "project": "batch"} for i in range(60)]
        assert api.post("/v1/import", json={"records": routine}).json()["imported"] == 60
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server: Server) -> Iterator[object]:  # noqa: ANN001 - playwright types
    context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=server.url)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.set_default_timeout(10_000)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def api(server: Server) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


def shoot(page, name: str) -> None:  # noqa: ANN001
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}.png"))


def find_id(api: httpx.Client, text: str) -> str:
    hits = api.get("/v1/search", params={"q": text, "k": 1}).json()["results"]
    return hits[0]["memory"]["id"]


def open_memory(page, memory_id: str) -> None:  # noqa: ANN001
    page.goto(f"/#/m/{memory_id}")
    page.locator("#memory .detail").wait_for()
    page.locator("#history li.current").wait_for()


def test_browse_pages_and_search_finds_a_memory(page) -> None:  # noqa: ANN001
    page.goto("/")
    rows = page.locator("table.memories tbody tr")
    rows.first.wait_for()
    assert rows.count() == 50  # one page of the 68, paged by the server
    assert "of 68" in page.locator(".listinfo").inner_text()
    page.keyboard.press("]")
    page.wait_for_function("document.querySelectorAll('table.memories tbody tr').length === 18")
    shoot(page, "memories")

    page.keyboard.press("/")
    # "/" puts the cursor in the search box; typing before it is there (a loaded machine)
    # would type into the page instead
    page.wait_for_function("document.activeElement && document.activeElement.id === 'q'")
    page.keyboard.type("websocket handshake")
    page.keyboard.press("Enter")
    first = page.locator("table.memories tbody tr").first
    first.filter(has_text="awaiting the server handshake").wait_for()
    page.locator(".listinfo", has_text="best match").wait_for()  # the weak tail is cut
    shoot(page, "search")

    page.locator("#q").fill("")
    page.select_option("select[aria-label=Project]", "limits")
    page.wait_for_function("document.querySelectorAll('table.memories tbody tr').length === 2")


def test_edit_makes_a_new_version_shown_in_history(page, api: httpx.Client) -> None:  # noqa: ANN001
    memory_id = find_id(api, "PostgreSQL 16 chat messages")
    open_memory(page, memory_id)
    page.keyboard.press("e")
    editor = page.locator("#edit-content")
    editor.fill("The chat service stores messages in PostgreSQL 17")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"!location.hash.includes('{memory_id}')")
    page.locator("#history li").nth(1).wait_for()
    history = page.locator("#history li")
    assert history.count() == 2
    assert "PostgreSQL 17" in history.nth(0).inner_text()  # newest first
    assert "superseded" in history.nth(1).inner_text()
    shoot(page, "memory")
    new_id = page.evaluate("location.hash").rsplit("/", 1)[1]
    chain = api.get(f"/v1/memories/{new_id}/history").json()["items"]
    assert [m["id"] for m in chain] == [memory_id, new_id]


def test_a_new_version_shows_the_words_it_changed(page, api: httpx.Client) -> None:  # noqa: ANN001
    old = api.post("/v1/memories", json={"content": "Staging deploys run from the main branch "
                                        "every Tuesday", "project": "ops"}).json()["memory"]
    new = api.patch(f"/v1/memories/{old['id']}", json={
        "content": "Staging deploys run from the release branch every Tuesday"}).json()
    open_memory(page, new["id"])
    changes = page.locator("#changes")
    changes.wait_for()
    assert changes.locator(".diff-del").all_inner_texts() == ["main"]
    assert changes.locator(".diff-add").all_inner_texts() == ["release"]
    page.goto(f"/#/m/{old['id']}")  # the first version changed nothing
    page.locator("#changes").wait_for(state="hidden")


def test_the_search_and_filters_live_in_the_url(page) -> None:  # noqa: ANN001
    page.goto("/")
    page.locator("table.memories tbody tr").first.wait_for()
    page.select_option("select[aria-label=Project]", "limits")
    page.locator("#q").fill("rate limit")
    page.keyboard.press("Enter")
    page.wait_for_function("location.hash.includes('q=rate+limit')")
    assert "project=limits" in page.evaluate("location.hash")
    page.reload()  # a reload (or a shared link) shows the same search
    page.locator("table.memories tbody tr").first.wait_for()
    assert page.locator("#q").input_value() == "rate limit"
    assert page.locator("select[aria-label=Project]").input_value() == "limits"
    assert page.locator("table.memories tbody tr").count() == 2
    page.locator("table.memories tbody tr").first.click()
    page.wait_for_function("location.hash.startsWith('#/m/')")
    page.go_back()  # back to the list, as it was
    page.wait_for_function("location.hash.includes('q=rate+limit')")
    page.locator("table.memories tbody tr").nth(1).wait_for()
    page.locator("table.memories tbody tr").first.click()
    page.locator("nav[aria-label=breadcrumb] a").click()  # the way back: the same list
    page.wait_for_function("location.hash.includes('q=rate+limit')")
    assert page.locator("select[aria-label=Project]").input_value() == "limits"


def test_a_phone_sees_every_tab_and_no_page_wider_than_the_screen(browser, server) -> None:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 375, "height": 740}, base_url=server.url)
    tab = context.new_page()
    try:
        for route in ("/", "/#/review", "/#/conflicts", "/#/overview"):
            tab.goto(route)
            tab.wait_for_timeout(300)
            assert tab.evaluate("document.documentElement.scrollWidth") <= 375, route
        tab.goto("/")
        tab.locator("table.memories tbody tr").first.wait_for()
        for name in ("Memories", "Review", "Conflicts", "Overview"):
            assert tab.locator(f"a[data-tab={name.lower()}]").is_visible()
        shoot(tab, "phone")
    finally:
        context.close()


def test_an_empty_store_says_how_to_connect_agents_instead_of_bare_headers(
        browser, tmp_path) -> None:  # noqa: ANN001
    empty = start_server(tmp_path)
    context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=empty.url)
    tab = context.new_page()
    try:
        tab.goto("/")
        tab.locator("#first-run").wait_for()
        assert "engram setup" in tab.locator("#first-run").inner_text()
        assert not tab.locator("table.memories").is_visible()
        shoot(tab, "first-run")
        with empty.client() as api:
            api.post("/v1/memories", json={"content": "Auth is Clerk, not custom JWT"})
        tab.reload()
        tab.locator("table.memories tbody tr").first.wait_for()
        assert not tab.locator("#first-run").is_visible()
    finally:
        context.close()
        empty.stop()


def test_pin_archive_restore_and_delete(page, api: httpx.Client) -> None:  # noqa: ANN001
    memory_id = find_id(api, "push to main green CI")
    open_memory(page, memory_id)
    page.keyboard.press("p")
    page.locator(".detail-head .pinned").wait_for()
    assert api.get(f"/v1/memories/{memory_id}?track=false").json()["pinned"] is True
    page.keyboard.press("p")
    page.locator(".detail-head .pinned").wait_for(state="hidden")

    page.keyboard.press("a")
    page.locator(".detail-head .status-archived").wait_for()
    assert api.get(f"/v1/memories/{memory_id}?track=false").json()["status"] == "archived"
    page.get_by_role("button", name="Restore").click()
    page.locator(".detail-head .status-active").wait_for()
    assert api.get(f"/v1/memories/{memory_id}?track=false").json()["status"] == "active"

    page.keyboard.press("Shift+D")
    page.locator("#confirm-delete-yes").click()
    page.wait_for_function("location.hash === '#/memories'")
    assert api.get(f"/v1/memories/{memory_id}").status_code == 404


def test_review_queue_approve_edit_and_reject_one_key_each(page, api: httpx.Client) -> None:  # noqa: ANN001
    approve_id = find_id(api, "migration script staging")
    edit_id = find_id(api, "retry helper chat client")
    reject_id = find_id(api, "deprecation warnings npm")
    page.goto("/#/review")
    cards = page.locator("#review article.card")
    for memory_id in (approve_id, edit_id, reject_id):
        page.locator(f"#review article[data-id='{memory_id}']").wait_for()
    assert cards.count() == 3
    shoot(page, "review")

    page.locator(f"#review article[data-id='{approve_id}']").click()
    page.keyboard.press("a")
    page.locator(f"#review article[data-id='{approve_id}']").wait_for(state="detached")
    approved = api.get(f"/v1/memories/{approve_id}?track=false").json()
    assert approved["meta"]["review"] == "approved" and approved["confidence"] > 0.6

    page.locator(f"#review article[data-id='{reject_id}']").click()
    page.keyboard.press("r")
    page.locator(f"#review article[data-id='{reject_id}']").wait_for(state="detached")
    rejected = api.get(f"/v1/memories/{reject_id}?track=false").json()
    assert rejected["status"] == "archived" and rejected["meta"]["review"] == "rejected"

    page.locator(f"#review article[data-id='{edit_id}']").click()
    page.keyboard.press("e")
    page.locator("#edit-content").fill("Session summary: the chat client uses retry_with_backoff")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("location.hash === '#/review'")
    page.locator("#review p.empty").wait_for()
    edited = api.get(f"/v1/memories/{edit_id}/history").json()["items"]
    assert len(edited) == 2 and edited[-1]["meta"]["review"] == "edited"
    assert "retry_with_backoff" in edited[-1]["content"]
    assert api.get("/v1/review").json()["total"] == 0


def test_conflicts_side_by_side_and_overview_charts(page, api: httpx.Client) -> None:  # noqa: ANN001
    page.goto("/#/conflicts")
    pair = page.locator("#conflicts article.pair").filter(has_text="100 requests per minute")
    pair.wait_for()
    assert "500 requests per minute" in pair.inner_text()
    shoot(page, "conflicts")
    pair.click()
    page.keyboard.press("s")
    pair.wait_for(state="detached")
    newer = find_id(api, "rate limit 500 requests")
    assert len(api.get(f"/v1/memories/{newer}/history").json()["items"]) == 2

    page.goto("/#/overview")
    page.locator("#chart-type canvas").wait_for()
    page.locator("#chart-project canvas").wait_for()
    assert page.locator(".tiles article").count() == 5
    shoot(page, "overview")


def test_a_team_server_asks_for_a_token_once_and_shows_only_what_the_user_may_see(
        browser, tmp_path: Path) -> None:  # noqa: ANN001
    """The dashboard on a store with users: it asks for the token once, keeps it for the
    browser session, and lists team memories and the user's own, never another's."""
    import json
    import subprocess

    from api_support import engram_command, server_env

    home = tmp_path / "home"
    home.mkdir()
    db = str(tmp_path / "team.db")

    def add_user(name: str) -> str:
        done = subprocess.run([*engram_command(), "--db", db, "users", "add", name, "--json"],
                              env=server_env(home), capture_output=True, text=True, check=True)
        return json.loads(done.stdout)["token"]

    tokens = {name: add_user(name) for name in ("alice", "bob")}
    server = start_server(home, ENGRAM_DB=db)
    try:
        with server.client(tokens["alice"]) as alice:
            alice.post("/v1/memories", json={"content": "Team rule: squash merges only",
                                             "type": "constraint"})
            alice.post("/v1/memories", json={"content": "Alice likes dark mode diffs",
                                             "type": "preference"})
        context = browser.new_context(base_url=server.url)
        tab = context.new_page()
        tab.set_default_timeout(10_000)
        tab.goto("/")
        dialog = tab.locator("dialog[open]").filter(has_text="needs a token")
        dialog.wait_for()
        dialog.locator("input[type=password]").fill(tokens["bob"])
        dialog.locator("button[type=submit]").click()
        tab.locator("table.memories tbody tr").first.filter(has_text="squash merges").wait_for()
        assert "dark mode" not in tab.locator("table.memories").inner_text()
        tab.reload()  # the same session: no second question
        tab.locator("table.memories tbody tr").first.wait_for()
        assert tab.locator("dialog[open]").count() == 0
        assert tab.evaluate("sessionStorage.getItem('engram.token')") == tokens["bob"]
        assert tab.evaluate("localStorage.getItem('engram.token')") is None
        context.close()
    finally:
        server.stop()
