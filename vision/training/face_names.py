"""Naming the faces of a deck being taught (``ginscore deck add``) with the reader, and doubting them.

Each face is read twice: what its corner indices read in the photo (``FoundCard.reading``) and the
classifier on the straightened face's corner indices (``read_faces``, one batch for all faces); faces
and cards are matched one to one (a deck holds each card once). A name is sure when both readings name
the card first, together at least ``SURE_NAME`` surely, with no reason to doubt it; two faces that read
one card (``mark_duplicates``) and faces unlike the deck's others (``odd_faces``: a card of another
deck?) never are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace

import numpy as np

from engine.cards import CARD_CODES
from vision.crop_reading import gated_readings
from vision.recognise import detect
from vision.training.corner_finder import find_corner_index, local_view, to_face_box
from vision.training.face_indices import as_fractions, index_doubts
from vision.training.table_cards import Box, FoundCard

CORNERS = ("tl", "br")
SURE_NAME = 0.8  # a face's name is taken without asking when the photo's corners and the face agree this surely


@dataclass(frozen=True)
class Naming:
    """The reader's names for a face: its likeliest cards, best first, with probabilities; whether the
    name is sure (the photo's corners and the straightened face agree, surely) and, if not, why not.

    ``duplicate_of``: the number (in the list named together) of a face that reads the same card more
    surely; ``--yes`` then leaves this face out. ``odd``: the face does not look like the deck's others
    (its index elsewhere, another shape): ``--yes`` leaves it out too."""

    codes: tuple[str, ...]
    probabilities: tuple[float, ...]
    sure: bool = False
    doubts: tuple[str, ...] = ()
    duplicate_of: int | None = None
    odd: bool = False

    @property
    def best(self) -> str | None:
        return self.codes[0] if self.codes else None

    def doubting(self, doubt: str, **changes) -> Naming:
        """The same naming, unsure, with one more reason to ask."""
        return replace(self, sure=False, doubts=tuple(dict.fromkeys((*self.doubts, doubt))), **changes)


def corner_boxes(face_rgba: np.ndarray) -> dict[str, tuple[int, int, int, int]]:
    """The corner-index boxes (face pixels) the corner finder sees on one face, by corner (``tl``, ``br``)."""
    height, width = face_rgba.shape[:2]
    boxes = {}
    for corner in CORNERS:
        box = find_corner_index(local_view(face_rgba, corner), {})
        if box is not None:
            boxes[corner] = to_face_box(box, corner, width, height)
    return boxes


def index_boxes_of(face_rgba: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The corner-index boxes (face pixels) the corner finder sees on one face, top-left and bottom-right."""
    return list(corner_boxes(face_rgba).values())


def read_faces(
    detector, faces_bgr: Sequence[np.ndarray], index_boxes: Sequence[Sequence[Box]] | None = None
) -> list[dict[str, float]]:
    """Card probabilities (code -> probability, the likeliest few) of straightened faces: the classifier
    reads each face's corner indices, where the reader saw them in the photo (``index_boxes``, face
    pixels) or else where the corner finder boxes them, all in one batch (one call of the network however
    many faces: on a busy CPU each call costs)."""
    import cv2

    from vision.crops import crop_index

    given = list(index_boxes) if index_boxes is not None else [() for _ in faces_bgr]
    boxes = [
        list(given[i]) if given[i] else index_boxes_of(cv2.cvtColor(face, cv2.COLOR_BGR2RGBA))
        for i, face in enumerate(faces_bgr)
    ]
    scores: list[dict[str, float]] = [{} for _ in faces_bgr]
    owners = [i for i, face_boxes in enumerate(boxes) for _ in face_boxes]
    if owners:
        size, isolate = detector.classifier_imgsz, detector.settings.classifiers.isolate
        cut = [
            (faces_bgr[i], (float(x0), float(y0), float(x1), float(y1)))
            for i, face_boxes in enumerate(boxes)
            for x0, y0, x1, y1 in face_boxes
        ]
        crops = [crop_index(face, box, size=size) for face, box in cut]
        isolated = [crop_index(face, box, size=size, isolate=isolate) for face, box in cut] if isolate > 0 else None
        ids, probabilities = gated_readings(detector, crops, isolated)
        for i, row_ids, row_p in zip(owners, ids, probabilities, strict=True):
            for card_id, p in zip(row_ids.tolist(), row_p.tolist(), strict=True):
                code = CARD_CODES[card_id]
                scores[i][code] = scores[i].get(code, 0.0) + p / len(boxes[i])
    for i, face in enumerate(faces_bgr):
        if not scores[i] or max(scores[i].values()) < 0.3:
            # the corner finder missed: let the detector find the indices on the face, padded onto a table
            pad = face.shape[0] // 3
            canvas = cv2.copyMakeBorder(face, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(60, 90, 50))
            found = detect(canvas, detector, imgsz=640, conf=0.05)
            for card_id, confidence in zip(found.class_id.tolist(), found.confidence.tolist(), strict=True):
                code = CARD_CODES[card_id]
                scores[i][code] = max(scores[i].get(code, 0.0), float(confidence))
    return scores


def read_face(detector, face_bgr: np.ndarray) -> dict[str, float]:
    """Card probabilities (code -> probability, the likeliest few) of one straightened face."""
    return read_faces(detector, [face_bgr])[0]


def _best(reading: dict[str, float]) -> str | None:
    return max(reading, key=lambda code: reading[code]) if reading else None


def name_faces(
    detector,
    faces: list[np.ndarray],
    taken: Set[str] = frozenset(),
    photo_readings: list[dict[str, float]] | None = None,
    notes: list[tuple[str, ...]] | None = None,
    index_boxes: Sequence[Sequence[Box]] | None = None,
) -> list[Naming]:
    """The reader's names for faces of one deck, matched one to one (no card twice, none of ``taken``).

    Each face is read straightened (``read_face``) and, where given, by what the photo's corner indices
    read (``photo_readings``); a name is sure when both readings name the card first, together at least
    ``SURE_NAME`` surely, and the photo gave no reason to doubt it (``notes``). ``index_boxes``: where
    the reader saw each face's corner indices in the photo (face pixels; ``read_faces``)."""
    from scipy.optimize import linear_sum_assignment

    face_readings = read_faces(detector, faces, index_boxes)
    photo_readings = photo_readings or [{} for _ in faces]
    notes = notes or [() for _ in faces]
    combined = []
    for face_reading, photo_reading in zip(face_readings, photo_readings, strict=True):
        readings = [r for r in (face_reading, photo_reading) if r]
        read = {code for reading in readings for code in reading}
        combined.append({code: sum(r.get(code, 0.0) for r in readings) / max(len(readings), 1) for code in read})
    free = [code for code in CARD_CODES if code not in taken]
    if not combined or not free:
        return [Naming((), (), doubts=("the reader could not read it",)) for _ in faces]
    matrix = np.array([[reading.get(code, 0.0) for code in free] for reading in combined])
    rows, columns = linear_sum_assignment(-np.log(matrix + 1e-6))
    assigned = {int(r): free[int(c)] for r, c in zip(rows, columns, strict=True)}
    namings = []
    for i, reading in enumerate(combined):
        ranked = sorted(reading, key=lambda code: -reading[code])
        first = assigned.get(i)
        codes = ([first] if first else []) + [code for code in ranked if code != first]
        naming = Naming(tuple(codes[:5]), tuple(round(reading.get(code, 0.0), 3) for code in codes[:5]), sure=True)
        for note in notes[i]:
            naming = naming.doubting(note)
        best, in_face, in_photo = _best(reading), _best(face_readings[i]), _best(photo_readings[i])
        if best is None or reading[best] < 0.05:
            naming = naming.doubting("the reader could not read it")
        elif in_face and in_photo and in_face != in_photo:
            naming = naming.doubting(f"its corners in the photo read {in_photo}, the straightened face {in_face}")
        elif reading[best] < SURE_NAME:
            naming = naming.doubting(f"read only {reading[best]:.2f} surely")
        elif not (in_face and in_photo) and reading[best] < 0.95:
            naming = naming.doubting("read once only (not from both the photo and the straightened face)")
        if first != best and best is not None and reading[best] >= 0.05:
            naming = naming.doubting(f"reads {best} ({reading[best]:.2f}), but {best} fits another face better")
        namings.append(naming)
    return namings


def mark_duplicates(cards: list[FoundCard], namings: list[Naming]) -> list[Naming]:
    """Faces that read the same card (a deck holds each card once): the one the one-to-one matching gave the
    name keeps it (else the surest), every one of them is asked about, and ``--yes`` leaves out all but that one
    (``Naming.duplicate_of``). Keeping the surest when the matching named another would leave both out: the
    surest with its "fits another face better", the other as its duplicate."""
    firsts: dict[str, list[tuple[float, int]]] = {}
    for i, naming in enumerate(namings):
        # what the face reads first, whichever name the one-to-one matching gave it
        read = [(p, code) for code, p in zip(naming.codes, naming.probabilities, strict=True) if p >= 0.5]
        if read:
            p, code = max(read)
            firsts.setdefault(code, []).append((p, i))
    marked = list(namings)
    for code, faces in firsts.items():
        if len(faces) < 2:
            continue
        faces.sort(key=lambda face: (namings[face[1]].best == code, face[0]), reverse=True)
        keeper = faces[0][1]
        others = ", ".join(cards[i].label for _, i in faces[1:])
        marked[keeper] = marked[keeper].doubting(f"{others} read{'s' if len(faces) == 2 else ''} {code} too")
        for _, i in faces[1:]:
            kept = tuple(doubt for doubt in marked[i].doubts if "fits another face better" not in doubt)
            marked[i] = replace(marked[i], doubts=kept).doubting(
                f"reads {code} like {cards[keeper].label} (two cards of one name)", duplicate_of=keeper
            )
    return marked


def index_features(boxes: Sequence[Box], size: tuple[int, int]) -> np.ndarray | None:
    """Where a face's corner indices lie and how big they are, as fractions of the face: the index's outer
    corner from the face's side and top, its height, and the face's width over its height (None: no box).
    ``boxes``: the reader's index boxes on the face (face pixels), ``size``: the face's (width, height)."""
    width, height = size
    rows = []
    for x0, y0, x1, y1 in boxes:
        rows.append((min(x0, width - x1) / width, min(y0, height - y1) / height, (y1 - y0) / height))
    if not rows:
        return None
    return np.array([*np.median(rows, axis=0), width / height])


ODD_TOLERANCE = (0.04, 0.04, 0.05, 0.05)  # least deviation from the deck's median that makes a face odd


def odd_faces(new: Sequence[np.ndarray | None], known: Sequence[np.ndarray] = ()) -> dict[int, str]:
    """Which new faces do not look like the deck's others (the other new faces and the faces already
    taught), by their ``index_features``: their corner index lies elsewhere or is of another size, or the
    card is of another shape. Number -> why, in words. A card of another deck shows this way, unless it
    is printed alike."""
    seen = np.array([f for f in [*new, *known] if f is not None]).reshape(-1, 4)
    if len(seen) < 8:
        return {}
    median = np.median(seen, axis=0)
    spread = 1.4826 * np.median(np.abs(seen - median), axis=0)
    tolerance = np.maximum(np.array(ODD_TOLERANCE), 4 * spread)
    odd = {}
    for i, feature in enumerate(new):
        if feature is None:
            continue
        off = np.abs(feature - median) > tolerance
        if off[3]:
            odd[i] = f"the card is {feature[3]:.2f} of its height wide, the deck's other faces {median[3]:.2f}"
        elif off[:3].any():
            k = int(np.argmax(off[:3]))
            where = (
                "lies {:.2f} of the card from its side",
                "lies {:.2f} of the card from its top",
                "is {:.2f} of the card high",
            )[k]
            odd[i] = f"its corner index {where.format(feature[k])}, on the deck's other faces {median[k]:.2f}"
    return {i: f"{why}: a card of another deck?" for i, why in odd.items()}


def name_found_cards(
    detector,
    cards: list[FoundCard],
    known_features: Sequence[np.ndarray] = (),
    known_indices: Sequence[Mapping[str, Box]] = (),
) -> list[Naming]:
    """The reader's names for the cards found in a deck's photos (``name_faces`` with what the photos' corner
    indices read), one name given twice flagged on both faces (``mark_duplicates``), faces whose index
    layout is unlike the deck's others or ``known_features`` (faces taught before) doubted as another
    deck's (``odd_faces``), and faces whose printed indices the reader did not find where the deck's other
    faces (with ``known_indices``: those taught before, corner boxes as fractions) print them
    (``face_indices.index_doubts``): what ``ginscore deck add`` and the Training page both ask the user about."""
    namings = name_faces(
        detector,
        [card.face for card in cards],
        photo_readings=[card.reading for card in cards],
        notes=[card.notes for card in cards],
        index_boxes=[card.index_boxes for card in cards],
    )
    namings = mark_duplicates(cards, namings)
    features = [index_features(card.index_boxes, (card.face.shape[1], card.face.shape[0])) for card in cards]
    for i, why in odd_faces(features, known_features).items():
        namings[i] = namings[i].doubting(why, odd=True)
    if any(card.corner_indices for card in cards):
        new = [as_fractions(card.corner_indices, (card.face.shape[1], card.face.shape[0])) for card in cards]
        for i, doubt in enumerate(index_doubts(new, known_indices)):
            if doubt is not None:
                namings[i] = namings[i].doubting(doubt)
    return namings
