"""The reader reads the golden photos as it did when ``golden_readings.json`` was written (see
``golden_readings.py``): the same cards, confidences (to 1e-4), runner-ups, reasons, boxes and hands.

The tolerance is machine noise, not leeway: torch's CPU kernels differ in their last digits from one processor to
another (measured: 3e-5 on a confidence between two 2-core machines of this project, and 1.3e-4 on an AMD EPYC
against the machine that wrote the file, session 32), so a confidence, and a percentage printed from it, may differ
that much; a change of the reading itself differs by far more. The readings of now are read once for this test and
the real-clutter floors (``readings_now`` in conftest.py)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from golden_readings import GOLDEN

from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"),
    pytest.mark.skipif(not GOLDEN.exists(), reason="no golden readings written"),
]

TOLERANCE = 1e-3
PERCENT = re.compile(r"(\d+)%")


def same_text(golden: str, read: str) -> bool:
    """The same words, and each percentage in them within one point (a confidence at a rounding edge)."""
    if PERCENT.sub("%", golden) != PERCENT.sub("%", read):
        return False
    pairs = zip(PERCENT.findall(golden), PERCENT.findall(read), strict=True)
    return all(abs(int(g) - int(r)) <= 1 for g, r in pairs)


def differences(golden: Any, read: Any, where: str = "") -> list[str]:
    """Where ``read`` differs from ``golden``: numbers by more than ``TOLERANCE``, everything else at all."""
    if isinstance(golden, dict) and isinstance(read, dict):
        if golden.keys() != read.keys():
            return [f"{where}: keys {sorted(golden.keys() ^ read.keys())} differ"]
        return [d for key in golden for d in differences(golden[key], read[key], f"{where}/{key}")]
    if isinstance(golden, list) and isinstance(read, list):
        if len(golden) != len(read):
            return [f"{where}: {len(read)} items, golden {len(golden)}: {read!r:.300} vs {golden!r:.300}"]
        return [
            d for k, (g, r) in enumerate(zip(golden, read, strict=True)) for d in differences(g, r, f"{where}[{k}]")
        ]
    numbers = (int, float)
    if isinstance(golden, numbers) and isinstance(read, numbers) and not isinstance(golden, bool):
        return [] if math.isclose(golden, read, rel_tol=0, abs_tol=TOLERANCE) else [f"{where}: {read} vs {golden}"]
    if isinstance(golden, str) and isinstance(read, str):
        return [] if same_text(golden, read) else [f"{where}: {read!r} vs {golden!r}"]
    return [] if golden == read else [f"{where}: {read!r} vs {golden!r}"]


def test_the_golden_photos_read_as_they_did(readings_now):
    golden = json.loads(GOLDEN.read_text())
    found = differences(golden, readings_now)
    assert not found, f"{len(found)} differences:\n" + "\n".join(found[:40])
