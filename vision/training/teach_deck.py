"""``ginscore deck add NAME PHOTOS...``: teach the reader the players' own deck from photos of its cards.

1. Each photo is either an already straightened face (the card fills a card-shaped image) or cards
   lying apart on a table (one card, or rows of cards, 1-3 cm apart or touching, not overlapping).
   ``vision.training.table_cards`` finds the cards: the reader's corner indices place each card, its
   outline refines it where it shows against the table, and each card is straightened to an upright
   face, 340 px high like the library's. What it leaves out (overlapping cards, a blurred photo) is
   said in words.
2. The current reader names each face: the corner indices it read in the photo, and
   ``vision.training.corner_finder``'s boxes of the straightened face's two corner indices read by the
   classifier; faces and cards are then matched one to one (a deck holds each card once). A name is
   sure when both readings agree surely; two faces of one name, and faces unlike the deck's others (a
   card of another deck?), are never sure.
3. The user confirms or corrects the names the reader is unsure of (``--check-all``: every name;
   ``--yes`` takes the reader's, leaving out second faces of one name and faces unlike the others).
4. The faces are written as a deck in the ``datasets/decks`` format (52 RGBA PNGs with rounded
   corners + ``deck.json`` with the index boxes found by the same corner finder) into
   ``instance/decks/NAME`` by ``write_named_faces``, which the web app's "Teach your deck" calls too
   (``vision.training.teaching``); ``ginscore synth --deck NAME`` renders scenes with it and
   ``ginscore retrain`` mixes it into its scenes. A deck can be taught in several runs (a face of the
   same name is replaced, the old one kept in ``replaced/``); it is used once it has all 52 faces.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.cards import CARD_CODES
from vision.detections import canonical_code
from vision.detector import load_detector
from vision.reading import ImageError
from vision.training.corner_finder import find_deck_indices, round_corners, save_png
from vision.training.face_indices import as_fractions, box_fractions, deck_indices
from vision.training.face_names import CORNERS, Naming, index_features, name_found_cards
from vision.training.synth.decks import DATASETS
from vision.training.table_cards import CARD_RATIO, FACE_HEIGHT, LAY_THEM_OUT, Box, FoundCard, photo_cards
from vision.training.table_cards import cards_in_photo as cards_in_photo  # where callers found it before
from vision.training.userdata import check_deck_name, find_deck_folder, user_decks_dir

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".bmp")
REPLACED = "replaced"  # sub-folder of a taught deck keeping the faces a later run replaced


# ------------------------------------------------------------------ faces


def to_rgba_face(face_bgr: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A BGR face as the library stores it: RGBA of ``size`` (width, height), corners rounded off."""
    import cv2

    width, height = size
    if face_bgr.shape[:2] != (height, width):
        face_bgr = cv2.resize(face_bgr, (width, height), interpolation=cv2.INTER_AREA)
    rgba = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2RGBA)
    return round_corners(rgba, radius=max(2, round(0.05 * width)))


# ------------------------------------------------------------------ asking the user


def _said(naming: Naming) -> str:
    suggestion = naming.best
    if suggestion is None:
        return "could not read it"
    others = ", ".join(f"{c} {p:.2f}" for c, p in zip(naming.codes[1:4], naming.probabilities[1:4], strict=True))
    return f"reads {suggestion} ({naming.probabilities[0]:.2f})" + (f"; else {others}" if others else "")


def to_ask(namings: list[Naming], ask_all: bool = False) -> list[int]:
    """The faces the user is asked about: those whose name is not sure (``ask_all``: every face)."""
    return [i for i, naming in enumerate(namings) if ask_all or not naming.sure or naming.best is None]


def confirm_names(
    cards: list[FoundCard],
    namings: list[Naming],
    ask: Callable[[str], str] | None,
    taken: Set[str] = frozenset(),
    out=None,
    ask_all: bool = False,
) -> dict[int, str]:
    """Face number -> card code, confirmed or corrected by the user.

    Sure names (``Naming.sure``) are taken without asking (``ask_all``: every name is asked). At each
    prompt: Enter accepts the reader's name, a card code (``Th``, ``10h``) corrects it, ``-`` leaves the
    face out; a code given twice is asked again. ``ask`` None (``--yes``): the reader's names are taken,
    but a second face of one name and a face unlike the deck's others are left out (and said so)."""

    out = out or sys.stdout
    chosen: dict[int, str] = {}
    if ask is None:
        for i, naming in enumerate(namings):
            suggestion = naming.best
            if suggestion is None or suggestion in chosen.values():
                continue
            if naming.duplicate_of is not None or naming.odd or naming.probabilities[0] < 0.3:
                print(f"left out {cards[i].label}: {'; '.join(naming.doubts)} (run without --yes to name it)", file=out)
                continue
            chosen[i] = suggestion
        unsure = [i for i in chosen if not namings[i].sure]
        if unsure:
            print(
                f"{len(unsure)} name{'s' if len(unsure) != 1 else ''} the reader was unsure of, taken as read "
                f"(--yes): {', '.join(f'{cards[i].label} {chosen[i]}' for i in unsure)}; check them in the preview",
                file=out,
            )
        return chosen
    asked = to_ask(namings, ask_all)
    for i in (i for i in range(len(cards)) if i not in asked):
        chosen[i] = namings[i].best  # type: ignore[assignment]  # a sure naming has a name
    if len(asked) < len(cards):
        print(
            f"{len(cards) - len(asked)} of {len(cards)} faces named surely by the reader"
            + (f"; asking about the other {len(asked)}:" if asked else "."),
            file=out,
        )
    for k, i in enumerate(asked):
        card, naming = cards[i], namings[i]
        suggestion = naming.best
        why = f" ({'; '.join(naming.doubts)})" if naming.doubts and not ask_all else ""
        while True:
            answer = ask(
                f"[{k + 1}/{len(asked)}] {card.label}: {_said(naming)}{why}. Enter = "
                f"{suggestion or 'skip'}, or type the card (e.g. Th), '-' to leave it out: "
            ).strip()
            if answer == "-" or (not answer and suggestion is None):
                break
            try:
                code = suggestion if not answer else canonical_code(answer)
            except ValueError as error:
                print(f"  {error}", file=out)
                continue
            assert code is not None  # an empty answer without a suggestion left the loop above
            if code in chosen.values():
                holder = next(cards[j].label for j, c in chosen.items() if c == code)
                print(f"  {code} is already given to {holder}; type another card or '-'", file=out)
                continue
            chosen[i] = code
            break
    return chosen


def stdin_ask(prompt: str) -> str:
    """One answer from the terminal (EOFError when there is no one to answer)."""
    return input(prompt)


# ------------------------------------------------------------------ writing the deck


def _read_face_png(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA")).copy()


def write_deck(
    folder: Path,
    name: str,
    faces: dict[str, np.ndarray],
    sources: dict[str, str],
    reader_boxes: dict[str, list[list[float]]] | None = None,
    corner_indices: Mapping[str, Mapping[str, Box]] | None = None,
) -> dict:
    """Add RGBA faces (code -> face) to a taught deck folder; (re)write its deck.json; return the json.

    ``reader_boxes``: where the reader saw each new face's corner indices in its photo (fractions of the
    face; ``reader_index_regions`` in deck.json, what ``odd_faces`` compares later faces with).
    ``corner_indices``: the reader's boxes on each new straightened face, by corner (fractions of the face;
    ``reader_corner_indices``): the faces that have them get their ``index_regions`` from them, one box at
    each corner of the deck's layout (``face_indices.deck_indices``; the corners it did not confirm in
    ``unconfirmed_indices``); the others from the corner finder. A face already taught that a new one
    replaces is kept in ``replaced/<date-time>/`` of the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    meta_path = folder / "deck.json"
    old = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    keep = folder / REPLACED / time.strftime("%Y%m%d-%H%M%S")
    for code, face in faces.items():
        path = folder / f"{code}.png"
        if path.is_file():
            keep.mkdir(parents=True, exist_ok=True)
            path.replace(keep / path.name)
        save_png(face, path)
    present = {
        code: _read_face_png(folder / f"{code}.png") for code in CARD_CODES if (folder / f"{code}.png").is_file()
    }
    read_on_face = {
        **{c: b for c, b in old.get("reader_corner_indices", {}).items() if c not in faces},
        **{c: dict(b) for c, b in (corner_indices or {}).items()},
    }
    if any(read_on_face.values()):  # the reader read the faces: a face it found no index on gets the deck's boxes
        read_on_face = {code: read_on_face.get(code, {}) for code in CARD_CODES if code in present}
    else:
        read_on_face = {}
    layout = deck_indices(read_on_face, {code: (1, 1) for code in read_on_face})
    regions: dict[str, list[list[float]]] = {
        code: [[round(float(v), 4) for v in box] for box in boxes] for code, boxes in layout.boxes.items()
    }
    by_finder = {code: face for code, face in present.items() if code not in regions}
    for code, boxes in find_deck_indices(by_finder, CORNERS, {}).items() if by_finder else ():
        size = (by_finder[code].shape[1], by_finder[code].shape[0])
        regions[code] = [list(box_fractions(box, size)) for box in boxes]
    photo_of = {**old.get("photos", {}), **sources}
    seen_at = {
        **{c: b for c, b in old.get("reader_index_regions", {}).items() if c not in faces},
        **(reader_boxes or {}),
    }
    meta = {
        "name": name,
        "source": "photographs of the players' own cards (ginscore deck add)",
        "license": "the players' own photos; not for redistribution",
        "split": "train",
        "taught": True,
        "faces": len(present),
        "missing": [code for code in CARD_CODES if code not in present],
        "updated": time.strftime("%Y-%m-%d %H:%M"),
        "corners": list(layout.corners) if read_on_face else list(CORNERS),
        "index_regions": {code: regions[code] for code in CARD_CODES if code in regions},
        "photos": {code: photo_of[code] for code in CARD_CODES if code in photo_of and code in present},
        "reader_index_regions": {code: seen_at[code] for code in CARD_CODES if code in seen_at and code in present},
        "reader_corner_indices": {code: {c: list(b) for c, b in boxes.items()} for code, boxes in read_on_face.items()},
        "unconfirmed_indices": {code: list(corners) for code, corners in layout.unconfirmed.items()},
    }
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def taught_corner_indices(folder: Path) -> list[dict[str, Box]]:
    """The reader's corner boxes on the faces of a taught deck (fractions of the face), as ``write_deck`` kept
    them: what a new face's boxes are judged against (``face_indices.index_doubts``)."""
    meta_path = folder / "deck.json"
    if not meta_path.is_file():
        return []
    stored = json.loads(meta_path.read_text()).get("reader_corner_indices", {})
    return [{corner: (box[0], box[1], box[2], box[3]) for corner, box in boxes.items()} for boxes in stored.values()]


def taught_index_features(folder: Path) -> list[np.ndarray]:
    """``index_features`` of a taught deck's faces, from where the reader saw their indices when taught."""
    meta_path = folder / "deck.json"
    if not meta_path.is_file():
        return []
    meta = json.loads(meta_path.read_text())
    found = []
    for code, regions in meta.get("reader_index_regions", {}).items():
        path = folder / f"{code}.png"
        if not path.is_file() or not regions:
            continue
        height, width = _read_face_png(path).shape[:2]
        boxes = [(x0 * width, y0 * height, x1 * width, y1 * height) for x0, y0, x1, y1 in regions]
        feature = index_features(boxes, (width, height))
        if feature is not None:
            found.append(feature)
    return found


def deck_face_size(folder: Path, new_faces: list[np.ndarray]) -> tuple[int, int]:
    """(width, height) every face of a deck gets: the existing faces' size, else the new faces' median."""
    existing = sorted(folder.glob("*.png")) if folder.is_dir() else []
    for path in existing:
        if path.stem in CARD_CODES:
            face = _read_face_png(path)
            return face.shape[1], face.shape[0]
    widths = [face.shape[1] * FACE_HEIGHT / face.shape[0] for face in new_faces]
    return int(round(np.median(widths))) if widths else int(round(FACE_HEIGHT * CARD_RATIO)), FACE_HEIGHT


def complete_deck_folder(
    name: str, instance: Path | str | None = None, datasets_root: Path | str | None = None
) -> Path:
    """The folder of a deck with all 52 faces (taught or from the library); a clear error otherwise."""
    folder = find_deck_folder(name, instance, datasets_root)
    missing = [code for code in CARD_CODES if not (folder / f"{code}.png").is_file()]
    if missing:
        raise ValueError(
            f"deck {name!r} has {52 - len(missing)} of 52 faces (missing {' '.join(missing[:8])}"
            f"{' ...' if len(missing) > 8 else ''}); add them with 'ginscore deck add {name} PHOTOS...'"
        )
    return folder


def list_taught_decks(instance: Path | str | None = None) -> list[dict]:
    """The taught decks of an instance folder: name, faces, missing cards, when updated."""
    root = user_decks_dir(instance)
    decks = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        meta_path = folder / "deck.json"
        if not meta_path.is_file():
            continue
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError:
            continue
        faces = sum((folder / f"{code}.png").is_file() for code in CARD_CODES)
        decks.append(
            {
                "name": folder.name,
                "faces": faces,
                "complete": faces == 52,
                "folder": str(folder),
                "missing": [c for c in CARD_CODES if not (folder / f"{c}.png").is_file()],
                "updated": meta.get("updated", ""),
            }
        )
    return decks


BOX_BGR = (0, 200, 255)  # the preview's index boxes: orange, or red on a face whose boxes the reader did not confirm
UNCONFIRMED_BGR = (40, 40, 240)


def write_preview(folder: Path, columns: int = 13) -> Path:
    """``preview.png`` in the deck folder: every face with its name and index boxes, to check by eye (red: the
    reader did not confirm the face's boxes)."""
    import cv2

    meta = json.loads((folder / "deck.json").read_text())
    tiles = []
    for code in CARD_CODES:
        path = folder / f"{code}.png"
        tile = np.full((190, 130, 3), 40, np.uint8)
        if path.is_file():
            face = cv2.cvtColor(_read_face_png(path), cv2.COLOR_RGBA2BGR)
            height, width = face.shape[:2]
            scale = 170 / height
            small = cv2.resize(face, (int(width * scale), 170), interpolation=cv2.INTER_AREA)
            doubted = bool(meta.get("unconfirmed_indices", {}).get(code))
            for x0, y0, x1, y1 in meta["index_regions"].get(code, []):
                cv2.rectangle(
                    small,
                    (int(x0 * small.shape[1]), int(y0 * 170)),
                    (int(x1 * small.shape[1]) - 1, int(y1 * 170) - 1),
                    UNCONFIRMED_BGR if doubted else BOX_BGR,
                    1,
                )
            tile[:170, : min(130, small.shape[1])] = small[:, :130]
        cv2.putText(tile, code, (4, 186), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(tile)
    rows = [np.hstack(tiles[r : r + columns]) for r in range(0, len(tiles), columns)]
    path = folder / "preview.png"
    cv2.imwrite(str(path), np.vstack(rows))
    return path


def check_new_deck_name(name: str, instance: Path | str | None = None, datasets_root: Path | str | None = None) -> str:
    """A name a taught deck can have: valid as a folder name, and not a library deck's (which it would hide)."""
    check_deck_name(name)
    library = Path(datasets_root or DATASETS) / "decks" / name
    if (library / "deck.json").is_file() and not (user_decks_dir(instance) / name / "deck.json").is_file():
        raise ValueError(
            f"deck name {name!r} is taken by a deck of the card art library ({library}); "
            f"give your deck another name (e.g. my_{name})"
        )
    return name


def _photo_files(photos: list[Path]) -> list[Path]:
    """The photo files of the arguments: files as given, and the photos inside folders."""
    files = []
    for photo in map(Path, photos):
        if photo.is_dir():
            inner = sorted(p for p in photo.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not inner:
                raise FileNotFoundError(f"{photo} holds no photos ({', '.join(IMAGE_SUFFIXES)})")
            files.extend(inner)
        elif not photo.exists():
            raise FileNotFoundError(f"{photo}: no such photo")
        else:
            files.append(photo)
    return files


def _fractions(face: np.ndarray, index_boxes: Sequence[Box]) -> list[list[float]]:
    """The reader's index boxes of a face (face pixels) as fractions of the face (x0, y0, x1, y1)."""
    return [list(box_fractions(box, (face.shape[1], face.shape[0]))) for box in index_boxes]


@dataclass(frozen=True, eq=False)
class NamedFace:
    """A face the user named, to be written into a taught deck: the straightened card (BGR, upright, as
    ``table_cards`` found it), its card code, where it came from (``deck.json``'s ``photos``) and the
    reader's corner-index boxes on it (face pixels; empty: none)."""

    code: str
    face: np.ndarray
    source: str
    index_boxes: tuple[Box, ...] = ()
    corner_indices: Mapping[str, Box] = field(default_factory=dict)  # the reader's boxes on the face, by corner


def write_named_faces(
    name: str,
    faces: Sequence[NamedFace],
    instance: Path | str | None = None,
    sizes_from: Sequence[np.ndarray] | None = None,
) -> dict:
    """Write named faces into taught deck ``name``: the one writer of ``ginscore deck add`` and of the web
    app's "Teach your deck". Each face becomes the library's RGBA face (rounded corners) at the deck's face
    size (the faces already taught, else the median of ``sizes_from``, default the faces given); a face of
    a name the deck already has replaces it (the old one kept in ``replaced/``); ``deck.json`` and
    ``preview.png`` are rewritten. ValueError: no face, a name that is not a card or given twice, a deck
    name that cannot be one. Returns the folder, deck.json, the codes replaced and the preview."""
    check_new_deck_name(name, instance)
    if not faces:
        raise ValueError("no face was named; nothing written")
    seen: set[str] = set()
    for named in faces:
        if named.code not in CARD_CODES:
            raise ValueError(f"{named.code!r} is not a card code (write rank and suit, e.g. Ts, Ah, 9c)")
        if named.code in seen:
            raise ValueError(f"two faces are named {named.code}; a deck holds each card once")
        seen.add(named.code)
    folder = user_decks_dir(instance) / name
    already = {code for code in CARD_CODES if (folder / f"{code}.png").is_file()}
    size = deck_face_size(folder, list(sizes_from) if sizes_from is not None else [named.face for named in faces])
    rgba = {named.code: to_rgba_face(named.face, size) for named in faces}
    sources = {named.code: named.source for named in faces}
    reader_boxes = {named.code: _fractions(named.face, named.index_boxes) for named in faces if named.index_boxes}
    on_face = {
        named.code: as_fractions(named.corner_indices, (named.face.shape[1], named.face.shape[0])) for named in faces
    }
    meta = write_deck(folder, name, rgba, sources, reader_boxes, on_face)
    return {
        "folder": folder,
        "meta": meta,
        "replaced": sorted((code for code in rgba if code in already), key=CARD_CODES.index),
        "preview": write_preview(folder),
    }


def teach_deck(
    name: str,
    photos: list[Path],
    *,
    instance: Path | str | None = None,
    detector=None,
    ask: Callable[[str], str] | None = None,
    faces_only: bool = False,
    out=None,
    models: Path | str | None = None,
    ask_all: bool = False,
) -> dict:
    """Find, straighten, name (reader + user) and store the cards of ``photos`` in taught deck ``name``
    (``detector``: the reader, else the one in ``models``, else the installed one).

    ``ask`` is asked about the names the reader is unsure of (``ask_all``: about every name); None takes
    the reader's names (``--yes``). A photo that cannot be used is said so and skipped; nothing is
    written unless some face is named. Returns what was done, with one row per face found
    (``faces_found``: label, photo, centre in the photo, the reader's name, the name written, asked)."""

    check_new_deck_name(name, instance)
    out = out or sys.stdout
    folder = user_decks_dir(instance) / name
    if not photos:
        raise ValueError("give at least one photo of the cards")
    files = _photo_files(photos)
    already = sorted(code for code in CARD_CODES if (folder / f"{code}.png").is_file())
    if already:
        print(f"deck {name} already has {len(already)}/52 faces; adding to it", file=out)
    detector = detector or load_detector(models)
    cards: list[FoundCard] = []
    for path in files:
        try:
            found = photo_cards(path, faces_only, detector)
        except ImageError as error:
            print(f"{error} (its cards are left out)", file=out)
            continue
        for note in found.notes:
            print(note, file=out)
        if not found.cards and not found.notes:
            print(f"{path.name}: no card found; {LAY_THEM_OUT}", file=out)
        cards.extend(found.cards)
    if not cards:
        raise ValueError(
            "no cards found in the photos; lay the cards face up and apart (not overlapping) on the table and "
            "photograph them from above in good light, or give straightened faces with --faces"
        )
    print(
        f"found {len(cards)} card{'s' if len(cards) != 1 else ''} in {len(files)} "
        f"photo{'s' if len(files) != 1 else ''}; naming them with the current reader...",
        file=out,
    )
    namings = name_found_cards(detector, cards, taught_index_features(folder), taught_corner_indices(folder))
    chosen = confirm_names(cards, namings, ask, out=out, ask_all=ask_all)
    if not chosen:
        raise ValueError("no face was named; nothing written")
    written = write_named_faces(
        name,
        [
            NamedFace(code, cards[i].face, cards[i].label, cards[i].index_boxes, cards[i].corner_indices)
            for i, code in chosen.items()
        ],
        instance,
        sizes_from=[card.face for card in cards],
    )
    meta, replaced, preview = written["meta"], written["replaced"], written["preview"]
    if replaced:
        print(
            f"replaced {len(replaced)} face{'s' if len(replaced) != 1 else ''} taught before "
            f"({' '.join(replaced)}); the old ones are kept in {folder / REPLACED}",
            file=out,
        )
    reader_right = sum(namings[i].best == code for i, code in chosen.items())
    asked = set(to_ask(namings, ask_all)) if ask is not None else set()
    return {
        "deck": name,
        "folder": str(folder),
        "added": len(chosen),
        "faces": meta["faces"],
        "missing": meta["missing"],
        "reader_agreed": reader_right,
        "asked": len(asked),
        "replaced": replaced,
        "preview": str(preview),
        "left_out": len(cards) - len(chosen),
        "faces_found": [
            {
                "label": card.label,
                "photo": card.photo,
                "centre": [round(float(v), 1) for v in card.quad.mean(axis=0)] if card.quad is not None else None,
                "read": namings[i].best,
                "sure": namings[i].sure,
                "doubts": list(namings[i].doubts),
                "written": chosen.get(i),
                "asked": i in asked,
            }
            for i, card in enumerate(cards)
        ],
    }


# ------------------------------------------------------------------ command line


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "deck",
        help="teach the reader your own deck from photos of its cards",
        description="Teach the reader the players' own deck: 'ginscore deck add NAME PHOTOS...' finds the "
        "cards in the photos, straightens them, names them with the current reader and asks you "
        "to confirm; the deck then renders synthetic scenes ('ginscore synth --deck NAME') and "
        "'ginscore retrain' learns from it.",
    )
    actions = parser.add_subparsers(dest="deck_action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        help="add cards to a taught deck from photos",
        description="Photos: single cards or rows of cards lying apart on a table, "
        "or already straightened faces (a folder of them works too).",
    )
    add.add_argument("name", help="the deck's name (letters, digits, _ and -)")
    add.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    add.add_argument(
        "--yes", action="store_true", help="take the reader's names without asking (unsure ones are listed)"
    )
    add.add_argument(
        "--check-all", action="store_true", help="ask about every name, not only those the reader is unsure of"
    )
    add.add_argument("--faces", action="store_true", help="every photo is one already straightened face")
    add.add_argument("--models", type=Path, default=None, help="models folder of the reader (default: models/)")
    add.add_argument(
        "--instance", type=Path, default=None, help="instance folder (default: $GINSCORE_INSTANCE or instance/)"
    )
    add.set_defaults(run=run_deck_add)
    check = actions.add_parser(
        "check",
        help="keep a photo of the taught deck in play, its reading confirmed, to judge retrains by",
        description="A spread of the taught deck in play, not a photo used to teach it: the reader reads it, you "
        "confirm or fix every card, and 'ginscore retrain' then installs a retrain only when it reads this deck "
        "better on these photos, loses at most one card of real-val and reads no more false cards on real-clutter.",
    )
    check.add_argument("name", help="the taught deck's name")
    check.add_argument("photo", type=Path, metavar="PHOTO")
    check.add_argument(
        "--yes", action="store_true", help="take the reading as read, without asking (only for photos known right)"
    )
    check.add_argument("--models", type=Path, default=None, help="models folder of the reader (default: models/)")
    check.add_argument(
        "--instance", type=Path, default=None, help="instance folder (default: $GINSCORE_INSTANCE or instance/)"
    )
    check.set_defaults(run=run_deck_check)
    listing = actions.add_parser("list", help="list the taught decks")
    listing.add_argument("--instance", type=Path, default=None)
    listing.set_defaults(run=run_deck_list)


def run_deck_add(args: argparse.Namespace) -> int:
    check_new_deck_name(args.name, args.instance)
    ask = None if args.yes else stdin_ask
    try:
        result = teach_deck(
            args.name,
            args.photos,
            instance=args.instance,
            models=args.models,
            ask=ask,
            faces_only=args.faces,
            ask_all=args.check_all,
        )
    except EOFError:
        raise ValueError(
            "no answer to the question (input ended); run it in a terminal, or add --yes to accept the reader's names"
        ) from None
    print(
        f"deck {result['deck']}: {result['added']} face{'s' if result['added'] != 1 else ''} written "
        f"({result['reader_agreed']} as the reader named them), {result['faces']}/52 faces -> {result['folder']}"
    )
    print(f"check the faces and their index boxes: {result['preview']}")
    if result["missing"]:
        print(f"missing: {' '.join(result['missing'])}; add them with 'ginscore deck add {args.name} PHOTOS...'")
    else:
        print(f"complete: 'ginscore synth --deck {args.name}' renders scenes with it; 'ginscore retrain' learns it")
        print(
            f"before retraining, take one more photo of the deck in play (a squeezed spread with the cards it misreads, "
            f"some upside down, not one used to teach it) and confirm it: 'ginscore deck check {args.name} PHOTO'; the retrain is judged by it"
        )
    return 0


def run_deck_check(args: argparse.Namespace) -> int:
    from vision.training.deck_check import add_check_photo

    try:
        result = add_check_photo(
            args.name,
            args.photo,
            detector=load_detector(args.models),
            ask=None if args.yes else stdin_ask,
            instance=args.instance,
        )
    except EOFError:
        raise ValueError("no answer to the question (input ended); run it in a terminal to confirm the cards") from None
    fixed = ", ".join(f"{read} -> {right}" for read, right in result["fixed"])
    print(
        f"deck {result['deck']}: check photo {result['photos']} kept ({len(result['cards'])} cards"
        f"{'; fixed ' + fixed if fixed else ''}"
        f"{'; missed by the reader: ' + ' '.join(result['missed']) if result['missed'] else ''}) -> {result['folder']}"
    )
    print(f"'ginscore retrain' now measures the {result['deck']} deck on it before and after, and says what it bought")
    return 0


def run_deck_list(args: argparse.Namespace) -> int:
    decks = list_taught_decks(args.instance)
    if not decks:
        print(f"no taught decks in {user_decks_dir(args.instance)}; teach one with 'ginscore deck add NAME PHOTOS...'")
        return 0
    for deck in decks:
        state = (
            "complete"
            if deck["complete"]
            else f"missing {' '.join(deck['missing'][:8])}{' ...' if len(deck['missing']) > 8 else ''}"
        )
        print(f"{deck['name']:24s} {deck['faces']:2d}/52 faces  {state}  ({deck['updated']})")
    return 0
