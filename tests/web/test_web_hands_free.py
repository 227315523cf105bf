"""The hands-free showdown: `ginscore serve --camera VIDEO` watches the table and offers a still showdown on
the open sheet, in a real Chromium, with a video the test renders (empty cloth first, then the spreads)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.request
from pathlib import Path

import pytest
from browser_setup import BROWSER_TESTS, CHROMIUM, PHONE
from servers import Server
from sheet_helpers import needs_model

from vision.training.synth.showdown_video import showdown_pictures, write_showdown_video

pytestmark = [needs_model, *BROWSER_TESTS]
OFFER_WITHIN_S = 30


@pytest.fixture(scope="module")
def showdown(tmp_path_factory):
    """A rendered showdown video (3 s of empty table, then 15 s still) and its two hands."""
    folder = tmp_path_factory.mktemp("hands-free")
    pictures = showdown_pictures(seed=3)
    video = write_showdown_video(folder / "rendered.avi", pictures, fps=5, empty_s=3, still_s=15)
    return folder, video, pictures.hands


def new_game(server: Server) -> int:
    request = urllib.request.Request(
        server.url + "/api/games",
        method="POST",
        headers={"X-Requested-With": "test", "Content-Type": "application/json"},
        data=json.dumps({"players": ["Ann", "Bob"]}).encode(),
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return int(json.load(answer)["id"])


def pending_camera_photos(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT COUNT(*) FROM photo WHERE source = 'camera'").fetchone()[0]


def test_a_still_showdown_is_offered_on_the_open_sheet_with_no_tap_and_saved_once(showdown, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    folder, video, hands = showdown
    server = Server(tmp_path / "sheet.sqlite", "--camera", str(video))
    server.start()
    try:
        game_id = new_game(server)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport=PHONE)
            started = time.monotonic()
            page.goto(f"{server.url}/games/{game_id}")
            expect(page.locator("#sheet-changed")).to_be_hidden()
            offer = page.locator("#camera-offer")
            expect(offer).to_be_visible(timeout=OFFER_WITHIN_S * 1000)  # nobody taps anything meanwhile
            assert time.monotonic() - started < OFFER_WITHIN_S
            expect(offer).to_contain_text("Showdown read: 20 cards")
            page.screenshot(path=str(folder / "offer-390.png"), full_page=True)
            page.locator("#camera-offer-review").click()
            page.wait_for_url("**/review/*")
            shown = [page.locator(f"input[name=cards{player}]").input_value().split() for player in (0, 1)]
            assert sorted(shown[0] + shown[1]) == sorted(hands[0] + hands[1])
            assert {frozenset(hand) for hand in shown} == {frozenset(hand) for hand in hands}
            knocker = 0 if set(shown[0]) == set(hands[0]) else 1  # the rendered gin hand (hands[0]) knocks
            page.locator(f"input[name=knocker][value='{knocker}']").check()  # the one tap: who knocked
            with page.expect_navigation():
                page.locator("#save-hand").click()
            page.screenshot(path=str(folder / "saved-390.png"), full_page=True)
            assert f"/games/{game_id}" in page.url and "review" not in page.url
            expect(page.locator("#sheet-table tr.hand-row")).to_have_count(1)
            expect(offer).to_be_hidden()
            # the same spread stays on the table (and the video plays on, round to the empty table and
            # back): it is never offered again
            time.sleep(20)
            assert pending_camera_photos(tmp_path / "sheet.sqlite") == 1
            expect(page.locator("#camera-offer")).to_be_hidden()
            browser.close()
    finally:
        server.stop()


def test_a_camera_that_gives_no_picture_is_said_on_the_sheet_and_comes_back_by_itself(showdown, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    _, video, _ = showdown
    plugged = tmp_path / "camera.avi"  # nothing there yet: an unplugged camera
    server = Server(tmp_path / "sheet.sqlite", "--camera", str(plugged))
    server.start()
    try:
        game_id = new_game(server)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport=PHONE)
            page.goto(f"{server.url}/games/{game_id}")
            notice = page.locator("#camera-notice")
            expect(notice).to_be_visible(timeout=15_000)
            expect(notice).to_contain_text("cannot be opened")
            expect(page.locator("#photo-button")).to_be_visible()  # photos still work meanwhile
            arriving = tmp_path / "arriving.avi"
            arriving.write_bytes(video.read_bytes())
            os.replace(arriving, plugged)  # plugged in again
            expect(notice).to_be_hidden(timeout=20_000)
            offer = page.locator("#camera-offer")
            expect(offer, "the server's log:\n" + server.output()[-3000:]).to_be_visible(timeout=45_000)
            browser.close()
    finally:
        server.stop()
