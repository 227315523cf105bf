"""Webcam frames of a still table keep the readings of unchanged crops (vision/frame_memory.py), and a
changed crop is read afresh: with the memory, a frame reads as it reads without it."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.crop_reading import crop_readings, crops_of
from vision.detections import Detections
from vision.detector import load_detector
from vision.frame_memory import MOST_REUSES, SAME_CROP_LEVEL, FrameMemories, remembered, remembered_readings
from vision.recognise import detect
from vision.steps import reading_context

DEAL = Path(__file__).resolve().parents[2] / "datasets" / "real" / "real-val" / "images" / "deal5.jpg"


def webcam_frames(count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` 640-px frames of one real deal, each with its own sensor noise and JPEG, as a webcam gives them."""
    image = cv2.imread(str(DEAL))
    scale = 640 / max(image.shape[:2])
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    rng = np.random.default_rng(seed)
    frames = []
    for _ in range(count):
        noisy = np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
        frames.append(cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR))
    return frames


class FrameReader:
    """The shipped models reading webcam frames at 640 px, one quarter turn, with a memory of their own."""

    def __init__(self):
        self.detector = load_detector()
        self.memory = FrameMemories()

    def detect(self, pixels, mode="frame"):
        """The kept boxes of a frame (``mode="photo"``: read as a photo, the memory at hand)."""
        rotations = 1 if mode == "frame" else None
        return detect(pixels, self.detector, mode=mode, imgsz=640, rotations=rotations, memory=self.memory)

    def read_frame_crops(self, pixels, xyxy):
        """The frame memory's step on given boxes: the boxes kept, and each box's readings."""
        context = reading_context(self.detector, pixels, "frame", imgsz=640, rotations=1, memory=self.memory)
        proposals = Detections(xyxy, np.zeros(len(xyxy)), np.ones(len(xyxy)), data={"score": np.ones(len(xyxy))})
        return remembered_readings(proposals, context).xyxy, self.memory.last.readings

    def before_gate(self, crops, isolated=None):
        """The classifiers' readings of crops at one quarter turn, before the "not a card" gate."""
        return crop_readings(self.detector, self.detector.settings, crops, isolated, 1)

    @property
    def frame_crops_kept(self):
        return self.memory.crops_kept


def fresh_reader():
    """A reader with no memory of earlier frames (the same loaded models)."""
    return FrameReader()


def cards_of(detections) -> list[str]:
    return sorted(detections.codes)


@pytest.mark.skipif(not DEAL.exists(), reason="needs datasets/real/real-val")
def test_a_still_table_keeps_most_readings_and_reads_the_same_cards():
    first, second = webcam_frames(2)
    remembering = fresh_reader()
    remembering.detect(first)
    assert remembering.frame_crops_kept[0] == 0  # nothing to keep from before the first frame
    with_memory = remembering.detect(second)
    kept, crops = remembering.frame_crops_kept
    assert crops >= 30 and kept >= 0.6 * crops, (kept, crops)
    without = fresh_reader().detect(second)
    # the same cards at the same places; a kept reading is the last frame's, so its number may differ a little
    assert cards_of(with_memory) == cards_of(without)
    assert np.allclose(np.sort(with_memory.confidence), np.sort(without.confidence), atol=0.1)


@pytest.mark.skipif(not DEAL.exists(), reason="needs datasets/real/real-val")
def test_a_card_put_where_another_lay_is_read_afresh():
    first, second = webcam_frames(2, seed=1)
    reader = fresh_reader()
    read = reader.detect(first)
    # paste one card's corner index over another's (both clear readings): a card replaced in place
    order = np.argsort(-read.confidence)
    target, source = read.xyxy[order[0]], read.xyxy[next(i for i in order[1:] if read.codes[i] != read.codes[order[0]])]
    x0, y0, x1, y1 = (int(round(v)) for v in target)
    sx0, sy0 = int(round(source[0])), int(round(source[1]))
    changed = second.copy()
    patch = first[sy0 : sy0 + (y1 - y0), sx0 : sx0 + (x1 - x0)]
    changed[y0 : y0 + patch.shape[0], x0 : x0 + patch.shape[1]] = patch
    with_memory = reader.detect(changed)
    without = fresh_reader().detect(changed)
    assert cards_of(with_memory) == cards_of(without)
    assert reader.frame_crops_kept[0] < reader.frame_crops_kept[1]  # the pasted crop was read again


@pytest.mark.skipif(not DEAL.exists(), reason="needs datasets/real/real-val")
def test_photos_never_use_the_frame_memory():
    frame = webcam_frames(1)[0]
    reader = fresh_reader()
    reader.detect(frame)
    before = reader.frame_crops_kept
    reader.detect(frame, mode="photo")
    assert reader.frame_crops_kept == before


def test_a_crop_that_drifts_a_little_every_frame_is_read_again_once_it_differs_from_the_crop_read():
    """Each frame differs from the last by less than SAME_CROP_LEVEL, but the memory compares with the
    crop the reading was made from: once the drift adds up past the level, the crop is read afresh."""
    box = np.array([[10.0, 10, 30, 40]])
    step = 0.6 * SAME_CROP_LEVEL
    crop = np.full((1, 16, 16), 100.0, np.float32)
    memory = remembered(None, np.array([-1]), (np.array([7]),), "r", box, crop)
    kept_at = []
    for frame in range(1, 4):
        now = crop + step * frame
        kept = memory.same_crops("r", box, now)
        kept_at.append(int(kept[0]))
        memory = remembered(memory, kept, (np.array([8])[kept < 0],), "r", box, now)
    assert kept_at == [0, -1, 0]  # kept, then read afresh (1.2 levels past), then kept from the new reading
    assert memory.readings[0].tolist() == [8]


def test_no_reading_is_kept_for_more_than_most_reuses_frames():
    box = np.array([[10.0, 10, 30, 40]])
    crop = np.full((1, 16, 16), 100.0, np.float32)
    memory = remembered(None, np.array([-1]), (np.array([7]),), "r", box, crop)
    fresh_at = []
    for frame in range(1, 2 * MOST_REUSES + 3):
        kept = memory.same_crops("r", box, crop)
        if kept[0] < 0:
            fresh_at.append(frame)
        memory = remembered(memory, kept, (np.array([7])[kept < 0],), "r", box, crop)
    assert fresh_at == [MOST_REUSES + 1, 2 * MOST_REUSES + 2]


@pytest.mark.skipif(not DEAL.exists(), reason="needs datasets/real/real-val")
def test_a_frame_reads_its_new_crops_white_balanced_as_a_photo_does():
    from vision.crops import crop_indices

    frame = webcam_frames(1, seed=3)[0].astype(np.float32)
    warm = np.clip(frame * np.array([0.55, 0.85, 1.1], dtype=np.float32), 0, 255).astype(np.uint8)  # dim lamp light
    reader = fresh_reader()
    boxes = reader.detect(warm).xyxy
    _, (card_ids, probabilities, rejected, _) = fresh_reader().read_frame_crops(warm, boxes)  # no memory: all new
    as_photo = reader.before_gate(*crops_of(reader.detector, warm, boxes, reader.detector.settings.classifiers))
    assert np.array_equal(card_ids, as_photo[0])
    assert np.allclose(probabilities, as_photo[1]) and np.allclose(rejected, as_photo[2])
    # the crops unbalanced would read otherwise: the frame's thumbnails are cut so, its readings are not
    unbalanced = reader.before_gate(crop_indices(warm, boxes, balance=False))
    assert not np.allclose(probabilities, unbalanced[1], atol=1e-3)


@pytest.mark.skipif(not DEAL.exists(), reason="needs datasets/real/real-val")
def test_a_box_that_flips_size_on_a_still_table_keeps_its_box_and_reading():
    from vision.crops import crop_indices
    from vision.detections import box_iou
    from vision.frame_memory import SAME_PLACE_IOU, crop_thumbnails

    first, second = webcam_frames(2, seed=4)
    reader = fresh_reader()
    boxes = reader.detect(first).xyxy
    read_boxes, readings = reader.read_frame_crops(first, boxes)
    # the detector's box of one index two pixels taller in the next frame: its crop, cut there, looks different
    flipped = read_boxes.copy()
    flipped[0, 3] += 2.0
    assert box_iou(flipped[:1], read_boxes[:1])[0, 0] >= SAME_PLACE_IOU
    own_cut, remembered_cut = (
        crop_thumbnails(crop_indices(second, b[None], balance=False))[0] for b in (flipped[0], read_boxes[0])
    )
    assert np.abs(own_cut - reader.memory.last.thumbnails[0]).max() > SAME_CROP_LEVEL
    assert np.abs(remembered_cut - reader.memory.last.thumbnails[0]).max() <= SAME_CROP_LEVEL
    kept_boxes, kept_readings = reader.read_frame_crops(second, flipped)
    assert reader.frame_crops_kept[0] >= len(boxes) - 2  # at most a noisy crop or two read afresh
    assert np.array_equal(kept_boxes[0], read_boxes[0]) and kept_readings[0][0, 0] == readings[0][0, 0]
