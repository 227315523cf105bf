"""The loaded models: the YOLO corner-index detector and the crop classifiers, BGR pixels and crops in,
boxes and class probabilities out (``CardIndexDetector``). The steps of a reading (``vision.recognise``)
ask it; it decides nothing.

This is the only module that touches ultralytics. The layout is a one-class detector of index boxes
(``models/card_index_detector.pt``) and a classifier of index crops whose classes are the 52 card codes,
and "not a card" (``models/card_index_classifier.pt``), with partner classifiers beside it where
model.json names them. ``MODEL_LOCK`` is the one lock around the models: one inference at a time.

``models/model.json`` (optional; ``vision.model_settings`` reads it) names the files and the settings.

An ONNX export of the detector beside the ``.pt`` (``ginscore export``; same name, ``.onnx``) is
used instead when onnxruntime is installed and the export is not older than the ``.pt``: on this
2-core CPU it runs the same network faster (see docs/vision-pipeline.md). ``GINSCORE_ONNX=0``
turns that off.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.cards import CARD_CODES
from vision.crops import CROP_SIZE
from vision.detections import canonical_code
from vision.model_settings import CLASSIFIER_FILE, ModelError, ModelSettings, read_model_settings
from vision.paths import ultralytics_settings_dir
from vision.probabilities import geometric_mean

if TYPE_CHECKING:
    import torch

# One inference at a time, whoever asks (a photo upload, the webcam, a deck being taught): ultralytics'
# predictors are not thread-safe, and on a CPU of few cores parallel inferences only thrash. Re-entrant: the
# web app holds it around a whole reading, and the models take it again for each call.
MODEL_LOCK = threading.RLock()

MODEL_LAYOUT = "index detector + classifier"  # the one layout of models the reader reads (its reports say so)
REJECT_CLASS = "none"  # the classifier class meaning "this crop shows no corner index" (its crops folder too)
NOT_A_CARD = -1  # the card id of that class


def export_onnx(folder: Path | str | None = None) -> Path:
    """Export the folder's ``.pt`` detector to ONNX beside it (dynamic input size); later loads prefer it.

    Needs the ``onnx`` package to export and ``onnxruntime`` to run (``pip install onnx onnxruntime``).
    """
    settings = read_model_settings(Path(folder) if folder is not None else None)
    source = settings.detector.weights.with_suffix(".pt")
    if not source.exists():
        raise ModelError(f"no {source.name} to export in {source.parent}")
    for package in ("onnx", "onnxruntime"):
        import importlib.util

        if importlib.util.find_spec(package) is None:
            raise ModelError(f"exporting to ONNX needs the {package} package: pip install onnx onnxruntime")
    prepare_ultralytics()
    from ultralytics import YOLO

    written = YOLO(str(source), task="detect").export(
        format="onnx", dynamic=True, imgsz=settings.detector.imgsz, simplify=False, opset=17, verbose=False
    )
    return Path(written)


def prepare_ultralytics() -> None:
    """Import ultralytics the product's way, once: its settings file in the app's own folder (not the user's
    home), never installing packages or reaching the network, and its log on standard error, so that a
    command's standard output (``ginscore detect --json``) holds only what the command prints."""
    os.environ.setdefault("YOLO_CONFIG_DIR", str(ultralytics_settings_dir()))
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    if "ultralytics" not in sys.modules:
        with contextlib.redirect_stdout(sys.stderr):  # its logger keeps the stream it was made with
            import ultralytics  # noqa: F401


def use_all_cores() -> None:
    """Let torch use every core (ultralytics leaves it at one thread on small machines)."""
    import torch

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if torch.get_num_threads() != cores:
        torch.set_num_threads(cores)


def _card_ids_of(names: dict[int, str], model_path: Path, allow_reject: bool = False) -> list[int]:
    """The ``CARD_CODES`` index of each class of a model (``NOT_A_CARD`` for its reject class)."""
    try:
        return [
            NOT_A_CARD if allow_reject and names[i] == REJECT_CLASS else CARD_CODES.index(canonical_code(names[i]))
            for i in sorted(names)
        ]
    except ValueError:
        raise ModelError(
            f"{model_path}: its classes {list(names.values())[:5]}… are not card codes "
            f"(rank+suit like Ts); it is not a card model"
        ) from None


def _reading_classifier(classifier: Any) -> Any:
    """A loaded classifier made ready to read crops: its batch norms folded into its convolutions, as
    ultralytics' own predictor does for every model it runs. ``classify_crops`` calls the network itself,
    so without this every crop went through the unfolded layers: the same probabilities (to 1e-12), at
    about 1.5 times the time on this CPU."""
    network = getattr(classifier, "model", None)
    if network is not None and hasattr(network, "fuse"):
        network.fuse(verbose=False)
    return classifier


def trained_imgsz(model: Any) -> int | None:
    """The image size a model was trained at (None for a model that was never trained)."""
    checkpoint = getattr(model, "ckpt", None) or {}
    imgsz = (checkpoint.get("train_args") or {}).get("imgsz")
    if isinstance(imgsz, (list, tuple)):
        imgsz = max(imgsz)
    return int(imgsz) if imgsz else None


def _numpy(values: torch.Tensor | np.ndarray) -> np.ndarray:
    """A tensor's values as a numpy array on the CPU (an array as it is)."""
    return values if isinstance(values, np.ndarray) else values.cpu().numpy()


def crops_for(classifier: Any, crops: list[np.ndarray]) -> list[np.ndarray]:
    """Square crops resized to the size ``classifier`` was trained at (as they are when they already have it)."""
    size = trained_imgsz(classifier) or CROP_SIZE
    if not crops or crops[0].shape[0] == size:
        return crops
    import cv2

    interpolation = cv2.INTER_AREA if crops[0].shape[0] > size else cv2.INTER_LINEAR
    return [cv2.resize(crop, (size, size), interpolation=interpolation) for crop in crops]


def quarter_turns(rotations: int) -> tuple[int, ...]:
    """The quarter turns a crop is read at for ``rotations`` 1, 2 (upright and upside down) or 4."""
    return (0,) if rotations <= 1 else (0, 2) if rotations == 2 else (0, 1, 2, 3)


def combine_turns(readings: Sequence[np.ndarray]) -> np.ndarray:
    """The readings of one batch of crops at several turns as one: their geometric mean, renormalised
    (one reading is returned as it is)."""
    if len(readings) == 1:
        return readings[0]
    return geometric_mean(readings, [1.0 / len(readings)] * len(readings))


def turned(crops: Sequence[np.ndarray], turn: int) -> list[np.ndarray]:
    """The crops turned by ``turn`` quarter turns."""
    return list(crops) if turn == 0 else [np.ascontiguousarray(np.rot90(c, turn)) for c in crops]


def classify_crops(
    classifier: Any,
    crops: list[np.ndarray],
    channels: str = "bgr",
    rotations: int = 1,
    other_turns_below: float = 1.0,
) -> np.ndarray:
    """Class probabilities (N, classes) of square BGR crops, through the classifier's network.

    ``rotations`` 2 or 4 also reads each crop turned by a half or by every quarter turn and
    combines the readings (geometric mean): indices appear at every angle, and on real-val crops
    four turns read 93.6 % right against 91.0 % for one. With ``other_turns_below`` under 1, each crop is
    read upright first and at its other turns only when its first class there is less sure than that: a sure
    crop keeps its upright reading, the others get the combined reading of every turn, as with 1.

    The network is called directly, not through ultralytics' predictor: the predictor converts
    arrays to RGB, while a classifier trained from ultralytics' cached dataset may have learned
    from BGR tensors. ``channels`` (recorded in model.json when the classifier is trained) says which.
    """
    import torch

    if rotations > 1 and other_turns_below < 1 and crops:
        upright = classify_crops(classifier, crops, channels)
        unsure = np.flatnonzero(upright.max(axis=1) < other_turns_below)
        if len(unsure):
            others = quarter_turns(rotations)[1:]
            asked = [crops[i] for i in unsure]
            every = classify_crops(classifier, [crop for k in others for crop in turned(asked, k)], channels)
            upright[unsure] = combine_turns([upright[unsure], *np.split(every, len(others))])
        return upright
    if rotations > 1:  # every turn of every crop in one batch: one pass of the network
        turns = quarter_turns(rotations)
        every = classify_crops(classifier, [crop for k in turns for crop in turned(crops, k)], channels)
        return combine_turns(np.split(every, len(turns)))
    batch = np.stack(crops)
    if channels == "rgb":
        batch = batch[..., ::-1]
    tensor = torch.from_numpy(np.ascontiguousarray(batch)).permute(0, 3, 1, 2).float().div_(255.0)
    network = classifier.model
    with torch.inference_mode():
        if network.training:
            network.eval()
        output = network(tensor.to(next(network.parameters()).dtype))
    output = output[0] if isinstance(output, (list, tuple)) else output
    if float(output.sum(dim=1).mean()) > 1.01 or float(output.min()) < 0:  # logits, not probabilities
        output = output.softmax(dim=1)
    return output.float().cpu().numpy().astype(np.float64)


def _classifier_with_card_ids(path: Path) -> tuple[Any, np.ndarray]:
    """A partner classifier loaded for reading, with the card id of each of its classes."""
    from ultralytics import YOLO

    classifier = _reading_classifier(YOLO(str(path), task="classify"))
    return classifier, np.array(_card_ids_of(dict(classifier.names), path, allow_reject=True), dtype=np.int64)


class CardIndexDetector:
    """The loaded models: the index detector, the main crop classifier and its partners."""

    def __init__(self, settings: ModelSettings) -> None:
        prepare_ultralytics()
        from ultralytics import YOLO

        use_all_cores()
        self.settings = settings
        self._detector = YOLO(str(settings.detector.weights), task="detect")
        names = dict(self._detector.names)
        if len(names) != 1:
            _card_ids_of(names, settings.detector.weights)  # a model of other things says so first
            raise ModelError(
                f"{settings.detector.weights} has {len(names)} classes; the reader needs a one-class detector of "
                f"index boxes with the crop classifier {CLASSIFIER_FILE} beside it (a 52-class detector is no longer read)"
            )
        if settings.classifiers.main is None:
            raise ModelError(
                f"{settings.detector.weights} has one class ({names[0]!r}); it needs the crop classifier "
                f"{CLASSIFIER_FILE} beside it (or named in model.json)"
            )
        self.classifier = _reading_classifier(YOLO(str(settings.classifiers.main), task="classify"))
        if self.classifier.task != "classify":
            raise ModelError(f"{settings.classifiers.main} is a {self.classifier.task} model, not a classifier")
        self.classifier_card_ids = np.array(
            _card_ids_of(dict(self.classifier.names), settings.classifiers.main, allow_reject=True), dtype=np.int64
        )
        self.classifier_imgsz = trained_imgsz(self.classifier) or CROP_SIZE
        # each partner classifier by its file, with the card id of each of its classes
        self.partners: dict[Path, tuple[Any, np.ndarray]] = {}
        for path in settings.classifiers.partners:
            self.partners[path] = _classifier_with_card_ids(path)
        # a taught deck's own classifier, with the card id of each of its classes (None: none installed)
        taught = settings.classifiers.taught
        self.taught: tuple[Any, np.ndarray] | None = _classifier_with_card_ids(taught) if taught else None

    def predict_boxes(self, pixels: np.ndarray, imgsz: int, conf: float) -> tuple[np.ndarray, np.ndarray]:
        """The detector's index boxes (N, 4) in ``pixels``' coordinates and their confidences (N,), from ``conf``,
        the image read at ``imgsz``."""
        # Shrink a much bigger image by area averaging first: ultralytics' letterbox resizes linearly, which
        # aliases fine print when it shrinks by more than about 1.5 (the close-up pass reads a photo at 416 px).
        scale = imgsz / max(pixels.shape[:2])
        shrunk = scale < self.settings.detector.area_shrink_below
        if shrunk:
            import cv2

            pixels = cv2.resize(
                pixels,
                (max(1, round(pixels.shape[1] * scale)), max(1, round(pixels.shape[0] * scale))),
                interpolation=cv2.INTER_AREA,
            )
        from ultralytics.engine.results import Results

        with MODEL_LOCK:
            use_all_cores()
            results = self._detector.predict(
                pixels,
                imgsz=imgsz,
                conf=conf,
                agnostic_nms=True,
                max_det=self.settings.detector.max_boxes,
                verbose=False,
            )
        assert isinstance(results, list)  # not streamed: one Results per image
        result = results[0]
        assert isinstance(result, Results) and result.boxes is not None  # a detect model's result has boxes
        xyxy = _numpy(result.boxes.xyxy).astype(np.float64)
        return (xyxy / scale if shrunk else xyxy), _numpy(result.boxes.conf).astype(np.float64)

    def classify(
        self, classifier: Any, crops: list[np.ndarray], rotations: int, other_turns_below: float = 1.0
    ) -> np.ndarray:
        """One loaded classifier's class probabilities (N, classes) of square BGR crops at ``rotations``
        quarter turns, the turns after the first only for crops read less surely than ``other_turns_below``
        upright (``classify_crops``). The crops are cut at the main classifier's size; a partner trained
        at another size reads them resized to its own."""
        crops = crops_for(classifier, crops)
        with MODEL_LOCK:
            use_all_cores()
            channels = self.settings.classifiers.channels  # the networks' own: how they were trained
            return classify_crops(classifier, crops, channels, rotations, other_turns_below)


@lru_cache(maxsize=4)
def _load(settings: ModelSettings) -> CardIndexDetector:
    return CardIndexDetector(settings)


def reload_models() -> None:
    """Forget the loaded models: the next ``load_detector`` reads the models folder again (after a
    retrain or a rollback installed other weights, or model.json changed)."""
    _load.cache_clear()


def load_detector(folder: Path | str | None = None) -> CardIndexDetector:
    """The detector of a models folder (default ``models/``), loaded once per process."""
    return _load(read_model_settings(Path(folder) if folder is not None else None))
