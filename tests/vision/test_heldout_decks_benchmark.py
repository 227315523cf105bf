"""benchmarks/heldout_decks.py: its arguments, its HELDOUT folder, and (slow) a run of two scenes rendered once."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout_decks.py"


def load_script():
    spec = importlib.util.spec_from_file_location("heldout_decks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "argv, words",
    [
        ([], "--seed"),
        (["--seed", "-1"], "--seed -1"),
        (["--seed", "1", "--scenes", "0"], "--scenes 0"),
        (["--seed", "1", "--workers", "0"], "--workers 0"),
        (["--seed", "1", "--models", "/no/such/models"], "no such folder"),
    ],
)
def test_wrong_arguments_stop_before_rendering(argv, words, capsys):
    with pytest.raises(SystemExit) as stopped:
        load_script().main(argv)
    assert stopped.value.code == 2
    assert words in capsys.readouterr().err


def test_the_heldout_decks_are_the_libraries_val_decks_shared_out():
    script = load_script()
    assert script.heldout_decks() == ["atlasnye", "bonded", "kde_ancient_egyptians", "kde_jolly_royal", "kde_penguins"]
    assert script.scenes_per_deck(2, 5) == [1, 1, 0, 0, 0]
    assert sum(script.scenes_per_deck(801, 5)) == 801


def test_a_card_read_right_only_at_a_hidden_index_is_not_counted_among_the_labelled():
    from vision.evaluation.calibration import CardOutcome

    outcomes = [
        CardOutcome(0.9, 2, True, ()),
        CardOutcome(0.8, 1, True, (), labelled=False),  # right where its index was too hidden to label
        CardOutcome(0.7, 1, False, ()),
    ]
    assert load_script().right_of_labelled(outcomes) == 1


def test_heldout_folder_links_the_decks_and_writes_the_bundled_photos(tmp_path):
    pytest.importorskip("skimage")
    script = load_script()
    surfaces, about = script.skimage_surfaces()
    assert sorted(surfaces) == sorted(script.SKIMAGE_SURFACES), about
    folder = script.build_heldout_folder(tmp_path, ["bonded"], surfaces)
    assert (folder / "decks" / "bonded" / "deck.json").is_file() and (folder / "backs").is_symlink()
    assert sorted(p.stem for p in (folder / "surfaces").glob("*.jpg")) == sorted(surfaces)


@pytest.mark.slow
def test_two_scenes_are_read_and_rendered_only_once(tmp_path, capsys):
    script = load_script()
    argv = ["--seed", "3", "--scenes", "2", "--out", str(tmp_path)]
    assert script.main(argv) == 0
    first = capsys.readouterr().out
    assert "rendered 1 scenes" in first and first.count("rendered before") == 0
    assert script.main(argv) == 0
    second = capsys.readouterr().out
    assert second.count("rendered before") == 2
    last = first.strip().splitlines()[-1]
    assert re.fullmatch(
        r"held-out decks: \d+ cards, wrong \d+\.\d %, silent \d+\.\d per 2,000, right flagged \d+\.\d %", last
    )
    assert second.strip().splitlines()[-1] == last


def test_the_cards_to_read_are_those_with_a_labelled_index_each_counted_once(tmp_path):
    script = load_script()
    labels = tmp_path / "labels" / "val"
    labels.mkdir(parents=True)
    # scene a: card 4 at two corners and card 7 at one; scene b: card 4 again (another scene, another card)
    (labels / "a.txt").write_text("4 0.1 0.1 0.02 0.03\n7 0.5 0.5 0.02 0.03\n4 0.9 0.9 0.02 0.03\n\n")
    (labels / "b.txt").write_text("4 0.2 0.2 0.02 0.03\n")
    assert script.labelled_cards(tmp_path) == 3
