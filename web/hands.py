"""Adding a hand: photo upload, webcam capture, manual card picker, quick counts; review; edit."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypedDict

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from engine import CARD_CODES
from engine.cards import card_label
from vision.hands import UNSURE_SPLIT
from vision.reading import ImageError, PhotoReading

from . import forms, sheet_view, store
from .services import (
    form_token,
    get_pending_photo,
    load_game_or_404,
    photo_error_status,
    refusal_with_suspects,
    save_hand,
    store_photo_for_review,
)
from .sheet_view import CardGroups, HandView
from .store import EnteredAs, GameRecord, PhotoRecord

bp = Blueprint("hands", __name__)


# ---------------------------------------------------------------- photos: upload and stored images


def replace_position_arg(game_id: int) -> int | None:
    """The hand position a form says it replaces (editing), checked to exist."""
    text = request.values.get("replace", "").strip()
    if not text:
        return None
    position = forms.whole_number(text)
    if position is None or not 1 <= position <= len(store.get_hands(game_id)):
        abort(404)
    return position


@bp.route("/games/<int:game_id>/photo", methods=("POST",))
def upload_photo(game_id: int):
    """A photo from the phone camera or a file: read the cards, then review them."""
    game = load_game_or_404(game_id)
    upload = request.files.get("photo")
    replace = replace_position_arg(game_id)
    if upload is None or not upload.filename:
        flash("Choose a photo first (or take one with the camera).", "error")
        return after_upload(url_for("games.sheet", game_id=game_id, _anchor="add-hand"))
    try:
        photo_id = store_photo_for_review(game, upload.read(), "upload", replace)
    except ImageError as error:
        flash(sentence_of(error), "error")
        return after_upload(url_for("games.sheet", game_id=game_id, _anchor="add-hand"), photo_error_status(error))
    return after_upload(url_for("hands.review_photo", game_id=game_id, photo_id=photo_id))


def sentence_of(error: Exception) -> str:
    return forms.sentence(error)


def after_upload(location: str, error_status: int | None = None):
    """Redirect (303: a refresh never sends the photo again). The page's own upload (with its progress
    bar) asks with ``X-Upload-Progress`` and gets the address as JSON, so the flash waits for that page."""
    if request.headers.get("X-Upload-Progress"):
        return jsonify(location=location, error=error_status is not None), 200
    return redirect(location, 303)


@bp.route("/photos/<int:photo_id>.jpg")
def photo_image(photo_id: int):
    """A stored photo: the bytes kept at upload (an upright JPEG), never decoded again."""
    photo = store.get_photo(photo_id)
    if photo is None or photo.image is None:
        abort(404)
    return Response(
        photo.image, mimetype=photo.media_type, headers={"Cache-Control": "private, max-age=86400, immutable"}
    )


# ---------------------------------------------------------------- review and confirm


def photo_view(
    photo: PhotoRecord,
    hands: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
    groups: CardGroups | None = None,
    reading: PhotoReading | None = None,
) -> dict[str, Any]:
    """What the review page draws over the photo: one entry per card (not per corner) with its boxes,
    its meld colour, and the reasons to check it, in words (the reader's ``CardReading.review``; ``reading``:
    the photo's reading with reasons added since, default: as stored)."""
    reading = reading if reading is not None else photo.reading()
    width, height = reading.image_size
    # what the photo says that no card's reason says already: a code seen at two places, a spread short of
    # a hand (a card hidden or missed)
    said = {reason.text for card in reading.cards for reason in card.review}
    notes = [text for text in dict.fromkeys(reading.conflicts) if text not in said]
    hands = hands if hands is not None else reading.hands
    colour_of: dict[str, int | None] = {}
    for player_groups in groups or ((), ()):
        for group in player_groups:
            for code in group.cards:
                colour_of[code] = group.colour
    cards: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    for index, card in enumerate(reading.cards):
        code = card.card
        reasons = [reason.text for reason in card.review]
        player = 0 if code in hands[0] else 1 if code in hands[1] else None
        view = {
            "index": index,
            "card": code,
            "label": card_label(code),
            "confidence": card.confidence,
            "flagged": bool(reasons),
            "why": "; ".join(reasons),
            # shown under the card's "N% sure", which already says what a low confidence would
            "reasons": [reason.text for reason in card.review if reason.kind != "low_confidence"],
            "percent": round(card.confidence * 100),
            "runner_ups": [c for c in card.runner_ups if c != code],
            "player": player,
            "colour": colour_of.get(code),
            "deadwood": code in colour_of and colour_of[code] is None,
            "boxes": [{"x": box[0], "y": box[1], "w": box[2] - box[0], "h": box[3] - box[1]} for box in card.boxes],
        }
        cards.append(view)
        if view["flagged"]:
            flagged.append(view)
    split_confidence = reading.split_confidence
    return {
        "id": photo.id,
        "width": width,
        "height": height,
        "cards": cards,
        "flagged": flagged,
        "low_cards": sorted(view["card"] for view in flagged),
        "corner_count": sum(len(card.boxes) for card in reading.cards),
        "notes": notes,
        "split_confidence": split_confidence,
        "split_unsure": split_confidence < UNSURE_SPLIT,
        "split_axis": reading.split_axis,
        "label_size": max(14, round(min(width, height) / 24)),
    }


def parsed_or_empty(cards_text: str) -> tuple[str, ...]:
    try:
        return forms.parse_hand_text(cards_text, "")
    except ValueError:
        return ()


def render_review(
    game: GameRecord,
    *,
    cards: tuple[str, str],
    knocker: str,
    upcard: str,
    photo: PhotoRecord | None = None,
    replace: int | None = None,
    result: HandView | None = None,
    error: str | None = None,
    status: int = 200,
    photo_readonly: bool = False,
    reading: PhotoReading | None = None,
) -> tuple[str, int]:
    rules = game.rules
    hands = (parsed_or_empty(cards[0]), parsed_or_empty(cards[1]))
    groups = result.groups if result is not None and any(result.groups) else sheet_view.card_groups(hands)
    view = photo_view(photo, hands, groups, reading) if photo is not None else None
    return render_template(
        "hands/review.html",
        game=game,
        cards=cards,
        knocker=knocker,
        upcard=upcard,
        replace=replace,
        photo=view,
        photo_readonly=photo_readonly,
        result=result,
        error=error,
        groups=groups,
        groups_json=[json.dumps([group.to_dict() for group in player_groups]) for player_groups in groups],
        needs_upcard=rules.needs_upcard,
        card_codes=CARD_CODES,
        low_cards=view["low_cards"] if view is not None else [],
        version=store.sheet_version(game.id),
    ), status


@bp.route("/games/<int:game_id>/review/<int:photo_id>")
def review_photo(game_id: int, photo_id: int):
    """The photo with every card boxed, the two hands as read; fix them, pick the knocker."""
    game = load_game_or_404(game_id)
    photo = get_pending_photo(game_id, photo_id)
    hands = photo.reading().hands
    return render_review(
        game,
        cards=(" ".join(hands[0]), " ".join(hands[1])),
        knocker="",
        upcard="",
        photo=photo,
        replace=photo.replaces_position,
    )


def submitted_cards(form: MultiDict[str, str]) -> tuple[str, str]:
    """The two hands from a form: text fields ``cards0/1`` or card-picker checkboxes ``pick0/1``."""
    result = []
    for player in (0, 1):
        picked = form.getlist(f"pick{player}")
        result.append(" ".join(picked) if picked else form.get(f"cards{player}", ""))
    if form.get("swap") == "1":
        result.reverse()
    return result[0], result[1]


class ReviewContext(TypedDict):
    """What the review page is about: both hands as text, knocker, upcard, the photo, the hand replaced."""

    cards: tuple[str, str]
    knocker: str
    upcard: str
    photo: PhotoRecord | None
    replace: int | None


def review_inputs(game_id: int, values: MultiDict[str, str], save_token: str | None = None) -> ReviewContext:
    """The photo (pending), the hand replaced, both hands, knocker and upcard from a form or a query
    (``store.AlreadySaved``: the photo's hand was saved meanwhile with ``save_token``)."""
    photo_id_text = values.get("photo_id", "").strip()
    photo_id = forms.whole_number(photo_id_text)
    if photo_id_text and photo_id is None:
        abort(404)
    photo = get_pending_photo(game_id, photo_id, save_token) if photo_id is not None else None
    replace = replace_position_arg(game_id)
    return {
        "cards": submitted_cards(values),
        "knocker": values.get("knocker", ""),
        "upcard": values.get("upcard", "").strip(),
        "photo": photo,
        "replace": replace,
    }


def check_entry(game: GameRecord, context: ReviewContext) -> tuple[store.HandEntry, HandView]:
    """The entered hand checked and scored: (entry, result), ValueError with a sentence for people."""
    photo = context["photo"]
    source = photo.source if photo is not None else "manual"
    entry = forms.showdown_entry(game, context["cards"], context["knocker"], context["upcard"], source)
    return entry, sheet_view.score_entry(game, entry)


def review_page(
    game: GameRecord,
    context: ReviewContext,
    *,
    result: HandView | None = None,
    error: str | None = None,
    status: int = 200,
    reading: PhotoReading | None = None,
) -> tuple[str, int]:
    """The review page; when editing a hand that kept its photo, that photo is shown (not sent again).
    ``reading``: the photo's reading with reasons the check added (a knock over the limit)."""
    readonly = False
    if context["photo"] is None and context["replace"] is not None:
        kept = store.kept_photo(game.id, context["replace"])
        if kept is not None:
            context = {**context, "photo": kept}
            readonly = True
    return render_review(
        game, **context, result=result, error=error, status=status, photo_readonly=readonly, reading=reading
    )


def refused_entry(game: GameRecord, context: ReviewContext, error: ValueError) -> tuple[str, int]:
    """The review page again with what the engine refused, in words (400); for a photo's cards, the cards that may
    be misread named and flagged (``refusal_with_suspects``: a knock over the limit, a hand of too many cards)."""
    message, reading = refusal_with_suspects(
        error, context["photo"], context["cards"], context["knocker"], game.players
    )
    return review_page(game, context, error=message, status=400, reading=reading)


@bp.route("/games/<int:game_id>/review/check")
def check(game_id: int):
    """The hands checked and scored by the engine (where 'Check score' lands: a GET, safe to reload)."""
    game = load_game_or_404(game_id)
    context = review_inputs(game_id, request.args)
    try:
        _, result = check_entry(game, context)
    except ValueError as error:
        return refused_entry(game, context, error)
    return review_page(game, context, result=result)


def check_url(game_id: int, context: ReviewContext) -> str:
    args: dict[str, Any] = {"cards0": context["cards"][0], "cards1": context["cards"][1], "knocker": context["knocker"]}
    if context["upcard"]:
        args["upcard"] = context["upcard"]
    if context["photo"] is not None:
        args["photo_id"] = context["photo"].id
    if context["replace"] is not None:
        args["replace"] = context["replace"]
    return url_for("hands.check", game_id=game_id, **args, _anchor="result")


@bp.route("/games/<int:game_id>/review", methods=("POST",))
def review(game_id: int):
    """'Check score' redirects to the checked hands (a GET); 'Save hand' stores the hand and goes to the sheet."""
    game = load_game_or_404(game_id)
    save_token = form_token(request.form.get("save_token"))
    confirm = request.form.get("action") == "confirm"
    if confirm and store.save_token_used(save_token):
        return already_saved(game_id)
    try:
        context = review_inputs(game_id, request.form, save_token if confirm else None)
    except store.AlreadySaved:  # the first press of a double tap finished meanwhile
        return already_saved(game_id)
    if not confirm:
        return redirect(check_url(game_id, context), 303)
    try:
        entry, result = check_entry(game, context)
    except ValueError as error:
        return refused_entry(game, context, error)
    try:
        position = save_hand(game, entry, context["replace"], context["photo"], save_token)
    except store.AlreadySaved:
        return already_saved(game_id)
    except ValueError as error:
        return review_page(game, context, error=forms.sentence(error), status=409)
    flash(f"Hand {position} saved: {result.summary}")
    return redirect(url_for("games.sheet", game_id=game_id, _anchor=f"hand-{position}"))


def already_saved(game_id: int):
    """A second press of a save button: the hand is stored once; show the sheet."""
    flash("That hand was saved already (the button was pressed twice); here is the sheet.")
    return redirect(url_for("games.sheet", game_id=game_id), 303)


# ---------------------------------------------------------------- manual entry, counts, void, edit


def manual_page(
    game: GameRecord, replace: int | None, form: Mapping[str, str] | None = None, counts_error: str | None = None
) -> str:
    """The manual entry page: ``form`` fills the quick counts (a hand being edited, or sent with ``counts_error``)."""
    return render_template(
        "hands/manual.html",
        game=game,
        card_codes=CARD_CODES,
        replace=replace,
        needs_upcard=game.rules.needs_upcard,
        form=form,
        counts_error=counts_error,
    )


@bp.route("/games/<int:game_id>/hands/manual")
def manual(game_id: int):
    """A 52-card picker for each player, or quick deadwood counts."""
    game = load_game_or_404(game_id)
    return manual_page(game, replace_position_arg(game_id))


@bp.route("/games/<int:game_id>/hands/counts", methods=("POST",))
def counts(game_id: int):
    """Quick entry: who knocked, each player's deadwood count (after lay-offs), gin or not."""
    game = load_game_or_404(game_id)
    replace = replace_position_arg(game_id)
    try:
        entry = forms.counts_entry(
            game,
            request.form.get("knocker", ""),
            (request.form.get("deadwood0", ""), request.form.get("deadwood1", "")),
            request.form.get("gin") == "1",
            request.form.get("upcard", ""),
        )
        result = sheet_view.score_entry(game, entry)
    except ValueError as error:
        return manual_page(game, replace, request.form, forms.sentence(error)), 400
    try:
        position = save_hand(game, entry, replace, save_token=form_token(request.form.get("save_token")))
    except ValueError as error:
        flash(forms.sentence(error), "error")
        return redirect(url_for("games.sheet", game_id=game_id)), 303
    flash(f"Hand {position} saved: {result.summary}")
    return redirect(url_for("games.sheet", game_id=game_id, _anchor=f"hand-{position}"))


@bp.route("/games/<int:game_id>/hands/void", methods=("POST",))
def void(game_id: int):
    """The stock ran out: nobody scores, the same dealer deals again."""
    game = load_game_or_404(game_id)
    try:
        save_hand(
            game,
            store.HandEntry(EnteredAs.VOID),
            replace_position_arg(game_id),
            save_token=form_token(request.form.get("save_token")),
        )
    except ValueError as error:
        flash(forms.sentence(error), "error")
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
    if hand.entry == EnteredAs.CARDS:
        return review_page(
            game,
            {
                "cards": (" ".join(hand.cards[0]), " ".join(hand.cards[1])),
                "knocker": str(hand.knocker),
                "upcard": hand.upcard or "",
                "photo": None,
                "replace": position,
            },
        )
    form = {
        "knocker": str(hand.knocker) if hand.knocker is not None else "",
        "deadwood0": "" if hand.deadwood[0] is None else str(hand.deadwood[0]),
        "deadwood1": "" if hand.deadwood[1] is None else str(hand.deadwood[1]),
        "gin": "1" if hand.gin else "",
        "upcard": hand.upcard or "",
    }
    return manual_page(game, position, form)
