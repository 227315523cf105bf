"""The shipped reader's readings of a fixed set of photos, kept in ``golden_readings.json``: a change to how
vision/ reads (a refactor) must leave every card's code, confidence, runner-ups, review reasons and boxes as
they were (``test_golden_readings.py`` reads them again and compares).

The photos: every image of datasets/real/real-val, read with ``read_photo``; every image of
datasets/real/real-clutter, read as ``ginscore eval`` reads that rank-labelled set (``evaluate_rank_folder``),
whose summary is kept too (the clutter floors in ``test_trust_on_real_photos.py`` are checked on it: the 296
photos are read once for both); ``SCENES`` rendered scenes (``vision.training.synth``, fixed seeds, never written
to disk) read with ``read_photo``, then as a run of webcam frames with ``read_frame`` (each scene twice, so that
the second reading of a frame goes through the frame memory); and ``ginscore eval``'s summary of real-val.

Run ``python tests/vision/golden_readings.py`` to write the file again (only when a reading is meant to change).
The test reads in a process of its own: models that other tests ran first can differ in the sixth decimal
(two real-val confidences moved by up to 8e-6 after the frame-memory tests had read webcam frames).
The test takes about 100 s on two cores; on a machine busy with other jobs, ``OMP_WAIT_POLICY=PASSIVE`` keeps
torch's idle threads from spinning (without it one run there took over 13 CPU minutes); it changes no number.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPOSITORY = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden_readings.json")
REAL = REPOSITORY / "datasets" / "real"
PHOTO_FOLDER = "real-val"  # read with read_photo
RANK_FOLDER = "real-clutter"  # read by evaluate_rank_folder
SCENES = 20
SCENE_SEED = 37
# timing and the folder's path differ from run to run; the most missed and extra cards list ties in set order
EVAL_SKIPPED = ("seconds_per_photo", "folder", "most_missed", "most_extra")


def real_photos() -> Iterator[tuple[str, Path]]:
    for path in sorted((REAL / PHOTO_FOLDER / "images").iterdir()):
        if path.suffix.lower() in (".jpg", ".jpeg", ".png"):
            yield f"{PHOTO_FOLDER}/{path.name}", path


def rendered_scenes() -> Iterator[tuple[str, np.ndarray]]:
    """``SCENES`` synthetic tables as the training data renders them, from fixed seeds."""
    from vision.training.synth.dataset import SynthConfig, load_synth_assets, make_scene

    assets = load_synth_assets(None)
    config = SynthConfig(out=Path("unused"), count=SCENES, imgsz=1280, seed=SCENE_SEED)
    for index in range(SCENES):
        _, scene = make_scene(config, assets, index)
        yield f"scene{index:02d}", scene.image


def reading_json(reading: Any) -> dict[str, Any]:
    """A ``PhotoReading`` with its numbers unrounded."""
    return {
        "cards": [
            {
                "card": card.card,
                "confidence": float(card.confidence),
                "boxes": [[float(v) for v in box] for box in card.boxes],
                "runner_ups": list(card.runner_ups),
                "review": [reason.to_json() for reason in card.review],
            }
            for card in reading.cards
        ],
        "hands": [list(hand) for hand in reading.hands],
        "split_axis": reading.split_axis,
        "split_confidence": float(reading.split_confidence),
        "conflicts": list(reading.conflicts),
    }


def fresh_frame_reader() -> None:
    """Forget the frames read before (the models load again), so a run of frames starts alike every time."""
    from vision.detector import reload_models

    reload_models()


def read_all() -> dict[str, Any]:
    """Every reading of the golden set, by name."""
    from vision.evaluation.evaluate import evaluate_folder, evaluate_rank_folder
    from vision.reading import PhotoReading
    from vision.recognise import read_frame, read_photo

    readings: dict[str, Any] = {}
    for name, path in real_photos():
        readings[f"photo {name}"] = reading_json(read_photo(path))
    clutter: dict[str, PhotoReading] = {}
    rank_summary = evaluate_rank_folder(REAL / RANK_FOLDER, keep_readings=clutter)
    for name, reading in sorted(clutter.items()):
        readings[f"photo {RANK_FOLDER}/{name}"] = reading_json(reading)
    readings[f"eval {RANK_FOLDER}"] = {
        key: value for key, value in rank_summary.items() if key not in (*EVAL_SKIPPED, "photos")
    }
    scenes = list(rendered_scenes())
    for name, image in scenes:
        readings[f"photo {name}"] = reading_json(read_photo(image))
    fresh_frame_reader()
    for name, image in scenes:
        frame = cv2.resize(image, (640, round(640 * image.shape[0] / image.shape[1])), interpolation=cv2.INTER_AREA)
        for k in (1, 2):
            readings[f"frame {name} #{k}"] = reading_json(read_frame(frame))
    summary = evaluate_folder(REAL / "real-val")
    readings["eval real-val"] = {key: value for key, value in summary.items() if key not in EVAL_SKIPPED}
    return json.loads(json.dumps(readings))  # tuples as lists, as the file holds them


def main() -> int:
    """Write the golden file, or with ``--to PATH`` the readings of now (the test reads them in a fresh process)."""
    target = Path(sys.argv[sys.argv.index("--to") + 1]) if "--to" in sys.argv else GOLDEN
    target.write_text(json.dumps(read_all(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPOSITORY))
    sys.exit(main())
