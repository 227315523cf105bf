"""Write synthetic scenes as an ultralytics detection dataset (and optional classifier crops).

Layout of ``out``::

    images/train/*.jpg  labels/train/*.txt     scenes drawn with the training decks
    images/val/*.jpg    labels/val/*.txt       scenes drawn with held-out decks only
    data.yaml                                  names: the 52 card codes in canonical order
    crops/train/<code>/*.jpg, crops/val/...    (--crops) index crops for the card classifier
    crops/train/none/*.jpg, crops/val/none/    (--crops) "not a card" crops: clutter, card pictures, table

Scene i of a run depends only on (seed, i), so a dataset is the same bytes for the same seed,
whatever the number of worker processes.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing as mp
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_CODES
from vision.crops import crop_index
from vision.detections import HIDDEN_LABELS
from vision.detector import REJECT_CLASS  # the "not a card" class: one name, owned by the reader
from vision.training.synth import decks as deck_assets
from vision.training.synth import procedural_decks
from vision.training.synth.scene import CODE_TO_CLASS, IndexLabel, Scene, render_scene

VAL_FRACTION = 0.1
PROCEDURAL_SEED_STREAM = 0x5CE7E  # procedural scene decks draw from their own stream of the run's seed
NEGATIVE_CROPS_PER_SCENE = 4


@dataclass(frozen=True)
class SynthConfig:
    out: Path
    count: int
    imgsz: int = 640
    seed: int = 0
    crops: bool = False
    crops_per_scene: int = 12
    negative_crops_per_scene: int = NEGATIVE_CROPS_PER_SCENE
    clutter_share: float | None = None  # share of scenes with clutter (None: the renderer's CLUTTER_SHARE)
    close_up_share: float | None = None  # share of close-up scenes (None: the renderer's CLOSE_UP_SHARE)
    workers: int = 0  # 0: all cores
    datasets_root: Path | None = None  # where decks/, backs/, surfaces/ live
    deck_paths: tuple[Path, ...] = ()  # only these deck folders, in both splits ('ginscore synth --deck')
    crop_isolate: float = 0.0  # crops with the index's surroundings painted as paper (crop_index isolate)
    procedural_decks: int = 0  # procedural decks drawn beside the training decks ('ginscore synth --procedural-decks')


_STATE: dict = {}


def load_synth_assets(
    root: Path | None = None, deck_paths: tuple[Path, ...] = (), procedural: int = 0, seed: int = 0
) -> dict:
    """Decks by split (faces as BGRA), backs (BGRA) and surface photos (BGR) for the renderer.

    ``deck_paths``: draw only these deck folders (e.g. a taught deck), in both splits. ``procedural``: that many
    procedural decks (``procedural_scene_decks``, from ``seed``) join the training split."""

    if deck_paths:
        train = val = [_faces_to_bgra(deck_assets.load_deck(Path(folder))) for folder in deck_paths]
    else:
        train = [_faces_to_bgra(d) for d in deck_assets.load_decks(root, split="train")]
        val = [_faces_to_bgra(d) for d in deck_assets.load_decks(root, split="val")]
    if not train:
        raise ValueError(f"no training decks found under {root or 'datasets/'}decks: see docs/assets.md")
    train = [*train, *procedural_scene_decks(procedural, seed)]
    if not val:
        val = train[-1:]
    backs = [cv2.cvtColor(b, cv2.COLOR_RGBA2BGRA) for b in deck_assets.load_backs(root)]
    photos = deck_assets.load_surface_photos(root)
    photos = [p if isinstance(p, np.ndarray) else cv2.imread(str(p)) for p in photos]
    return {"train": train, "val": val, "backs": backs, "photos": [p for p in photos if p is not None]}


def config_assets(config: SynthConfig) -> dict:
    """``load_synth_assets`` for the decks, the procedural decks and the seed a run was configured with."""
    return load_synth_assets(config.datasets_root, config.deck_paths, config.procedural_decks, config.seed)


def procedural_scene_decks(count: int, seed: int) -> list[deck_assets.Deck]:
    """``count`` procedural decks (``procedural_decks.random_deck``: hundreds of typefaces, upright and turned
    bottom indices, four-index and side-by-side layouts) as scene decks, the same for the same ``seed`` in
    every worker: the reader's own crops of their scenes teach the classifier designs the library lacks."""
    if count <= 0:
        return []
    fonts, suits = procedural_decks.index_fonts(), procedural_decks.suit_fonts()
    if not fonts:
        raise ValueError("procedural decks need the index fonts: run datasets/install_fonts.sh")
    rng = np.random.default_rng([seed, PROCEDURAL_SEED_STREAM])
    decks = []
    for k in range(count):
        _, faces, boxes = procedural_decks.random_deck(rng, fonts, suits)
        decks.append(
            deck_assets.Deck(
                deck_id=f"procedural-{seed}-{k}",
                name=f"procedural deck {k} of seed {seed}",
                split="train",
                license="drawn by the renderer",
                faces=faces,
                index_boxes={code: list(found) for code, found in boxes.items()},
            )
        )
    return decks


def _faces_to_bgra(deck):
    """The deck loader gives RGBA faces; the renderer works in OpenCV's BGRA order."""
    return dataclasses.replace(
        deck, faces={code: cv2.cvtColor(face, cv2.COLOR_RGBA2BGRA) for code, face in deck.faces.items()}
    )


def _init_worker(config: SynthConfig) -> None:
    cv2.setNumThreads(1)
    _STATE["config"] = config
    _STATE["assets"] = config_assets(config)


def scene_split(config: SynthConfig, index: int) -> str:
    n_val = max(1, int(round(config.count * VAL_FRACTION))) if config.count > 1 else 0
    return "val" if index >= config.count - n_val else "train"


def make_scene(config: SynthConfig, assets: dict, index: int) -> tuple[str, Scene]:
    """Scene ``index`` of the dataset: its split and its rendering."""
    split = scene_split(config, index)
    rng = np.random.default_rng([config.seed, index])
    decks = assets[split]
    deck = decks[rng.integers(len(decks))]
    aspect = rng.choice([1.0, 0.75, 4 / 3, 0.5625, 16 / 9], p=[0.3, 0.25, 0.25, 0.1, 0.1])
    if aspect >= 1:
        size = (config.imgsz, int(round(config.imgsz / aspect)))
    else:
        size = (int(round(config.imgsz * aspect)), config.imgsz)
    clutter = None
    if config.clutter_share is not None:
        clutter = float(rng.uniform(0.5, 2.5)) if rng.random() < config.clutter_share else 0.0
    return split, render_scene(
        rng, deck, assets["backs"], assets["photos"], size, clutter=clutter, close_up_share=config.close_up_share
    )


def yolo_label_text(labels: list[IndexLabel], height_width: tuple[int, ...]) -> str:
    """YOLO label lines (``class cx cy w h``, relative to the image) of index labels."""
    H, W = height_width
    lines = []
    for label in labels:
        x0, y0, x1, y1 = label.box
        lines.append(
            f"{CODE_TO_CLASS[label.code]} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} "
            f"{(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _write_scene(index: int) -> tuple[str, int, int]:
    config: SynthConfig = _STATE["config"]
    split, scene = make_scene(config, _STATE["assets"], index)
    name = f"scene_{config.seed}_{index:07d}"
    cv2.imwrite(str(config.out / "images" / split / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    height_width = scene.image.shape[:2]
    (config.out / "labels" / split / f"{name}.txt").write_text(yolo_label_text(scene.labels, height_width))
    (config.out / HIDDEN_LABELS / split / f"{name}.txt").write_text(yolo_label_text(scene.hidden_labels, height_width))
    if config.crops and scene.labels:
        rng = np.random.default_rng([config.seed, index, 1])
        chosen = rng.permutation(len(scene.labels))[: config.crops_per_scene]
        for k in chosen:
            label = scene.labels[k]
            x0, y0, x1, y1 = label.box
            w, h = x1 - x0, y1 - y0
            # a detector's box is never exact: jitter position and size a little
            dx, dy = rng.normal(0, 0.07, 2) * (w, h)
            sw, sh = np.exp(rng.normal(0, 0.08, 2))
            cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
            box = (cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2)
            crop = crop_index(scene.image, box, isolate=config.crop_isolate)
            folder = config.out / "crops" / split / label.code
            cv2.imwrite(str(folder / f"{name}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if config.crops:
        rng = np.random.default_rng([config.seed, index, 2])
        folder = config.out / "crops" / split / REJECT_CLASS
        for k in rng.permutation(len(scene.negatives))[: config.negative_crops_per_scene]:
            crop = crop_index(scene.image, scene.negatives[k], isolate=config.crop_isolate)
            cv2.imwrite(str(folder / f"{name}_n{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return split, len(scene.labels), len(scene.hidden)


def write_data_yaml(out: Path) -> Path:
    """The ultralytics dataset file: paths and the 52 class names in canonical order."""
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val", "names:"]
    lines += [f"  {i}: {code}" for i, code in enumerate(CARD_CODES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def generate(config: SynthConfig, progress: bool = True) -> dict:
    """Render ``config.count`` scenes into ``config.out``; returns counts."""
    out = config.out
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        (out / HIDDEN_LABELS / split).mkdir(parents=True, exist_ok=True)
        if config.crops:
            for code in (*CARD_CODES, REJECT_CLASS):
                (out / "crops" / split / code).mkdir(parents=True, exist_ok=True)
    write_data_yaml(out)
    workers = config.workers or os.cpu_count() or 1
    stats = {"scenes": 0, "boxes": 0, "hidden": 0, "train": 0, "val": 0}
    indices = range(config.count)
    results: Iterable[tuple[str, int, int]]
    if workers == 1:
        _init_worker(config)
        results = map(_write_scene, indices)
        pool = None
    else:
        # spawn, not fork: a forked child can deadlock in OpenCV's thread pool
        pool = mp.get_context("spawn").Pool(workers, initializer=_init_worker, initargs=(config,))
        results = pool.imap_unordered(_write_scene, indices, chunksize=4)
    try:
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=config.count, desc="synth", unit="scene")
        for split, boxes, hidden in results:
            stats["scenes"] += 1
            stats["boxes"] += boxes
            stats["hidden"] += hidden
            stats[split] += 1
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    (out / "synth.json").write_text(json.dumps({**stats, "seed": config.seed, "imgsz": config.imgsz}, indent=1))
    return stats


def draw_preview(config: SynthConfig, count: int, path: Path, columns: int = 4) -> Path:
    """A contact sheet of the first ``count`` scenes with boxes and card codes drawn."""
    assets = config_assets(config)
    tiles = []
    tile = 400
    for i in range(count):
        _, scene = make_scene(config, assets, i)
        img = scene.image.copy()
        for label in scene.labels:
            x0, y0, x1, y1 = (int(round(v)) for v in label.box)
            cv2.rectangle(img, (x0, y0), (x1, y1), (0, 255, 0), 1)
            cv2.putText(
                img, label.code, (x0, max(10, y0 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1, cv2.LINE_AA
            )
        for box in scene.negatives:  # "not a card" examples in magenta
            x0, y0, x1, y1 = (int(round(v)) for v in box)
            cv2.rectangle(img, (x0, y0), (x1, y1), (255, 0, 255), 1)
        h, w = img.shape[:2]
        s = tile / max(h, w)
        img = cv2.resize(img, (int(w * s), int(h * s)))
        padded = np.full((tile, tile, 3), 40, np.uint8)
        padded[: img.shape[0], : img.shape[1]] = img
        cv2.putText(
            padded,
            f"{i} {scene.layout} {scene.deck_id}",
            (4, tile - 6),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
        tiles.append(padded)
    while len(tiles) % columns:
        tiles.append(np.full((tile, tile, 3), 40, np.uint8))
    rows = [np.hstack(tiles[r : r + columns]) for r in range(0, len(tiles), columns)]
    sheet = np.vstack(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet)
    return path
