"""A taught deck's check photos (``ginscore deck check``) and the rule that judges a retrain by them
(``retrain.decide``): teaching must buy something on the deck it taught, and cost at most one card of real-val
and no false card on real-clutter."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from engine.cards import CARD_CODES
from vision.evaluation.evaluate import check_eval_folder
from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR
from vision.training.retrain import decide, real_set_words, taught_deck_sets, taught_deck_words
from vision.training.synth.decks import DATASETS, load_deck
from vision.training.synth.table_photo import render_table_photo
from web.cli import main


def numbers(right, labelled, read):
    return {
        "right": right,
        "labelled": labelled,
        "read": read,
        "recall": right / labelled,
        "precision": right / read,
        "false_cards": read - right,
    }


BEFORE = {
    "real-val": numbers(340, 345, 340),
    "real-clutter": numbers(500, 900, 503),
    "taught deck mine": numbers(18, 21, 20),
}


def after(**changes):
    return {**BEFORE, **changes}


def test_a_retrain_that_reads_the_taught_deck_better_installs_within_one_card_of_real_val():
    better = after(**{"taught deck mine": numbers(20, 21, 20), "real-val": numbers(339, 345, 339)})
    assert decide(BEFORE, better) == (True, [])
    assert taught_deck_words(BEFORE, better) == ["taught deck mine: 18 -> 20 of 21 cards right, 2 -> 0 wrong"]
    fewer_wrong = after(**{"taught deck mine": numbers(18, 21, 18)})
    assert decide(BEFORE, fewer_wrong)[0], "as many right and fewer wrong is a gain"
    perfect = {**BEFORE, "taught deck mine": numbers(13, 13, 13)}
    assert decide(perfect, perfect)[0], "a check photo read without a fault before and after has nothing to gain"
    assert not decide(perfect, {**perfect, "taught deck mine": numbers(12, 13, 13)})[0]


def test_a_retrain_is_refused_when_the_taught_deck_does_not_gain_or_the_other_sets_pay_too_much():
    same, reasons = decide(BEFORE, BEFORE)
    assert not same and reasons == ["taught deck mine did not gain: 18 -> 18 cards right, 2 -> 2 wrong"]
    gained = numbers(20, 21, 20)
    two_lost, reasons = decide(BEFORE, after(**{"taught deck mine": gained, "real-val": numbers(338, 345, 338)}))
    assert not two_lost and reasons == ["real-val: 340 -> 338 cards right (more than 1 lost)"]
    false_cards, reasons = decide(BEFORE, after(**{"taught deck mine": gained, "real-clutter": numbers(500, 900, 504)}))
    assert not false_cards and reasons == ["real-clutter: 3 -> 4 false cards"]


def test_real_val_is_counted_leaving_one_photo_out_when_both_measures_have_it():
    gained = numbers(20, 21, 20)
    # all photos: 2 cards lost, a card or two sitting just above a gate; leaving one photo out: 1 lost
    before = after(**{"real-val": {**numbers(340, 345, 340), "leave_one_out_right": 338}})
    at_the_gate = after(
        **{"taught deck mine": gained, "real-val": {**numbers(338, 345, 338), "leave_one_out_right": 337}}
    )
    assert decide(before, at_the_gate) == (True, [])
    really_lost = after(
        **{"taught deck mine": gained, "real-val": {**numbers(340, 345, 340), "leave_one_out_right": 336}}
    )
    installs, reasons = decide(before, really_lost)
    assert not installs and reasons == ["real-val: 338 -> 336 cards right leaving one photo out (more than 1 lost)"]
    # a measure without it (an older cache) falls back to all photos
    assert not decide(BEFORE, at_the_gate)[0]
    assert real_set_words(before, at_the_gate) == [
        "real-val: 340 -> 338 of 345 cards right (338 -> 337 leaving one photo out)",
        "real-clutter: 3 -> 3 false cards",
    ]
    assert real_set_words(BEFORE, at_the_gate)[0] == "real-val: 340 -> 338 of 345 cards right"


def test_without_check_photos_the_rule_is_the_old_one():
    plain = {name: value for name, value in BEFORE.items() if not name.startswith("taught deck")}
    assert decide(plain, plain) == (True, [])
    assert not decide(plain, {**plain, "real-val": numbers(339, 345, 339)})[0]


def test_only_decks_with_check_photos_are_measured(tmp_path):
    (tmp_path / "a" / "check" / "images").mkdir(parents=True)
    (tmp_path / "a" / "check" / "images" / "check_1.jpg").write_bytes(b"x")
    (tmp_path / "b").mkdir()
    assert [s.name for s in taught_deck_sets([tmp_path / "a", tmp_path / "b"])] == ["taught deck a"]


def test_checking_a_deck_never_taught_is_refused_in_words(tmp_path, capsys):
    photo = tmp_path / "spread.jpg"
    photo.write_bytes(b"not read")
    assert main(["deck", "check", "mine", str(photo), "--yes", "--instance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no taught deck named 'mine'" in err and "ginscore deck add mine" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/")
def test_a_confirmed_spread_becomes_a_check_photo_the_retrain_measures(tmp_path, models_copy):
    from vision.detector import load_detector
    from vision.training.deck_check import add_check_photo
    from vision.training.teach_deck import write_deck

    deck = load_deck(DATASETS / "decks" / "kde_penguins")
    folder = tmp_path / "decks" / "mine"
    write_deck(folder, "mine", {"As": deck.faces["As"]}, {"As": "test"})
    hearts = [rank + "h" for rank in "A23456789"]
    image, _ = render_table_photo(deck, hearts, "gimp_pine.jpg", seed=3)
    photo = tmp_path / "spread.jpg"
    cv2.imwrite(str(photo), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    prompts: list[str] = []

    def user(prompt: str) -> str:  # fixes the first card to the 2 of spades, says the K of clubs was missed
        prompts.append(prompt)
        if prompt.startswith("card 1 "):
            return "2s"
        return "Kc" if prompt.startswith("cards the reader missed") else ""

    result = add_check_photo("mine", photo, detector=load_detector(models_copy), ask=user, instance=tmp_path)
    read = len(prompts) - 1
    assert read >= 8 and result["missed"] == ["Kc"] and result["fixed"][0][1] == "2s"
    assert "2s" in result["cards"] and len(result["cards"]) == read
    check = folder / "check"
    assert check_eval_folder(check)  # an evaluation folder, as real-val is
    labels = (check / "labels" / f"{result['stem']}.txt").read_text().split("\n")
    assert CARD_CODES.index("2s") in {int(line.split()[0]) for line in labels if line}
    assert json.loads((check / "notes" / f"{result['stem']}.json").read_text())["missed"] == ["Kc"]
    assert [s.name for s in taught_deck_sets([folder])] == ["taught deck mine"]


def test_measure_counts_real_val_leaving_one_photo_out_when_both_real_sets_are_measured(tmp_path, monkeypatch):
    """The wiring of ``retrain.measure``: the slow parts (reading 303 photos, the choice on them) stand in here;
    the sets as ``--eval`` names them (relative paths), the count remembered for the same models."""
    import os

    from vision.evaluation import confidence_rule
    from vision.training import retrain

    chosen: list[tuple[str, ...]] = []
    monkeypatch.setattr(retrain, "measure_set", lambda detector, eval_set, imgsz=None: numbers(5, 6, 5))
    monkeypatch.setattr(
        confidence_rule,
        "choose_and_check",
        lambda detector, sets, say=print: (
            chosen.append(tuple(sets)) or {"sets": {"real-val": {"leave_one_out": {"right": 338}}}}
        ),
    )
    real = DATASETS / "real"
    sets = tuple(retrain.eval_set_of(Path(os.path.relpath(real / name))) for name in ("real-val", "real-clutter"))
    cache = tmp_path / "measurements.json"
    results = retrain.measure(DEFAULT_MODELS_DIR, sets, cache_path=cache)
    assert results["real-val"]["leave_one_out_right"] == 338 and "leave_one_out_right" not in results["real-clutter"]
    assert chosen == [("real-val", "real-clutter")]
    assert retrain.measure(DEFAULT_MODELS_DIR, sets, cache_path=cache)["real-val"]["leave_one_out_right"] == 338
    assert len(chosen) == 1, "remembered for the same models and sets"
    assert "leave_one_out_right" not in retrain.measure(DEFAULT_MODELS_DIR, sets[:1])["real-val"]
