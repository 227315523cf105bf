"""The YOLO corner-index detector: BGR pixels in, ``Detections`` out.

This is the only module that touches ultralytics. Two model layouts are supported:

* one detector whose classes are the 52 card codes (``models/card_index_detector.pt``);
* a one-class detector of index boxes plus a classifier of index crops whose classes are the 52
  card codes (``models/card_index_classifier.pt``): each box is cropped with
  ``vision.crops.crop_index`` (the same square, padded crop the classifier was trained on), the
  crops are classified in one batch. The detector proposes boxes down to ``proposal_conf``, and a
  reading's confidence is ``detector_confidence ** detector_weight * classifier_probability``: the
  detector, trained on synthetic scenes, is under-confident on real photos' tilted or shaded indices
  (a clear 7d on real-val scored 0.005), while the classifier reads the crop itself, so a faint box
  read clearly still counts (models/MODEL_CARD.md has the measurements).

``models/model.json`` (optional; ``vision.model_settings`` reads it) names the files and the settings.

An ONNX export of the detector beside the ``.pt`` (``ginscore export``; same name, ``.onnx``) is
used instead when onnxruntime is installed and the export is not older than the ``.pt``: on this
2-core CPU it runs the same network faster (see docs/vision-pipeline.md). ``GINSCORE_ONNX=0``
turns that off.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.cards import CARD_CODES
from vision.crops import CROP_SIZE, balance_white_all, crop_indices
from vision.decision import FRAME, PHOTO, BoxEvidence, ReadingMode, check_mode, decide_boxes
from vision.detections import Detections, box_iou, canonical_code
from vision.frame_memory import FrameMemory, crop_thumbnails, remembered
from vision.model_settings import CLASSIFIER_FILE, DecisionSettings, ModelError, ModelSettings, read_model_settings
from vision.paths import ultralytics_settings_dir

if TYPE_CHECKING:
    import torch

MAX_DETECTIONS = 300
RUNNER_UPS = 4  # next-best cards kept per box (vision/cards.py uses them for duplicates)
TILE_OVERLAP = 0.2  # detect_tiled: neighbouring tiles share this fraction of a tile
# Two passes over one photo (close-up or far): their boxes overlapping by more than this are one box and
# the surer stays before the classifier reads them; boxes that overlap less are all read, and then of
# readings overlapping by more than READING_OVERLAP_IOU the surest stays (one index, one reading). With
# 0.5 before reading, a first-pass box on the lower half of a big J (0.90: its crop shows no index)
# beat the close-up pass's box on the whole index (0.79: J of spades), and the card was lost (real-val
# deal4, zoom x2; models/CHANGELOG.md, session 8).
PASS_MERGE_IOU = 0.7
READING_OVERLAP_IOU = 0.5


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


REJECT_CLASS = "none"  # the classifier class meaning "this crop shows no corner index" (its crops folder too)
NOT_A_CARD = -1  # the card id of that class


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


def _trained_imgsz(model: Any) -> int | None:
    """The image size a model was trained at (None for a model that was never trained)."""
    checkpoint = getattr(model, "ckpt", None) or {}
    imgsz = (checkpoint.get("train_args") or {}).get("imgsz")
    if isinstance(imgsz, (list, tuple)):
        imgsz = max(imgsz)
    return int(imgsz) if imgsz else None


def _numpy(values: torch.Tensor | np.ndarray) -> np.ndarray:
    """A tensor's values as a numpy array on the CPU (an array as it is)."""
    return values if isinstance(values, np.ndarray) else values.cpu().numpy()


def quarter_turns(rotations: int) -> tuple[int, ...]:
    """The quarter turns a crop is read at for ``rotations`` 1, 2 (upright and upside down) or 4."""
    return (0,) if rotations <= 1 else (0, 2) if rotations == 2 else (0, 1, 2, 3)


def combine_turns(readings: Sequence[np.ndarray]) -> np.ndarray:
    """The readings of one batch of crops at several turns as one: their geometric mean, renormalised
    (one reading is returned as it is)."""
    if len(readings) == 1:
        return readings[0]
    log_mean = np.mean([np.log(p + 1e-9) for p in readings], axis=0)
    combined = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
    return combined / combined.sum(axis=1, keepdims=True)


def turned(crops: Sequence[np.ndarray], turn: int) -> list[np.ndarray]:
    """The crops turned by ``turn`` quarter turns."""
    return list(crops) if turn == 0 else [np.ascontiguousarray(np.rot90(c, turn)) for c in crops]


def classify_crops(classifier: Any, crops: list[np.ndarray], channels: str = "bgr", rotations: int = 1) -> np.ndarray:
    """Class probabilities (N, classes) of square BGR crops, through the classifier's network.

    ``rotations`` 2 or 4 also reads each crop turned by a half or by every quarter turn and
    combines the readings (geometric mean): indices appear at every angle, and on real-val crops
    four turns read 93.6 % right against 91.0 % for one.

    The network is called directly, not through ultralytics' predictor: the predictor converts
    arrays to RGB, while a classifier trained from ultralytics' cached dataset may have learned
    from BGR tensors. ``channels`` (recorded in model.json when the classifier is trained) says which.
    """
    import torch

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


class CardIndexDetector:
    """A loaded card-index model (detector, and classifier in the two-stage layout)."""

    def __init__(self, settings: ModelSettings) -> None:
        prepare_ultralytics()
        from ultralytics import YOLO

        use_all_cores()
        self.settings = settings
        self._lock = threading.Lock()  # ultralytics predictors are not thread-safe
        self._frame_memory: FrameMemory | None = None  # the last webcam frame's crop readings
        self._detector = YOLO(str(settings.detector.weights), task="detect")
        names = dict(self._detector.names)
        self._classifier = None
        self._partners: list[tuple[Any, np.ndarray]] = []  # (classifier, card id of each class)
        self._classifier_card_ids: list[int] = []
        self._classifier_imgsz = CROP_SIZE
        if len(names) == 1:
            if settings.classifiers.main is None:
                raise ModelError(
                    f"{settings.detector.weights} has one class ({names[0]!r}); it needs the crop classifier "
                    f"{CLASSIFIER_FILE} beside it (or named in model.json)"
                )
            self._classifier = _reading_classifier(YOLO(str(settings.classifiers.main), task="classify"))
            if self._classifier.task != "classify":
                raise ModelError(f"{settings.classifiers.main} is a {self._classifier.task} model, not a classifier")
            self._classifier_card_ids = _card_ids_of(
                dict(self._classifier.names), settings.classifiers.main, allow_reject=True
            )
            self._classifier_imgsz = _trained_imgsz(self._classifier) or CROP_SIZE
            for path in settings.classifiers.partners:
                partner = _reading_classifier(YOLO(str(path), task="classify"))
                self._partners.append(
                    (partner, np.array(_card_ids_of(dict(partner.names), path, allow_reject=True), dtype=np.int64))
                )
            self._detector_card_ids: list[int] = []
        else:
            self._detector_card_ids = _card_ids_of(names, settings.detector.weights)

    def deciding_by(self, decision: DecisionSettings) -> CardIndexDetector:
        """The same loaded models (shared, not loaded again) deciding by other ``decision`` settings:
        what a measurement compares (``ginscore calibrate``, ``benchmarks/doubted_cards.py``)."""
        other = copy.copy(self)
        other.settings = replace(self.settings, decision=decision)
        return other

    def reading_with(
        self,
        partners: Sequence[Path],
        rotations: int,
        partners_below: float | None = None,
    ) -> CardIndexDetector:
        """The same loaded models reading crops with only the named ``partners`` (of those loaded; fewer than
        all are weighed equally with the main classifier) at ``rotations`` quarter turns, the partners asked
        about the crops read less surely than ``partners_below`` (default: model.json's): what
        ``benchmarks/classifier_choice.py`` compares before model.json's ``classifiers`` is changed."""
        loaded = dict(zip(self.settings.classifiers.partners, self._partners, strict=True))
        missing = [path.name for path in partners if path not in loaded]
        if missing:
            raise ModelError(f"partner classifiers {missing} are not among those loaded: {list(loaded)}")
        other = copy.copy(self)
        other._partners = [loaded[path] for path in partners]
        all_of_them = tuple(partners) == self.settings.classifiers.partners
        mix = self.settings.classifiers.mix if all_of_them else 1.0 / (1 + len(partners))
        below = self.settings.classifiers.partners_below if partners_below is None else partners_below
        classifiers = replace(
            self.settings.classifiers,
            partners=tuple(partners),
            rotations=rotations,
            mix=mix,
            partners_below=below,
        )
        other.settings = replace(self.settings, classifiers=classifiers)
        return other

    @property
    def layout(self) -> str:
        """``"52-class detector"`` or ``"index detector + classifier"``."""
        return "index detector + classifier" if self._classifier is not None else "52-class detector"

    def detect(
        self,
        pixels: np.ndarray,
        imgsz: int | None = None,
        conf: float | None = None,
        rotations: int | None = None,
        proposal_conf: float | None = None,
        mode: ReadingMode = PHOTO,
    ) -> Detections:
        """The corner indices in a BGR image, in its pixel coordinates, with confidence at least ``conf``,
        each with the decision stage's reasons to check it (``vision.decision.decide_boxes``).

        ``mode``: ``"photo"`` (every pass, the second way in, doubted cards) or ``"frame"`` (a webcam
        frame: the next frame reads the table again). ``rotations``: quarter turns the classifier reads
        each crop at (default: model.json's; 1 is fastest, for webcam frames). ``proposal_conf``: the
        detector's own threshold for boxes sent to the classifier (default: model.json's, or ``conf`` if
        lower)."""
        photo = check_mode(mode) == PHOTO
        imgsz = int(imgsz or self.settings.detector.imgsz)
        decision = self.settings.decision
        conf = decision.conf if conf is None else float(conf)
        if proposal_conf is None:
            proposal_conf = min(conf, self.settings.detector.proposal_conf)
        if self._classifier is None:
            proposal_conf = conf
        # the second way in reads photos only, like the far pass: on webcam frames its extra crops cost the
        # frame rate, and the next frame reads the table again
        sure_proposal_conf = decision.sure_proposal_conf if self._classifier is not None and photo else 0.0
        lowest = min(proposal_conf, sure_proposal_conf) if sure_proposal_conf > 0 else proposal_conf
        with self._lock:
            use_all_cores()
            xyxy, scores, classes = self._propose_boxes(pixels, imgsz, lowest)
            if self._classifier is not None:
                xyxy, scores = self._any_distance(
                    pixels, imgsz, xyxy, scores, lowest, decide_conf=proposal_conf, photo=photo
                )
            if self._classifier is None:
                card_ids = np.array([self._detector_card_ids[c] for c in classes], dtype=np.int64)
                return Detections(xyxy, card_ids, scores)
            if len(xyxy) == 0:
                return Detections.empty()
            if photo:
                card_ids, probabilities, rejected, dissent = self._read_crops(*self._crops(pixels, xyxy), rotations)
            else:
                xyxy, (card_ids, probabilities, rejected, dissent) = self._read_frame_crops(pixels, xyxy, rotations)
        decided = decide_boxes(
            BoxEvidence(scores, card_ids, probabilities, rejected, dissent),
            decision,
            mode,
            proposal_conf=proposal_conf,
            conf=conf,
        )
        keep = decided.keep
        return one_reading_per_index(
            Detections(
                xyxy[keep],
                card_ids[keep, 0],
                decided.confidence[keep, 0],
                card_ids[keep, 1:],
                decided.confidence[keep, 1:],
                decided.review[keep],
            )
        )

    def photo_decode_side(self, imgsz: int, tiles: int = 1, mode: ReadingMode = PHOTO) -> int:
        """The long side a photo read at ``imgsz`` (as ``tiles`` x ``tiles`` tiles) is decoded to: big
        enough for the far pass too when that pass may run (photo mode)."""
        far = self.settings.passes.far_imgsz if check_mode(mode) == PHOTO else 0
        return max(imgsz * max(1, tiles), far)

    def second_pass_size(self, pixels: np.ndarray, imgsz: int, xyxy: np.ndarray, photo: bool = True) -> int | None:
        """The input size of a second detector pass a photo read at ``imgsz`` needs, if any.

        * Close-up (``close_up_imgsz``, smaller): the indices are large (median side at least
          ``close_up_index_px`` at ``imgsz``) or few boxes were found (a card filling the frame gives
          the detector nothing of the size it knows).
        * Far (``far_imgsz``, larger; ``photo`` mode only, never webcam frames): the indices are small
          (median side below ``far_index_px`` at ``imgsz``).
        """
        settings = self.settings
        sides = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]) * imgsz / max(pixels.shape[:2])
        median = float(np.median(sides)) if len(sides) else 0.0
        if (
            settings.passes.close_up_imgsz
            and settings.passes.close_up_imgsz < imgsz
            and (len(xyxy) < settings.passes.close_up_min_boxes or median >= settings.passes.close_up_index_px)
        ):
            return settings.passes.close_up_imgsz
        if (
            photo
            and settings.passes.far_imgsz > imgsz
            and len(xyxy) >= settings.passes.close_up_min_boxes
            and median < settings.passes.far_index_px
        ):
            return settings.passes.far_imgsz
        return None

    def _any_distance(
        self,
        pixels: np.ndarray,
        imgsz: int,
        xyxy: np.ndarray,
        scores: np.ndarray,
        proposal_conf: float,
        decide_conf: float = 0.0,
        photo: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The first pass's boxes, with those of the second pass ``second_pass_size`` asks for (overlaps merged).
        The boxes from ``decide_conf`` decide whether a second pass is needed; it proposes from ``proposal_conf``."""
        size = self.second_pass_size(pixels, imgsz, xyxy[scores >= decide_conf], photo)
        if size is None:
            return xyxy, scores
        more_xyxy, more_scores, _ = self._propose_boxes(pixels, size, proposal_conf)
        return merge_proposals(np.vstack([xyxy, more_xyxy]), np.concatenate([scores, more_scores]), PASS_MERGE_IOU)

    def propose_boxes(
        self, pixels: np.ndarray, imgsz: int, proposal_conf: float, close_up: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """The detector's own index boxes (N, 4) and confidences (N,), before any classifier: what
        ``detect`` starts from, with the close-up pass where it runs (``close_up=False``: never),
        decided as ``detect`` decides it, on the boxes from model.json's ``proposal_conf``
        (``benchmarks/confidence_rule.py`` recombines them with ``read_boxes``)."""
        with self._lock:
            use_all_cores()
            xyxy, scores, _ = self._propose_boxes(pixels, imgsz, proposal_conf)
            if close_up and self._classifier is not None:
                xyxy, scores = self._any_distance(
                    pixels, imgsz, xyxy, scores, proposal_conf, decide_conf=self.settings.detector.proposal_conf
                )
        return xyxy, scores

    def _propose_boxes(
        self, pixels: np.ndarray, imgsz: int, proposal_conf: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # Shrink a much bigger image by area averaging first: ultralytics' letterbox resizes linearly,
        # which aliases fine print when it shrinks by more than about 1.5 (the close-up pass reads a
        # photo at 416 px).
        scale = imgsz / max(pixels.shape[:2])
        if scale < 0.67:
            import cv2

            pixels = cv2.resize(
                pixels,
                (max(1, round(pixels.shape[1] * scale)), max(1, round(pixels.shape[0] * scale))),
                interpolation=cv2.INTER_AREA,
            )
        from ultralytics.engine.results import Results

        results = self._detector.predict(
            pixels, imgsz=imgsz, conf=proposal_conf, agnostic_nms=True, max_det=MAX_DETECTIONS, verbose=False
        )
        assert isinstance(results, list)  # not streamed: one Results per image
        result = results[0]
        assert isinstance(result, Results) and result.boxes is not None  # a detect model's result has boxes
        boxes = result.boxes
        xyxy = _numpy(boxes.xyxy).astype(np.float64)
        if scale < 0.67:
            xyxy = xyxy / scale
        return xyxy, _numpy(boxes.conf).astype(np.float64), _numpy(boxes.cls).astype(np.int64)

    def read_boxes(
        self, pixels: np.ndarray, xyxy: np.ndarray, rotations: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The classifier's reading of given index boxes (two-stage models only): for each box, the
        ``1 + RUNNER_UPS`` likeliest card ids (``CARD_CODES`` indices), best first, and their
        probabilities. ``ginscore eval`` uses it on the labelled boxes to measure the classifier alone."""
        return self.read_crops(*self._crops(pixels, xyxy), rotations=rotations)

    def read_crops(
        self, crops: list[np.ndarray], isolated: list[np.ndarray] | None = None, rotations: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``read_boxes`` for crops already cut (``vision.crops.crop_index`` at ``classifier_imgsz``):
        ``benchmarks/crop_reading.py`` compares ways of cutting them. ``isolated``: the same crops cut
        with ``isolate=settings.classifiers.isolate``, for the main classifier when that is set."""
        card_ids, probabilities, rejected = self.read_crops_before_gate(crops, isolated, rotations)
        # the decision stage's "not a card" rule alone: every box counted as surely proposed, no extra ways in
        evidence = BoxEvidence(np.ones(len(card_ids)), card_ids, probabilities, rejected)
        gated = decide_boxes(
            evidence, replace(self.settings.decision, detector_weight=0.0), FRAME, proposal_conf=0.0, conf=0.0
        )
        return card_ids, gated.confidence

    def read_boxes_before_gate(
        self, pixels: np.ndarray, xyxy: np.ndarray, rotations: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``read_boxes`` before the "not a card" gate: ranked card ids, card probabilities, and each box's
        "not a card" probability, for ``vision.decision.decide_boxes`` to decide with any settings
        (``benchmarks/confidence_rule.py`` chooses the doubted-card gate this way)."""
        return self.read_crops_before_gate(*self._crops(pixels, xyxy), rotations=rotations)

    def read_crops_before_gate(
        self, crops: list[np.ndarray], isolated: list[np.ndarray] | None = None, rotations: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``read_crops`` before the "not a card" gate (``read_boxes_before_gate``)."""
        if self._classifier is None:
            raise ModelError(f"{self.settings.detector.weights.name} is a 52-class detector; it has no crop classifier")
        if self.settings.classifiers.isolate > 0 and isolated is None:
            raise ValueError(
                "this classifier reads isolated crops: pass them as isolated= "
                f"(crop_index(..., isolate={self.settings.classifiers.isolate}))"
            )
        with self._lock:
            use_all_cores()
            card_ids, probabilities, rejected, _ = self._read_crops(crops, isolated, rotations)
            return card_ids, probabilities, rejected

    @property
    def classifier_imgsz(self) -> int:
        """The side of the square crops the classifier reads (two-stage models)."""
        return self._classifier_imgsz

    def _crops(self, pixels: np.ndarray, xyxy: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
        """The crops every classifier reads, and the isolated ones the main classifier reads (or None)."""
        xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
        crops = crop_indices(pixels, xyxy, size=self._classifier_imgsz)
        isolate = self.settings.classifiers.isolate
        if isolate <= 0:
            return crops, None
        return crops, crop_indices(pixels, xyxy, size=self._classifier_imgsz, isolate=isolate)

    def _read_crops(
        self, crops: list[np.ndarray], isolated: list[np.ndarray] | None, rotations: int | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each crop's ranked card ids and card probabilities (before the "not a card" gate), the
        probability the surest-rejecting classifier gives "not a card" (the decision stage gates on it),
        and the card another classifier reads first where it differs from the combined reading (else -1)."""
        if len(crops) == 0:
            empty = np.zeros((0, 1 + RUNNER_UPS))
            return empty.astype(np.int64), empty, np.zeros(0), np.zeros(0, dtype=np.int64)
        rotations = rotations or self.settings.classifiers.rotations
        probabilities = self._classify(self._classifier, isolated if isolated is not None else crops, rotations)
        to_card = np.array(self._classifier_card_ids, dtype=np.int64)
        rejected = not_a_card_probability(probabilities, to_card)
        cards = probabilities[:, to_card != NOT_A_CARD]
        to_card = to_card[to_card != NOT_A_CARD]
        firsts = [to_card[np.argmax(cards, axis=1)]]  # each classifier's own first card
        asked = self._asked_of_partners(probabilities)
        if self._partners:  # a crop the partners are not asked about is read by the main classifier alone
            cards = cards / np.maximum(cards.sum(axis=1, keepdims=True), 1e-12)
        if len(asked):
            readings = [
                (self._classify(partner, crops, rotations, asked), partner_ids)
                for partner, partner_ids in self._partners
            ]
            for partner, partner_ids in readings:
                # a partner that can say "not a card" too: any classifier's "no" counts
                rejected[asked] = np.maximum(rejected[asked], not_a_card_probability(partner, partner_ids))
                own = partner[:, partner_ids != NOT_A_CARD]
                first = firsts[0].copy()
                first[asked] = partner_ids[partner_ids != NOT_A_CARD][np.argmax(own, axis=1)]
                firsts.append(first)
            cards[asked] = combine_card_readings(cards[asked], to_card, readings, self.settings.classifiers.mix)
        if self.settings.decision.reject_gate > 0:
            cards = cards / np.maximum(cards.sum(axis=1, keepdims=True), 1e-12)
        elif self._partners:
            cards = cards * (1.0 - rejected)[:, None]
        # (no gate, one classifier: a card's probability is already what the crop is not rejected by)
        ranked = np.argsort(-cards, axis=1)[:, : 1 + RUNNER_UPS]
        card_ids = to_card[ranked]
        dissent = np.full(len(crops), -1, dtype=np.int64)
        for first in firsts:
            dissent = np.where((dissent < 0) & (first != card_ids[:, 0]), first, dissent)
        return card_ids, np.take_along_axis(cards, ranked, axis=1), rejected, dissent

    def _read_frame_crops(
        self, pixels: np.ndarray, xyxy: np.ndarray, rotations: int | None
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """``_read_crops`` for a webcam frame, with the frame's boxes: a box at the place of one of the last
        frame's whose crop, cut there, looks as it did keeps that box and its reading (``vision.frame_memory``);
        the others are white-balanced and read in one batch. Every crop is cut, unbalanced, for its thumbnail;
        on a still table few are read."""
        reader = (self.settings.classifiers, rotations)
        xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
        memory = self._frame_memory
        places = memory.places(reader, xyxy) if memory is not None else np.full(len(xyxy), -1, dtype=np.int64)
        at_place = places >= 0
        where = xyxy.copy()
        if memory is not None and at_place.any():
            where[at_place] = memory.xyxy[places[at_place]]
        cut = crop_indices(pixels, where, size=self._classifier_imgsz, balance=False)
        thumbnails = crop_thumbnails(cut)
        kept = memory.kept_at(places, thumbnails) if memory is not None else places
        new = np.flatnonzero(kept < 0)
        moved = new[at_place[new]]  # read afresh at this frame's box, not at the remembered one
        if len(moved):
            own = crop_indices(pixels, xyxy[moved], size=self._classifier_imgsz, balance=False)
            for i, crop in zip(moved, own, strict=True):
                cut[i] = crop
            thumbnails[moved] = crop_thumbnails([cut[i] for i in moved])
        boxes = np.where((kept >= 0)[:, None], where, xyxy)  # a kept reading keeps the remembered box
        crops = list(balance_white_all(np.stack([cut[i] for i in new]))) if len(new) else []
        isolate = self.settings.classifiers.isolate
        isolated = (
            crop_indices(pixels, xyxy[new], size=self._classifier_imgsz, isolate=isolate) if isolate > 0 else None
        )
        fresh = self._read_crops(crops, isolated, rotations)
        self._frame_memory = remembered(memory, kept, fresh, reader, boxes, thumbnails)
        return boxes, self._frame_memory.readings

    @property
    def frame_crops_kept(self) -> tuple[int, int]:
        """Of the last webcam frame's crops: how many kept the reading of the frame before, and how many there were."""
        memory = self._frame_memory
        return (int((memory.reuses > 0).sum()), len(memory.reuses)) if memory is not None else (0, 0)

    def _asked_of_partners(self, main: np.ndarray) -> np.ndarray:
        """The crops (indices) the partner classifiers read: those the main classifier's probabilities
        ``main`` read less surely than ``classifiers.partners_below`` (every crop at 1; none without partners)."""
        if not self._partners:
            return np.zeros(0, dtype=np.int64)
        below = self.settings.classifiers.partners_below
        return np.arange(len(main)) if below >= 1 else np.flatnonzero(main.max(axis=1) < below)

    def _classify(
        self, classifier: Any, crops: list[np.ndarray], rotations: int, only: np.ndarray | None = None
    ) -> np.ndarray:
        """One classifier's probabilities of the crops (of ``crops[only]`` when given) at ``rotations``
        (``classify_crops``)."""
        chosen = crops if only is None else [crops[i] for i in only]
        return classify_crops(classifier, chosen, self.settings.classifiers.channels, rotations)

    @property
    def rejects(self) -> bool:
        """Whether the classifier can answer "not a card" (a reject class beside the 52 cards)."""
        return NOT_A_CARD in self._classifier_card_ids

    def detect_tiled(
        self,
        pixels: np.ndarray,
        grid: int,
        imgsz: int | None = None,
        conf: float | None = None,
        rotations: int | None = None,
        proposal_conf: float | None = None,
        mode: ReadingMode = PHOTO,
    ) -> Detections:
        """Detect on a ``grid`` x ``grid`` of overlapping tiles, each read at ``imgsz``: small indices
        in a big photo keep more pixels. Boxes cut by an inner tile edge are dropped (the overlap
        holds them whole in the neighbouring tile) and duplicates across tiles are suppressed."""
        if grid <= 1:
            return self.detect(
                pixels, imgsz=imgsz, conf=conf, rotations=rotations, proposal_conf=proposal_conf, mode=mode
            )
        height, width = pixels.shape[:2]
        parts = []
        for top, bottom in _tile_spans(height, grid):
            for left, right in _tile_spans(width, grid):
                found = self.detect(
                    pixels[top:bottom, left:right],
                    imgsz=imgsz,
                    conf=conf,
                    rotations=rotations,
                    proposal_conf=proposal_conf,
                    mode=mode,
                )
                x0, y0, x1, y1 = found.xyxy.T if len(found) else (np.zeros(0),) * 4
                margin = 2.0
                whole = (
                    ((left == 0) | (x0 > margin))
                    & ((top == 0) | (y0 > margin))
                    & ((right == width) | (x1 < right - left - margin))
                    & ((bottom == height) | (y1 < bottom - top - margin))
                )
                parts.append(found[whole].shifted(left, top))
        return suppress_duplicates(Detections.concatenate(parts))


def not_a_card_probability(probabilities: np.ndarray, card_ids: np.ndarray) -> np.ndarray:
    """Per crop, the probability a classifier gives its "not a card" class (0 for a 52-card classifier).

    >>> not_a_card_probability(np.array([[0.7, 0.3], [0.1, 0.9]]), np.array([5, NOT_A_CARD])).tolist()
    [0.3, 0.9]
    >>> not_a_card_probability(np.array([[0.7, 0.3]]), np.array([5, 6])).tolist()
    [0.0]
    """
    return probabilities[:, card_ids == NOT_A_CARD].sum(axis=1)


def combine_card_readings(
    main: np.ndarray, main_ids: np.ndarray, partners: list[tuple[np.ndarray, np.ndarray]], main_weight: float
) -> np.ndarray:
    """Several classifiers' card probabilities as one (in ``main_ids`` order): their weighted geometric
    mean, each first normalised over the cards (a partner's "not a card" class is left out), the main
    one weighted ``main_weight`` and the ``partners`` (probabilities, card id of each column) sharing
    the rest equally; renormalised to sum to one per crop.

    >>> combine_card_readings(np.array([[0.6, 0.2]]), np.array([0, 1]), [(np.array([[0.2, 0.8]]), np.array([1, 0]))], 0.5).round(3).tolist()
    [[0.776, 0.224]]
    >>> partners = [(np.array([[0.2, 0.8]]), np.array([1, 0])), (np.array([[0.5, 0.3, 0.2]]), np.array([0, 1, NOT_A_CARD]))]
    >>> combine_card_readings(np.array([[0.6, 0.2]]), np.array([0, 1]), partners, 0.5).round(3).tolist()
    [[0.736, 0.264]]
    """

    def normalised(probabilities: np.ndarray) -> np.ndarray:
        return probabilities / np.maximum(probabilities.sum(axis=1, keepdims=True), 1e-12)

    log_mean = main_weight * np.log(normalised(main) + 1e-9)
    for partner, partner_ids in partners:
        column_of = {int(card): k for k, card in enumerate(partner_ids)}
        partner = normalised(partner[:, [column_of[int(card)] for card in main_ids]])
        log_mean = log_mean + (1.0 - main_weight) / len(partners) * np.log(partner + 1e-9)
    combined = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
    return combined / combined.sum(axis=1, keepdims=True)


def _tile_spans(length: int, grid: int, overlap: float = TILE_OVERLAP) -> list[tuple[int, int]]:
    """``grid`` spans covering 0..length, neighbours overlapping by ``overlap`` of a span."""
    span = length / (grid - (grid - 1) * overlap)
    step = span * (1 - overlap)
    return [(int(round(i * step)), min(length, int(round(i * step + span)))) for i in range(grid)]


def merge_proposals(xyxy: np.ndarray, scores: np.ndarray, iou: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Boxes of two passes as one set: of boxes overlapping by more than ``iou``, the surest stays."""
    keep = surest_of_overlapping(xyxy, scores, iou)
    return xyxy[keep], scores[keep]


def surest_of_overlapping(xyxy: np.ndarray, scores: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """Greedy class-agnostic non-maximum suppression: the indices (ascending) of the boxes kept when,
    of boxes overlapping by more than ``iou``, only the surest stays."""
    order = np.argsort(-scores, kind="stable")
    overlaps = box_iou(xyxy, xyxy)
    keep: list[int] = []
    for i in order:
        if all(overlaps[i, j] <= iou for j in keep):
            keep.append(int(i))
    return np.array(sorted(keep), dtype=np.int64)


def one_reading_per_index(readings: Detections) -> Detections:
    """The classifier's readings with, of readings overlapping by more than ``READING_OVERLAP_IOU``, only
    the surest: one index, one reading, whichever box framed it best (``CardIndexDetector.detect``, and
    ``benchmarks/confidence_rule.py`` as it recombines proposals and readings)."""
    return suppress_duplicates(readings, READING_OVERLAP_IOU)


def suppress_duplicates(detections: Detections, iou: float = 0.5) -> Detections:
    """Class-agnostic non-maximum suppression: of boxes overlapping by more than ``iou``, keep the surest."""
    return detections[surest_of_overlapping(detections.xyxy, detections.confidence, iou)]


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
