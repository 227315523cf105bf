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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from engine.cards import CARD_CODES
from vision.detections import canonical_code
from vision.reading import ImageError
from vision.training.userdata import check_deck_name, user_decks_dir

CHECK = "check"


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
        code = canonical_code(answer)
    except (KeyError, ValueError):
        return None
    return code if code in CARD_CODES else None


def add_check_photo(
    name: str,
    photo: Path,
    *,
    detector,
    ask: Callable[[str], str] | None,
    instance: Path | str | None = None,
    out: TextIO | None = None,
) -> dict[str, Any]:
    """Read a spread of taught deck ``name`` with the reader, have the user confirm or fix every card
    (``ask``; None: the reading is taken as read, for scripts whose photos are known), and keep it as one
    check photo. ValueError / ImageError (sentences): no such taught deck, an unreadable photo, no card read,
    one card named twice. Returns the cards kept, those fixed and those the user said the reader missed."""
    import cv2

    from vision.decode import decode_image
    from vision.recognise import recognise

    check_deck_name(name)
    deck = user_decks_dir(instance) / name
    if not (deck / "deck.json").is_file():
        raise ValueError(
            f"no taught deck named {name!r}; teach it first with 'ginscore deck add {name} PHOTOS...', then check "
            "it with a photo of a spread of it in play"
        )
    image = decode_image(photo, name=str(photo))
    reading = recognise(image.pixels, detector=detector, name=photo.name).reading
    if not reading.cards:
        raise ImageError(
            f"{photo.name}: the reader read no card in it; photograph a spread of the {name} deck in play, from "
            "above, in good light"
        )
    kept: list[tuple[str, Any]] = []
    fixed: list[tuple[str, str]] = []
    for number, card in enumerate(reading.cards, start=1):
        code = card.card
        if ask is not None:
            while True:
                unsure = " (the reader is unsure)" if card.to_check else ""
                answer = ask(
                    f"card {number} of {len(reading.cards)}: read {code}{unsure}; Enter if right, else the right card "
                    "(e.g. Jd), or - if it is no card: "
                )
                said = code if not answer.strip() else _said_card(answer)
                if said is not None:
                    break
                print(f"{answer.strip()!r} is not a card: write rank and suit (e.g. Ts, Ah, 9c) or -", file=out)
            if said != code:
                fixed.append((code, said or "no card"))
            code = said
        if code:
            kept.append((code, card))
    codes = [code for code, _ in kept]
    twice = sorted({code for code in codes if codes.count(code) > 1}, key=CARD_CODES.index)
    if twice:
        raise ValueError(
            f"{' '.join(twice)} {'is' if len(twice) == 1 else 'are'} named on two cards; a deck holds each card "
            "once: check the photo again ('ginscore deck check' asks about every card)"
        )
    missed: list[str] = []
    if ask is not None:
        answer = ask("cards the reader missed, if any (e.g. 7c Kd), else Enter: ")
        missed = [c for c in (_said_card(word) for word in answer.split()) if c and c not in codes]
    folder = check_folder(name, instance)
    for sub in ("images", "labels", "notes"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    stem = f"check_{time.strftime('%Y%m%d-%H%M%S')}_{check_photos(folder.parent) + 1:02d}"
    cv2.imwrite(str(folder / "images" / f"{stem}.jpg"), image.pixels, [cv2.IMWRITE_JPEG_QUALITY, 95])
    height, width = image.pixels.shape[:2]
    lines = []
    for code, card in kept:
        for x0, y0, x1, y1 in card.boxes:
            cx, cy, w, h = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height, (x1 - x0) / width, (y1 - y0) / height
            lines.append(f"{CARD_CODES.index(code)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    (folder / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    note = {"photo": str(photo), "cards": codes, "fixed": fixed, "missed": missed}
    (folder / "notes" / f"{stem}.json").write_text(json.dumps(note, indent=1) + "\n")
    return {"deck": name, "stem": stem, "folder": str(folder), **note, "photos": check_photos(folder.parent)}
