"""``models/model.json``: the reader's model files and settings, in one typed schema.

The file has five sections, each a frozen dataclass below with one default per setting::

    {
      "detector":    {"weights": "card_index_detector.pt", "imgsz": 1024, "webcam_imgsz": 640,
                      "proposal_conf": 0.2},
      "classifiers": {"main": "card_index_classifier.pt", "partners": ["..."], "mix": 0.34,
                      "channels": "bgr", "rotations": 4, "isolate": 0.0},
      "decision":    {"conf": 0.25, "detector_weight": 0.5, "reject_gate": 0.15, "review_below": 0.5, ...},
      "passes":      {"close_up_imgsz": 416, "close_up_index_px": 60, "far_imgsz": 1600, ...},
      "corners":     {"same_card_span": [1.0, 7.0], "unsure_corner": 0.5, ...},
      "updated": "2026-12-01 04:50"
    }

The file is validated when it is loaded: a value of the wrong type or range, or an unknown key, is a
``ModelError`` that names the key (and the closest known one). A file in the flat layout used before
December 2026 (``{"imgsz": 1024, "conf": 0.25, ...}``) is read the same, its keys moved to their sections.

Only this module reads or writes model.json.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import time
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.paths import MODELS_DIR_ENV, models_dir

MODEL_SETTINGS_FILE = "model.json"
DETECTOR_FILE = "card_index_detector.pt"
CLASSIFIER_FILE = "card_index_classifier.pt"
USE_ONNX_ENV = "GINSCORE_ONNX"  # "0": ignore an ONNX export beside the .pt detector
CHANNEL_ORDERS = ("bgr", "rgb")


class ModelError(ValueError):
    """The model files are missing or are not a card-index model; the message says what to do."""


@dataclass(frozen=True)
class DetectorSettings:
    """The YOLO corner-index detector and the sizes it reads at."""

    weights: Path = Path(DETECTOR_FILE)
    imgsz: int = 1024  # photos: real-val index boxes are 15-65 px at this size
    webcam_imgsz: int = 640  # webcam frames (640 x 480) at their own size
    proposal_conf: float = 0.1  # the detector's own threshold for boxes sent to the classifiers
    max_boxes: int = 300  # the most boxes one pass of the detector proposes
    # an image the detector reads at less than this fraction of its size is first shrunk by area averaging
    # (ultralytics' letterbox resizes linearly, which aliases fine print when it shrinks by more than ~1.5)
    area_shrink_below: float = 0.67
    tile_overlap: float = 0.2  # a photo read in tiles: neighbouring tiles share this fraction of a tile
    tile_edge_margin: float = 2.0  # ... and a box within this many pixels of an inner tile edge is cut by it


@dataclass(frozen=True)
class ClassifierSettings:
    """The crop classifiers that read which card each index box shows (none: a 52-class detector)."""

    main: Path | None = Path(CLASSIFIER_FILE)
    # more classifiers whose readings are combined with the main one's (geometric mean, the main one
    # weighted ``mix``, the partners sharing the rest equally)
    partners: tuple[Path, ...] = ()
    mix: float = 1.0
    channels: str = "bgr"  # channel order the classifier networks were trained on
    rotations: int = 4  # photos: average over 1, 2 or 4 quarter turns of each crop
    # each crop is read upright first, and at its other turns only when that reading's first class (any class,
    # "not a card" included) is less sure than this; 1: every turn of every crop (detector.classify_crops)
    other_turns_below: float = 1.0
    # the partners read only the crops the main classifier reads less surely than this (the probability of
    # its first class, "not a card" included); the main reading of a surer crop stands alone. 1: every crop
    partners_below: float = 1.0
    # the main classifier reads crops with everything beyond this margin (a fraction of the crop side)
    # outside the index box painted as paper (``vision.crops.isolate_box``); 0: plain crops
    isolate: float = 0.0
    runner_ups: int = 4  # the next-best cards kept per box (vision/cards.py reads duplicates as them)
    # a taught deck's own classifier (``ginscore retrain --taught-partner``): fine-tuned from the main one on the
    # taught decks' crops, with other decks' crops as its "not a card" ("not my deck"), it reads the crops the
    # classifiers above read less surely than ``taught_below`` (the first card's share; 1: every crop), its card
    # probabilities weighted ``taught_weight`` times the share it does not give "not a card" in the geometric mean
    # (crop_reading.taught_weights): a crop of another deck is left to the classifiers above. Sessions 26-27 measured
    # every crop at 0.34, 0.6, 1 and 2 against the first card below 0.5 (docs/training.md, "A taught deck's own
    # classifier"): 1 read most on three sets of bonded photos, 2 let the taught classifier's own misreads through.
    # Session 34, with the 96-px main classifier: 0.75 against 1 and 0.5 on bonded's and the Egyptians' five sets
    # of 50 photos (docs/experiments/session-34-a-taught-deck-reads-only-its-own-photos.md): recall and precision up
    # on four of five against the reader alone, no repeated misread on any (0.5: the Egyptians' 9d->6d repeats).
    # It reads a photo (or frame) at all only when the median "my deck" share it gives the crops read as cards
    # reaches ``taught_photo_median`` (crop_reading.taught_deck_in_photo): another deck's photo is read as if no
    # deck were taught (session 34: real-val and real-clutter read as by the shipped reader).
    taught: Path | None = None
    taught_below: float = 1.0
    taught_weight: float = 0.75
    taught_photo_median: float = 0.5


@dataclass(frozen=True)
class DecisionSettings:
    """Which readings are kept as cards, and which are shown to the user to check."""

    conf: float = 0.25  # lowest confidence kept
    detector_weight: float = 1.0  # a reading's confidence: detector ** detector_weight x classifier
    # a box that any classifier with a "not a card" class rejects with at least this is no card
    # (0: its card probabilities are only scaled down by the reject probability)
    reject_gate: float = 0.0
    review_below: float = 0.5  # a card read less surely than this is flagged for the user to check
    # the second way in (photos only): a box proposed from sure_proposal_conf, below proposal_conf, is
    # kept, flagged, when the classifiers read it as one card with at least sure_classifier. 0: off
    sure_proposal_conf: float = 0.0
    sure_classifier: float = 1.0
    # doubted cards (photos only): a box proposed from doubted_proposal_conf is dropped by the "not a
    # card" gate only from doubted_reject_gate; between the two gates it is kept, flagged. 0: off
    doubted_proposal_conf: float = 0.0
    doubted_reject_gate: float = 1.0
    # the calibration of a card's confidence, (a, b, c, d) of ``vision.review.calibrated_confidence``,
    # fitted on rendered held-out scenes (``ginscore calibrate``); empty: the raw confidence
    calibration: tuple[float, ...] = field(
        default=(), metadata={"length_fits": lambda n: n in (0, 4), "length_words": "four numbers (or none)"}
    )
    # ... then this monotone curve over the logistic's output: (x1, y1, x2, y2, ...), interpolated; empty: none
    calibration_curve: tuple[float, ...] = field(
        default=(), metadata={"length_fits": lambda n: n % 2 == 0, "length_words": "an even number of numbers"}
    )
    # a card that one crop classifier reads as another card than the combined reading is flagged
    flag_disagreement: bool = False
    # of readings overlapping by more than this (IoU), only the surest: one index, one reading
    one_index_iou: float = 0.5
    # ... and of two readings one of whose boxes lies more than this share inside the other's, only the surer: a
    # part of an index read again (real-clutter IMG_2622: a king's lower half read as K♣ beside the whole K♠,
    # IoU 0.46). Two printed indices never lie one inside the other. 1: not looked at
    one_index_inside: float = 1.0
    # ... and a reading whose box is at least this many times the area of a surer reading's box that lies half or
    # more inside it is no index: it framed the pips or print around another card's index (real-clutter IMG_2581:
    # a 9♣'s pips read as 4♣, a box 4.9 times the area of the 9♣ index's beside them, holding 0.66 of it). The
    # indices of one deck in one photo are of one size. 0: not looked at
    around_surer_index: float = 0.0


@dataclass(frozen=True)
class PassSettings:
    """Second detector passes over one photo, for close-ups and for far shots (photos only)."""

    close_up_imgsz: int = 0  # a smaller pass when the indices are large or few; 0: none
    close_up_index_px: float = 40.0  # median index side (at imgsz) from which the close-up pass runs
    close_up_min_boxes: int = 4  # ... or when the first pass proposes fewer boxes than this
    far_imgsz: int = 0  # a larger pass when the indices are small (the table from a chair); 0: none
    far_index_px: float = 20.0  # median index side (at imgsz) below which the far pass runs
    # boxes of the two passes overlapping by more than this (IoU) are one box, the surer kept before the
    # classifiers read them (docs/experiments/reading-settings-history.md: why not 0.5)
    merge_iou: float = 0.7


def _span(words: str) -> Any:
    """A field of two numbers, low and high (model.json: a list of two)."""
    return {"length_fits": lambda n: n == 2, "length_words": f"two numbers ({words})"}


@dataclass(frozen=True)
class CornerSettings:
    """How corner boxes become cards (``vision.cards``); distances in index-box long sides."""

    # boxes read as one code this far apart (low, high) can be one card's two corners; nearer, they are two
    # indices side by side (unless one index seen twice)
    same_card_span: tuple[float, ...] = field(default=(1.0, 7.0), metadata=_span("low, high"))
    # two boxes are one index seen twice when this much of the smaller lies inside the larger ...
    same_index_overlap: float = 0.5
    same_index_span: float = 0.3  # ... or their centres lie nearer than this
    # a card read at three or more places, the least sure below this, is flagged (unless the deck prints four)
    unsure_corner: float = 0.5
    min_runner_up_confidence: float = 0.1  # a weaker duplicate becomes its runner-up card from this sure
    runner_up_floor: float = 0.05  # a card's runner-ups: the other cards its boxes show at least this surely
    # two one-corner readings of two codes are one card's two corners at this distance (low, high) ...
    disagreeing_corner_span: tuple[float, ...] = field(default=(3.0, 6.0), metadata=_span("low, high"))
    # ... with boxes of about one size (the ratio of their sizes, low, high) ...
    disagreeing_corner_sizes: tuple[float, ...] = field(default=(0.67, 1.5), metadata=_span("low, high"))
    diagonal_share: float = 0.35  # ... offset along both sides by at least this share of the distance ...
    face_radius: float = 0.75  # ... and no other index within this share of it from their midpoint
    typical_diagonal: float = 4.2  # of several such pairs, those nearest this distance first


@dataclass(frozen=True)
class ModelSettings:
    """What a models folder's ``model.json`` says, its file names resolved in that folder."""

    detector: DetectorSettings = field(default_factory=DetectorSettings)
    classifiers: ClassifierSettings = field(default_factory=ClassifierSettings)
    decision: DecisionSettings = field(default_factory=DecisionSettings)
    passes: PassSettings = field(default_factory=PassSettings)
    corners: CornerSettings = field(default_factory=CornerSettings)
    updated: str = ""

    def replace(self, **sections: dict[str, Any]) -> ModelSettings:
        """A copy with some settings changed, by section: ``settings.replace(decision={"conf": 0.3})``."""
        changed = {name: dataclasses.replace(getattr(self, name), **values) for name, values in sections.items()}
        return dataclasses.replace(self, **changed)


SECTIONS: dict[str, type] = {
    "detector": DetectorSettings,
    "classifiers": ClassifierSettings,
    "decision": DecisionSettings,
    "passes": PassSettings,
    "corners": CornerSettings,
}
TOP_LEVEL_KEYS = (*SECTIONS, "updated")
FILE_FIELDS = {("detector", "weights"), ("classifiers", "main"), ("classifiers", "partners"), ("classifiers", "taught")}

# the flat layout of model.json before December 2026: old key -> (section, key); None: a key that was
# written but never read, dropped
FLAT_KEYS: dict[str, tuple[str, str] | None] = {
    "detector": ("detector", "weights"),
    "imgsz": ("detector", "imgsz"),
    "webcam_imgsz": ("detector", "webcam_imgsz"),
    "proposal_conf": ("detector", "proposal_conf"),
    "classifier": ("classifiers", "main"),
    "partner_classifier": ("classifiers", "partners"),
    "classifier_mix": ("classifiers", "mix"),
    "classifier_channels": ("classifiers", "channels"),
    "classifier_rotations": ("classifiers", "rotations"),
    "classifier_isolate": ("classifiers", "isolate"),
    "classifier_imgsz": None,
    "conf": ("decision", "conf"),
    "detector_weight": ("decision", "detector_weight"),
    "reject_gate": ("decision", "reject_gate"),
    "review_below": ("decision", "review_below"),
    "sure_proposal_conf": ("decision", "sure_proposal_conf"),
    "sure_classifier": ("decision", "sure_classifier"),
    "doubted_proposal_conf": ("decision", "doubted_proposal_conf"),
    "doubted_reject_gate": ("decision", "doubted_reject_gate"),
    "close_up_imgsz": ("passes", "close_up_imgsz"),
    "close_up_index_px": ("passes", "close_up_index_px"),
    "close_up_min_boxes": ("passes", "close_up_min_boxes"),
    "far_imgsz": ("passes", "far_imgsz"),
    "far_index_px": ("passes", "far_index_px"),
}


def settings_path(folder: Path | None = None) -> Path:
    """The model.json of a models folder (default: ``vision.paths.models_dir()``)."""
    return (Path(folder) if folder is not None else models_dir()) / MODEL_SETTINGS_FILE


def read_settings_document(folder: Path | None = None) -> dict[str, Any]:
    """A models folder's model.json as a validated nested dict (sections and ``updated``); ``{}`` when
    the folder has none. The flat layout of older files is moved into the sections."""
    path = settings_path(folder)
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ModelError(f"{path}: not valid JSON ({error}); fix or delete it") from None
    if not isinstance(document, dict):
        raise ModelError(f"{path}: expected a JSON object with the sections {', '.join(SECTIONS)}")
    return validated_document(document, str(path))


def validated_document(document: dict[str, Any], where: str = MODEL_SETTINGS_FILE) -> dict[str, Any]:
    """``document`` checked against the schema (in the nested or the older flat layout), nested.

    >>> validated_document({"decision": {"conf": 0.3}})
    {'decision': {'conf': 0.3}}
    >>> validated_document({"conf": 0.3, "imgsz": 800})
    {'decision': {'conf': 0.3}, 'detector': {'imgsz': 800}}
    >>> validated_document({"decision": {"review_bellow": 0.4}})
    Traceback (most recent call last):
    ...
    vision.model_settings.ModelError: model.json: unknown key decision.review_bellow (did you mean review_below?)
    """
    flat = not any(isinstance(value, dict) for value in document.values())
    if document and flat and not set(document) & (set(SECTIONS) - set(FLAT_KEYS)):
        document = _nested_from_flat(document, where)
    nested: dict[str, Any] = {}
    for key, value in document.items():
        if key not in TOP_LEVEL_KEYS:
            raise ModelError(f"{where}: unknown key {key}{_did_you_mean(key, TOP_LEVEL_KEYS)}")
        if key == "updated":
            if not isinstance(value, str):
                raise ModelError(f'{where}: updated must be text such as "2026-12-01 04:50", not {value!r}')
            nested[key] = value
            continue
        if not isinstance(value, dict):
            raise ModelError(f"{where}: {key} must be an object of settings, not {value!r}")
        known = {f.name: f for f in dataclasses.fields(SECTIONS[key])}
        section = {}
        for name, item in value.items():
            if name not in known:
                raise ModelError(f"{where}: unknown key {key}.{name}{_did_you_mean(name, known)}")
            section[name] = _checked(
                f"{where}: {key}.{name}", item, _field_type(SECTIONS[key], name), known[name].metadata
            )
        nested[key] = section
    return nested


def _nested_from_flat(flat: dict[str, Any], where: str) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        if key == "updated":
            nested[key] = value
            continue
        if key not in FLAT_KEYS:
            raise ModelError(f"{where}: unknown key {key}{_did_you_mean(key, FLAT_KEYS)}")
        target = FLAT_KEYS[key]
        if target is None:
            continue
        section, name = target
        if name == "partners":
            value = [] if not value else [value] if isinstance(value, str) else value
        nested.setdefault(section, {})[name] = value
    return nested


def _did_you_mean(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return f" (did you mean {close[0]}?)" if close else f" (known: {', '.join(known)})"


def _field_type(section: type, name: str) -> Any:
    return typing.get_type_hints(section)[name]


def _checked(where: str, value: Any, kind: Any, metadata: Mapping[str, Any]) -> Any:
    """A JSON value checked against a field's type, and a list's length against the field's
    ``length_fits`` (file names stay text here, and lists stay lists, as JSON has them)."""
    optional = isinstance(kind, types.UnionType) and type(None) in typing.get_args(kind)
    if value is None:
        if optional:
            return None
        raise ModelError(f"{where} may not be null")
    if optional:
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
    if kind is Path:
        if not isinstance(value, str) or not value:
            raise ModelError(f"{where} must be a file name in the models folder, not {value!r}")
        return value
    if typing.get_origin(kind) is tuple and typing.get_args(kind)[0] is float:
        numbers = isinstance(value, list) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        )
        if not numbers or not metadata["length_fits"](len(value)):
            raise ModelError(f"{where} must be a list of {metadata['length_words']}, not {value!r}")
        return [float(v) for v in value]
    if typing.get_origin(kind) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ModelError(f"{where} must be a list of file names, not {value!r}")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise ModelError(f"{where} must be true or false, not {value!r}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ModelError(f"{where} must be a whole number, 0 or more, not {value!r}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ModelError(f"{where} must be a number, 0 or more, not {value!r}")
        return float(value)
    if kind is str:
        if value not in CHANNEL_ORDERS:
            raise ModelError(f"{where} must be one of {', '.join(CHANNEL_ORDERS)}, not {value!r}")
        return value
    raise TypeError(f"model.json schema: no check for {kind}")  # pragma: no cover - a schema bug


def read_model_settings(folder: Path | None = None) -> ModelSettings:
    """The model files and settings of a models folder; ``ModelError`` when there is no detector."""
    folder = Path(folder) if folder is not None else models_dir()
    document = read_settings_document(folder)
    where = settings_path(folder)
    sections: dict[str, Any] = {}
    for name, kind in SECTIONS.items():
        values = dict(document.get(name, {}))
        if name == "detector":
            detector = folder / values.get("weights", DETECTOR_FILE)
            if not detector.exists():
                raise ModelError(
                    f"no detector model at {detector}; put the trained {DETECTOR_FILE} there "
                    f"(or point ${MODELS_DIR_ENV} at a folder holding one)"
                )
            values["weights"] = _faster_sibling(detector)
        if name == "classifiers":
            if "main" in values:
                values["main"] = _named_file(folder, values["main"], where)
            else:
                values["main"] = folder / CLASSIFIER_FILE if (folder / CLASSIFIER_FILE).exists() else None
            values["partners"] = [_named_file(folder, v, where) for v in values.get("partners", [])]
            values["taught"] = _named_file(folder, values.get("taught"), where)
        for setting in dataclasses.fields(kind):  # the settings hold tuples where the file has lists
            if setting.name in values and typing.get_origin(_field_type(kind, setting.name)) is tuple:
                values[setting.name] = tuple(values[setting.name])
        sections[name] = kind(**values)
    return ModelSettings(**sections, updated=document.get("updated", ""))


def _named_file(folder: Path, name: str | None, where: Path) -> Path | None:
    if not name:
        return None
    path = folder / name
    if not path.exists():
        raise ModelError(f"{where} names {path}, which does not exist; copy it there or remove the key")
    return path


def onnx_runtime_available() -> bool:
    """Whether onnxruntime is installed (it runs an exported detector faster than torch on CPU)."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None


def _faster_sibling(detector: Path) -> Path:
    """The ONNX export beside a ``.pt`` detector when it is up to date and onnxruntime can run it."""
    exported = detector.with_suffix(".onnx")
    if (
        detector.suffix == ".pt"
        and exported.exists()
        and exported.stat().st_mtime >= detector.stat().st_mtime
        and os.environ.get(USE_ONNX_ENV, "1") != "0"
        and onnx_runtime_available()
    ):
        return exported
    return detector


def review_threshold(folder: Path | None = None) -> float:
    """The confidence below which a card read from a photo is flagged for the user to check: chosen with
    the model on real-val and real-clutter together (models/MODEL_CARD.md), recorded in model.json."""
    try:
        return read_model_settings(folder).decision.review_below
    except ModelError:
        return DecisionSettings.review_below


def write_settings_document(folder: Path, document: dict[str, Any]) -> Path:
    """Write a models folder's model.json (validated first, ``updated`` set to now); returns its path."""
    document = validated_document({**document, "updated": time.strftime("%Y-%m-%d %H:%M")})
    path = settings_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n")
    temporary.replace(path)
    return path


def named_weight_files(document: dict[str, Any]) -> list[str]:
    """The weights files a validated model.json names (detector, main classifier, partners, a taught deck's
    classifier), in order; the default file names stand for the ones it leaves out."""
    detector = document.get("detector", {}).get("weights", DETECTOR_FILE)
    classifiers = document.get("classifiers", {})
    main = classifiers.get("main", CLASSIFIER_FILE)
    return [name for name in (detector, main, *classifiers.get("partners", []), classifiers.get("taught")) if name]
