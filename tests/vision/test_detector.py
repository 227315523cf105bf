"""The detector edge: model folders, the model layout, tiling, and nothing of ultralytics leaking out.

The models here are built untrained from ultralytics' bundled architecture files (nothing is
downloaded): their boxes are noise, but they run the real code paths of the layout.
"""

import itertools
import json
import os
import time

import numpy as np
import pytest
from shipped_models import copy_shipped_models

from engine.cards import CARD_CODES
from vision.crop_reading import crop_readings, crops_of, gated_readings, read_boxes, with_classifiers
from vision.decision import one_reading_per_index
from vision.detections import Detections, suppress_duplicates
from vision.detector import CardIndexDetector, classify_crops
from vision.model_settings import CLASSIFIER_FILE, DETECTOR_FILE, ModelError, ModelSettings, read_model_settings
from vision.paths import CANDIDATES_DIR, DEFAULT_MODELS_DIR
from vision.proposals import second_pass
from vision.reading import PhotoReading
from vision.recognise import boxes_of_tiles, detect, recognise, tile_spans
from vision.steps import ReadingContext

TILE_OVERLAP = ModelSettings().detector.tile_overlap


def build_untrained(folder, detector_names, classifier_names=None):
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import ClassificationModel, DetectionModel

    # the same weights every run: an unseeded untrained classifier now and then gives every crop the
    # same output, and a test comparing two kinds of crop failed by chance (1 run in 3, session 8)
    torch.manual_seed(0)
    folder.mkdir(parents=True, exist_ok=True)
    detector = YOLO("yolov8n.yaml")
    detector.model = DetectionModel("yolov8n.yaml", nc=len(detector_names), verbose=False)
    detector.model.names = dict(enumerate(detector_names))
    detector.model.task = "detect"
    detector.save(str(folder / DETECTOR_FILE))
    if classifier_names:
        classifier = YOLO("yolov8n-cls.yaml")
        classifier.model = ClassificationModel("yolov8n-cls.yaml", nc=len(classifier_names), verbose=False)
        classifier.model.names = dict(enumerate(classifier_names))
        classifier.model.task = "classify"
        classifier.model.args = {"task": "classify", "imgsz": 64}
        classifier.save(str(folder / CLASSIFIER_FILE))
    return folder


@pytest.fixture(scope="module")
def model_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {
        "52": build_untrained(root / "52", list(CARD_CODES)),
        "two-stage": build_untrained(
            root / "two", ["index"], [c.lower() if c[0] in "TJQKA" else c for c in CARD_CODES[::-1]]
        ),
        "not cards": build_untrained(root / "dogs", ["dog", "cat"]),
        "rejecting": build_untrained(root / "rejecting", ["index"], list(CARD_CODES) + ["none"]),
    }


def detector_with(models, folder, card: dict) -> CardIndexDetector:
    """A detector of the test models in ``models`` (copied into ``folder``) with this model.json."""
    import shutil

    for model_file in models.glob("*.pt"):
        shutil.copy(model_file, folder / model_file.name)
    (folder / "model.json").write_text(json.dumps(card))
    return CardIndexDetector(read_model_settings(folder))


def photo(seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)


def test_the_two_stage_layout_reads_a_photo_into_cards_with_valid_codes_and_boxes(model_folders):
    detector = CardIndexDetector(read_model_settings(model_folders["two-stage"]))
    recognition = recognise(photo(), detector=detector, conf=1e-6, imgsz=320)
    detections = recognition.detections
    assert type(detections) is Detections and len(detections) > 0, "an untrained model at conf 1e-6 finds noise"
    assert set(detections.codes) <= set(CARD_CODES)
    assert (detections.confidence > 0).all() and (detections.confidence <= 1).all()
    assert (detections.xyxy >= -1).all() and (detections.xyxy[:, [0, 2]] <= 801).all()
    reading = recognition.reading
    assert isinstance(reading, PhotoReading) and reading.image_size == (800, 600)
    assert len({c.card for c in reading.cards}) == len(reading.cards), "one reading per card code"


def test_classifier_names_are_mapped_by_code_not_position(model_folders):
    detector = CardIndexDetector(read_model_settings(model_folders["two-stage"]))
    assert detector.classifier_card_ids.tolist() == [CARD_CODES.index(c) for c in CARD_CODES[::-1]]


def test_a_52_class_detector_is_refused_with_what_to_use_instead(model_folders):
    with pytest.raises(ModelError, match="one-class detector"):
        CardIndexDetector(read_model_settings(model_folders["52"]))


def test_a_model_whose_classes_are_not_cards_is_refused(model_folders):
    with pytest.raises(ModelError, match="not card codes"):
        CardIndexDetector(read_model_settings(model_folders["not cards"]))


def test_one_class_detector_without_classifier_is_refused(model_folders, tmp_path):
    folder = tmp_path / "lonely"
    folder.mkdir()
    (folder / DETECTOR_FILE).write_bytes((model_folders["two-stage"] / DETECTOR_FILE).read_bytes())
    with pytest.raises(ModelError, match="needs the crop classifier"):
        CardIndexDetector(read_model_settings(folder))


def test_model_folder_settings(tmp_path):
    with pytest.raises(ModelError, match="no detector model"):
        read_model_settings(tmp_path)
    (tmp_path / "det.pt").write_bytes(b"x")
    (tmp_path / "model.json").write_text(
        json.dumps({"detector": "det.pt", "classifier": None, "imgsz": 800, "conf": 0.4, "webcam_imgsz": 480})
    )
    settings = read_model_settings(tmp_path)
    assert (
        settings.detector.weights.name,
        settings.classifiers.main,
        settings.detector.imgsz,
        settings.decision.conf,
        settings.detector.webcam_imgsz,
    ) == ("det.pt", None, 800, 0.4, 480)
    (tmp_path / "model.json").write_text("{broken")
    with pytest.raises(ModelError, match="not valid JSON"):
        read_model_settings(tmp_path)


def test_model_json_names_one_partner_classifier_or_a_list_and_a_missing_one_is_a_clear_error(tmp_path):
    for name in ("det.pt", "a.pt", "b.pt"):
        (tmp_path / name).write_bytes(b"x")
    card = {"detector": "det.pt", "classifier": None}
    (tmp_path / "model.json").write_text(json.dumps({**card, "partner_classifier": "a.pt"}))
    assert [p.name for p in read_model_settings(tmp_path).classifiers.partners] == ["a.pt"]
    (tmp_path / "model.json").write_text(json.dumps({**card, "partner_classifier": ["a.pt", "b.pt"]}))
    assert [p.name for p in read_model_settings(tmp_path).classifiers.partners] == ["a.pt", "b.pt"]
    (tmp_path / "model.json").write_text(json.dumps({**card, "partner_classifier": ["a.pt", "gone.pt"]}))
    with pytest.raises(ModelError, match="gone.pt, which does not exist"):
        read_model_settings(tmp_path)


def test_a_reader_loads_every_partner_classifier_it_names_and_a_retrain_keeps_them(partnered_models):
    from vision.training.retrain import model_files

    names = json.loads((partnered_models / "model.json").read_text())["classifiers"]["partners"]
    assert len(names) == 2
    settings = read_model_settings(partnered_models)
    assert [p.name for p in settings.classifiers.partners] == names
    assert len(CardIndexDetector(settings).partners) == len(names)
    assert set(names) <= set(model_files(partnered_models)), "a retrain's rollback must keep every partner"
    # the shipped reader (session 30) reads with its main classifier alone, and loads no partner
    shipped = read_model_settings(DEFAULT_MODELS_DIR)
    assert shipped.classifiers.partners == () and not CardIndexDetector(shipped).partners


def test_an_up_to_date_onnx_export_is_preferred_and_a_stale_one_ignored(tmp_path, monkeypatch):
    import vision.model_settings

    monkeypatch.setattr(vision.model_settings, "onnx_runtime_available", lambda: True)
    (tmp_path / DETECTOR_FILE).write_bytes(b"pt")
    (tmp_path / "card_index_detector.onnx").write_bytes(b"onnx")
    now = time.time()
    os.utime(tmp_path / DETECTOR_FILE, (now - 100, now - 100))
    assert read_model_settings(tmp_path).detector.weights.suffix == ".onnx"
    os.utime(tmp_path / DETECTOR_FILE, (now + 100, now + 100))  # the .pt was retrained after the export
    assert read_model_settings(tmp_path).detector.weights.suffix == ".pt"
    monkeypatch.setenv("GINSCORE_ONNX", "0")
    os.utime(tmp_path / DETECTOR_FILE, (now - 100, now - 100))
    assert read_model_settings(tmp_path).detector.weights.suffix == ".pt"


def test_tiles_cover_the_image_and_overlap():
    spans = tile_spans(1000, 3, TILE_OVERLAP)
    assert spans[0][0] == 0 and spans[-1][1] == 1000
    assert all(a[1] > b[0] for a, b in itertools.pairwise(spans)), "neighbours overlap"


def test_duplicate_boxes_across_tiles_keep_the_surest():
    found = Detections.from_cards(
        [
            ("Ts", (0, 0, 20, 40), 0.6),
            ("Ts", (1, 1, 21, 41), 0.9),
            ("9s", (2, 0, 22, 40), 0.5),
            ("Ah", (100, 100, 120, 140), 0.3),
        ]
    )
    kept = suppress_duplicates(found, 0.5)
    assert sorted(zip(kept.codes, kept.confidence.round(2), strict=True)) == [("Ah", 0.3), ("Ts", 0.9)]


def test_two_passes_boxes_framing_one_index_differently_are_both_read_and_the_surer_reading_stays():
    # real-val deal4 at zoom x2: the first pass frames the lower half of a big J of spades (0.90), the
    # close-up pass the whole index (0.79); a second box of the close-up pass nearly repeats the first
    partial, whole, repeat = (933, 482, 993, 556), (925, 445, 995, 561), (932, 483, 994, 557)
    first = Detections.from_cards([("As", partial, 0.90)])
    close_up = Detections.from_cards([("As", whole, 0.79), ("As", repeat, 0.60)])
    context = probe_context(np.zeros((1200, 1600, 3), dtype=np.uint8), SecondPassProbe(close_up))
    context.settings = context.settings.replace(passes={"close_up_imgsz": 416, "close_up_min_boxes": 4})
    boxes = second_pass(first, context).xyxy
    assert sorted(map(tuple, boxes.tolist())) == sorted([partial, whole]), "near repeats merge, other framings stay"
    # the classifier reads the half index as 2s, unsurely, and the whole index as Js
    readings = Detections.from_cards([("2s", partial, 0.30), ("Js", whole, 0.84)])
    kept = one_reading_per_index(readings, context)
    assert list(kept.codes) == ["Js"]
    elsewhere = Detections.from_cards([("2s", (0, 0, 40, 60), 0.30), ("Js", whole, 0.84)])
    assert sorted(one_reading_per_index(elsewhere, context).codes) == ["2s", "Js"], "readings of other indices stay"


class SecondPassProbe:
    """Stands in for the models: every pass of the detector proposes the given boxes."""

    def __init__(self, boxes: Detections):
        self.boxes = boxes

    def predict_boxes(self, pixels, imgsz, conf):
        return self.boxes.xyxy, self.boxes.confidence


def probe_context(pixels, detector=None) -> ReadingContext:
    """A reading's context with the schema's settings and a stand-in for the models."""
    settings = ModelSettings()
    return ReadingContext(detector, settings, pixels, "photo", 1024, 0.25, 0.1, 1, 0.1)  # type: ignore[arg-type]


class TileProbe:
    """Stands in for the box steps to check the tiling geometry: in every tile it "finds" one index in
    the middle and one cut by the tile's right edge."""

    def __init__(self):
        self.tiles_seen = []

    def __call__(self, detections, context):
        height, width = context.pixels.shape[:2]
        self.tiles_seen.append((width, height))
        return Detections.from_cards(
            [
                ("Ts", (width / 2 - 8, height / 2 - 20, width / 2 + 8, height / 2 + 20), 0.9),
                ("9s", (width - 10, 10, width, 50), 0.8),
            ]
        )


def test_tiled_detection_maps_tile_boxes_into_the_photo_and_drops_boxes_cut_by_inner_edges():
    probe = TileProbe()
    found = boxes_of_tiles([probe], probe_context(np.zeros((600, 1600, 3), dtype=np.uint8)), 2)
    assert len(probe.tiles_seen) == 4 and all(w > 800 and h > 300 for w, h in probe.tiles_seen)
    centres = sorted(map(tuple, found[found.class_id == CARD_CODES.index("Ts")].centers.tolist()))
    spans_x, spans_y = tile_spans(1600, 2, TILE_OVERLAP), tile_spans(600, 2, TILE_OVERLAP)
    expected = sorted(((a + b) / 2, (c + d) / 2) for a, b in spans_x for c, d in spans_y)
    assert np.allclose(centres, expected, atol=1)
    cut = found[found.class_id == CARD_CODES.index("9s")]
    assert len(cut) == 2 and (cut.xyxy[:, 2] == 1600).all(), "only the right column's boxes, at the photo's edge, stay"


def test_crops_are_classified_at_the_classifiers_training_size(model_folders, tmp_path):
    import torch

    assert CardIndexDetector(read_model_settings(model_folders["two-stage"])).classifier_imgsz == 64, (
        "never trained: the crop size of vision.crops"
    )
    folder = tmp_path / "trained"
    folder.mkdir()
    (folder / DETECTOR_FILE).write_bytes((model_folders["two-stage"] / DETECTOR_FILE).read_bytes())
    checkpoint = torch.load(model_folders["two-stage"] / CLASSIFIER_FILE, weights_only=False)
    checkpoint["train_args"] = {"task": "classify", "imgsz": 96}
    torch.save(checkpoint, folder / CLASSIFIER_FILE)
    detector = CardIndexDetector(read_model_settings(folder))
    assert detector.classifier_imgsz == 96
    # a partner trained at 64 px reads the main classifier's 96 px crops resized to its own size
    import cv2
    from ultralytics import YOLO

    partner = YOLO(str(CANDIDATES_DIR / "card_index_partner_classifier.pt"), task="classify")  # trained at 64 px
    from vision.crops import crop_index

    real_val = DEFAULT_MODELS_DIR.parent / "datasets" / "real" / "real-val"
    pixels = cv2.imread(str(real_val / "images" / "deal1.jpg"))
    h, w = pixels.shape[:2]
    labels = [
        [float(v) for v in line.split()[1:]] for line in (real_val / "labels" / "deal1.txt").read_text().split("\n")
    ]
    boxes = [((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h) for x, y, bw, bh in labels[:8]]
    crops = [crop_index(pixels, box, size=96) for box in boxes]
    at_64 = [cv2.resize(crop, (64, 64), interpolation=cv2.INTER_AREA) for crop in crops]
    channels = detector.settings.classifiers.channels
    assert np.allclose(detector.classify(partner, crops, 1), classify_crops(partner, at_64, channels, 1), atol=1e-4)


def test_model_json_sets_proposal_threshold_and_detector_weight(model_folders, tmp_path):
    import shutil

    folder = tmp_path / "tuned"
    shutil.copytree(model_folders["two-stage"], folder)
    (folder / "model.json").write_text(json.dumps({"conf": 0.3, "proposal_conf": 0.02, "detector_weight": 0.5}))
    settings = read_model_settings(folder)
    assert (settings.decision.conf, settings.detector.proposal_conf, settings.decision.detector_weight) == (
        0.3,
        0.02,
        0.5,
    )
    plain = read_model_settings(model_folders["two-stage"])
    assert plain.decision.detector_weight == 1.0, "without model.json a reading's confidence is detector x classifier"


@pytest.mark.slow
def test_a_reading_confidence_weighs_the_detector_by_detector_weight(model_folders, tmp_path):
    """Same boxes, same classifier: with weight 0.5 every confidence is the weight-1 one over sqrt(detector)."""
    settings = read_model_settings(model_folders["two-stage"])
    # two loaded detectors, as two processes would load them: an untrained detector's tied scores come out of
    # a second predict of one model in another order
    full = detect(photo(3), CardIndexDetector(settings), imgsz=320, conf=1e-9)
    half = detect(
        photo(3), CardIndexDetector(settings.replace(decision={"detector_weight": 0.5})), imgsz=320, conf=1e-9
    )
    assert len(full) == len(half) > 0
    np.testing.assert_allclose(half.xyxy, full.xyxy)
    assert (half.confidence > full.confidence).all(), "an untrained detector is unsure: sqrt raises its share"
    # weight-1 confidence = s * p, weight-0.5 = sqrt(s) * p  =>  (s*p) / (sqrt(s)*p) = sqrt(s) < 1, same for runner-ups
    ratio = full.runner_up_confidence / half.runner_up_confidence
    np.testing.assert_allclose(ratio, (full.confidence / half.confidence)[:, None] * np.ones_like(ratio), rtol=1e-6)


def test_read_boxes_gives_ranked_cards(model_folders):
    detector = CardIndexDetector(read_model_settings(model_folders["two-stage"]))
    boxes = np.array([[10, 10, 40, 60], [100, 200, 130, 250]], dtype=float)
    card_ids, probabilities = read_boxes(detector, photo(), boxes)
    assert card_ids.shape == probabilities.shape == (2, 5)
    assert ((0 <= card_ids) & (card_ids < 52)).all() and len(set(card_ids[0])) == 5
    assert (np.diff(probabilities, axis=1) <= 1e-12).all(), "best first"


def test_read_crops_reads_cut_crops_as_read_boxes_reads_the_boxes(model_folders):
    from vision.crops import crop_index

    detector = CardIndexDetector(read_model_settings(model_folders["two-stage"]))
    boxes = np.array([[10, 10, 40, 60], [100, 200, 130, 250]], dtype=float)
    crops = [crop_index(photo(), tuple(box), size=detector.classifier_imgsz) for box in boxes]
    by_boxes, by_crops = read_boxes(detector, photo(), boxes), gated_readings(detector, crops)
    assert (by_boxes[0] == by_crops[0]).all() and np.allclose(by_boxes[1], by_crops[1])
    assert gated_readings(detector, [])[0].shape == (0, 5)


def test_a_classifier_trained_on_isolated_crops_reads_isolated_crops(model_folders, tmp_path):
    """model.json classifier_isolate: the main classifier reads crops with the index's surroundings painted
    as paper (vision.crops.isolate_box), as 'ginscore synth --isolate-crops' cut its training crops."""
    import shutil

    from vision.crops import crop_index

    for model_file in model_folders["two-stage"].glob("*.pt"):
        shutil.copy(model_file, tmp_path / model_file.name)
    (tmp_path / "model.json").write_text(json.dumps({"classifier_isolate": 0.1}))
    detector = CardIndexDetector(read_model_settings(tmp_path))
    assert detector.settings.classifiers.isolate == 0.1
    boxes = np.array([[10, 10, 40, 60], [100, 200, 130, 250]], dtype=float)
    plain = [crop_index(photo(), tuple(box), size=detector.classifier_imgsz) for box in boxes]
    isolated = [crop_index(photo(), tuple(box), size=detector.classifier_imgsz, isolate=0.1) for box in boxes]
    by_boxes = read_boxes(detector, photo(), boxes)
    by_isolated = gated_readings(detector, plain, isolated)
    by_plain = gated_readings(detector, plain, plain)
    assert (by_boxes[0] == by_isolated[0]).all() and np.allclose(by_boxes[1], by_isolated[1])
    assert np.abs(by_boxes[1] - by_plain[1]).max() > 0, "the isolated crops are what the classifier reads"
    with pytest.raises(ValueError, match="isolated"):
        gated_readings(detector, plain)


@pytest.mark.slow
def test_the_second_way_in_keeps_sure_readings_of_unsure_boxes_only_in_photo_mode(model_folders, tmp_path):
    """model.json sure_proposal_conf / sure_classifier: a box under proposal_conf is kept when the
    classifiers are sure of it, from conf; the review threshold then says whether to check it (no reason of
    its own since session 13); webcam frames never use it, and photo mode is what the caller says, at any
    size."""
    # an untrained detector's boxes all score far below 0.99: none comes in the usual way
    card = {"imgsz": 320, "webcam_imgsz": 256, "conf": 0.25, "proposal_conf": 0.99, "review_below": 0.5}
    assert len(detect(photo(), detector_with(model_folders["two-stage"], tmp_path, card))) == 0
    detector = detector_with(
        model_folders["two-stage"], tmp_path, {**card, "sure_proposal_conf": 1e-6, "sure_classifier": 0.0}
    )
    found = detect(photo(), detector)
    assert len(found) > 0 and (found.confidence >= 0.25).all(), found.confidence
    assert all(reasons == () for reasons in found.reasons), "the way in is not a reason by itself"
    low = recognise(photo(), detector=detector).reading.cards
    assert low and all(card.confidence < 0.5 and card.to_check for card in low), "flagged by the number"
    assert len(detect(photo(), detector, imgsz=256, mode="frame")) == 0, "webcam frames: no second way in"
    assert len(detect(photo(), detector, imgsz=256)) > 0, "a photo read at another size stays a photo"
    detector = detector_with(
        model_folders["two-stage"], tmp_path, {**card, "sure_proposal_conf": 1e-6, "sure_classifier": 1.0}
    )
    assert len(detect(photo(), detector)) == 0, "the classifier must be sure"


@pytest.mark.slow
def test_a_sure_box_a_classifier_doubts_is_read_with_a_reason_that_survives_the_reading_json(model_folders, tmp_path):
    """model.json doubted_proposal_conf / doubted_reject_gate: a box the detector is sure of is dropped
    only when a classifier says "not a card" at least doubted_reject_gate surely; read between the two
    gates, its card carries the reason ``not_a_card``, also once the reading is written to JSON and read
    back, and webcam frames never read such cards."""
    # every crop's "not a card" probability is far above 1e-9: the gate drops every box
    card = {
        "imgsz": 320,
        "webcam_imgsz": 256,
        "conf": 1e-6,
        "proposal_conf": 1e-6,
        "review_below": 0.0,
        "reject_gate": 1e-9,
        "detector_weight": 0.0,
    }
    assert len(detect(photo(), detector_with(model_folders["rejecting"], tmp_path, card))) == 0
    detector = detector_with(
        model_folders["rejecting"], tmp_path, {**card, "doubted_proposal_conf": 1e-6, "doubted_reject_gate": 1.01}
    )
    reading = recognise(photo(), detector=detector).reading
    assert reading.cards and all("not_a_card" in [r.kind for r in c.review] for c in reading.cards)
    again = PhotoReading.from_json(json.loads(json.dumps(reading.to_json())))
    assert [c.review for c in again.cards] == [c.review for c in reading.cards], "reasons survive the JSON"
    assert all(card.to_check for card in again.cards)
    assert len(detect(photo(), detector, mode="frame")) == 0, "webcam frames: no doubted cards"
    detector = detector_with(
        model_folders["rejecting"], tmp_path, {**card, "doubted_proposal_conf": 1.0, "doubted_reject_gate": 1.01}
    )
    assert len(detect(photo(), detector)) == 0, "only boxes the detector is sure of"


def test_index_crops_are_white_balanced_so_a_red_index_under_warm_light_stays_red():
    from vision.crops import crop_index

    # a white card under a strong blue cast (BGR), with a red index in the middle
    card = np.full((100, 100, 3), (230, 170, 140), np.uint8)
    card[40:60, 45:55] = (60, 40, 120)
    balanced = crop_index(card, (30, 30, 70, 70))
    raw = crop_index(card, (30, 30, 70, 70), balance=False)
    paper, ink = balanced[2, 2].astype(int), balanced[32, 32].astype(int)
    assert np.ptp(paper) <= 2  # the paper comes out grey
    assert np.ptp(raw[2, 2].astype(int)) > 50  # unbalanced, it keeps the cast
    assert ink[2] > ink[0] + 40  # the index is red (BGR: R above B), not purple
    assert raw[32, 32, 2] - raw[32, 32, 0] < 70  # (unbalanced: far less red than the balanced one)


@pytest.mark.slow
def test_detect_at_another_imgsz_keeps_photo_mode(model_folders, tmp_path, capsys):
    """``ginscore detect --imgsz N`` reads a photo as a photo (the second way in included) at any size:
    the mode is said by the caller, never guessed from the size."""
    import cv2

    from web.cli import main

    card = {
        "imgsz": 320,
        "webcam_imgsz": 256,
        "conf": 0.25,
        "proposal_conf": 0.99,
        "sure_proposal_conf": 1e-6,
        "sure_classifier": 0.0,
    }
    models = tmp_path / "models"
    models.mkdir()
    detector_with(model_folders["two-stage"], models, card)
    cv2.imwrite(str(tmp_path / "table.png"), photo())
    assert main(["detect", str(tmp_path / "table.png"), "--imgsz", "256", "--models", str(models), "--json"]) == 0
    (reading,) = json.loads(capsys.readouterr().out)
    assert reading["cards"], "the second way in read cards at --imgsz 256"


def before_gate(detector, settings, image, boxes):
    """The classifiers' readings of the boxes' crops with ``settings`` before the "not a card" gate."""
    crops, isolated = crops_of(detector, image, boxes, settings.classifiers)
    return tuple(crop_readings(detector, settings, crops, isolated, settings.classifiers.rotations)[:3])


def test_reading_with_fewer_classifiers_or_turns_shares_the_loaded_models(partnered_models):
    """benchmarks/classifier_choice.py compares choices through vision.crop_reading.with_classifiers."""
    from vision.detector import load_detector

    shipped = load_detector(partnered_models)
    partners = shipped.settings.classifiers.partners
    assert len(partners) == 2
    boxes = np.array([[10, 10, 40, 60], [100, 200, 130, 250], [300, 300, 330, 345]], dtype=float)
    same = with_classifiers(shipped.settings, partners, shipped.settings.classifiers.rotations)
    assert same == shipped.settings  # all of them, the same turns: the shipped reader
    alone = with_classifiers(shipped.settings, (), 1)
    assert alone.classifiers.partners == () and alone.classifiers.rotations == 1
    assert alone.classifiers.mix == 1.0 and shipped.settings.classifiers.partners == partners
    every_turn = shipped.settings.replace(classifiers={"other_turns_below": 1.0})  # noise crops are read surely
    assert not np.allclose(
        before_gate(shipped, alone, photo(), boxes)[1], before_gate(shipped, every_turn, photo(), boxes)[1]
    )
    with pytest.raises(ModelError, match="not among those loaded"):
        read_boxes(shipped, photo(), boxes, with_classifiers(shipped.settings, (partners[0].with_name("other.pt"),), 4))


def test_every_turn_in_one_batch_reads_as_each_turn_alone():
    from vision.crops import crop_indices
    from vision.detector import classify_crops, combine_turns, load_detector, turned

    classifier = load_detector().classifier
    crops = crop_indices(photo(3), np.array([[10, 10, 40, 60], [100, 200, 130, 250]], dtype=float))
    together = classify_crops(classifier, crops, rotations=4)
    apart = combine_turns([classify_crops(classifier, turned(crops, turn)) for turn in range(4)])
    assert np.allclose(together, apart, atol=1e-9) and not np.allclose(together, classify_crops(classifier, crops))


def test_other_turns_are_read_only_for_crops_unsure_upright():
    """classifiers.other_turns_below: a crop read surely upright keeps that reading; the others read as at every
    turn."""
    import cv2

    from vision.crops import crop_indices
    from vision.detections import read_yolo_labels
    from vision.detector import classify_crops, load_detector

    classifier = load_detector().classifier
    real_val = DEFAULT_MODELS_DIR.parent / "datasets" / "real" / "real-val"
    image = cv2.imread(str(real_val / "images" / "deal1.jpg"))
    classes = (real_val / "classes.txt").read_text().split()
    labels = read_yolo_labels(real_val / "labels" / "deal1.txt", classes, (image.shape[1], image.shape[0]))
    crops = crop_indices(image, labels.xyxy[:12], size=96) + crop_indices(
        photo(5), np.array([[10, 10, 40, 60]]), size=96
    )
    upright = classify_crops(classifier, crops)
    every_turn = classify_crops(classifier, crops, rotations=4)
    level = float(np.median(upright.max(axis=1)))
    adaptive = classify_crops(classifier, crops, rotations=4, other_turns_below=level)
    unsure = upright.max(axis=1) < level
    assert unsure.any() and (~unsure).any()
    assert np.allclose(adaptive[~unsure], upright[~unsure], atol=1e-6)
    assert np.allclose(adaptive[unsure], every_turn[unsure], atol=1e-5)
    assert not np.allclose(upright[unsure], every_turn[unsure], atol=1e-5)
    assert np.allclose(classify_crops(classifier, crops, rotations=4, other_turns_below=1.0), every_turn, atol=1e-9)


def test_partners_read_only_the_crops_the_main_classifier_is_unsure_of_when_asked_below_a_level(partnered_models):
    """classifiers.partners_below: a crop the main classifier reads surely enough is read by it alone."""
    import cv2

    from vision.detections import read_yolo_labels
    from vision.detector import load_detector

    real_val = DEFAULT_MODELS_DIR.parent / "datasets" / "real" / "real-val"
    image = cv2.imread(str(real_val / "images" / "deal1.jpg"))
    classes = (real_val / "classes.txt").read_text().split()
    labels = read_yolo_labels(real_val / "labels" / "deal1.txt", classes, (image.shape[1], image.shape[0]))
    boxes = labels.xyxy[:24]
    shipped = load_detector(partnered_models)
    partners, turns = shipped.settings.classifiers.partners, shipped.settings.classifiers.rotations
    every = before_gate(shipped, with_classifiers(shipped.settings, partners, turns, 1.0), image, boxes)  # 1: all
    alone = before_gate(shipped, with_classifiers(shipped.settings, (), turns), image, boxes)
    at_zero = before_gate(shipped, with_classifiers(shipped.settings, partners, turns, 0.0), image, boxes)
    assert all(np.allclose(a, b) for a, b in zip(at_zero, alone, strict=True)), "0: the main classifier alone"
    assert not np.allclose(every[1], alone[1]), "the partners change the readings they are asked about"

    classifiers = shipped.settings.classifiers
    main_sure = shipped.classify(
        shipped.classifier, crops_of(shipped, image, boxes, classifiers)[0], turns, classifiers.other_turns_below
    )
    level = float(np.median(main_sure.max(axis=1)))
    asked = main_sure.max(axis=1) < level
    assert 0 < asked.sum() < len(boxes)
    between = before_gate(shipped, with_classifiers(shipped.settings, partners, turns, level), image, boxes)
    for part, of_every, of_alone in zip(between, every, alone, strict=True):
        assert np.allclose(part[asked], of_every[asked], atol=1e-6), "an unsure crop: every classifier"
        assert np.allclose(part[~asked], of_alone[~asked]), "a sure crop: the main classifier alone"


def test_a_taught_deck_s_classifier_reads_only_the_crops_the_others_are_unsure_of(tmp_path):
    """classifiers.taught (``ginscore retrain --taught-partner``): asked below ``taught_below``, weighed
    ``taught_weight``; a models folder names it in model.json, and a retrain's rollback keeps it."""
    import shutil
    from dataclasses import replace

    import cv2

    from vision.crop_reading import asked_of_taught
    from vision.detections import read_yolo_labels
    from vision.detector import load_detector
    from vision.probabilities import normalised_rows
    from vision.training.retrain import model_files

    copy_shipped_models(tmp_path)
    # a classifier unlike the main one stands for a taught deck's: the 52-card partner
    shutil.copy2(CANDIDATES_DIR / "card_index_partner_classifier_52.pt", tmp_path / "taught.pt")
    document = json.loads((tmp_path / "model.json").read_text())
    document["classifiers"].update(taught="taught.pt", taught_below=1.01, taught_weight=1.0)
    (tmp_path / "model.json").write_text(json.dumps(document))
    assert "taught.pt" in model_files(tmp_path)
    taught = load_detector(tmp_path)
    assert taught.settings.classifiers.taught == tmp_path / "taught.pt" and taught.taught is not None

    real_val = DEFAULT_MODELS_DIR.parent / "datasets" / "real" / "real-val"
    image = cv2.imread(str(real_val / "images" / "deal1.jpg"))
    classes = (real_val / "classes.txt").read_text().split()
    labels = read_yolo_labels(real_val / "labels" / "deal1.txt", classes, (image.shape[1], image.shape[0]))
    boxes = labels.xyxy[:24]
    settings = taught.settings
    sure_and_not = np.array([[1.0, 0.0], [0.4, 0.6]])  # taught_below 1 asks about every crop, however sure
    assert asked_of_taught(taught, replace(settings.classifiers, taught_below=1.0), sure_and_not).tolist() == [0, 1]
    assert asked_of_taught(taught, replace(settings.classifiers, taught_below=0.7), sure_and_not).tolist() == [1]
    never = replace(settings, classifiers=replace(settings.classifiers, taught_below=0.0))
    shipped = before_gate(load_detector(), load_detector().settings, image, boxes)
    assert all(np.allclose(a, b) for a, b in zip(before_gate(taught, never, image, boxes), shipped, strict=True))
    # a photo the taught classifier does not take for its deck's (a median "my deck" share below
    # taught_photo_median; the stand-in has no "not a card", so its share is 1 everywhere) is read as if no deck
    # were taught
    other_deck = replace(settings, classifiers=replace(settings.classifiers, taught_photo_median=1.01))
    assert all(np.allclose(a, b) for a, b in zip(before_gate(taught, other_deck, image, boxes), shipped, strict=True))

    # asked about every crop, and alone (weight 1): each crop's first card is the taught classifier's own
    crops = crops_of(taught, image, boxes, settings.classifiers)[0]
    model, ids = taught.taught
    own = taught.classify(model, crops, settings.classifiers.rotations, settings.classifiers.other_turns_below)
    every = before_gate(taught, settings, image, boxes)
    assert (every[0][:, 0] == ids[np.argmax(own, axis=1)]).all()
    assert np.allclose(every[1][:, 0], normalised_rows(own).max(axis=1), atol=1e-6)
    assert not np.allclose(every[1][:, 0], shipped[1][:, 0]), "the stand-in is not as sure as the shipped ones"

    # asked below a level: a crop the others read surely keeps their reading
    sure = shipped[1][:, 0]  # the first card's share of the card probabilities, as asked_of_taught measures it
    middle = np.sort(sure)[len(sure) // 4 : 3 * len(sure) // 4]
    gap = int(np.argmax(np.diff(middle)))
    level = float(middle[gap : gap + 2].mean())  # the middle of the widest gap near the median: no crop at the edge
    between = replace(settings, classifiers=replace(settings.classifiers, taught_below=level, taught_weight=0.34))
    part = before_gate(taught, between, image, boxes)
    asked = sure < level
    assert 0 < asked.sum() < len(boxes)
    # (the first card and its probability: the runner-ups of a near-certain reading, at a few 1e-4, can swap
    # places when the rows are normalised once more)
    assert (part[0][~asked, 0] == shipped[0][~asked, 0]).all()
    assert np.allclose(part[1][~asked, 0], shipped[1][~asked, 0])
    assert not np.allclose(part[1][asked], shipped[1][asked])
