"""Teaching the reader at the table: corrected photos kept as examples, your own deck from photos.

Every model used here is a copy of the shipped one in a temporary folder; models/ is only read.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.cards import CARD_CODES
from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR
from vision.training.examples import collect_example, label_reading, load_examples, summary, write_held_out_folder
from web.cli import main

needs_model = pytest.mark.skipif(
    not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"
)


def card(code, box, confidence=0.9, runner_ups=()):
    return {"card": code, "confidence": confidence, "boxes": [list(box)], "runner_ups": list(runner_ups)}


def reading_of(*cards, size=(400, 300)):
    return {"image_size": list(size), "cards": list(cards)}


# ---------------------------------------------------------------- how corrections become labels


def test_kept_cards_label_their_boxes_and_a_photo_without_hand_added_cards_teaches_the_detector():
    reading = reading_of(card("As", (10, 10, 20, 30)), card("Kd", (50, 10, 60, 30)), card("7h", (90, 10, 100, 30)))
    labelled = label_reading(reading, ["As", "Kd"])  # 7h removed: it was no card
    assert [code for code, _ in labelled["boxes"]] == ["As", "Kd"]
    assert labelled["negatives"] == [(90.0, 10.0, 100.0, 30.0)] and labelled["removed"] == ["7h"]
    assert labelled["detector_safe"] and not labelled["added_by_hand"]


def test_a_misreading_replaced_by_its_runner_up_or_a_related_card_relabels_its_box():
    reading = reading_of(
        card("8s", (10, 10, 20, 30), 0.4, runner_ups=("3s", "8c")),
        card("Qh", (50, 10, 60, 30), 0.3),
        card("As", (90, 10, 100, 30)),
    )
    labelled = label_reading(reading, ["As", "3s", "Kh"])  # 8s is 3s (runner-up), Qh is Kh (suit)
    assert sorted(labelled["corrected"]) == [("8s", "3s"), ("Qh", "Kh")]
    assert sorted(code for code, _ in labelled["boxes"]) == ["3s", "As", "Kh"]
    assert labelled["negatives"] == [] and labelled["detector_safe"]


def test_a_card_added_by_hand_keeps_the_photo_from_the_detector_and_leaves_unpairable_boxes_unknown():
    reading = reading_of(card("9d", (10, 10, 20, 30)), card("As", (90, 10, 100, 30)))
    labelled = label_reading(reading, ["As", "2c"])  # 9d removed, 2c added: unrelated
    assert labelled["added_by_hand"] == ["2c"] and labelled["unknown"] == [(10.0, 10.0, 20.0, 30.0)]
    assert labelled["negatives"] == [] and not labelled["detector_safe"]
    assert [code for code, _ in labelled["boxes"]] == ["As"]  # still a classifier crop


def test_saved_photos_are_kept_in_the_ultralytics_layout_and_listed(tmp_path, capsys):
    import cv2

    image = cv2.imencode(".jpg", np.full((300, 400, 3), 90, np.uint8))[1].tobytes()
    reading = reading_of(card("As", (10, 10, 20, 30)), card("Kd", (50, 10, 60, 30)), card("7h", (90, 10, 100, 30)))
    label = collect_example(tmp_path, image, reading, ["As", "Kd", "2c"], source={"game_id": 1})
    assert label is not None and label.parent.name == "labels"
    lines = label.read_text().splitlines()
    assert [CARD_CODES[int(line.split()[0])] for line in lines] == ["As", "Kd"]
    assert abs(float(lines[0].split()[1]) - 15 / 400) < 1e-6  # YOLO centre x, relative
    assert (tmp_path / "examples" / "classes.txt").read_text().split() == list(CARD_CODES)
    # the same photo saved twice is one example; a photo with nothing labelled is none
    collect_example(tmp_path, image, reading, ["As", "Kd", "2c"])
    assert collect_example(tmp_path, b"other", reading_of(), ["As"]) is None
    examples = load_examples(tmp_path)
    assert len(examples) == 1 and examples[0]["notes"]["added_by_hand"] == ["2c"]
    info = summary(tmp_path)
    assert (info["photos"], info["boxes"], info["detector_photos"], info["added_by_hand"]) == (1, 2, 0, 1)

    assert main(["examples", "--instance", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "classifier only" in out and "added by hand: 2c" in out and "1 photos" in out
    assert main(["examples", "--instance", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["boxes"] == 2
    assert main(["examples", "--instance", str(tmp_path / "none")]) == 0
    assert "no examples collected yet" in capsys.readouterr().out


def test_held_out_examples_make_an_evaluation_folder(tmp_path):
    import cv2

    from vision.evaluation.evaluate import check_eval_folder

    held = 0
    for shade in range(40):  # one detector-safe photo in five is held out, by its hash
        image = cv2.imencode(".jpg", np.full((30, 40, 3), shade, np.uint8))[1].tobytes()
        collect_example(tmp_path, image, reading_of(card("As", (1, 1, 5, 9)), size=(40, 30)), ["As"])
    held = summary(tmp_path)["held_out"]
    assert 0 < held < 40
    folder = write_held_out_folder(tmp_path, tmp_path / "held")
    assert len(check_eval_folder(folder)) == held


# ---------------------------------------------------------------- your own deck


def flat_faces(deck_id: str, folder: Path, codes=CARD_CODES, background=(255, 255, 255)) -> list[Path]:
    """A library deck's faces as plain JPEGs, as a scanner or a cropping app would give them."""
    import cv2

    from vision.training.synth.decks import DATASETS

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for code in codes:
        rgba = cv2.imread(str(DATASETS / "decks" / deck_id / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        alpha = rgba[..., 3:4].astype(np.float32) / 255
        flat = (rgba[..., :3] * alpha + np.array(background, np.float32) * (1 - alpha)).astype(np.uint8)
        path = folder / f"face_{CARD_CODES.index(code):02d}.jpg"  # names say nothing about the card
        cv2.imwrite(str(path), flat, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(path)
    return paths


@pytest.mark.slow
@needs_model
def test_deck_add_on_straightened_faces_writes_a_deck_that_synth_renders(tmp_path, models_copy, capsys):
    faces = tmp_path / "faces"
    flat_faces("bonded", faces)
    instance = tmp_path / "instance"
    assert (
        main(["deck", "add", "mine", str(faces), "--yes", "--instance", str(instance), "--models", str(models_copy)])
        == 0
    )
    out = capsys.readouterr().out
    assert "52/52 faces" in out and "complete" in out
    folder = instance / "decks" / "mine"
    meta = json.loads((folder / "deck.json").read_text())
    assert meta["faces"] == 52 and meta["missing"] == [] and meta["split"] == "train"
    assert all(len(meta["index_regions"][code]) == 2 for code in CARD_CODES)  # both corner indices boxed
    named_right = sum(Path(meta["photos"][code]).stem == f"face_{CARD_CODES.index(code):02d}" for code in CARD_CODES)
    assert named_right >= 48, f"the reader named {named_right}/52 faces of the bonded deck right"
    from vision.training.synth.decks import load_deck

    deck = load_deck(folder)
    assert len(deck.faces) == 52 and deck.faces["As"].shape[2] == 4 and deck.faces["As"][0, 0, 3] == 0  # corners cut
    assert (folder / "preview.png").is_file()

    data = tmp_path / "data"
    assert (
        main(
            [
                "synth",
                "--deck",
                "mine",
                "--instance",
                str(instance),
                "--out",
                str(data),
                "--count",
                "2",
                "--imgsz",
                "160",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert len(list((data / "images").rglob("*.jpg"))) == 2
    assert main(["deck", "list", "--instance", str(instance)]) == 0
    assert "mine" in capsys.readouterr().out


@needs_model
def test_the_user_confirms_or_corrects_each_name_when_asked_about_all(tmp_path, models_copy):
    from vision.detector import load_detector
    from vision.training.teach_deck import teach_deck

    faces = flat_faces("kde_penguins", tmp_path / "faces", codes=("As", "Th", "7c"))
    answers = iter(["", "banana", "9h", "-"])  # accept, a typo (asked again), correct, leave out
    asked = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    result = teach_deck("pen", faces, instance=tmp_path, detector=load_detector(models_copy), ask=ask, ask_all=True)
    assert len(asked) == 4 and "Enter =" in asked[0]
    assert result["added"] == 2 and result["faces"] == 2 and len(result["missing"]) == 50
    folder = tmp_path / "decks" / "pen"
    assert (folder / "9h.png").is_file() and not (folder / "7c.png").is_file()
    with pytest.raises(ValueError, match="has 2 of 52 faces"):
        from vision.training.teach_deck import complete_deck_folder

        complete_deck_folder("pen", tmp_path)
    assert (
        main(["synth", "--deck", "pen", "--instance", str(tmp_path), "--out", str(tmp_path / "d"), "--count", "1"]) == 2
    )


def test_cards_lying_apart_on_a_table_are_found_and_straightened(tmp_path):
    import cv2

    from vision.training.synth.decks import surface_photo_paths
    from vision.training.teach_deck import cards_in_photo

    table = cv2.resize(cv2.imread(str(surface_photo_paths()[3])), (1600, 1200))
    flat = flat_faces("anglo", tmp_path / "faces", codes=("As", "Kd", "7h"))
    for k, (path, angle) in enumerate(zip(flat, (-20, 0, 35), strict=True)):
        face = cv2.imread(str(path))
        h, w = face.shape[:2]
        matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        matrix[:, 2] += (300 + 450 * k - w / 2, 600 - h / 2)
        warped = cv2.warpAffine(face, matrix, (1600, 1200))
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), matrix, (1600, 1200)) > 128
        table[mask] = warped[mask]
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), table)
    cards = cards_in_photo(photo)
    assert len(cards) == 3 and all(c.face.shape[0] == 340 and c.face.shape[1] < 340 for c in cards)
    # straightened: each face is bright paper up to its edges, like the face it was made from
    assert all(float(c.face[:, :, :].mean()) > 150 for c in cards)
    # a photo that is itself one face stays one face
    assert len(cards_in_photo(flat[0])) == 1


def test_deck_add_says_what_is_wrong(tmp_path, capsys):
    assert main(["deck", "add", "bad name", str(tmp_path)]) == 2
    assert "deck name" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["deck", "add", "mine", str(empty), "--yes", "--instance", str(tmp_path)]) == 2
    assert "holds no photos" in capsys.readouterr().err
    assert main(["synth", "--deck", "nothing", "--instance", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "no deck named 'nothing'" in err and "Traceback" not in err


def test_deck_add_with_nobody_to_answer_says_to_use_yes(tmp_path, models_copy, capsys, monkeypatch):
    import io

    faces = flat_faces("anglo", tmp_path / "faces", codes=("As",))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    command = ["deck", "add", "mine", str(faces[0]), "--instance", str(tmp_path), "--models", str(models_copy)]
    assert main([*command, "--check-all"]) == 2  # a question, and no one to answer it
    assert "--yes" in capsys.readouterr().err
    assert not (tmp_path / "decks" / "mine").exists()  # nothing written
    assert main(command) == 0  # the reader is sure of this one: nothing to ask
    assert "1 of 1 faces named surely" in capsys.readouterr().out


def test_of_two_faces_that_read_one_card_the_one_the_matching_named_keeps_it():
    """The one-to-one matching gave As to the less sure face (the surer one fits another name better): that
    face keeps As and the surer one is the duplicate, so ``--yes`` keeps one of them, never neither."""
    from vision.training.face_names import Naming, mark_duplicates
    from vision.training.table_cards import FoundCard

    face = np.zeros((4, 3, 3), np.uint8)
    cards = [FoundCard(face, "spades.jpg", 13), FoundCard(face, "again.jpg", 2), FoundCard(face, "again.jpg", 3)]
    surer = Naming(("2s", "As"), (0.05, 0.92)).doubting("reads As (0.92), but As fits another face better")
    matched = Naming(("As", "4s"), (0.81, 0.1), sure=True)
    alone = Naming(("Kc",), (0.99,), sure=True)
    marked = mark_duplicates(cards, [surer, matched, alone])
    assert marked[1].duplicate_of is None and marked[1].doubts[-1] == f"{cards[0].label} reads As too"
    assert marked[0].duplicate_of == 1 and not any("fits another face better" in d for d in marked[0].doubts)
    assert marked[2] == alone
    # without a matching that named either, the surer keeps it, as before
    neither = mark_duplicates(cards[:2], [surer, Naming(("3s", "As"), (0.1, 0.81))])
    assert neither[0].duplicate_of is None and neither[1].duplicate_of == 0
