"""The Players pages in a real headless Chromium: the record of two players over three games at 390 px
(the numbers, the chart with one point per game, no sideways scrolling, thumb-sized targets, without
JavaScript too), and screenshots at 390 and 1280 px in /tmp/players_*.png to look at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_setup import BROWSER_TESTS, DESKTOP, PHONE
from servers import ThreadServer

from web import create_app

pytestmark = BROWSER_TESTS
SCREENSHOTS = Path("/tmp")

# Three games of Ann and Bob by the standard rules (gin 25, undercut 25, game 100, box 25, to 100), as
# counts: (knocker, deadwood of seat 0, deadwood of seat 1, gin). By the rule book (docs/rules.md):
GAMES = [
    (
        ("Ann", "Bob"),
        [
            (0, 0, 30, True),  # Ann gin: 25 + 30 = 55
            (1, 3, 5, False),  # Bob knocks with 5, Ann has 3: Ann undercuts, 2 + 25 = 27
            (0, 2, 40, False),  # Ann knocks: 38; Ann 120, Bob 0: over (shutout)
        ],
    ),
    (
        ("Bob", "Ann"),  # Bob sits first: the record must follow the names, not the seats
        [
            (0, 0, 45, True),  # Bob gin: 25 + 45 = 70
            (1, 12, 2, False),  # Ann knocks with 2 against 12: 10
            (1, 4, 4, False),  # Ann knocks with 4, Bob has 4: a tie is Bob's undercut, 0 + 25
            (0, 1, 20, False),  # Bob knocks: 19; Bob 114: over
        ],
    ),
    (
        ("Ann", "Bob"),
        [
            (0, 6, 16, False),  # Ann knocks: 10
            (0, 9, 3, False),  # Ann knocks with 9, Bob has 3: Bob undercuts, 6 + 25 = 31
            (0, 0, 10, True),  # Ann gin: 25 + 10 = 35; Ann 45, Bob 31: in progress
        ],
    ),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("players")
    app = create_app({"DATABASE": str(folder / "sheet.sqlite"), "SECRET_KEY": "test"})
    app.instance_path = str(folder)
    with ThreadServer(app) as server:
        for players, hands in GAMES:
            game_id = api(server, "/api/games", {"players": list(players), "target": 100})["id"]
            for knocker, deadwood0, deadwood1, gin in hands:
                api(
                    server,
                    f"/api/games/{game_id}/hands",
                    {"knocker": knocker, "deadwood": [deadwood0, deadwood1], "gin": gin},
                )
        long_game = api(server, "/api/games", {"players": ["Annabelle-Marguerite", "Bartholomew Fitzgerald"]})["id"]
        api(server, f"/api/games/{long_game}/hands", {"knocker": 1, "deadwood": [33, 0], "gin": True})
        api(server, "/api/games", {"players": ["Robert", "Cat"]})
        server.url = f"http://127.0.0.1:{server.port}"
        yield server


def api(server: ThreadServer, path: str, body: dict) -> dict:
    status, _, answer = server.request("POST", path, body, {"X-Requested-With": "test"})
    assert status == 201, answer
    return json.loads(answer)


def cells(page, row_id: str) -> list[str]:
    return [text.strip() for text in page.locator(f"#{row_id} td").all_text_contents()]


def sideways(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def small_targets(page) -> list[str]:
    """Buttons, links styled as buttons, selects and text fields in the page's main part under 44 px tall."""
    return page.eval_on_selector_all(
        "main button, main .button, main select, main input:not([type=hidden]), main a.where",
        "els => els.filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)"
        ".map(e => e.outerHTML.slice(0, 80))",
    )


def test_the_record_of_two_players_over_three_games_at_390_px(server, browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
    page.click("#players-link")
    page.wait_for_selector("#players")
    page.click("#players li[data-name=Ann] a:has-text('v Bob (3)')")
    page.wait_for_selector("#record-table")
    assert page.text_content("h1").split() == ["Ann", "v", "Bob"]
    assert cells(page, "games-won") == ["1", "1"]
    assert cells(page, "hands-won") == ["6", "4"]
    assert cells(page, "gins") == ["2", "1"]
    assert cells(page, "undercuts") == ["1", "2"]
    biggest = cells(page, "biggest")
    assert biggest[0].startswith("55") and "game 1, hand 1" in biggest[0]
    assert biggest[1].startswith("70") and "game 2, hand 1" in biggest[1]
    assert "1 in progress" in page.text_content("#record-count")
    points = page.locator("svg#head-to-head circle.game-point")
    assert points.count() == 3, "one point per game"
    assert [points.nth(i).get_attribute("data-winner") for i in range(3)] == ["0", "1", None]
    assert page.locator("svg#head-to-head polyline").count() == 2
    chart = page.locator("svg#head-to-head").bounding_box()
    assert chart is not None and chart["width"] >= 300, chart
    games = page.locator("#record-games li").all_text_contents()
    assert "Ann 45–31 Bob" in games[0] and "in progress" in games[0]
    assert "Ann 35–289 Bob" in games[1] and "Bob won" in games[1]
    assert "Ann 395–0 Bob" in games[2] and "Ann won" in games[2]
    assert sideways(page) <= 0
    assert not small_targets(page), small_targets(page)
    page.screenshot(path=str(SCREENSHOTS / "players_record_390.png"), full_page=True)

    page.goto(server.url + "/players")
    assert sideways(page) <= 0 and not small_targets(page), small_targets(page)
    page.screenshot(path=str(SCREENSHOTS / "players_list_390.png"), full_page=True)
    page.goto(server.url + "/players/merge?a=Robert&b=Bob")
    assert "Merge Robert into Bob?" in page.text_content("h1")
    assert sideways(page) <= 0 and not small_targets(page), small_targets(page)
    page.screenshot(path=str(SCREENSHOTS / "players_merge_390.png"), full_page=True)
    page.goto(server.url + "/players/rename?name=Bartholomew%20Fitzgerald")
    assert sideways(page) <= 0 and not small_targets(page), small_targets(page)
    page.screenshot(path=str(SCREENSHOTS / "players_rename_390.png"), full_page=True)
    page.goto(server.url + "/players/record?a=Annabelle-Marguerite&b=Bartholomew%20Fitzgerald")
    assert cells(page, "games-won") == ["0", "0"] and cells(page, "hands-won") == ["0", "1"]  # 58 of 100 so far
    assert sideways(page) <= 0 and not small_targets(page), small_targets(page)
    page.screenshot(path=str(SCREENSHOTS / "players_record_long_names_390.png"), full_page=True)
    context.close()
    assert not errors, errors


def test_the_record_page_works_without_javascript_and_at_1280_px(server, browser):
    context = browser.new_context(viewport=DESKTOP, device_scale_factor=1, java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + "/players/record?a=bob&b=ANN")  # any spelling finds the players
    assert page.text_content("h1").split() == ["Bob", "v", "Ann"]
    assert cells(page, "games-won") == ["1", "1"] and cells(page, "hands-won") == ["4", "6"]
    assert page.locator("svg#head-to-head circle.game-point").count() == 3
    page.select_option("#record-form select[name=b]", "Cat")
    page.click("#record-form button[type=submit]")  # a plain GET form
    assert page.locator("#record-table").count() == 0
    assert "Bob and Cat have not played each other yet." in page.text_content(".error")
    page.goto(server.url + "/players/record?a=Ann&b=Bob")
    assert sideways(page) <= 0
    page.screenshot(path=str(SCREENSHOTS / "players_record_1280.png"), full_page=True)
    page.goto(server.url + "/players")
    page.screenshot(path=str(SCREENSHOTS / "players_list_1280.png"), full_page=True)
    context.close()
