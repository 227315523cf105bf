"""The photos a taught deck is judged by: spreads of the deck in play, never used to teach it, whose reading the
user confirms (``ginscore deck check NAME PHOTO``).

A retrain that learns a taught deck measures the reader on these photos before and after, beside real-val and
real-clutter (``retrain.decide``): teaching must buy something on the deck it taught. They are kept in the
deck's folder as an evaluation folder, the layout of ``datasets/real/real-val``::

    instance/decks/NAME/check/classes.txt        the 52 card codes
    instance/decks/NAME/check/images/<n>.jpg     the photo, upright as read
    instance/decks/NAME/check/labels/<n>.txt     YOLO boxes: each card's corner-index boxes as the reader found
                                                 them, with the card the user confirmed
    instance/decks/NAME/check/notes/<n>.json     the photo's name, the cards the reader missed (named by the
                                                 user; they have no box and are not counted), what was fixed
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from engine.cards import CARD_CODES
from vision.detections import canonical_code
from vision.reading import ImageError
from vision.training.examples import yolo_line
from vision.training.userdata import check_deck_name, user_decks_dir

CHECK = "check"
PENDING = "pending"  # check/pending/<id>/: a photo read and not yet confirmed (photo.jpg, reading.json)
SHOWN = "shown.jpg"  # the pending photo as the page shows it: small, each card's boxes numbered
SHOWN_SIDE = 1280
PENDING_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}")


def check_folder(name: str, instance: Path | str | None = None) -> Path:
    """Where a taught deck's check photos are kept (it may not exist yet)."""
    return user_decks_dir(instance) / name / CHECK


def check_photos(folder: Path) -> int:
    """How many check photos a deck folder holds."""
    images = folder / CHECK / "images"
    return sum(1 for _ in images.glob("*.jpg")) if images.is_dir() else 0


def _said_card(answer: str) -> str | None:
    """A card code from what the user typed, '' for "no card" ('-'); None when it is not a card."""
    answer = answer.strip()
    if answer == "-":
        return ""
    try:
        return canonical_code(answer)
    except ValueError:
        return None


def _taught_deck(name: str, instance: Path | str | None) -> Path:
    check_deck_name(name)
    deck = user_decks_dir(instance) / name
    if not (deck / "deck.json").is_file():
        raise ValueError(
            f"no taught deck named {name!r}; teach it first with 'ginscore deck add {name} PHOTOS...', then check "
            "it with a photo of a spread of it in play"
        )
    return deck


def numbered(pixels, boxes_of_cards: Sequence[Sequence[Sequence[float]]]):
    """The photo at most ``SHOWN_SIDE`` px, each card's corner boxes drawn and numbered 1, 2, ... as the page asks."""
    import cv2

    scale = min(1.0, SHOWN_SIDE / max(pixels.shape[:2]))
    shown = cv2.resize(pixels, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else pixels.copy()
    thick = max(2, round(max(shown.shape[:2]) / 400))
    for number, boxes in enumerate(boxes_of_cards, start=1):
        for x0, y0, x1, y1 in boxes:
            top_left, bottom_right = (int(x0 * scale), int(y0 * scale)), (int(x1 * scale), int(y1 * scale))
            cv2.rectangle(shown, top_left, bottom_right, (0, 140, 255), thick)
            where = (top_left[0], max(top_left[1] - 2 * thick, 26 * thick))
            for colour, width in (((255, 255, 255), 3 * thick), ((0, 90, 200), thick)):
                cv2.putText(
                    shown, str(number), where, cv2.FONT_HERSHEY_SIMPLEX, 0.8 * thick, colour, width, cv2.LINE_AA
                )
    return shown


def read_check_photo(
    name: str, photo: Path | bytes, *, detector, instance: Path | str | None = None, label: str = ""
) -> dict[str, Any]:
    """Read a spread of taught deck ``name`` (a file or its bytes) and keep it, with the reading, until the user
    confirms it (``confirm_check_photo``). Returns the pending check: its id and the cards read (code, whether
    the reader is unsure). ValueError / ImageError (sentences): no such taught deck, an unreadable photo, no card."""
    import cv2

    from vision.decode import decode_image
    from vision.recognise import recognise

    _taught_deck(name, instance)
    label = label or (photo.name if isinstance(photo, Path) else "the photo")
    image = decode_image(photo, name=label)
    reading = recognise(image.pixels, detector=detector, name=label).reading
    if not reading.cards:
        raise ImageError(
            f"{label}: the reader read no card in it; photograph a spread of the {name} deck in play, from above, "
            "in good light"
        )
    pending_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    folder = check_folder(name, instance) / PENDING / pending_id
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "photo.jpg"), image.pixels, [cv2.IMWRITE_JPEG_QUALITY, 95])
    cv2.imwrite(str(folder / SHOWN), numbered(image.pixels, [card.boxes for card in reading.cards]))
    cards = [
        {"card": card.card, "unsure": card.to_check, "boxes": [[round(float(v), 1) for v in box] for box in card.boxes]}
        for card in reading.cards
    ]
    pending = {"id": pending_id, "photo": label, "cards": cards}
    (folder / "reading.json").write_text(json.dumps(pending, indent=1) + "\n")
    return pending


def pending_check(name: str, pending_id: str, instance: Path | str | None = None) -> dict[str, Any] | None:
    """A check photo read and not yet confirmed (None: no such one)."""
    if not PENDING_ID.fullmatch(pending_id):
        return None
    path = check_folder(name, instance) / PENDING / pending_id / "reading.json"
    return json.loads(path.read_text()) if path.is_file() else None


def confirm_check_photo(
    name: str,
    pending_id: str,
    answers: Sequence[str],
    missed: Sequence[str] = (),
    instance: Path | str | None = None,
) -> dict[str, Any]:
    """Keep a pending check photo with the cards the user confirmed: ``answers``, one a card read, each a card
    code or "" (no card); ``missed``: cards the reader missed (not counted: they have no box). ValueError
    (sentences): no such pending photo, an answer that is not a card, one card named twice."""
    import shutil

    pending = pending_check(name, pending_id, instance)
    if pending is None:
        raise ValueError("that check photo is not waiting to be confirmed any more; send the photo again")
    if len(answers) != len(pending["cards"]):
        raise ValueError(f"give an answer for each of the {len(pending['cards'])} cards read (a card, or - for none)")
    kept, fixed = [], []
    for number, (read, answer) in enumerate(zip(pending["cards"], answers, strict=True), start=1):
        said = _said_card(answer) if answer.strip() else ""
        if said is None:
            raise ValueError(f"card {number}: {answer.strip()!r} is not a card; write rank and suit (e.g. Ts, Ah, 9c)")
        if said != read["card"]:
            fixed.append((read["card"], said or "no card"))
        if said:
            kept.append((said, read["boxes"]))
    codes = [code for code, _ in kept]
    twice = sorted({code for code in codes if codes.count(code) > 1}, key=CARD_CODES.index)
    if twice:
        raise ValueError(
            f"{' '.join(twice)} {'is' if len(twice) == 1 else 'are'} named on two cards; a deck holds each card "
            "once: fix one of them"
        )
    said_missed = [_said_card(word) for word in missed]
    if any(code is None for code in said_missed):
        raise ValueError("the cards the reader missed: write each as rank and suit (e.g. 7c Kd)")
    folder = check_folder(name, instance)
    for sub in ("images", "labels", "notes"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    stem = f"check_{pending_id}"
    source = folder / PENDING / pending_id
    import cv2

    image = cv2.imread(str(source / "photo.jpg"))
    if image is None:
        raise ValueError("that check photo's file is missing; send the photo again")
    height, width = image.shape[:2]
    lines = [yolo_line(code, box, width, height) for code, boxes in kept for box in boxes]
    (folder / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    note = {
        "photo": pending["photo"],
        "cards": codes,
        "fixed": fixed,
        "missed": [code for code in said_missed if code and code not in codes],
    }
    (folder / "notes" / f"{stem}.json").write_text(json.dumps(note, indent=1) + "\n")
    shutil.move(str(source / "photo.jpg"), str(folder / "images" / f"{stem}.jpg"))  # the last step: now it counts
    shutil.rmtree(source, ignore_errors=True)
    return {"deck": name, "stem": stem, "folder": str(folder), **note, "photos": check_photos(folder.parent)}


def add_check_photo(
    name: str,
    photo: Path,
    *,
    detector,
    ask: Callable[[str], str] | None,
    instance: Path | str | None = None,
    out: TextIO | None = None,
) -> dict[str, Any]:
    """``ginscore deck check``: read a spread of taught deck ``name``, have the user confirm or fix every card at
    the prompt (``ask``; None: the reading is taken as read, for photos known right) and keep it."""
    pending = read_check_photo(name, photo, detector=detector, instance=instance)
    answers = []
    for number, card in enumerate(pending["cards"], start=1):
        code = card["card"]
        if ask is None:
            answers.append(code)
            continue
        while True:
            unsure = " (the reader is unsure)" if card["unsure"] else ""
            answer = ask(
                f"card {number} of {len(pending['cards'])}: read {code}{unsure}; Enter if right, else the right card "
                "(e.g. Jd), or - if it is no card: "
            )
            said = code if not answer.strip() else _said_card(answer)
            if said is not None:
                break
            print(f"{answer.strip()!r} is not a card: write rank and suit (e.g. Ts, Ah, 9c) or -", file=out)
        answers.append(said)
    missed = ask("cards the reader missed, if any (e.g. 7c Kd), else Enter: ").split() if ask is not None else []
    missed = [word for word in missed if _said_card(word)]
    return confirm_check_photo(name, pending["id"], answers, missed, instance)
