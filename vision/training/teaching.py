"""Teaching a deck from the web app ("Teach your deck" on the Training page): in rounds, from any phone.

What ``ginscore deck add`` does in one run at a terminal is done here in steps that survive a crash, a
reload and a second phone. A deck being taught keeps everything in ``instance/teaching/NAME/``::

    photos/       each photo as it was sent
    faces/        each face found in them: ID.png (the straightened card as found, BGR) and ID.jpg (small)
    state.json    the photos (read or not, what reading them said) and the faces (the reader's names,
                  whether it is sure and why not, the name given, left out or not, saved or not)

1. ``keep_photos`` stores the photos of one upload; ``read_photo`` finds the cards of one of them
   (``table_cards.photo_cards``) and names them with the reader as ``deck add`` does (``face_names``: the
   photo's corner indices and the straightened face, one to one within the photo; doubted when the two
   disagree, when two faces read one card, when a face is unlike the deck's others).
2. ``change_face`` gives a face another name, confirms the reader's name, leaves it out or puts it back.
3. ``save_faces`` writes the faces named and not saved yet into the taught deck with
   ``teach_deck.write_named_faces`` (the writer of ``deck add``: a face of a name the deck has replaces it,
   the old one kept in ``replaced/``), once no name is left to check and none is given to two faces.

``state.json`` is written whole after every change, to a temporary file first, then moved over the old
one (``os.replace``), under one lock per process: a crash leaves the old state or the new, never half.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import CARD_CODES, card_label
from vision.detections import canonical_code
from vision.reading import ImageError
from vision.training.deck_check import check_photos
from vision.training.face_indices import INDEX_DOUBT, as_fractions
from vision.training.face_names import index_features, name_found_cards
from vision.training.table_cards import LAY_THEM_OUT, MAX_PHOTO_SIDE, photo_cards
from vision.training.teach_deck import (
    BOX_BGR,
    UNCONFIRMED_BGR,
    NamedFace,
    check_new_deck_name,
    list_taught_decks,
    taught_corner_indices,
    taught_index_features,
    write_named_faces,
)
from vision.training.userdata import DECK_NAME, check_deck_name, teaching_dir, user_decks_dir

STATE_FILE = "state.json"
PHOTOS, FACES = "photos", "faces"
THUMB_HEIGHT = 200  # px of the small copy of each face the page shows (about 70 px wide on a phone's screen)
MOST_TOKENS = 200  # one-time upload tokens remembered per deck (a double tap sends one twice)
SUFFIXES = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/heic": ".heic"}
ACTIONS = ("name", "confirm", "leave_out", "put_back")

LAY_THEM_OUT_HERE = "lay the cards face up, 1-3 cm apart, on a plain table and photograph them from above in good light"

KEPT_PHOTO = re.compile(r"\d{3}[0-9a-f]{6}")  # a kept photo's id (keep_photos), its file's name
STATE_LOCK = threading.Lock()  # every read-change-write of a state file, in this process
SAVE_LOCK = threading.Lock()  # writing a deck (a double tap on Save writes it once)
_reading: set[tuple[str, str]] = set()  # (teaching folder, photo id) being read now in this process


@dataclass(frozen=True)
class Upload:
    """A photo as a phone sent it: its bytes (checked by ``vision.decode.check_photo``), its file name
    there, and the media type its header gave."""

    data: bytes
    sent_as: str
    media_type: str


@dataclass(frozen=True)
class PhotoRead:
    """What reading one photo gave: its label for people, the faces found and how many of them need a
    look, what it said in sentences, and why it could not be used (``""``: it could)."""

    label: str
    cards: int
    to_check: int
    notes: tuple[str, ...]
    failed: str = ""


# ------------------------------------------------------------------ the state file


def teaching_folder(name: str, instance: Path | str | None = None) -> Path:
    """Where deck ``name`` is being taught (ValueError for a name that cannot be a deck's)."""
    return teaching_dir(instance) / check_deck_name(name)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


class DamagedTeaching(ValueError):
    """A deck's ``state.json`` cannot be read (a disk full, a hand edit): ``start_again`` keeps its photos."""

    def __init__(self, name: str, path: Path, detail: str = "") -> None:
        self.deck, self.path, self.detail = name, path, detail
        super().__init__(
            f"the record of teaching deck {name} is damaged and cannot be read. Its photos are kept: start the "
            "deck again from them, and check the names of the cards found once more"
        )


def read_state(name: str, instance: Path | str | None = None) -> dict[str, Any] | None:
    """The teaching state of deck ``name``; None when it is not being taught (``DamagedTeaching``: unreadable)."""
    path = teaching_folder(name, instance) / STATE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        state = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DamagedTeaching(name, path, str(error)) from None
    if not isinstance(state, dict) or not all(isinstance(state.get(key), list) for key in ("photos", "faces")):
        raise DamagedTeaching(name, path)
    return state


def start_again(name: str, instance: Path | str | None = None) -> int:
    """Start teaching deck ``name`` again from the photos it kept, when its state was damaged: the damaged
    file is moved aside (``state.json.damaged-TIME``, never deleted), and every kept photo waits to be read
    again (``unread_photos``). The number of photos kept. Faces already saved into the taught deck stay."""
    folder = teaching_folder(name, instance)
    with STATE_LOCK:
        try:
            state = read_state(name, instance)
        except DamagedTeaching:
            pass
        else:  # not damaged (or not being taught): nothing to do
            return len(state["photos"]) if state is not None else 0
        (folder / STATE_FILE).replace(folder / f"{STATE_FILE}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        state = _new_state(name)
        kept = sorted((folder / PHOTOS).glob("*")) if (folder / PHOTOS).is_dir() else []
        photos = [path for path in kept if path.is_file() and KEPT_PHOTO.fullmatch(path.stem)]
        for path in photos:
            state["photos"].append(
                {
                    "id": path.stem,
                    "number": int(path.stem[:3]),
                    "file": path.name,
                    "sent_as": "",
                    "state": "waiting",
                    "cards": 0,
                    "notes": [],
                    "added": _now(),
                }
            )
        write_state(folder, state)
    return len(photos)


def _new_state(name: str) -> dict[str, Any]:
    return {"version": 1, "deck": name, "created": _now(), "photos": [], "faces": [], "tokens": []}


def write_state(folder: Path, state: dict[str, Any]) -> None:
    """Write a state file whole: a temporary file beside it, flushed to disk, then moved over the old one."""
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{STATE_FILE}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(state, file, indent=1)
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, folder / STATE_FILE)


@contextmanager
def _changing(name: str, instance: Path | str | None, create: bool = False) -> Iterator[dict[str, Any]]:
    """The state to change, written back when the block ends without an error (nothing written otherwise)."""
    folder = teaching_folder(name, instance)
    with STATE_LOCK:
        state = read_state(name, instance)
        if state is None:
            if not create:
                raise LookupError(f"no deck named {name!r} is being taught")
            state = _new_state(name)
        yield state
        write_state(folder, state)


def _find(rows: list[dict[str, Any]], row_id: str) -> dict[str, Any]:
    for row in rows:
        if row["id"] == row_id:
            return row
    raise LookupError(row_id)


# ------------------------------------------------------------------ photos


def _plain_name(sent_as: str) -> str:
    """A phone's file name, shown on the page: its last part, printable, at most 60 characters."""
    name = sent_as.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(character for character in name if character.isprintable())[:60]


def photo_label(photo: dict[str, Any]) -> str:
    """How a photo is named to people: "Photo 2 (IMG_0412.jpg)"."""
    return f"Photo {photo['number']}" + (f" ({photo['sent_as']})" if photo.get("sent_as") else "")


def keep_photos(
    name: str, uploads: Sequence[Upload], instance: Path | str | None = None, token: str | None = None
) -> list[str] | None:
    """Store the photos of one upload, waiting to be read (``read_photo``); their ids. None: ``token``
    was used before (the same upload sent twice), so nothing is stored again. ValueError: the deck name."""
    check_new_deck_name(name, instance)
    folder = teaching_folder(name, instance)
    with _changing(name, instance, create=True) as state:
        if token and token in state["tokens"]:
            return None
        (folder / PHOTOS).mkdir(parents=True, exist_ok=True)
        ids = []
        for upload in uploads:
            number = max((photo["number"] for photo in state["photos"]), default=0) + 1
            photo_id = f"{number:03d}{secrets.token_hex(3)}"
            file = photo_id + SUFFIXES.get(upload.media_type, ".jpg")
            (folder / PHOTOS / file).write_bytes(upload.data)
            state["photos"].append(
                {
                    "id": photo_id,
                    "number": number,
                    "file": file,
                    "sent_as": _plain_name(upload.sent_as),
                    "state": "waiting",
                    "cards": 0,
                    "notes": [],
                    "added": _now(),
                }
            )
            ids.append(photo_id)
        if token:
            state["tokens"] = [*state["tokens"], token][-MOST_TOKENS:]
    return ids


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


CODE = re.compile(r"(?<![\w'])([A2-9TJQK][shdc])(?![\w'])")
PLACE = re.compile(r"\bx=(\d+) y=(\d+)")


def _photo_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of a photo as ``photo_cards`` reads it (upright, at most MAX_PHOTO_SIDE), from its header."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            width, height = image.size
            if image.getexif().get(0x0112, 1) in (5, 6, 7, 8):  # turned a quarter: upright it is the other way
                width, height = height, width
    except Exception:  # noqa: BLE001 - a photo Pillow cannot open gets no places, its note says why
        return None
    scale = min(1.0, MAX_PHOTO_SIDE / max(width, height, 1))
    return round(width * scale), round(height * scale)


def _place(match: re.Match[str], size: tuple[int, int] | None) -> str:
    """A point of the photo (``x=853 y=239``) in words: "the top left", "the middle", ..."""
    if size is None:
        return match.group(0)
    column = ("left", "middle", "right")[min(2, int(3 * int(match.group(1)) / max(size[0], 1)))]
    row = ("top", "middle", "bottom")[min(2, int(3 * int(match.group(2)) / max(size[1], 1)))]
    return "the middle of the photo" if row == column == "middle" else f"the {row} {column} of the photo"


def _for_people(
    text: str, photo: dict[str, Any], path: Path, whole: bool = True, size: tuple[int, int] | None = None
) -> str:
    """A note of ``table_cards`` or ``face_names`` as this page says it: the photo by its number (not the
    file it is kept in), cards as people write them (10♠), places in words (``size``: the photo's, as
    read), the web's advice instead of the command line's; ``whole``: as a sentence."""
    text = text.replace(LAY_THEM_OUT, LAY_THEM_OUT_HERE)
    text = PLACE.sub(lambda match: _place(match, size), text)
    text = text.replace("(check the faces in the preview)", "(check their faces on this page)")
    for kept_as in (str(path), path.name):
        text = text.replace(f"{kept_as} card ", f"photo {photo['number']} card ")
        if text.startswith(f"{kept_as}: "):
            text = f"{photo_label(photo)}: {text[len(kept_as) + 2 :]}"
        text = text.replace(kept_as, f"photo {photo['number']}")
    text = CODE.sub(lambda match: card_label(match.group(1)), text)
    return _sentence(text) if whole else text


def _face_features(face: dict[str, Any]) -> np.ndarray | None:
    return index_features([tuple(box) for box in face["index_boxes"]], (face["size"][0], face["size"][1]))


def _save_face_images(
    folder: Path, face_id: str, face: np.ndarray, boxes: Sequence[Sequence[float]] = (), doubted: bool = False
) -> None:
    """The face as found (PNG) and its small copy for the page (JPG), with the reader's index ``boxes`` on the
    face drawn on the small copy (red when the reader did not confirm them, ``doubted``)."""
    import cv2

    (folder / FACES).mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(folder / FACES / f"{face_id}.png"), face):
        raise OSError(f"could not write {folder / FACES / f'{face_id}.png'}")
    height, width = face.shape[:2]
    scale = THUMB_HEIGHT / height
    small = cv2.resize(face, (max(1, round(width * scale)), THUMB_HEIGHT), interpolation=cv2.INTER_AREA)
    for x0, y0, x1, y1 in boxes:
        colour = UNCONFIRMED_BGR if doubted else BOX_BGR
        cv2.rectangle(small, (int(x0 * scale), int(y0 * scale)), (int(x1 * scale) - 1, int(y1 * scale) - 1), colour, 2)
    cv2.imwrite(str(folder / FACES / f"{face_id}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 85])


def read_photo(
    name: str,
    photo_id: str,
    detector,
    instance: Path | str | None = None,
    lock: AbstractContextManager[Any] | None = None,
) -> PhotoRead | None:
    """Find and name the cards of one kept photo (``detector``: the reader, held under ``lock`` for this
    photo only) and keep its faces; None when it is read already or being read (another request).

    A photo that cannot be used (blurred, not decodable) or shows no card is said so in ``PhotoRead`` and
    in the state, and gives no face; notes (overlapping cards, cut off, an outline not seen) are kept."""
    folder = teaching_folder(name, instance)
    key = (str(folder), photo_id)
    with STATE_LOCK:
        state = read_state(name, instance)
        try:
            photo = _find(state["photos"], photo_id) if state is not None else None
        except LookupError:
            photo = None
        if state is None or photo is None or photo["state"] != "waiting" or key in _reading:
            return None
        _reading.add(key)
        known = [
            feature
            for face in state["faces"]
            if not face["left_out"] and not face["saved"]
            for feature in [_face_features(face)]
            if feature is not None
        ]
        known_corners = [
            {corner: (b[0], b[1], b[2], b[3]) for corner, b in face.get("corner_indices", {}).items()}
            for face in state["faces"]
            if not face["left_out"] and not face["saved"] and face.get("corner_indices")
        ]
    try:
        path = folder / PHOTOS / photo["file"]
        failed = ""
        cards: list = []
        notes: list[str] = []
        namings: list = []
        with lock if lock is not None else nullcontext():
            try:
                found = photo_cards(path, False, detector)
            except ImageError as error:
                failed = _for_people(str(error), photo, path)
            else:
                cards, notes = found.cards, list(found.notes)
                if cards:
                    taught = taught_index_features(user_decks_dir(instance) / name)
                    on_faces = taught_corner_indices(user_decks_dir(instance) / name) + known_corners
                    namings = name_found_cards(detector, cards, [*taught, *known], on_faces)
        size = _photo_size(path)
        said = [failed] if failed else [_for_people(note, photo, path, size=size) for note in notes]
        if not failed and not cards and not notes:
            said = [f"{photo_label(photo)}: no card was found in it; {LAY_THEM_OUT_HERE}."]
        faces = []
        for card, naming in zip(cards, namings, strict=True):
            face_id = f"{photo_id}-{card.number:02d}"
            doubted_boxes = any(doubt.startswith(INDEX_DOUBT) for doubt in naming.doubts)
            _save_face_images(folder, face_id, card.face, list(card.corner_indices.values()), doubted_boxes)
            label = f"photo {photo['number']}" + (f" card {card.number}" if card.quad is not None else "")
            faces.append(
                {
                    "id": face_id,
                    "photo": photo_id,
                    "label": label,
                    "codes": list(naming.codes),
                    "probabilities": [float(p) for p in naming.probabilities],
                    "sure": bool(naming.sure and naming.best is not None),
                    "doubts": [_for_people(doubt, photo, path, whole=False) for doubt in naming.doubts],
                    "odd": bool(naming.odd),
                    "name": naming.best,
                    "checked": False,
                    "left_out": False,
                    "saved": None,
                    "replaced": False,
                    "size": [int(card.face.shape[1]), int(card.face.shape[0])],
                    "index_boxes": [[round(float(v), 1) for v in box] for box in card.index_boxes],
                    # the reader's boxes on the face, as fractions of it (what later faces are judged against)
                    "corner_indices": {
                        corner: list(box)
                        for corner, box in as_fractions(
                            card.corner_indices, (card.face.shape[1], card.face.shape[0])
                        ).items()
                    },
                    "source": f"{PHOTOS}/{photo['file']}" + (f" card {card.number}" if card.quad is not None else ""),
                }
            )
        with STATE_LOCK:
            state = read_state(name, instance) or _new_state(name)
            photo = _find(state["photos"], photo_id)
            photo.update(state="failed" if failed else "read", cards=len(faces), notes=said, read=_now())
            state["faces"].extend(faces)
            write_state(folder, state)
    finally:
        with STATE_LOCK:
            _reading.discard(key)
    return PhotoRead(photo_label(photo), len(faces), sum(not face["sure"] for face in faces), tuple(said), failed)


def unread_photos(name: str, instance: Path | str | None = None) -> list[str]:
    """The photos kept but not read (the server stopped while reading them), not being read now."""
    folder = teaching_folder(name, instance)
    state = read_state(name, instance) or _new_state(name)
    with STATE_LOCK:
        return [
            photo["id"]
            for photo in state["photos"]
            if photo["state"] == "waiting" and (str(folder), photo["id"]) not in _reading
        ]


# ------------------------------------------------------------------ naming the faces


def change_face(
    name: str, face_id: str, action: str, code: str | None = None, instance: Path | str | None = None
) -> dict[str, Any]:
    """Change one face found and not saved: ``name`` it ``code`` (written any way ``canonical_code``
    reads: Th, 10h, 10♥), ``confirm`` the name it has, ``leave_out`` or ``put_back``. The face as it is
    now; ValueError (a sentence) for a name that is not a card; LookupError: no such deck or face."""
    if action not in ACTIONS:
        raise ValueError("choose what to do with the face from the page's buttons")
    if action == "name":
        if not (code or "").strip():
            raise ValueError("choose the card it is from the list")
        code = canonical_code(code or "")
    with _changing(name, instance) as state:
        face = _find(state["faces"], face_id)
        if face["saved"]:
            raise ValueError(
                f"{face['label']} is in the deck already; to change that card, photograph it again and save the new face"
            )
        if action == "name":
            face.update(name=code, checked=True, left_out=False)
        elif action == "confirm":
            if face["name"] is None:
                raise ValueError(f"the reader could not name {face['label']}; choose its card from the list")
            face["checked"] = True
        else:
            face["left_out"] = action == "leave_out"
        return dict(face)


def _pending(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [face for face in state["faces"] if not face["saved"]]


def _problems(state: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The faces whose name is still to check, and the names given to more than one face (name -> faces)."""
    active = [face for face in _pending(state) if not face["left_out"]]
    to_check = [face for face in active if face["name"] is None or not (face["sure"] or face["checked"])]
    counts = Counter(face["name"] for face in active if face["name"])
    twice = {code: [face for face in active if face["name"] == code] for code in CARD_CODES if counts.get(code, 0) > 1}
    return to_check, twice


def _blockers(to_check: list[dict[str, Any]], twice: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Why the faces cannot be saved yet, in sentences."""
    said = []
    if to_check:
        count = len(to_check)
        said.append(
            f"{count} name{'s are' if count != 1 else ' is'} still to check "
            f"({', '.join(face['label'] for face in to_check[:6])}{' …' if count > 6 else ''}): "
            "tap each face marked check and say whether its name is right, fix it or leave the face out."
        )
    for code, faces in twice.items():
        said.append(
            f"{len(faces)} faces are named {card_label(code)} ({', '.join(face['label'] for face in faces)}): "
            "a deck holds each card once, so fix the wrong one's name or leave it out."
        )
    return said


def teaching_view(name: str, instance: Path | str | None = None) -> dict[str, Any] | None:
    """What the teaching page of deck ``name`` shows; None when it is neither taught nor being taught."""
    folder = teaching_folder(name, instance)
    deck_folder = user_decks_dir(instance) / name
    state = read_state(name, instance)
    if state is None and not (deck_folder / "deck.json").is_file():
        return None
    state = state or _new_state(name)
    in_deck = [code for code in CARD_CODES if (deck_folder / f"{code}.png").is_file()]
    to_check, twice = _problems(state)
    checking = {face["id"] for face in to_check}
    doubled = {face["id"] for faces in twice.values() for face in faces}
    faces = [
        {
            **face,
            "to_check": face["id"] in checking,
            "twice": face["id"] in doubled,
            "replaces": not face["left_out"] and face["name"] in in_deck,
            "runners_up": [code for code in face["codes"][:3] if code != face["name"]][:2],
        }
        for face in _pending(state)
    ]
    named = {face["name"] for face in faces if not face["left_out"] and face["name"]}
    with STATE_LOCK:
        being_read = [photo for photo in state["photos"] if (str(folder), photo["id"]) in _reading]
    unread = [photo for photo in state["photos"] if photo["state"] == "waiting" and photo not in being_read]
    ready = [face for face in faces if not face["left_out"]]
    return {
        "name": name,
        "in_deck": in_deck,
        "complete": len(in_deck) == len(CARD_CODES),
        "check_photos": check_photos(user_decks_dir(instance) / name),
        "missing": [code for code in CARD_CODES if code not in in_deck and code not in named],
        "faces": faces,
        "ready": len(ready),
        "left_out": len(faces) - len(ready),
        "to_check": len(to_check),
        "twice": {code: [face["label"] for face in group] for code, group in twice.items()},
        "blockers": _blockers(to_check, twice),
        "saved_here": [face for face in state["faces"] if face["saved"] and not face["replaced"]],
        "photos": [
            {**photo, "label": photo_label(photo), "said": _said_after_label(photo)} for photo in state["photos"]
        ],
        "being_read": [photo_label(photo) for photo in being_read],
        "unread": [photo_label(photo) for photo in unread],
    }


def _said_after_label(photo: dict[str, Any]) -> list[str]:
    """A photo's notes without its label in front (the page lists them under it)."""
    label = f"{photo_label(photo)}: "
    return [_sentence(note[len(label) :]) if note.startswith(label) else note for note in photo["notes"]]


def face_image(name: str, face_id: str, small: bool, instance: Path | str | None = None) -> Path | None:
    """The file of a face found (``small``: its copy for the page); None when there is no such face."""
    state = read_state(name, instance)
    try:
        face = _find(state["faces"], face_id) if state is not None else None
    except LookupError:
        return None
    if face is None:
        return None
    path = teaching_folder(name, instance) / FACES / f"{face['id']}.{'jpg' if small else 'png'}"
    return path if path.is_file() else None


# ------------------------------------------------------------------ saving the deck


def save_faces(name: str, instance: Path | str | None = None) -> dict[str, Any]:
    """Write the faces named here and not saved yet (left-out faces stay out) into taught deck ``name``
    with ``teach_deck.write_named_faces``, and mark them saved. ValueError (sentences) while a name is to
    check or given to two faces; nothing new to save: ``written`` 0 (a second tap on Save)."""
    import cv2

    folder = teaching_folder(name, instance)
    with SAVE_LOCK:
        with STATE_LOCK:
            state = read_state(name, instance)
            if state is None:
                raise LookupError(f"no deck named {name!r} is being taught")
            blockers = _blockers(*_problems(state))
            if blockers:
                raise ValueError(" ".join(blockers))
            ready = [dict(face) for face in _pending(state) if not face["left_out"]]
        if not ready:
            return {"written": 0, "replaced": [], **_deck_status(name, instance)}
        named = []
        for face in ready:
            image = cv2.imread(str(folder / FACES / f"{face['id']}.png"), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"the face of {face['label']} is missing from {folder / FACES}; photograph it again")
            boxes = tuple((float(x0), float(y0), float(x1), float(y1)) for x0, y0, x1, y1 in face["index_boxes"])
            height, width = image.shape[:2]
            on_face = {
                corner: (x0 * width, y0 * height, x1 * width, y1 * height)
                for corner, (x0, y0, x1, y1) in face.get("corner_indices", {}).items()
            }
            named.append(NamedFace(face["name"], image, f"teaching/{name}/{face['source']}", boxes, on_face))
        written = write_named_faces(name, named, instance)
        stamp = _now()
        with _changing(name, instance) as state:
            names = {face["id"]: face["name"] for face in ready}
            for face in state["faces"]:
                if face["saved"] and face["name"] in names.values():
                    face["replaced"] = True
            for face in state["faces"]:
                if face["id"] in names and not face["saved"] and face["name"] == names[face["id"]]:
                    face["saved"] = stamp
    return {"written": len(named), "replaced": written["replaced"], **_deck_status(name, instance)}


def _deck_status(name: str, instance: Path | str | None) -> dict[str, Any]:
    folder = user_decks_dir(instance) / name
    present = [code for code in CARD_CODES if (folder / f"{code}.png").is_file()]
    return {"faces": len(present), "missing": [code for code in CARD_CODES if code not in present]}


def decks_overview(instance: Path | str | None = None) -> list[dict[str, Any]]:
    """Every taught deck and deck being taught: name, faces in the deck, complete, missing, when updated,
    and the faces found on the web page and not saved yet (``pending``, of which ``to_check``)."""
    taught = {deck["name"]: deck for deck in list_taught_decks(instance)}
    root = teaching_dir(instance)
    being_taught = sorted(
        path.name
        for path in (root.iterdir() if root.is_dir() else ())
        if DECK_NAME.fullmatch(path.name) and (path / STATE_FILE).is_file()
    )
    rows = []
    for name in sorted({*taught, *being_taught}):
        deck = taught.get(name) or {
            "name": name,
            "faces": 0,
            "complete": False,
            "missing": list(CARD_CODES),
            "updated": "",
        }
        pending = to_check = 0
        if name in being_taught:
            try:
                state = read_state(name, instance)
            except ValueError:
                state = None
            if state is not None:
                pending = sum(not face["left_out"] for face in _pending(state))
                to_check = len(_problems(state)[0])
        rows.append({**deck, "pending": pending, "to_check": to_check})
    return rows
