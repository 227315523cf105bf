"""Adding a hand: photo upload, webcam capture, manual card picker, quick counts; review; edit."""
from __future__ import annotations

import json
import re

from flask import (Blueprint, Response, abort, current_app, flash, redirect, render_template, request,
                   url_for)

from vision.reading import ImageError

from . import recognition, scoring, store
from .db import transaction
from .games import load_game_or_404, sheet_for

bp = Blueprint("hands", __name__)

LOW_CONFIDENCE = 0.5


# ---------------------------------------------------------------- photos: upload and stored images

PHOTO_SLOT_WAIT_S = 60      # an upload waits this long for a free decoding slot, then gets a 503


def store_photo_for_review(game, data: bytes, source: str, replaces_position: int | None = None) -> int:
    """Check and read a photo, keep its bounded copy as a pending photo; return its id.

    ImageError on bad input. The header is checked first; then one decode (under the decoding
    slots, so a few big photos at once cannot fill memory) makes the JPEG that is stored, shown
    and read by the detector.
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
    reading = recognition.recognise_photo(copy.jpeg, config.get("MODEL_PATH"))
    recognition.check_reading(reading)
    from .retention import delete_stale_photos
    delete_stale_photos()
    with transaction() as connection:
        return store.insert_photo(connection, game["id"], copy.jpeg, "image/jpeg", copy.width, copy.height,
                                  reading_to_dict(reading), source, replaces_position)


def reading_to_dict(reading) -> dict:
    """The recogniser's reading as plain JSON data (kept with the photo)."""
    return {"image_size": list(reading.image_size),
            "cards": [{"card": c.card, "confidence": round(float(c.confidence), 4),
                       "boxes": [[round(float(v), 1) for v in box] for box in c.boxes]} for c in reading.cards],
            "hands": [list(reading.hands[0]), list(reading.hands[1])],
            "split_axis": reading.split_axis, "split_confidence": float(reading.split_confidence),
            "conflicts": list(reading.conflicts)}


def replace_position_arg(game_id: int) -> int | None:
    """The hand position a form says it replaces (editing), checked to exist."""
    text = request.values.get("replace", "").strip()
    if not text:
        return None
    position = scoring.whole_number(text)
    if position is None or not 1 <= position <= len(store.get_hands(game_id)):
        abort(404)
    return position


SAVE_TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def save_token_arg(text: object) -> str | None:
    """A form's one-time save token (None when the form has none); 400 for a damaged one."""
    if text is None or text == "":
        return None
    if not isinstance(text, str) or not SAVE_TOKEN_PATTERN.fullmatch(text):
        abort(400)
    return text


@bp.route("/games/<int:game_id>/photo", methods=("POST",))
def upload_photo(game_id: int):
    """A photo from the phone camera or a file: read the cards, then review them."""
    game = load_game_or_404(game_id)
    upload = request.files.get("photo")
    replace = replace_position_arg(game_id)
    if upload is None or not upload.filename:
        flash("Choose a photo first (or take one with the camera).")
        return redirect(url_for("games.sheet", game_id=game_id)), 303
    try:
        photo_id = store_photo_for_review(game, upload.read(), "upload", replace)
    except ImageError as error:
        return render_template("sheet.html", **_sheet_context(game), photo_error=str(error)), photo_error_status(error)
    return redirect(url_for("hands.review_photo", game_id=game_id, photo_id=photo_id))


def photo_error_status(error: ImageError) -> int:
    """503 when the server has no model or is busy, 422 for a photo without a showdown in it, else 400."""
    if isinstance(error, (recognition.RecognitionUnavailable, recognition.ServerBusy)):
        return 503
    return 422 if isinstance(error, recognition.ReadingError) else 400


def _sheet_context(game) -> dict:
    from .chart import running_totals_svg
    from .games import current_camera_source
    sheet = sheet_for(game)
    return {"game": game, "sheet": sheet, "camera_on": bool(current_camera_source()),
            "chart_svg": running_totals_svg(sheet.players, sheet.running_totals, game["target"])}


@bp.route("/photos/<int:photo_id>.jpg")
def photo_image(photo_id: int):
    """A stored photo: the bytes kept at upload (an upright JPEG), never decoded again."""
    photo = store.get_photo(photo_id)
    if photo is None or photo["image"] is None:
        abort(404)
    return Response(photo["image"], mimetype=photo["media_type"],
                    headers={"Cache-Control": "private, max-age=86400, immutable"})


# ---------------------------------------------------------------- review and confirm

def photo_view(photo) -> dict:
    """What the review page draws over the photo: every card's boxes, label and confidence."""
    reading = json.loads(photo["reading_json"])
    width, height = reading["image_size"]
    boxes = []
    for card in reading["cards"]:
        for box in card["boxes"]:
            boxes.append({"card": card["card"], "confidence": card["confidence"],
                          "low": card["confidence"] < LOW_CONFIDENCE,
                          "x": box[0], "y": box[1], "w": box[2] - box[0], "h": box[3] - box[1]})
    low = sorted({card["card"] for card in reading["cards"] if card["confidence"] < LOW_CONFIDENCE})
    return {"id": photo["id"], "width": width, "height": height, "boxes": boxes, "low_cards": low,
            "conflicts": reading.get("conflicts", []), "split_confidence": reading.get("split_confidence", 0.0),
            "label_size": max(12, round(min(width, height) / 40))}


def render_review(game, *, cards: tuple[str, str], knocker: str, upcard: str, photo=None,
                  replace: int | None = None, result=None, error: str | None = None, status: int = 200):
    rules = scoring.rules_from_json(game["rules_json"])
    return render_template(
        "review.html", game=game, cards=cards, knocker=knocker, upcard=upcard, replace=replace,
        photo=photo_view(photo) if photo is not None else None, result=result, error=error,
        needs_upcard=scoring.needs_upcard(rules), card_codes=scoring.CARD_CODES,
        low_cards=photo_view(photo)["low_cards"] if photo is not None else []), status


def get_pending_photo(game_id: int, photo_id: int):
    photo = store.get_photo(photo_id)
    if photo is None or photo["game_id"] != game_id or photo["hand_id"] is not None:
        abort(404)
    return photo


@bp.route("/games/<int:game_id>/review/<int:photo_id>")
def review_photo(game_id: int, photo_id: int):
    """The photo with every card boxed, the two hands as read; fix them, pick the knocker."""
    game = load_game_or_404(game_id)
    photo = get_pending_photo(game_id, photo_id)
    reading = json.loads(photo["reading_json"])
    hands = reading["hands"]
    return render_review(game, cards=(" ".join(hands[0]), " ".join(hands[1])), knocker="", upcard="",
                         photo=photo, replace=photo["replaces_position"])


def submitted_cards(form) -> tuple[str, str]:
    """The two hands from a form: text fields ``cards0/1`` or card-picker checkboxes ``pick0/1``."""
    result = []
    for player in (0, 1):
        picked = form.getlist(f"pick{player}")
        result.append(" ".join(picked) if picked else form.get(f"cards{player}", ""))
    if form.get("swap") == "1":
        result.reverse()
    return result[0], result[1]


@bp.route("/games/<int:game_id>/review", methods=("POST",))
def review(game_id: int):
    """Check the hands and show the engine's result ('preview'), or store the hand ('confirm')."""
    game = load_game_or_404(game_id)
    save_token = save_token_arg(request.form.get("save_token"))
    if request.form.get("action") == "confirm" and store.save_token_used(save_token):
        return already_saved(game_id)
    photo_id_text = request.form.get("photo_id", "").strip()
    photo_id = scoring.whole_number(photo_id_text)
    if photo_id_text and photo_id is None:
        abort(404)
    photo = get_pending_photo(game_id, photo_id) if photo_id is not None else None
    replace = replace_position_arg(game_id)
    cards = submitted_cards(request.form)
    knocker_text = request.form.get("knocker", "")
    upcard_text = request.form.get("upcard", "").strip()
    context = {"cards": cards, "knocker": knocker_text, "upcard": upcard_text, "photo": photo, "replace": replace}
    rules = scoring.rules_from_json(game["rules_json"])
    players = (game["player0"], game["player1"])
    try:
        entry = scoring.showdown_entry(cards, knocker_text, upcard_text, rules, players,
                                       source=photo["source"] if photo is not None else "manual")
        result = scoring.score_entry(entry, rules, players)
    except ValueError as error:
        return render_review(game, **context, error=str(error), status=400)
    if request.form.get("action") != "confirm":
        return render_review(game, **context, result=result)
    try:
        save_hand(game, entry, replace, photo, save_token)
    except store.AlreadySaved:
        return already_saved(game_id)
    except ValueError as error:
        return render_review(game, **context, error=str(error), status=409)
    flash(f"Hand saved: {result.summary}")
    return redirect(url_for("games.sheet", game_id=game_id))


def already_saved(game_id: int):
    """A second press of a save button: the hand is stored once; show the sheet."""
    flash("That hand was saved already (the button was pressed twice); here is the sheet.")
    return redirect(url_for("games.sheet", game_id=game_id), 303)


def save_hand(game, entry: store.HandEntry, replace: int | None, photo=None, save_token: str | None = None) -> int:
    """Store the hand (and the photo's corrected cards) and the game's finished state, atomically.

    Every check that another request could falsify runs inside the transaction: the one-time
    token (AlreadySaved), the photo still waiting for its hand and the hand being replaced
    still there (SaveConflict), the game not over (ValueError).
    """
    keep_photos = store.get_setting("keep_photos") == "1"
    with transaction() as connection:
        store.claim_save_token(connection, game["id"], save_token)
        if photo is not None:
            store.claim_pending_photo(connection, game["id"], photo["id"])
        hand_id, position = store.write_hand(connection, game["id"], entry, replace)
        if photo is not None:
            if keep_photos:
                connection.execute("UPDATE photo SET hand_id = ?, corrected0 = ?, corrected1 = ? WHERE id = ?",
                                   (hand_id, " ".join(entry.cards[0]), " ".join(entry.cards[1]), photo["id"]))
            else:
                connection.execute("DELETE FROM photo WHERE id = ?", (photo["id"],))
        hands = [store.HandEntry.from_row(row) for row in connection.execute(
            "SELECT * FROM hand WHERE game_id = ? ORDER BY position", (game["id"],))]
        sheet = scoring.build_sheet(game, hands)
        store.set_finished(connection, game["id"], sheet.game_over)
    return position


# ---------------------------------------------------------------- manual entry, counts, void, edit

@bp.route("/games/<int:game_id>/hands/manual")
def manual(game_id: int):
    """A 52-card picker for each player, or quick deadwood counts."""
    game = load_game_or_404(game_id)
    rules = scoring.rules_from_json(game["rules_json"])
    replace = replace_position_arg(game_id)
    return render_template("manual.html", game=game, card_codes=scoring.CARD_CODES, replace=replace,
                           needs_upcard=scoring.needs_upcard(rules))


@bp.route("/games/<int:game_id>/hands/counts", methods=("POST",))
def counts(game_id: int):
    """Quick entry: who knocked, each player's deadwood count (after lay-offs), gin or not."""
    game = load_game_or_404(game_id)
    replace = replace_position_arg(game_id)
    rules = scoring.rules_from_json(game["rules_json"])
    players = (game["player0"], game["player1"])
    try:
        entry = scoring.counts_entry(request.form.get("knocker", ""), request.form.get("deadwood0", ""),
                                     request.form.get("deadwood1", ""), request.form.get("gin") == "1",
                                     rules, players, request.form.get("upcard", ""))
        result = scoring.score_entry(entry, rules, players)
    except ValueError as error:
        flash(str(error))
        return render_template("manual.html", game=game, card_codes=scoring.CARD_CODES, replace=replace,
                               needs_upcard=scoring.needs_upcard(rules), form=request.form), 400
    try:
        save_hand(game, entry, replace, save_token=save_token_arg(request.form.get("save_token")))
    except ValueError as error:
        flash(str(error))
        return redirect(url_for("games.sheet", game_id=game_id)), 303
    flash(f"Hand saved: {result.summary}")
    return redirect(url_for("games.sheet", game_id=game_id))


@bp.route("/games/<int:game_id>/hands/void", methods=("POST",))
def void(game_id: int):
    """The stock ran out: nobody scores, the same dealer deals again."""
    game = load_game_or_404(game_id)
    try:
        save_hand(game, store.HandEntry(entry="void"), replace_position_arg(game_id),
                  save_token=save_token_arg(request.form.get("save_token")))
    except ValueError as error:
        flash(str(error))
        return redirect(url_for("games.sheet", game_id=game_id)), 303
    flash("Void hand recorded: nobody scores, the same dealer deals again.")
    return redirect(url_for("games.sheet", game_id=game_id))


@bp.route("/games/<int:game_id>/hands/<int:position>/edit")
def edit(game_id: int, position: int):
    """Change a stored hand: cards go to the review page, counts and voids to the manual page."""
    game = load_game_or_404(game_id)
    hands = store.get_hands(game_id)
    if not 1 <= position <= len(hands):
        abort(404)
    hand = hands[position - 1]
    if hand.entry == "cards":
        return render_review(game, cards=(" ".join(hand.cards[0]), " ".join(hand.cards[1])),
                             knocker=str(hand.knocker), upcard=hand.upcard or "", replace=position)
    rules = scoring.rules_from_json(game["rules_json"])
    form = {"knocker": str(hand.knocker) if hand.knocker is not None else "",
            "deadwood0": "" if hand.deadwood[0] is None else str(hand.deadwood[0]),
            "deadwood1": "" if hand.deadwood[1] is None else str(hand.deadwood[1]),
            "gin": "1" if hand.gin else "", "upcard": hand.upcard or ""}
    return render_template("manual.html", game=game, card_codes=scoring.CARD_CODES, replace=position,
                           needs_upcard=scoring.needs_upcard(rules), form=form)
