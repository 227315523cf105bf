"""Hard negatives mined by the detector itself: run it over synthetic scenes and keep what it proposes.

A proposal that overlaps no corner index of the scene (labelled or hidden) is what the reader would
have read as a card although there is none: text, a score pad, a court picture, a pip, a cloth
pattern. Its crop goes to the classifier's "not a card" class. A proposal on a labelled index is a
crop exactly as the detector frames it in use, and goes to that card's class.

The scene's index regions come from rendering it again (a scene depends only on the dataset's seed
and its number), so no extra file is needed beside the images.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.crops import crop_index
from vision.detections import box_iou
from vision.detector import REJECT_CLASS, load_detector
from vision.proposals import proposals_of
from vision.training.synth import clutter
from vision.training.synth.camera import Camera
from vision.training.synth.dataset import SynthConfig, config_assets, load_synth_assets, make_scene, scene_split
from vision.training.synth.scene import overlaps_a_region, render_scene

MINING_IMGSZ = 640
MINING_CONF = 0.05
MAX_NEGATIVES_PER_SCENE = 6
MAX_POSITIVES_PER_SCENE = 4
CROP_JPEG_QUALITY = 95


def _with_progress(indices: range, progress: bool, desc: str, unit: str):
    if not progress:
        return indices
    from tqdm import tqdm

    return tqdm(indices, desc=desc, unit=unit)


def _write_crop(folder: Path, name: str, image: np.ndarray, box) -> None:
    """A mined proposal's crop, cut as the reader cuts it."""
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(
        str(folder / f"{name}.jpg"), crop_index(image, tuple(box)), [cv2.IMWRITE_JPEG_QUALITY, CROP_JPEG_QUALITY]
    )


def mine_scenes(config: SynthConfig, count: int, detector=None, progress: bool = True) -> dict[str, int]:
    """Run the detector over the first ``count`` scenes of the dataset in ``config.out`` and write
    mined crops into ``crops/<split>/none`` and ``crops/<split>/<code>``; returns counts."""

    detector = detector or load_detector()
    assets = config_assets(config)
    stats = {"scenes": 0, "negatives": 0, "positives": 0}
    for index in _with_progress(range(min(count, config.count)), progress, "mine", "scene"):
        split = scene_split(config, index)
        name = f"scene_{config.seed}_{index:07d}"
        image = cv2.imread(str(config.out / "images" / split / f"{name}.jpg"))
        if image is None:
            continue
        _, scene = make_scene(config, assets, index)
        xyxy = proposals_of(detector, image, MINING_IMGSZ, MINING_CONF).xyxy
        regions = np.array(scene.index_regions, dtype=np.float64).reshape(-1, 4)
        labels = np.array([label.box for label in scene.labels], dtype=np.float64).reshape(-1, 4)
        ious = box_iou(xyxy, labels) if len(labels) else np.zeros((len(xyxy), 0))
        negatives = positives = 0
        for k, box in enumerate(xyxy):
            if not overlaps_a_region(box, regions, 0.1) and negatives < MAX_NEGATIVES_PER_SCENE:
                folder, negatives = config.out / "crops" / split / REJECT_CLASS, negatives + 1
            elif ious.shape[1] and ious[k].max() >= 0.6 and positives < MAX_POSITIVES_PER_SCENE:
                folder, positives = (
                    config.out / "crops" / split / scene.labels[int(ious[k].argmax())].code,
                    positives + 1,
                )
            else:
                continue
            _write_crop(folder, f"{name}_m{k}", image, box)
        stats["scenes"] += 1
        stats["negatives"] += negatives
        stats["positives"] += positives
    return stats


NO_CARD_TABLE_CONF = 0.1  # proposals this sure or surer become "not a card" crops
MAX_NEGATIVES_PER_TABLE = 16
TABLE_STREAM = 7919  # table i of a seed draws from rng([seed, TABLE_STREAM, i]), apart from scene i's
PAPER_KINDS = ("newspaper", "envelope", "printed_box")


def no_card_table(rng: np.random.Generator, assets: dict, image_size: tuple[int, int] = (1600, 1200)):
    """A random table with a score pad (and usually printed paper) on it and no card, photographed
    from a random height and angle: every index the reader proposes on it is a false card."""

    sheets = [
        clutter.ClutterSheet(
            "score_pad",
            clutter.make_sheet(rng, "score_pad"),
            rng.uniform(-1.2, 0.2),
            rng.uniform(-0.6, 0.6),
            float(rng.normal(0, 25)),
            rng.uniform(1.2, 2.6),
        )
    ]
    for _ in range(int(rng.integers(0, 3))):
        kind = str(rng.choice(PAPER_KINDS))
        sheets.append(
            clutter.ClutterSheet(
                kind,
                clutter.make_sheet(rng, kind),
                rng.uniform(0.2, 1.8),
                rng.uniform(-1.0, 1.0),
                float(rng.uniform(0, 360)),
                rng.uniform(1.5, 3.0),
            )
        )
    width, height = image_size if rng.random() < 0.7 else image_size[::-1]
    camera = Camera(
        tilt=float(rng.uniform(0, 35)),
        yaw=float(rng.uniform(-30, 30)),
        roll=float(rng.normal(0, 3)),
        card_pixels=float(rng.uniform(0.12, 0.4) * max(width, height)),
        image_size=(width, height),
        target=(float(rng.uniform(-0.8, 0.8)), float(rng.uniform(-0.5, 0.5))),
    )
    photo = assets["photos"][int(rng.integers(len(assets["photos"])))]
    return render_scene(
        rng,
        assets["train"][0],
        [],
        [photo],
        (width, height),
        placements=[],
        camera=camera,
        effects=bool(rng.random() < 0.5),
        clutter_sheets=sheets,
    ).image


def mine_no_card_tables(
    out: Path, count: int, seed: int, detector=None, datasets_root: Path | None = None, progress: bool = True
) -> dict[str, int]:
    """Read ``count`` random no-card tables (``no_card_table``) as the product reads a photo and write
    every proposal from ``NO_CARD_TABLE_CONF`` into ``out/crops/<split>/none``: handwriting on score
    pads and print, the hardest "not a card" cases. One table in ten goes to the val split."""

    detector = detector or load_detector()
    assets = load_synth_assets(datasets_root)
    stats = {"scenes": 0, "negatives": 0}
    for index in _with_progress(range(count), progress, "mine tables", "table"):
        image = no_card_table(np.random.default_rng([seed, TABLE_STREAM, index]), assets)
        proposed = proposals_of(detector, image, detector.settings.detector.imgsz, NO_CARD_TABLE_CONF)
        xyxy, scores = proposed.xyxy, proposed.confidence
        folder = out / "crops" / ("val" if index % 10 == 0 else "train") / REJECT_CLASS
        for k in np.argsort(-scores)[:MAX_NEGATIVES_PER_TABLE]:
            _write_crop(folder, f"table_{seed}_{index:07d}_m{k}", image, xyxy[k])
            stats["negatives"] += 1
        stats["scenes"] += 1
    return stats
