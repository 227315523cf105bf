"""What the views call that is not a view: loading a game, storing a photo for review, saving and
undoing a hand, the webcam's source, collecting a training example, the photos of a deck being taught.

The blueprint modules (games, hands, api, camera, settings, training, pin) import this module and
never each other (``tests/test_import_direction.py``). Each change to the database here is one ``transaction``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from flask import abort, current_app

from engine import OverKnockLimit, Rules, WrongHandSize
from engine.cards import cards_in_words
from vision.decision import hand_size_review, knock_review
from vision.reading import ImageError, PhotoReading

from . import forms, learning, recognition, sheet_view, store
from .camera_feed import feed_for
from .db import transaction
from .forms import Form
from .retention import delete_stale_photos
from .store import EnteredAs, GameRecord, HandEntry, PhotoRecord

# ---------------------------------------------------------------- games

MAX_NAME_LENGTH = 40


def load_game_or_404(game_id: int) -> GameRecord:
    """The stored game, or a 404 page (the API's answer too)."""
    game = store.get_game(game_id)
    if game is None:
        abort(404)
    return game


def sheet_for(game: GameRecord) -> sheet_view.Sheet:
    """The game's score sheet, recomputed from its stored hands."""
    return sheet_view.build_sheet(game, store.get_hands(game.id))


def parse_new_game_form(form: Form) -> tuple[tuple[str, str], Rules, int]:
    """Players, rules and target from the new-game form; ValueError says what to fix."""
    players = tuple(" ".join(form.get(f"player{i}", "").split()) for i in (0, 1))
    for number, name in enumerate(players, start=1):
        if not name:
            raise ValueError(f"Player {number} needs a name.")
        if len(name) > MAX_NAME_LENGTH:
            raise ValueError(f"Player {number}'s name is longer than {MAX_NAME_LENGTH} characters.")
    if players[0].casefold() == players[1].casefold():
        raise ValueError("The two players need different names.")
    rules = forms.rules_from_form(form)
    target_text = form.get("target", "").strip() or str(rules.target)
    target = forms.whole_number(target_text)
    if target is None:
        raise ValueError(f"The target {target_text!r} is not a whole number of points.")
    if not 10 <= target <= 10_000:
        raise ValueError("The target must be between 10 and 10000 points.")
    return (players[0], players[1]), rules.replace(target=target), target


def undo_last_hand(
    game: GameRecord, expected_position: int | None = None, removed: dict[str, Any] | None = None
) -> int | None:
    """Delete the game's latest hand (only if it is ``expected_position``, when given) and update
    its finished state in one transaction; None when nothing was undone. ``removed`` (if given)
    receives the hand as entered and its kept photo's id, for Restore."""
    with transaction() as connection:
        last = store.last_hand(connection, game.id)
        position = store.delete_last_hand(connection, game.id, expected_position)
        store.set_finished(
            connection, game.id, sheet_view.build_sheet(game, store.get_hands(game.id, connection)).game_over
        )
    if position is not None and removed is not None and last is not None:
        removed["hand"] = last[0].to_dict()
        removed["photo"] = last[1]
    return position


# ---------------------------------------------------------------- the webcam's source

MOST_DEVICES = 64


def device_number(text: str | None) -> str:
    """``text`` when it is a webcam device number (ASCII digits, 0-63), else ``""``."""
    text = (text or "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 2 and int(text) < MOST_DEVICES:
        return str(int(text))
    return ""


def current_camera_source() -> str:
    """The webcam: a device number from the settings page, else ``serve --camera`` (which may be a URL or file)."""
    return device_number(store.get_setting("camera_source")) or str(current_app.config.get("CAMERA_SOURCE") or "")


def camera_problem() -> str:
    """Why the camera gives no picture now, in words for the sheet ("" while it works or none is set)."""
    source = current_camera_source()
    return feed_for(source).problem if source else ""


def live_sheet_version(game_id: int) -> str | None:
    """What an open sheet polls to follow the game: ``store.sheet_version``, the hands-free camera's offer
    and whether the camera gives no picture now (so the sheets show the offer, or the camera's notice, and
    drop it when it is gone). None: no such game."""
    version = store.sheet_version(game_id)
    if version is None:
        return None
    offer = store.current_offer(game_id)
    return "-".join([version, f"offer{offer.id}" if offer else "", "camera-lost" if camera_problem() else ""])


# ---------------------------------------------------------------- photos: stored for review

PHOTO_SLOT_WAIT_S = 60  # an upload waits this long for a free decoding slot, then gets a 503


def store_photo_for_review(game: GameRecord, data: bytes, source: str, replaces_position: int | None = None) -> int:
    """Check and read a photo, keep its bounded copy as a pending photo; return its id.

    ImageError on bad input. The header is checked first; then one decode (under the decoding
    slots, so a few big photos at once cannot fill memory) makes the JPEG that is stored and shown, and
    the pixels it was encoded from, which the detector reads (nothing is decoded twice).
    """
    config = current_app.config
    recognition.check_image(data, config["MAX_IMAGE_PIXELS"])
    slots = current_app.extensions["photo_decode_slots"]
    if not slots.acquire(timeout=PHOTO_SLOT_WAIT_S):
        raise recognition.ServerBusy("The server is busy reading other photos; send this one again in a minute.")
    try:
        copy = recognition.bounded_copy(data, config["PHOTO_LONGEST_SIDE"])
    finally:
        slots.release()
    del data
    reading = recognition.recognise_photo(copy.pixels, config.get("MODEL_PATH"))
    recognition.check_reading(reading)
    delete_stale_photos()
    with transaction() as connection:
        return store.insert_photo(
            connection,
            game.id,
            copy.jpeg,
            "image/jpeg",
            copy.width,
            copy.height,
            reading,
            source,
            replaces_position,
        )


def photo_error_status(error: ImageError) -> int:
    """503 when the server has no model or is busy, 422 for a photo without a showdown in it, else 400."""
    if isinstance(error, (recognition.RecognitionUnavailable, recognition.ServerBusy)):
        return 503
    return 422 if isinstance(error, recognition.ReadingError) else 400


def get_pending_photo(game_id: int, photo_id: int, save_token: str | None = None) -> PhotoRecord:
    """The game's photo still waiting for its hand, or a 404; ``store.AlreadySaved`` instead where the photo has
    gone because a request with the same one-time ``save_token`` saved its hand meanwhile (a double tap whose first
    press finished between the second's token check and this)."""
    photo = store.get_photo(photo_id)
    if photo is None or photo.game_id != game_id or photo.hand_id is not None:
        if store.save_token_used(save_token):
            raise store.AlreadySaved(TOKEN_USED)
        abort(404)
    return photo


# ---------------------------------------------------------------- saving a hand

SAVE_TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")
TOKEN_USED = "That hand was saved already (this save_token was used)."  # what the API says to a second save


def refusal_with_suspects(
    error: ValueError, photo: PhotoRecord | None, hands: tuple[str, str], knocker_text: str, players: tuple[str, str]
) -> tuple[str, PhotoReading | None]:
    """What the engine refused, in words, and (for a photo's cards) the photo's reading with the cards that may be
    misread flagged and named: a knock over the limit (the least sure of the knocker's unmelded cards,
    ``vision.decision.knock_review``) or a hand of too many cards (its least sure extra ones,
    ``hand_size_review``). Other refusals, or no photo: the engine's message alone and no reading."""
    message = forms.sentence(error)
    if photo is None or not isinstance(error, OverKnockLimit | WrongHandSize):
        return message, None
    if isinstance(error, OverKnockLimit):
        who = players[forms.parse_knocker(knocker_text)]
        unmelded = [str(card) for card in error.deadwood_cards]
        reading, suspects = knock_review(photo.reading(), unmelded, who, error.deadwood, error.limit)
        said = "unmelded cards"
    else:
        who = players[error.player]
        hand = forms.parse_hand_text(hands[error.player], who)
        reading, suspects = hand_size_review(photo.reading(), hand, who, error.most)
        said = "cards"
    if suspects:
        message += f" The least sure of {who}'s {said} as read: {cards_in_words(suspects)}."
    return message, reading


def form_token(text: object) -> str | None:
    """A form's one-time token (a save, a change, an upload: a double tap sends it once): None when the form
    has none; 400 for a damaged one."""
    if text is None or text == "":
        return None
    if not isinstance(text, str) or not SAVE_TOKEN_PATTERN.fullmatch(text):
        abort(400)
    return text


def save_hand(
    game: GameRecord,
    entry: HandEntry,
    replace: int | None,
    photo: PhotoRecord | None = None,
    save_token: str | None = None,
) -> int:
    """Store the hand (and the photo's corrected cards) and the game's finished state, atomically.

    Every check that another request could falsify runs inside the transaction: the one-time
    token (AlreadySaved), the photo still waiting for its hand and the hand being replaced
    still there (SaveConflict), the game not over (ValueError).
    """
    keep_photos = keep_photos_on()
    with transaction() as connection:
        store.claim_save_token(connection, game.id, save_token)
        if photo is not None:
            store.claim_pending_photo(connection, game.id, photo.id)
        hand_id, position = store.write_hand(connection, game.id, entry, replace)
        if photo is not None:
            if keep_photos:
                store.attach_photo(connection, photo.id, hand_id, entry.cards)
            else:
                store.delete_photo(connection, photo.id)
        sheet = sheet_view.build_sheet(game, store.get_hands(game.id, connection))
        store.set_finished(connection, game.id, sheet.game_over)
    if photo is not None:
        collect_example(game, entry, photo, hand_id)  # corrections become training data (Training page)
    return position


# ---------------------------------------------------------------- training examples

COLLECT_SETTING = "collect_examples"


def collect_setting_on() -> bool:
    """Whether "Learn from corrected photos" (the Training page) is on."""
    return store.get_setting(COLLECT_SETTING) == "1"


def keep_photos_on() -> bool:
    """Whether "Keep photos" (the Settings page) is on."""
    return store.get_setting("keep_photos") == "1"


def collecting() -> bool:
    """Whether saved photo hands are kept as training examples (both settings on)."""
    return collect_setting_on() and keep_photos_on()


def collect_example(game: GameRecord, entry: HandEntry, photo: PhotoRecord | None, hand_id: int | None = None) -> None:
    """Keep a saved photo hand as a training example (never fails the save: problems are logged)."""
    if photo is None or entry.entry != EnteredAs.CARDS or photo.image is None:
        return
    try:
        if not collecting():
            return
        learning.keep_example(
            current_app.instance_path,
            bytes(photo.image),
            photo.reading(),
            [*entry.cards[0], *entry.cards[1], *([entry.upcard] if entry.upcard else [])],  # the upcard is a card too
            source={"game_id": game.id, "hand_id": hand_id, "photo_id": photo.id, "from": photo.source},
        )
    except Exception:  # a full disk or a damaged reading must not lose the hand
        current_app.logger.exception("could not keep photo %s as a training example", photo.id)


# ---------------------------------------------------------------- teaching a deck (the Training page)


@dataclass
class TaughtPhotos:
    """What an upload of photos of a deck being taught did: photos kept, and what to tell the user, as
    (flash category, sentence); ``again``: the same upload came before (a double tap) and was not redone."""

    kept: int = 0
    said: list[tuple[str, str]] = field(default_factory=list)
    again: bool = False


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def teach_deck_photos(name: str, uploads: list[tuple[str, bytes]], token: str | None) -> TaughtPhotos:
    """Check the photos of deck ``name`` (``recognition.check_image``, as every photo), keep those that are
    photos in the teaching folder, then find and name their cards one photo at a time, each under the model
    lock (an upload of a hand waits for one photo at most). ValueError: the deck name; ImageError: no
    reader on this server. A photo that cannot be used is said so and the others go on."""
    config = current_app.config
    instance = current_app.instance_path
    learning.check_teaching_name(instance, name)
    done = TaughtPhotos()
    checked = []
    for number, (filename, data) in enumerate(uploads, start=1):
        called = filename or f"Photo {number}"
        try:
            header = recognition.check_image(data, config["MAX_IMAGE_PIXELS"])
        except ImageError as error:
            done.said.append(("error", forms.sentence(f"“{called}” was not used: {_lower_first(str(error))}")))
            continue
        checked.append(learning.TeachingUpload(data, filename, header.media_type))
    if not checked:
        return done
    detector = recognition.teaching_detector(config.get("MODEL_PATH"))
    kept = learning.keep_teaching_photos(instance, name, checked, token)
    if kept is None:
        done.again = True
        done.said.append(("message", "These photos were sent already; their cards are below."))
        return done
    done.kept = len(kept)
    for photo_id in kept:
        read = learning.read_teaching_photo(instance, name, photo_id, detector, recognition.MODEL_LOCK)
        if read is not None:
            done.said += said_of(read)
    return done


def read_deck_check_photo(name: str, filename: str, data: bytes) -> dict[str, Any]:
    """Check a photo of taught deck ``name`` in play (``recognition.check_image``, as every photo) and read it
    under the model lock, to have its cards confirmed. ImageError / ValueError (sentences): not a photo, no
    reader on this server, no such taught deck, no card read."""
    config = current_app.config
    recognition.check_image(data, config["MAX_IMAGE_PIXELS"])
    detector = recognition.teaching_detector(config.get("MODEL_PATH"))
    return learning.read_check_photo(
        current_app.instance_path, name, data, filename or "the photo", detector, recognition.MODEL_LOCK
    )


def read_unread_teaching_photos(name: str) -> list[tuple[str, str]]:
    """Read the photos of a deck whose reading was cut short (the server stopped meanwhile)."""
    instance = current_app.instance_path
    said: list[tuple[str, str]] = []
    unread = learning.unread_teaching_photos(instance, name)
    if not unread:
        return said
    detector = recognition.teaching_detector(current_app.config.get("MODEL_PATH"))
    for photo_id in unread:
        read = learning.read_teaching_photo(instance, name, photo_id, detector, recognition.MODEL_LOCK)
        if read is not None:
            said += said_of(read)
    return said


def said_of(read: learning.TaughtPhoto) -> list[tuple[str, str]]:
    """What to tell the user about one photo read: its cards (category ``read``: the pages show the photos
    read in one box), or why it gave none, and its notes."""
    if read.failed or not read.cards:
        return [("error", note) for note in read.notes]
    check = f", {read.to_check} to check" if read.to_check else ""
    return [("read", f"{read.label}: {read.cards} card{'s' if read.cards != 1 else ''} found{check}.")] + [
        ("warning", note) for note in read.notes
    ]
