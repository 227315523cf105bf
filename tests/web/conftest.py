"""Fixtures for the web app: an app on a temporary SQLite file, its test client, a headless Chromium.
The plain helpers the tests call (new_game, add_counts, ...) are in sheet_helpers.py."""

from __future__ import annotations

import pytest
from browser_setup import CHROMIUM

from web import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {"DATABASE": str(tmp_path / "sheet.sqlite"), "TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test"}
    )
    app.instance_path = str(tmp_path)
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright, one per test module (the browser tests skip
    themselves when /usr/bin/chromium is missing)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()
