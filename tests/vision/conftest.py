"""Fixtures of the reading tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GOLDEN_SCRIPT = Path(__file__).with_name("golden_readings.py")


@pytest.fixture(scope="session")
def readings_now(tmp_path_factory) -> dict[str, Any]:
    """The shipped reader's readings of the golden set as it reads them now (``golden_readings.py``: real-val,
    real-clutter with its evaluation summary, rendered scenes and frames), read once in a process of its own for
    every test that looks at them: the golden comparison and the real-clutter floors."""
    now = tmp_path_factory.mktemp("golden") / "now.json"
    subprocess.run(
        [sys.executable, str(GOLDEN_SCRIPT), "--to", str(now)], check=True, capture_output=True, timeout=1800
    )
    readings: dict[str, Any] = json.loads(now.read_text())
    return readings
