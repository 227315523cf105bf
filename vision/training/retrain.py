"""``ginscore retrain``: fine-tune the installed models at the table, on this machine's CPU.

One run:

1. measures the installed models on the sets at hand (``real-val``: card recall, precision, exact
   photos and the cards the review page would flag; ``real-clutter``: rank recall, false cards; the
   held-out collected examples);
2. renders fresh synthetic scenes (a share of them with the decks taught by ``ginscore deck add``)
   and adds the collected examples (``vision/training/examples.py``: crops for the classifier, and the photos
   whose every card has its boxes for the detector);
3. fine-tunes from the installed weights within ``--hours`` (the classifier; the detector too with
   ``--part both``, or with ``auto`` once enough corrected photos can teach it);
4. measures the new models the same way and installs them only when they are not worse: on every
   set recall and precision fall by at most ``--tolerance`` and, over all sets, no fewer cards are
   read right. The models they replace are kept in ``<models>/previous`` for ``--rollback``.

Progress is shown as one bar over the whole run and written to ``instance/retrain/status.json``
(the web app's Training page reads it); the report with the before/after numbers goes to
``instance/retrain/last.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vision.detector import REJECT_CLASS, load_detector, reload_models
from vision.evaluation import confidence_rule, evaluate
from vision.evaluation.evaluate import check_eval_folder, is_rank_folder
from vision.model_settings import (
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    MODEL_SETTINGS_FILE,
    ModelError,
    named_weight_files,
    read_model_settings,
    read_settings_document,
    settings_path,
    write_settings_document,
)
from vision.paths import DATASETS_DIR
from vision.paths import models_dir as default_models_dir
from vision.training import examples, train
from vision.training.deck_check import CHECK, check_photos
from vision.training.synth.dataset import SynthConfig, generate, write_data_yaml
from vision.training.synth.index_crops import CropSet, generate_crops
from vision.training.synth.mining import mine_no_card_tables, mine_scenes
from vision.training.teach_deck import complete_deck_folder, list_taught_decks
from vision.training.train import install_weights, let_idle_threads_sleep
from vision.training.userdata import retrain_dir

REAL_VAL = DATASETS_DIR / "real" / "real-val"
REAL_CLUTTER = DATASETS_DIR / "real" / "real-clutter"
PREVIOUS = "previous"  # <models>/previous: the models a retrain replaced
DETECTOR_SHARE = 1 / 3  # of --hours, when the detector is trained too
AUTO_DETECTOR_PHOTOS = 20  # 'auto' trains the detector from this many corrected photos on
# The retrain's default budget in hours, the command line's and the Training page's (docs/training.md says what it
# bought, measured on the held-out bonded deck; docs/experiments/session-24-*.md).
DEFAULT_HOURS = 0.5
SCENES_PER_HOUR = 6000  # synthetic scenes rendered per hour of training budget (default)
# The classifier's fine-tuning crops hold the hard "not a card" cases the shipped classifier was trained on
# (docs/training.md): clutter in most scenes, the detector's own false proposals mined from some of them,
# and no-card tables with handwritten score pads: without them a fine-tune read more false cards on
# real-clutter (docs/experiments/reading-settings-history.md).
RETRAIN_CLUTTER_SHARE = 0.8
MINED_SCENE_SHARE = 0.1  # of the rendered scenes, read by the installed detector for its false proposals
NO_CARD_TABLES_PER_SCENE = 0.2  # no-card tables read for "not a card" crops, per rendered scene
# A taught deck's index crops drawn directly (``ginscore crops --deck``), per hour of budget, beside its scenes:
# each taught index is then seen hundreds of times, not a few dozen.
TAUGHT_CROPS_PER_HOUR = 40_000
# The classifier's fine-tuning learning rate: ``ginscore train``'s 0.0004 lost real-val cards on a fine-tune
# (docs/experiments/reading-settings-history.md).
RETRAIN_CLASSIFIER_LR0 = 0.0001
# --taught-partner: the taught decks' own classifier, the main one fine-tuned on their drawn crops (their indices,
# and "not a card" of their pictures and pips, and of other decks' cards); it moves no other classifier, so a higher
# rate is safe. Measured on the held-out bonded deck (docs/experiments/session-25-*.md, session-26-*.md).
TAUGHT_PARTNER_FILE = "taught_deck_classifier.pt"
# --taught-partner's default budget, 10 minutes (a taught deck's page starts it): on bonded it removed the deck's
# repeated misreads and was installed by the rule, real-val and real-clutter unchanged (docs/training.md)
TAUGHT_PARTNER_HOURS = 0.17
TAUGHT_PARTNER_CROPS = 30_000
TAUGHT_PARTNER_LR0 = 0.0005
TAUGHT_PARTNER_VAL_SHARE = 0.03  # of the taught crops, drawn again as a val split (it only picks the epoch)
# beside them, other decks' index crops (the training and procedural decks) as many as this share of the taught
# crops, all labelled "not a card": the taught classifier learns to say "not my deck", and the reader then leaves
# such a crop to the other classifiers (crop_reading.taught_weights) instead of pushing it to the taught deck
TAUGHT_PARTNER_OTHER_DECKS = 0.4
TAUGHT_PART = "taught deck classifier"  # the report's name of what --taught-partner trains
STATUS_FILE = "status.json"
REPORT_FILE = "last.json"
LOCK_FILE = "running.pid"


class RetrainError(ValueError):
    """A retrain cannot run as asked; the message says why and what to do."""


@dataclass(frozen=True)
class EvalSet:
    name: str
    path: Path
    kind: str  # "labelled" (images/, labels/, classes.txt) or "rank" (labels.csv)


@dataclass
class RetrainConfig:
    models_dir: Path
    instance: Path | None = None
    hours: float = DEFAULT_HOURS
    part: str = "auto"  # classifier, detector, both, auto
    scenes: int | None = None  # default: SCENES_PER_HOUR x hours (200 to 20,000)
    decks: tuple[str, ...] | None = None  # taught decks to mix in (None: every complete one)
    deck_share: float = 0.5  # of the scenes, drawn with the taught decks when any
    imgsz: int = 640  # detector training size
    synth_imgsz: int = 640
    batch: int = 16
    workers: int = 2  # processes rendering scenes
    eval_sets: tuple[EvalSet, ...] | None = None  # default: real-val, real-clutter (+ held-out examples)
    held_out: bool = True
    eval_imgsz: int | None = None
    tolerance: float = 0.01
    install: bool = True
    seed: int | None = None
    hard_negatives: bool = True  # clutter, mined proposals and no-card tables in the classifier's crops
    partners: bool = True  # fine-tune the partner classifiers too (each gets an equal share of the time)
    distill: float = 1.0  # > 0: hold each classifier to what it read before (train.KeepWhatItReads)
    step: float = 1.0  # how far each classifier's weights move from the start to the fine-tune (train.step_toward)
    taught_crops: int | None = None  # a taught deck's directly drawn crops (default TAUGHT_CROPS_PER_HOUR x hours)
    # teach the taught decks to a classifier of their own (weighed by its "not my deck", crop_reading.taught_weights),
    # instead of fine-tuning every classifier on scenes (no scenes, no drift of the other decks' reading)
    taught_partner: bool = False
    work_dir: Path | None = None
    status_path: Path | None = None
    progress_bar: bool = True
    min_detector_photos: int = AUTO_DETECTOR_PHOTOS
    extra: dict = field(default_factory=dict)


def eval_set_of(folder: Path) -> EvalSet:
    """A folder given to measure on (``--eval``), named by the folder: rank-labelled (``labels.csv``) or YOLO."""
    if not folder.is_dir():
        raise FileNotFoundError(f"--eval {folder}: no such folder")
    if is_rank_folder(folder):
        return EvalSet(folder.name, folder, "rank")
    check_eval_folder(folder)
    return EvalSet(folder.name, folder, "labelled")


def default_eval_sets(clutter: bool = True) -> tuple[EvalSet, ...]:
    sets = []
    if (REAL_VAL / "classes.txt").exists():
        sets.append(EvalSet("real-val", REAL_VAL, "labelled"))
    if clutter and (REAL_CLUTTER / "labels.csv").exists():
        sets.append(EvalSet("real-clutter", REAL_CLUTTER, "rank"))
    return tuple(sets)


# ------------------------------------------------------------------ progress


class Progress:
    """One bar over the whole run (stages weighted by their expected share) and a status file."""

    def __init__(self, stages: list[tuple[str, float]], status_path: Path | None, bar: bool = True) -> None:
        total = sum(weight for _, weight in stages) or 1.0
        self.stages = [(name, weight / total) for name, weight in stages]
        self.status_path = status_path
        self.stage = ""
        self.done_before = 0.0
        self.fraction = 0.0
        self.started = time.time()
        self._written = 0.0
        self._bar = None
        if bar:
            from tqdm import tqdm

            self._bar = tqdm(
                total=100,
                desc="retrain",
                unit="%",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} elapsed{postfix}",
                file=sys.stderr,
            )
        self.write("running", "starting")

    def begin(self, stage: str, message: str = "") -> None:
        names = [name for name, _ in self.stages]
        index = names.index(stage)
        self.done_before = sum(weight for _, weight in self.stages[:index])
        self.stage = stage
        self.update(0.0, message or stage, force=True)

    def update(self, within: float, message: str | None = None, force: bool = False) -> None:
        weight = dict(self.stages).get(self.stage, 0.0)
        self.fraction = min(1.0, self.done_before + weight * max(0.0, min(1.0, within)))
        if self._bar is not None:
            self._bar.n = round(100 * self.fraction, 1)
            self._bar.set_postfix_str(message or self.stage, refresh=False)
            self._bar.refresh()
        if force or time.time() - self._written > 2.0:
            self.write("running", message or self.stage)

    def write(self, state: str, message: str, **extra: Any) -> None:
        self._written = time.time()
        if self.status_path is None:
            return
        status = {
            "state": state,
            "stage": self.stage,
            "message": message,
            "fraction": round(self.fraction, 4),
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started)),
            "elapsed_s": round(time.time() - self.started),
            "pid": os.getpid(),
            **extra,
        }
        write_json(self.status_path, status)

    def close(self, state: str, message: str, **extra: Any) -> None:
        if state == "done":
            self.fraction = 1.0
        if self._bar is not None:
            self._bar.n = round(100 * self.fraction, 1)
            self._bar.set_postfix_str(message[:60], refresh=True)
            self._bar.close()
        self.write(state, message, **extra)


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(temporary, path)


def read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError):
        return None


# ------------------------------------------------------------------ measuring


def _file_digest(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def models_fingerprint(folder: Path) -> str:
    """A hash of a models folder's weights and settings (what a measurement of it depends on)."""

    read_model_settings(folder)  # a clear error when the folder is not a reader
    parts = [_file_digest(folder / name) for name in model_files(folder) if name != MODEL_SETTINGS_FILE]
    document = read_settings_document(folder)
    document.pop("updated", None)
    parts.append(json.dumps(document, sort_keys=True))
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def _set_fingerprint(eval_set: EvalSet) -> str:
    files = sorted(p for p in eval_set.path.rglob("*") if p.is_file())
    return hashlib.sha1(
        "|".join(f"{p.relative_to(eval_set.path)}:{p.stat().st_size}" for p in files).encode()
    ).hexdigest()


def _evaluate_with_flags(folder: Path, detector, imgsz: int | None) -> tuple[dict[str, Any], dict[str, int]]:
    """``vision.evaluation.evaluate.evaluate_folder``, and of the cards it read, how many the review page
    would flag (confidence below the model's ``review_below``), wrong and right ones."""

    result = evaluate.evaluate_folder(folder, detector=detector, imgsz=imgsz)
    counts = {"flagged": 0, "wrong_flagged": 0, "wrong": 0, "right_flagged": 0}
    for photo in result["photos"]:
        counts["flagged"] += photo["flagged_right"] + photo["flagged_wrong"]
        counts["wrong"] += len(photo["extra"])
        counts["wrong_flagged"] += photo["flagged_wrong"]
        counts["right_flagged"] += photo["flagged_right"]
    return result, counts


def measure_set(detector, eval_set: EvalSet, imgsz: int | None = None) -> dict[str, Any]:
    """The numbers of one set: cards right / labelled / read, recall, precision, exact photos, flags."""

    start = time.perf_counter()
    if eval_set.kind == "rank":
        result = evaluate.evaluate_rank_folder(eval_set.path, detector=detector, imgsz=imgsz)
        numbers = {
            **_card_counts(result),
            "recall": result["rank_recall"],
            "precision": result["rank_precision"],
            "false_cards": result["false_cards"],
            "flagged": result["wrong_cards_flagged"] + result["right_cards_flagged"],
            "wrong_flagged": result["wrong_cards_flagged"],
            "wrong": result["wrong_cards"],
            "right_flagged": result["right_cards_flagged"],
            "measure": "rank",
        }
    else:
        result, flags = _evaluate_with_flags(eval_set.path, detector, imgsz)
        counts = _card_counts(result)
        numbers = {
            **counts,
            "recall": result["card_recall"],
            "precision": result["card_precision"],
            "false_cards": counts["read"] - counts["right"],
            "map50": result["map50"],
            "classifier_alone": result.get("classifier_accuracy_on_labelled_boxes"),
            "measure": "card",
            "seconds_per_photo": result["seconds_per_photo"],
            **flags,
        }
    numbers["seconds"] = round(time.perf_counter() - start, 1)
    return numbers


def _card_counts(result: dict[str, Any]) -> dict[str, Any]:
    """Cards right, labelled and read over a measured set's photos, and its exact and all photos."""
    photos = result["photos"]
    return {
        "right": sum(p["cards_right"] for p in photos),
        "labelled": sum(p["cards_labelled"] for p in photos),
        "read": sum(p["cards_read"] for p in photos),
        "photos_exact": result["photos_exact"],
        "photos": result["n_photos"],
    }


TAUGHT_SET = "taught deck "  # the name of a taught deck's check photos as a set: "taught deck NAME"
# with a taught deck's check photos, the cards of real-val a retrain may lose and install, counted leaving one
# photo out (each photo read with the settings chosen on the others, ``confidence_rule.choose_and_check``)
REAL_VAL_CARDS_LOST = 1
REAL_VAL_SET, CLUTTER_SET = "real-val", "real-clutter"
LEAVE_ONE_OUT_SETS = (REAL_VAL_SET, CLUTTER_SET)  # the settings are chosen on both, as model.json's were


def measure(
    models_folder: Path,
    sets: tuple[EvalSet, ...],
    imgsz: int | None = None,
    cache_path: Path | None = None,
    on_set: Callable[[int, str], None] | None = None,
) -> dict[str, Any]:
    """Every set's numbers for a models folder (remembered in ``cache_path`` by the models' and sets' hashes)."""

    fingerprint = models_fingerprint(models_folder)
    cache = (read_json(cache_path) if cache_path is not None else None) or {}
    detector = None
    results = {}
    for number, eval_set in enumerate(sets):
        if on_set is not None:
            on_set(number, eval_set.name)
        key = f"{fingerprint}:{eval_set.name}:{_set_fingerprint(eval_set)}:{imgsz}"
        if key in cache:
            results[eval_set.name] = cache[key]
            continue
        detector = detector or load_detector(models_folder)
        results[eval_set.name] = measure_set(detector, eval_set, imgsz)
        cache[key] = results[eval_set.name]
        if cache_path is not None and eval_set.name != "held-out examples":
            write_json(cache_path, cache)
    real = {s.name: s for s in sets if s.path.resolve() == (REAL_VAL.parent / s.name).resolve()}
    if REAL_VAL_SET in real and CLUTTER_SET in real and imgsz is None:
        key = f"{fingerprint}:leave-one-photo-out:" + ":".join(_set_fingerprint(real[n]) for n in LEAVE_ONE_OUT_SETS)
        if key not in cache:
            detector = detector or load_detector(models_folder)
            chosen = confidence_rule.choose_and_check(detector, LEAVE_ONE_OUT_SETS, say=lambda _: None)
            cache[key] = chosen["sets"][REAL_VAL_SET]["leave_one_out"]["right"]
            if cache_path is not None:
                write_json(cache_path, cache)
        results[REAL_VAL_SET] = {**results[REAL_VAL_SET], "leave_one_out_right": cache[key]}
    return results


def taught_deck_sets(deck_paths: list[Path]) -> tuple[EvalSet, ...]:
    """The check photos of the taught decks a retrain learns (``ginscore deck check``), one set a deck."""
    return tuple(
        EvalSet(f"{TAUGHT_SET}{folder.name}", folder / CHECK, "labelled")
        for folder in deck_paths
        if check_photos(folder)
    )


def taught_deck_words(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What the retrain bought on each taught deck's check photos, in words (empty: no check photo)."""
    return [
        f"{name}: {before[name]['right']} -> {after[name]['right']} of {after[name]['labelled']} cards right, "
        f"{before[name]['false_cards']} -> {after[name]['false_cards']} wrong"
        for name in before
        if name.startswith(TAUGHT_SET) and name in after
    ]


def real_set_words(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What the retrain cost or bought on real-val (also leaving one photo out, when measured) and real-clutter,
    in words, as the taught-deck rule weighs them."""
    words = []
    if REAL_VAL_SET in before and REAL_VAL_SET in after:
        b, a = before[REAL_VAL_SET], after[REAL_VAL_SET]
        left_out = "leave_one_out_right" in b and "leave_one_out_right" in a
        words.append(
            f"{REAL_VAL_SET}: {b['right']} -> {a['right']} of {a['labelled']} cards right"
            + (f" ({b['leave_one_out_right']} -> {a['leave_one_out_right']} leaving one photo out)" if left_out else "")
        )
    if CLUTTER_SET in before and CLUTTER_SET in after:
        words.append(
            f"{CLUTTER_SET}: {before[CLUTTER_SET]['false_cards']} -> {after[CLUTTER_SET]['false_cards']} false cards"
        )
    return words


def decide(before: dict[str, Any], after: dict[str, Any], tolerance: float = 0.01) -> tuple[bool, list[str]]:
    """Whether to install the new models. Returns (install, reasons against it).

    With a taught deck's check photos (``deck check``; sets named ``taught deck NAME``) the rule is what
    teaching is for: every taught deck gains (more of its cards right, or as many and fewer wrong; or it was read
    without a fault before and still is), real-val
    loses at most ``REAL_VAL_CARDS_LOST`` card, real-clutter reads no more false cards, and any other set's
    recall and precision fall by at most ``tolerance``. Without them: on every set measured both times recall
    and precision fall by at most ``tolerance``, and over all of them no fewer cards are read right."""
    common = [name for name in before if name in after]
    if not common:
        return False, ["nothing to measure on: no evaluation set was available, so nothing is installed"]
    taught = [name for name in common if name.startswith(TAUGHT_SET)]
    if taught:
        return _decide_for_taught_decks(before, after, common, taught, tolerance)
    reasons = []
    for name in common:
        b, a = before[name], after[name]
        for key in ("recall", "precision"):
            if a[key] < b[key] - tolerance:
                reasons.append(f"{name}: {key} {b[key]:.4f} -> {a[key]:.4f} (falls by more than {tolerance:g})")
    right_before = sum(before[name]["right"] for name in common)
    right_after = sum(after[name]["right"] for name in common)
    if right_after < right_before:
        reasons.append(f"fewer cards read right over all sets: {right_before} -> {right_after}")
    return not reasons, reasons


def _decide_for_taught_decks(
    before: dict[str, Any], after: dict[str, Any], common: list[str], taught: list[str], tolerance: float
) -> tuple[bool, list[str]]:
    reasons = []
    for name in taught:
        b, a = before[name], after[name]
        perfect = all(n["right"] == n["labelled"] and n["false_cards"] == 0 for n in (b, a))  # nothing to gain
        if not (
            perfect or a["right"] > b["right"] or (a["right"] == b["right"] and a["false_cards"] < b["false_cards"])
        ):
            reasons.append(
                f"{name} did not gain: {b['right']} -> {a['right']} cards right, "
                f"{b['false_cards']} -> {a['false_cards']} wrong"
            )
    for name in common:
        if name in taught:
            continue
        b, a = before[name], after[name]
        if name == REAL_VAL_SET:
            key = "leave_one_out_right" if "leave_one_out_right" in a and "leave_one_out_right" in b else "right"
            if a[key] < b[key] - REAL_VAL_CARDS_LOST:
                how = " leaving one photo out" if key != "right" else ""
                reasons.append(f"{name}: {b[key]} -> {a[key]} cards right{how} (more than {REAL_VAL_CARDS_LOST} lost)")
        elif name == CLUTTER_SET:
            if a["false_cards"] > b["false_cards"]:
                reasons.append(f"{name}: {b['false_cards']} -> {a['false_cards']} false cards")
        else:
            for key in ("recall", "precision"):
                if a[key] < b[key] - tolerance:
                    reasons.append(f"{name}: {key} {b[key]:.4f} -> {a[key]:.4f} (falls by more than {tolerance:g})")
    return not reasons, reasons


# ------------------------------------------------------------------ installing and rolling back


def model_files(folder: Path) -> list[str]:
    """The files a models folder's reader is made of: model.json and every weights file it names
    (detector, classifier, partner classifier, ...), or the default file names without a model.json."""
    names = [MODEL_SETTINGS_FILE] if settings_path(folder).exists() else []
    named = named_weight_files(read_settings_document(folder))
    return names + [name for name in dict.fromkeys(named) if (folder / name).is_file()]


def install_candidate(
    candidate: Path, models_dir: Path, parts: tuple[str, ...], partner_files: tuple[str, ...] = ()
) -> Path:
    """Copy the candidate's trained weights (``parts``, and the retrained partner classifiers' files) and
    model.json into ``models_dir``; the replaced files go to ``models_dir/previous`` (one level: the latest
    replaced models). Returns that folder."""
    previous = models_dir / PREVIOUS
    if previous.exists():
        shutil.rmtree(previous)
    previous.mkdir(parents=True)
    for name in model_files(models_dir):
        shutil.copy2(models_dir / name, previous / name)
    document = read_settings_document(candidate)
    named = {
        "detector": document.get("detector", {}).get("weights", DETECTOR_FILE),
        "classifier": document.get("classifiers", {}).get("main", CLASSIFIER_FILE),
    }
    for part in parts:
        part_file = named.get(part)
        if part_file:
            shutil.copyfile(candidate / part_file, models_dir / part_file)
    for name in partner_files:
        shutil.copyfile(candidate / name, models_dir / name)
    shutil.copyfile(settings_path(candidate), settings_path(models_dir))
    reload_models()  # a running web app loads the new models on its next photo
    return previous


def rollback(models_dir: Path) -> list[str]:
    """Put back the models the last retrain replaced (and keep the replaced ones there: a second rollback undoes it)."""
    previous = models_dir / PREVIOUS
    names = model_files(previous) if previous.is_dir() else []
    if not names:
        raise RetrainError(f"nothing to roll back to: {previous} holds no models (no retrain has installed any)")
    swap = models_dir / f".{PREVIOUS}-swap"
    if swap.exists():
        shutil.rmtree(swap)
    swap.mkdir()
    for name in model_files(models_dir):
        shutil.copy2(models_dir / name, swap / name)
    for name in names:
        shutil.copy2(previous / name, models_dir / name)
    shutil.rmtree(previous)
    swap.rename(previous)
    reload_models()
    return names


# ------------------------------------------------------------------ the run


def _taught_deck_paths(config: RetrainConfig) -> list[Path]:

    if config.decks is not None:
        return [complete_deck_folder(name, config.instance) for name in config.decks]
    return [Path(deck["folder"]) for deck in list_taught_decks(config.instance) if deck["complete"]]


def _parts(config: RetrainConfig, detector_photos: int, two_stage: bool) -> tuple[str, ...]:
    if config.part == "auto":
        parts: tuple[str, ...] = ("detector",) if detector_photos >= config.min_detector_photos else ()
        return parts + (("classifier",) if two_stage else ())
    parts = ("detector", "classifier") if config.part == "both" else (config.part,)
    if "classifier" in parts and not two_stage:
        raise RetrainError(
            "the installed reader is a 52-class detector without a crop classifier; retrain --part detector"
        )
    return parts


def acquire_lock(folder: Path) -> Path:
    """One retrain at a time per instance folder; RetrainError naming the running one otherwise."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / LOCK_FILE
    try:
        descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        pid = running_pid(folder)
        if pid is not None:
            raise RetrainError(f"a retrain is already running (process {pid}); wait for it or stop it") from None
        lock.unlink(missing_ok=True)
        descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(str(os.getpid()))
    return lock


def running_pid(folder: Path) -> int | None:
    """The process of the retrain running on an instance folder, if any."""
    try:
        pid = int((folder / LOCK_FILE).read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def write_starting_status(folder: Path, pid: int) -> None:
    """The status of a retrain just started in process ``pid`` (by the Training page), before the process has
    begun to write its own: the page shows it running from the first request."""
    write_json(
        folder / STATUS_FILE,
        {
            "state": "running",
            "stage": "",
            "message": "starting",
            "fraction": 0.0,
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "elapsed_s": 0,
            "pid": pid,
        },
    )


STARTING_S = 120  # a retrain takes its lock within seconds of starting; a "starting" status older than this is stale


def starting_pid(folder: Path) -> int | None:
    """The process of a retrain the page has just started and that does not hold its lock yet, if any."""
    path = folder / STATUS_FILE
    status = read_json(path) or {}
    if status.get("state") != "running" or status.get("message") != "starting":
        return None
    try:
        if time.time() - path.stat().st_mtime > STARTING_S:
            return None
        pid = int(status["pid"])
        os.kill(pid, 0)
    except (KeyError, TypeError, ValueError, OSError):
        return None
    return pid


def check_config(config: RetrainConfig) -> None:
    """``RetrainError`` saying which option is out of range, and what to give."""
    if not 0 < config.hours <= 24:
        raise RetrainError(f"--hours {config.hours}: give a budget above 0 and at most 24 (e.g. 0.5)")
    if config.part not in ("auto", "classifier", "detector", "both"):
        raise RetrainError(f"--part {config.part}: use auto, classifier, detector or both")
    if not 0 <= config.deck_share <= 1:
        raise RetrainError(f"--deck-share {config.deck_share}: give a fraction from 0 to 1")
    if not 0 <= config.distill <= 100:
        raise RetrainError(f"--distill {config.distill}: give a weight from 0 (off) to 100, e.g. 1")
    if not 0 < config.step <= 1:
        raise RetrainError(f"--step {config.step}: give a fraction above 0 and at most 1, e.g. 0.5")


def planned_stages(
    config: RetrainConfig, parts: tuple[str, ...], scenes: int, hours_detector: float, hours_classifier: float
) -> list[tuple[str, float]]:
    """The retrain's stages and the minutes each is expected to take (the progress bar's plan)."""
    train_minutes = config.hours * 60
    measuring = 0.1 * train_minutes + 0.5
    if TAUGHT_PART in parts:  # crops drawn at about 500 a second on two cores
        drawn = (config.taught_crops or TAUGHT_PARTNER_CROPS) * (1 + TAUGHT_PARTNER_VAL_SHARE)
        draw_minutes = drawn * (1 + TAUGHT_PARTNER_OTHER_DECKS) / 30_000
        making = [("draw crops", draw_minutes), ("train classifier", train_minutes)]
    else:
        render_minutes = scenes / 600 + 0.2
        if "classifier" in parts and config.hard_negatives:  # mining: about 130 no-card tables a minute here
            render_minutes += scenes * NO_CARD_TABLES_PER_SCENE / 130 + scenes * MINED_SCENE_SHARE / 400
        making = [("render scenes", render_minutes)]
        making += [("train detector", hours_detector * 60)] if hours_detector else []
        making += [("train classifier", hours_classifier * 60)] if hours_classifier else []
    return [("measure before", measuring), *making, ("measure after", measuring), ("install", 0.1)]


def _train_detector(
    config: RetrainConfig, data: Path, runs: Path, models_dir: Path, hours: float, progress: Progress
) -> Path:
    """The detector fine-tuned on the rendered data for ``hours``, from the installed one."""
    installed = read_settings_document(models_dir).get("detector", {}).get("weights", DETECTOR_FILE)
    run = train.TrainRun(
        epochs=100,
        imgsz=config.imgsz,
        batch=config.batch,
        name="detector",
        device="cpu",
        hours=hours,
        weights=str(models_dir / installed),
        workers=min(2, config.workers),
        project=runs,
        models_dir=models_dir,
        callbacks=_progress_callbacks(progress, hours, "detector"),
    )
    return train.train_detector(data / "data.yaml", run)


def _train_classifiers(
    config: RetrainConfig,
    data: Path,
    runs: Path,
    models_dir: Path,
    partners: tuple[Path, ...],
    hours: float,
    progress: Progress,
) -> tuple[Path, dict[str, Path]]:
    """The main classifier and each of ``partners`` fine-tuned on the rendered crops, in equal shares of
    ``hours``: the main one's best weights, and each partner's by its file name.

    --partners (default): every classifier that reads the crops learns the taught decks: the main one alone is
    outvoted by partners that never saw them. --distill holds each to what it read before, so the three drift
    less on other decks (docs/experiments/reading-settings-history.md)."""
    runs_count = 1 + len(partners)
    share = hours / runs_count
    swapped = runs / "crops-bgr"  # one copy with red and blue swapped, shared by the runs
    main: Path | None = None
    trained_partners: dict[str, Path] = {}
    for k, start in enumerate((None, *partners)):
        what = "classifier" if start is None else f"partner classifier {k} of {len(partners)}"
        run = replace(
            train.CLASSIFIER_RUN,
            epochs=100,
            imgsz=train.classifier_input_size(start or models_dir / train.CLASSIFIER_FILE),
            batch=max(config.batch, 64),
            name="classifier" if start is None else f"partner-{k}",
            device="cpu",
            hours=share,
            weights=None if start is None else str(start),
            workers=min(2, config.workers),
            project=runs,
            models_dir=models_dir,
            callbacks=_progress_callbacks(progress, share, what, k / runs_count, 1 / runs_count),
        )
        best = train.train_classifier(
            data / "crops",
            run,
            lr0=RETRAIN_CLASSIFIER_LR0,
            keep_classes=start is not None,
            swapped_crops=swapped,
            distill=config.distill,
            step=config.step,
        )
        if start is None:
            main = best
        else:
            trained_partners[start.name] = best
    assert main is not None  # the main classifier is trained first
    return main, trained_partners


def retrain(config: RetrainConfig) -> dict[str, Any]:
    """Run one retrain (see the module doc); returns the report (also written to instance/retrain/last.json)."""
    check_config(config)
    models_dir = Path(config.models_dir)
    try:
        settings = read_model_settings(models_dir)
    except ModelError as error:
        raise RetrainError(f"{error}; retrain starts from installed models") from None
    folder = retrain_dir(config.instance)
    lock = acquire_lock(folder)
    started = time.time()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    work = Path(config.work_dir or folder / f"run-{stamp}")
    status_path = config.status_path or folder / STATUS_FILE
    progress = None
    try:
        collected = examples.summary(config.instance)
        deck_paths = _taught_deck_paths(config)
        if config.taught_partner:
            if settings.classifiers.main is None:
                raise RetrainError("--taught-partner starts from the main crop classifier, and none is installed")
            if not deck_paths:
                raise RetrainError(
                    "--taught-partner teaches the taught decks, and there is none complete: teach one first "
                    "(ginscore deck add), or name it with --deck"
                )
            parts: tuple[str, ...] = (TAUGHT_PART,)
        else:
            parts = _parts(config, collected["detector_photos"], settings.classifiers.main is not None)
        sets = tuple(config.eval_sets if config.eval_sets is not None else default_eval_sets())
        held_out = examples.write_held_out_folder(config.instance, work / "held-out") if config.held_out else None
        if held_out is not None:
            sets = sets + (EvalSet("held-out examples", held_out, "labelled"),)
        sets = sets + taught_deck_sets(deck_paths)
        scenes = config.scenes or int(min(20000, max(200, SCENES_PER_HOUR * config.hours)))
        hours_detector = config.hours * (DETECTOR_SHARE if len(parts) == 2 else 1.0) if "detector" in parts else 0.0
        hours_classifier = config.hours - hours_detector if "classifier" in parts else 0.0
        stages = planned_stages(config, parts, scenes, hours_detector, hours_classifier)
        progress = Progress(stages, status_path, config.progress_bar)
        timings: dict[str, float] = {}
        cache = folder / "measurements.json"

        def measured(models: Path, when: str, what: str) -> dict[str, Any]:
            """The measurements of ``models`` on the sets, timed, the progress said as ``when`` and ``what``."""
            progress.begin(f"measure {when}", f"measuring {what}")
            start = time.time()
            on_set = lambda i, name: progress.update(i / max(len(sets), 1), f"measuring {name} ({when})")  # noqa: E731
            result = measure(models, sets, config.eval_imgsz, cache, on_set=on_set)
            timings[f"measure_{when}_min"] = (time.time() - start) / 60
            return result

        before = measured(models_dir, "before", "the installed models")

        data = work / "data"
        t = time.time()
        data_counts: dict[str, Any]
        if TAUGHT_PART in parts:
            progress.begin("draw crops", "drawing the taught decks' index crops")
            data_counts = draw_taught_crops(config, data, deck_paths, settings.classifiers.channels)
            scenes = 0
        else:
            progress.begin("render scenes", f"rendering {scenes} scenes")
            rendered: dict[str, Any] = render_training_data(
                config,
                data,
                scenes,
                deck_paths,
                crops="classifier" in parts,
                progress=lambda f: progress.update(f, "rendering scenes"),
            )
            rendered["examples"] = examples.add_to_dataset(
                config.instance, data, detector="detector" in parts, crops="classifier" in parts
            )
            data_counts = rendered
        timings["render_min"] = (time.time() - t) / 60

        trained: dict[str, Path] = {}
        runs = work / "runs"
        if "detector" in parts:
            progress.begin("train detector", "fine-tuning the detector")
            t = time.time()
            trained["detector"] = _train_detector(config, data, runs, models_dir, hours_detector, progress)
            timings["train_detector_min"] = (time.time() - t) / 60
        channels = None
        trained_partners: dict[str, Path] = {}
        if "classifier" in parts:
            partners = settings.classifiers.partners if config.partners else ()
            progress.begin("train classifier", "fine-tuning the classifier" + ("s" if partners else ""))
            t = time.time()
            trained["classifier"], trained_partners = _train_classifiers(
                config, data, runs, models_dir, partners, hours_classifier, progress
            )
            channels, _, _ = train.classifier_channel_order(trained["classifier"], data / "crops" / "val")
            timings["train_classifier_min"] = (time.time() - t) / 60
        if TAUGHT_PART in parts:
            progress.begin("train classifier", "teaching the taught decks' own classifier")
            t = time.time()
            assert settings.classifiers.main is not None  # checked before anything ran
            trained_partners[TAUGHT_PARTNER_FILE] = _train_taught_partner(
                config, data, runs, settings.classifiers.main, settings.classifiers.channels, progress
            )
            timings["train_classifier_min"] = (time.time() - t) / 60

        candidate = work / "candidate"
        make_candidate(models_dir, candidate, trained, channels, trained_partners)
        if TAUGHT_PART in parts:
            document = read_settings_document(candidate)
            document.setdefault("classifiers", {})["taught"] = TAUGHT_PARTNER_FILE
            write_settings_document(candidate, document)
        after = measured(candidate, "after", "the new models")

        progress.begin("install", "deciding")
        better, reasons = decide(before, after, config.tolerance)
        bought = taught_deck_words(before, after)  # what teaching bought, said whatever the decision
        in_words = bought + real_set_words(before, after) if bought else []  # and what it cost the real sets
        installed = bool(better and config.install)
        if installed:
            install_candidate(candidate, models_dir, tuple(trained), tuple(trained_partners))
        decision = (
            "installed" if installed else "not installed (--no-install)" if better else "refused: " + "; ".join(reasons)
        )
        report = {
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "models_dir": str(models_dir),
            "work_dir": str(work),
            "parts": list(trained) + [part for part in parts if part == TAUGHT_PART],
            "partners_trained": [name for name in trained_partners if name != TAUGHT_PARTNER_FILE],
            "distill": config.distill,
            "step": config.step,
            "hours": config.hours,
            "scenes": scenes,
            "taught_decks": [p.name for p in deck_paths],
            "data": data_counts,
            "collected": {
                k: collected[k] for k in ("photos", "detector_photos", "held_out", "boxes", "corrected", "negatives")
            },
            "before": before,
            "after": after,
            "not_worse": better,
            "reasons": reasons,
            "taught_decks_bought": bought,
            "in_words": in_words,
            "installed": installed,
            "decision": decision,
            "minutes": round((time.time() - started) / 60, 1),
            "timings_min": {k: round(v, 1) for k, v in timings.items()},
            "rollback": f"ginscore retrain --rollback --models-dir {models_dir}" if installed else None,
        }
        write_json(work / "report.json", report)
        write_json(folder / REPORT_FILE, report)
        with open(folder / "history.jsonl", "a") as handle:
            handle.write(
                json.dumps({k: report[k] for k in ("finished", "parts", "installed", "decision", "minutes")}) + "\n"
            )
        progress.close("done", decision, report=str(folder / REPORT_FILE))
        return report
    except BaseException as error:
        if progress is not None:
            message = str(error) if isinstance(error, (ValueError, FileNotFoundError)) else f"failed: {error!r}"
            progress.close("failed", "stopped" if isinstance(error, KeyboardInterrupt) else message)
        raise
    finally:
        lock.unlink(missing_ok=True)


def _progress_callbacks(
    progress: Progress, hours: float, what: str, start_at: float = 0.0, span: float = 1.0
) -> dict[str, Callable]:
    """Callbacks that move the stage's bar from ``start_at`` over ``span`` of it while ``what`` trains for
    ``hours`` (the classifiers share one stage, one after the other)."""
    start = time.time()

    def on_batch(trainer) -> None:
        elapsed = time.time() - start
        progress.update(
            start_at + span * min(elapsed / max(hours * 3600, 1e-6), 1.0),
            f"fine-tuning the {what}: epoch {trainer.epoch + 1}, {elapsed / 60:.1f} of {hours * 60:.0f} min",
        )

    return {"on_train_batch_end": on_batch}


def render_training_data(
    config: RetrainConfig,
    out: Path,
    scenes: int,
    deck_paths: list[Path],
    crops: bool,
    progress: Callable[[float], None] | None = None,
) -> dict[str, int]:
    """Fresh scenes into ``out``: the library's decks, and ``deck_share`` of them with the taught decks. With
    classifier crops and ``hard_negatives``: clutter in most scenes, and "not a card" crops of the installed
    detector's false proposals on some of the library's scenes and on no-card tables. With classifier crops and
    taught decks: ``taught_crops`` of the taught decks' crops drawn directly (``index_crops.generate_crops``)."""

    seed = config.seed if config.seed is not None else int(time.time()) % 1_000_000
    taught = int(round(scenes * config.deck_share)) if deck_paths else 0
    counts = {"scenes": 0, "taught_scenes": taught, "seed": seed}
    batches = [(scenes - taught, seed, ())] + ([(taught, seed + 1, tuple(deck_paths))] if taught else [])
    done = 0
    library: SynthConfig | None = None  # the scenes of the library's decks, mined below
    for count, batch_seed, decks in batches:
        if count <= 0:
            continue
        batch = SynthConfig(
            out=out,
            count=count,
            imgsz=config.synth_imgsz,
            seed=batch_seed,
            crops=crops,
            workers=config.workers,
            deck_paths=decks,
            clutter_share=RETRAIN_CLUTTER_SHARE if config.hard_negatives else None,
        )
        stats = generate(batch, progress=False)
        if not decks:
            library = batch
        done += count
        counts["scenes"] += stats["scenes"]
        if progress is not None:
            progress(done / scenes)
    if crops and config.hard_negatives:
        detector = load_detector(config.models_dir)
        if library is not None:
            mined = mine_scenes(
                library, int(round(library.count * MINED_SCENE_SHARE)), detector=detector, progress=False
            )
            counts["mined_none_crops"] = mined["negatives"]
        tables = mine_no_card_tables(
            out, int(round(scenes * NO_CARD_TABLES_PER_SCENE)), seed, detector=detector, progress=False
        )
        counts["no_card_table_crops"] = tables["negatives"]
    if crops and deck_paths:
        wanted = config.taught_crops if config.taught_crops is not None else TAUGHT_CROPS_PER_HOUR * config.hours
        if int(wanted) > 0:
            taught_set = CropSet(out / "crops", int(wanted), seed=seed + 2, decks=tuple(deck_paths))
            drawn = generate_crops(taught_set, config.workers, progress=None)
            counts["taught_deck_crops"] = int(drawn["crops"])
    write_data_yaml(out)
    return counts


def draw_taught_crops(config: RetrainConfig, data: Path, deck_paths: list[Path], channels: str) -> dict[str, Any]:
    """The taught decks' index crops drawn directly into ``data/crops`` (``--taught-crops``, default
    ``TAUGHT_PARTNER_CROPS``; their "not a card" crops are their own pictures and pips), in the main classifier's
    channel order, with a small val split of the same decks that only picks the epoch."""
    seed = config.seed if config.seed is not None else int(time.time()) % 1_000_000
    wanted = config.taught_crops if config.taught_crops is not None else TAUGHT_PARTNER_CROPS
    if wanted < 1000:
        raise RetrainError(f"--taught-crops {wanted}: a taught deck's own classifier needs 1000 crops or more")
    crop_set = CropSet(
        data / "crops",
        wanted,
        val=max(200, int(wanted * TAUGHT_PARTNER_VAL_SHARE)),
        seed=seed + 2,
        decks=tuple(deck_paths),
        bgr=channels == "bgr",
    )
    drawn = generate_crops(crop_set, config.workers, progress=None)
    others = CropSet(
        data / "other-decks",
        int(wanted * TAUGHT_PARTNER_OTHER_DECKS),
        val=int(crop_set.val * TAUGHT_PARTNER_OTHER_DECKS),
        seed=seed + 3,
        bgr=channels == "bgr",
    )
    other_drawn = generate_crops(others, config.workers, progress=None)
    for crop in sorted(others.out.glob("*/*/*.*")):  # every class of theirs is "not this deck" here
        split = crop.parent.parent.name
        crop.rename(data / "crops" / split / REJECT_CLASS / f"other_{crop.parent.name}_{crop.name}")
    shutil.rmtree(others.out)
    return {"taught_deck_crops": int(drawn["crops"]), "other_deck_crops": int(other_drawn["crops"]), "seed": seed}


def _train_taught_partner(
    config: RetrainConfig, data: Path, runs: Path, main: Path, channels: str, progress: Progress
) -> Path:
    """The taught decks' own classifier: the main one fine-tuned on their crops alone for ``config.hours``, at
    ``CROP_SIZE`` whatever the main one's size (the reader gives each classifier its crops at its own size; at 64 px
    it sees 2.25 times the crops of 96 px in the same minutes, and it learns one deck)."""
    run = replace(
        train.CLASSIFIER_RUN,
        epochs=100,
        batch=max(config.batch, 64),
        name="taught-partner",
        device="cpu",
        hours=config.hours,
        weights=str(main),
        workers=min(2, config.workers),
        project=runs,
        models_dir=Path(config.models_dir),
        callbacks=_progress_callbacks(progress, config.hours, "taught decks' classifier"),
    )
    return train.train_classifier(
        data / "crops", run, lr0=TAUGHT_PARTNER_LR0, keep_classes=True, crops_channels=channels
    )


def make_candidate(
    models_dir: Path,
    candidate: Path,
    trained: dict[str, Path],
    channels: str | None,
    trained_partners: dict[str, Path] | None = None,
) -> Path:
    """A models folder with the current settings, the new weights (``trained_partners``: a partner
    classifier's file name -> its new weights) and the installed ones not retrained."""

    if candidate.exists():
        shutil.rmtree(candidate)
    candidate.mkdir(parents=True)
    for name in model_files(models_dir):
        if name.endswith(".onnx") and name != read_settings_document(models_dir).get("detector", {}).get("weights"):
            continue  # a stale export beside a retrained .pt would be ignored anyway
        shutil.copy2(models_dir / name, candidate / name)
    install_weights(trained.get("detector"), trained.get("classifier"), candidate, classifier_channels=channels)
    for name, weights in (trained_partners or {}).items():
        shutil.copyfile(weights, candidate / name)
    return candidate


# ------------------------------------------------------------------ command line


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore retrain``."""
    parser = commands.add_parser(
        "retrain",
        help="fine-tune the models on fresh scenes, taught decks and corrected photos (CPU)",
        description="Fine-tune the installed models on this machine's CPU: fresh synthetic scenes, the decks "
        "taught with 'ginscore deck add' and the photos corrected in the web app ('ginscore "
        "examples'). Measures before and after (real-val, real-clutter, held-out examples) and "
        "installs the new models only when they are not worse; --rollback puts the previous back.",
    )
    parser.add_argument(
        "--hours",
        type=float,
        default=None,
        help=f"training budget in hours (default {DEFAULT_HOURS:g}; {TAUGHT_PARTNER_HOURS:g} with --taught-partner)",
    )
    parser.add_argument(
        "--part",
        choices=["auto", "classifier", "detector", "both"],
        default="auto",
        help="what to fine-tune; auto: the classifier, and the detector too once "
        f"{AUTO_DETECTOR_PHOTOS} corrected photos can teach it (default)",
    )
    parser.add_argument(
        "--scenes",
        type=int,
        default=None,
        help=f"synthetic scenes to render (default {SCENES_PER_HOUR} per hour of budget)",
    )
    parser.add_argument(
        "--deck",
        action="append",
        default=None,
        metavar="NAME",
        help="taught deck to mix in (repeatable; default: every complete taught deck)",
    )
    parser.add_argument(
        "--deck-share", type=float, default=0.5, help="share of the scenes drawn with the taught decks (default 0.5)"
    )
    parser.add_argument(
        "--partners",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fine-tune the partner classifiers too, each in an equal share of the time (default); with "
        "--no-partners only the main one, whose lessons the untaught partners then outvote (docs/training.md)",
    )
    parser.add_argument(
        "--distill",
        type=float,
        default=1.0,
        metavar="WEIGHT",
        help="hold each classifier to what it read before on the crops it already reads right, with this weight "
        "(default 1; 0: off): it learns a taught deck's misreads and drifts less on other decks",
    )
    parser.add_argument(
        "--step",
        type=float,
        default=1.0,
        metavar="FRACTION",
        help="move each classifier's weights this fraction of the way from where it started to where the "
        "fine-tune took them (default 1: all the way); a point between keeps more of what it read on other decks",
    )
    parser.add_argument(
        "--taught-crops",
        type=int,
        default=None,
        metavar="N",
        help=f"index crops of the taught decks drawn directly beside their scenes (default {TAUGHT_CROPS_PER_HOUR:,} "
        "per hour of --hours; 0: none)",
    )
    parser.add_argument(
        "--taught-partner",
        action="store_true",
        help="teach the taught decks to a classifier of their own, which also learns to say 'not my deck', "
        "instead of fine-tuning every classifier on scenes: minutes, and the other decks read as "
        f"before (default --taught-crops {TAUGHT_PARTNER_CROPS:,}, --hours {TAUGHT_PARTNER_HOURS:g})",
    )
    parser.add_argument("--imgsz", type=int, default=640, help="detector training size (default 640)")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering scenes (default 2)")
    parser.add_argument("--no-clutter", action="store_true", help="do not measure on real-clutter (faster)")
    parser.add_argument(
        "--eval",
        action="append",
        default=None,
        type=Path,
        metavar="DIR",
        help="measure on this labelled folder instead of real-val/real-clutter (repeatable)",
    )
    parser.add_argument(
        "--eval-imgsz", type=int, default=None, help="reading size when measuring (default: model.json)"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.01,
        help="largest fall in recall or precision on one set still counted as not worse (default 0.01)",
    )
    parser.add_argument("--no-install", action="store_true", help="measure, but leave the installed models alone")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--models-dir",
        type=Path,
        default=None,
        help="models folder to start from and install into (default: $GINSCORE_MODELS or models/)",
    )
    parser.add_argument(
        "--instance",
        type=Path,
        default=None,
        help="instance folder with examples/ and decks/ (default: $GINSCORE_INSTANCE or instance/)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="where the run's data and weights go (default: instance/retrain/run-<time>)",
    )
    parser.add_argument("--rollback", action="store_true", help="put back the models the last retrain replaced")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--verbose", action="store_true", help="also show ultralytics' own training output")
    parser.set_defaults(run=run_retrain)


def run_retrain(args: argparse.Namespace) -> int:
    let_idle_threads_sleep()
    models_dir = Path(args.models_dir or default_models_dir())
    if not getattr(args, "verbose", False):
        os.environ.setdefault("YOLO_VERBOSE", "False")  # the progress bar says how far it is
    if args.rollback:
        names = rollback(models_dir)
        print(
            f"rolled back {models_dir}: {', '.join(names)} restored (the replaced ones are in "
            f"{models_dir / PREVIOUS}; --rollback again undoes this)"
        )
        return 0
    sets: tuple[EvalSet, ...] | None = None
    if args.eval:
        sets = tuple(eval_set_of(folder) for folder in args.eval)
    elif args.no_clutter:
        sets = default_eval_sets(clutter=False)
    if args.scenes is not None and not 10 <= args.scenes <= 100000:
        raise ValueError(f"--scenes {args.scenes}: give 10 to 100000")
    if args.taught_crops is not None and not 0 <= args.taught_crops <= 2_000_000:
        raise ValueError(f"--taught-crops {args.taught_crops}: give 0 to 2000000 crops")
    config = RetrainConfig(
        models_dir=models_dir,
        instance=args.instance,
        hours=args.hours if args.hours is not None else TAUGHT_PARTNER_HOURS if args.taught_partner else DEFAULT_HOURS,
        part=args.part,
        scenes=args.scenes,
        decks=tuple(args.deck) if args.deck else None,
        deck_share=args.deck_share,
        imgsz=args.imgsz,
        workers=max(1, args.workers),
        eval_sets=sets,
        eval_imgsz=args.eval_imgsz,
        tolerance=args.tolerance,
        install=not args.no_install,
        seed=args.seed,
        distill=args.distill,
        step=args.step,
        taught_crops=args.taught_crops,
        taught_partner=args.taught_partner,
        work_dir=args.work_dir,
        progress_bar=not args.quiet,
        partners=args.partners,
    )
    report = retrain(config)
    print(format_report(report))
    return 0


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"retrained {', '.join(report['parts'])}"
        + (f" and {len(report['partners_trained'])} partner classifiers" if report.get("partners_trained") else "")
        + f" in {report['minutes']} min ("
        + (
            f"{report['scenes']} scenes"
            if report["scenes"]
            else f"{report['data'].get('taught_deck_crops', 0):,} crops"
        )
        + (f", taught decks {', '.join(report['taught_decks'])}" if report["taught_decks"] else "")
        + f", {report['collected']['photos']} collected photos)"
    ]
    lines.append(f"{'set':<20} {'':<7} {'right':>11} {'recall':>7} {'precision':>9} {'exact':>7} {'flagged':>8}")
    for name in report["before"]:
        for when in ("before", "after"):
            n = report[when].get(name)
            if n is None:
                continue
            lines.append(
                f"{name if when == 'before' else '':<20} {when:<7} {n['right']:>5}/{n['labelled']:<5} "
                f"{n['recall']:>7.4f} {n['precision']:>9.4f} {n['photos_exact']:>3}/{n['photos']:<3} "
                f"{n.get('flagged', 0):>8}"
            )
    lines.append(f"-> {report['decision']}")
    lines += [f"   {words}" for words in report.get("in_words", [])]
    if report.get("rollback"):
        lines.append(f"undo with: {report['rollback']}")
    return "\n".join(lines)
