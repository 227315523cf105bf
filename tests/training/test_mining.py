"""Hard negatives mined by the shipped detector: `ginscore synth --mine` and `--mine-tables`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR
from web.cli import main

pytestmark = pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/")


def test_a_no_card_table_holds_a_score_pad_and_depends_only_on_its_seed():
    from vision.training.synth.dataset import load_synth_assets
    from vision.training.synth.mining import no_card_table

    assets = load_synth_assets(None)
    first = no_card_table(np.random.default_rng([34, 0]), assets)
    again = no_card_table(np.random.default_rng([34, 0]), assets)
    other = no_card_table(np.random.default_rng([34, 1]), assets)
    assert sorted(first.shape[:2]) == [1200, 1600] and first.dtype == np.uint8
    assert np.array_equal(first, again)
    assert first.shape != other.shape or np.abs(first.astype(int) - other).mean() > 5


@pytest.mark.slow
def test_mining_no_card_tables_writes_every_proposal_as_not_a_card(tmp_path: Path, capsys):
    out = tmp_path / "mined"
    assert main(["synth", "--out", str(out), "--seed", "34", "--crops", "--mine-only", "--mine-tables", "11"]) == 0
    printed = capsys.readouterr().out
    assert "read 11 no-card tables" in printed
    crops = out / "crops"
    assert {p.name for p in (crops / "train").iterdir()} == {"none"}, "a table with no card gives no card crop"
    train, val = list((crops / "train" / "none").glob("*.jpg")), list((crops / "val" / "none").glob("*.jpg"))
    # handwriting on a pad is proposed on most tables (seed 34: see the count printed)
    assert len(train) + len(val) >= 11
    assert all(p.name.split("_")[2] in ("0000000", "0000010") for p in val), "tables 0 and 10 go to val"
    assert not any(p.name.split("_")[2] in ("0000000", "0000010") for p in train)
    assert f"{len(train) + len(val)} 'none' crops" in printed


def test_mining_without_crops_says_what_to_do(tmp_path: Path, capsys):
    assert main(["synth", "--out", str(tmp_path / "x"), "--mine-tables", "3"]) == 2
    assert "--crops" in capsys.readouterr().err
