"""A live sheet: every open sheet follows the game within 2 s, in a real Chromium against `ginscore serve`."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from browser_setup import BROWSER_TESTS, PHONE
from servers import Server
from sheet_helpers import insert_pending_photo, real_val_showdown

pytestmark = BROWSER_TESTS


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("live") / "sheet.sqlite")
    server.start()
    yield server
    server.stop()


def api(server: Server, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        server.url + path,
        method=method,
        headers={"X-Requested-With": "test", "Content-Type": "application/json"},
        data=json.dumps(body).encode() if body is not None else None,
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def total_of(page, player: int) -> str:
    return page.text_content(f"#total{player}") or ""


def wait_for_total(page, player: int, expected: str, seconds: float = 2.0) -> float:
    """Seconds until the page shows ``expected`` as the player's total, with no reload by the test."""
    start = time.monotonic()
    page.wait_for_function(
        "([id, want]) => (document.getElementById(id) || {}).textContent === want",
        arg=[f"total{player}", expected],
        timeout=seconds * 1000,
    )
    return time.monotonic() - start


def test_two_phones_on_one_sheet_follow_a_hand_saved_elsewhere_and_an_undo(server, browser):
    game_id = api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "target": 100})["id"]
    pages = []
    for _ in range(2):
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.goto(f"{server.url}/games/{game_id}")
        pages.append(page)
    assert [total_of(page, 0) for page in pages] == ["0", "0"]

    api(server, "POST", f"/api/games/{game_id}/hands", {"knocker": 0, "deadwood": [3, 30]})  # Ann knocks: 27
    waited = [wait_for_total(page, 0, "27") for page in pages]
    assert all(seconds <= 2.0 for seconds in waited), waited
    assert all("Undo hand 1" in (page.text_content("#undo") or "") for page in pages)

    api(server, "POST", f"/api/games/{game_id}/undo")
    waited = [wait_for_total(page, 0, "0") for page in pages]
    assert all(seconds <= 2.0 for seconds in waited), waited
    for page in pages:
        page.context.close()


def test_a_phone_busy_with_a_form_is_told_instead_of_reloaded(server, browser):
    game_id = api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "target": 100})["id"]
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/games/{game_id}")
    page.click("#void-confirm summary")  # the "Void hand…" confirmation is open: the user is mid-action
    api(server, "POST", f"/api/games/{game_id}/hands", {"knocker": 1, "deadwood": [20, 5]})
    page.wait_for_selector("#sheet-changed:not([hidden])", timeout=3000)
    assert total_of(page, 1) == "0", "the page was not reloaded under the user's hands"
    page.click("#sheet-refresh")
    page.wait_for_function("document.getElementById('total1').textContent === '15'", timeout=5000)
    context.close()


def test_the_version_answers_304_while_nothing_changed(server):
    game_id = api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "target": 100})["id"]
    with urllib.request.urlopen(f"{server.url}/games/{game_id}/version", timeout=10) as answer:
        etag, version = answer.headers["ETag"], json.load(answer)["version"]
    assert etag == f'"{version}"'
    request = urllib.request.Request(f"{server.url}/games/{game_id}/version", headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as not_modified:
        urllib.request.urlopen(request, timeout=10)
    assert not_modified.value.code == 304
    api(server, "POST", f"/api/games/{game_id}/hands", {"void": True})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.load(answer)["version"] != version, "a void hand changes the version"


def test_the_review_page_says_a_hand_was_saved_elsewhere_and_keeps_what_the_user_did(server, browser):
    game_id = api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "target": 100})["id"]
    jpeg, reading = real_val_showdown()
    photo_id = insert_pending_photo(str(server.db), game_id, jpeg, reading)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/games/{game_id}/review/{photo_id}")
    page.check('input[name="knocker"][value="0"]')  # what the user has done so far on this page
    api(server, "POST", f"/api/games/{game_id}/hands", {"knocker": 1, "deadwood": [20, 5]})  # another phone
    page.wait_for_selector("#sheet-changed:not([hidden])", timeout=3000)
    assert "saved on another phone" in (page.text_content("#sheet-changed") or "")
    assert page.is_checked('input[name="knocker"][value="0"]'), "the review page was not reloaded"
    context.close()


def test_a_phone_on_a_slow_network_follows_the_sheet_too(server, browser):
    """A phone on a slow mobile link (400 ms each way, 400 kbit/s, as Chromium's network emulation gives
    it) sees a hand saved elsewhere within the 2 s poll plus its own round trips."""
    game_id = api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "target": 100})["id"]
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 400, "downloadThroughput": 50_000, "uploadThroughput": 50_000},
    )
    page.goto(f"{server.url}/games/{game_id}", timeout=60_000)
    api(server, "POST", f"/api/games/{game_id}/hands", {"knocker": 0, "deadwood": [3, 30]})
    seconds = wait_for_total(page, 0, "27", seconds=10)
    assert seconds <= 2.0 + 4 * 0.8, seconds  # a poll, then the reload: page, stylesheet and script round trips
    context.close()
