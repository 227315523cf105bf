"""What every browser test shares: Debian's Chromium (never a downloaded browser), the marks that keep the
browser tests out of the fast lane and skip them without Chromium, and the two window sizes they look at."""

from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
BROWSER_TESTS = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason="Debian chromium is not installed (apt-get install chromium; .ci/install does it)",
    ),
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
