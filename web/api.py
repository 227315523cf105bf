"""A small JSON API: games, the sheet, photo readings, adding and undoing hands.

Writes need the header ``X-Requested-With`` (any value): a browser cannot send it from another
site without a CORS preflight, which this app never grants, so the API needs no CSRF token.
With a table PIN, send it as ``X-Table-Pin`` (or enter it once in the browser).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from engine import OverKnockLimit, Rules, WrongHandSize
from vision.reading import ImageError

from . import forms, sheet_view, store
from .db import transaction
from .services import (
    SAVE_TOKEN_PATTERN,
    TOKEN_USED,
    get_pending_photo,
    load_game_or_404,
    parse_new_game_form,
    photo_error_status,
    refusal_with_suspects,
    save_hand,
    sheet_for,
    store_photo_for_review,
    undo_last_hand,
)
from .store import EnteredAs, GameRecord, PhotoRecord

bp = Blueprint("api", __name__, url_prefix="/api")


def api_error(message: str, status: int = 400) -> tuple[Response, int]:
    return jsonify(error=message), status


@bp.before_request
def require_custom_header() -> tuple[Response, int] | None:
    if request.method not in ("GET", "HEAD", "OPTIONS") and not request.headers.get("X-Requested-With"):
        return api_error("API writes need the header X-Requested-With (any value).", 400)
    return None


def sheet_json(game: GameRecord) -> dict[str, Any]:
    sheet = sheet_for(game)
    return {
        "id": game.id,
        "players": list(sheet.players),
        "target": game.target,
        "rules": game.rules.to_dict(),
        **sheet.to_dict(),
    }


@bp.get("/games")
def list_games():
    """Every game: id, players, target, hands so far, finished or not."""
    return jsonify(
        games=[
            {
                "id": g.id,
                "players": list(g.players),
                "target": g.target,
                "hands": g.hand_count,
                "finished": bool(g.finished),
            }
            for g in store.list_games()
        ]
    )


@bp.post("/games")
def create_game():
    """Body: {"players": [a, b], "preset": "standard", "rules": {option: value}, "target": 100}."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return api_error('Send a JSON object: {"players": ["Ann", "Bob"], "target": 100}.')
    players = body.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
        return api_error('"players" must be a list of two names.')
    form = {
        "player0": players[0],
        "player1": players[1],
        "preset": str(body.get("preset", "standard")),
        "target": str(body.get("target", "")),
    }
    rules = body.get("rules") or {}
    if not isinstance(rules, dict):
        return api_error('"rules" must be an object of rule options.')
    known = {option["name"] for option in Rules.options()} - {"target"}
    unknown = sorted(map(str, set(rules) - known))
    if unknown:
        return api_error(
            f"Unknown rule option(s): {', '.join(unknown)}. The options are: {', '.join(sorted(known))} "
            '(the target is "target" outside "rules").'
        )
    try:
        parsed_players, parsed_rules, target = parse_new_game_form(forms.FormView(form, rules))
    except ValueError as error:
        return api_error(str(error))
    with transaction() as connection:
        game_id = store.insert_game(connection, parsed_players, parsed_rules, target)
    return jsonify(sheet_json(load_game_or_404(game_id))), 201


@bp.get("/games/<int:game_id>")
def get_game(game_id: int):
    """The sheet: hands, totals, boxes, next dealer, reckoning."""
    return jsonify(sheet_json(load_game_or_404(game_id)))


@bp.post("/games/<int:game_id>/photo")
def photo(game_id: int):
    """Multipart field "photo": read the cards; returns the reading and a photo_id for /hands."""
    game = load_game_or_404(game_id)
    upload = request.files.get("photo")
    if upload is None:
        return api_error('Send the photo as the multipart field "photo".')
    try:
        photo_id = store_photo_for_review(game, upload.read(), "api")
    except ImageError as error:
        return api_error(str(error), photo_error_status(error))
    return jsonify(photo_id=photo_id, reading=get_pending_photo(game_id, photo_id).reading().to_json()), 201


@bp.post("/games/<int:game_id>/hands")
def add_hand(game_id: int):
    """Body: {"knocker": 0|1, "cards": [[...], [...]], "upcard": null, "photo_id": null}
    or {"knocker": 0|1, "deadwood": [n, m], "gin": false} or {"void": true}; optional "replace": n."""
    game = load_game_or_404(game_id)
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return api_error("Send a JSON object describing the hand.")
    players = game.players
    replace = body.get("replace")
    if replace is not None and (type(replace) is not int or not 1 <= replace <= len(store.get_hands(game_id))):
        return api_error(f"There is no hand {replace!r} to replace.", 404)
    save_token = body.get("save_token")
    if save_token is not None and not (isinstance(save_token, str) and SAVE_TOKEN_PATTERN.fullmatch(save_token)):
        return api_error('"save_token" must be 16 to 64 letters, digits, - or _ (one new token per hand).')
    if store.save_token_used(save_token):
        return api_error(TOKEN_USED, 409)
    photo: PhotoRecord | None = None
    texts = ("", "")  # the two hands as sent (a showdown's cards)
    try:
        if body.get("void"):
            entry = store.HandEntry(EnteredAs.VOID)
        elif "deadwood" in body:
            deadwood = body["deadwood"]
            if not (isinstance(deadwood, list) and len(deadwood) == 2):
                return api_error('"deadwood" must be a list of two counts.')
            entry = forms.counts_entry(
                game,
                str(body.get("knocker", "")),
                (str(deadwood[0]), str(deadwood[1])),
                bool(body.get("gin")),
                str(body.get("upcard") or ""),
            )
        else:
            cards = body.get("cards")
            if not (isinstance(cards, list) and len(cards) == 2):
                return api_error('"cards" must be a list of two hands (lists of card codes like "Ts").')
            texts = (hand_text(cards[0]), hand_text(cards[1]))
            if body.get("photo_id") is not None:
                photo_id = body["photo_id"]
                if type(photo_id) is not int:
                    return api_error('"photo_id" must be the number the photo upload answered.')
                photo = get_pending_photo(game_id, photo_id, save_token)
            entry = forms.showdown_entry(
                game,
                texts,
                str(body.get("knocker", "")),
                str(body.get("upcard") or ""),
                source="photo" if photo is not None else "api",
            )
        result = sheet_view.score_entry(game, entry)
    except store.AlreadySaved as error:  # the same hand's other request was quicker
        return api_error(str(error), 409)
    except (OverKnockLimit, WrongHandSize) as error:  # name the cards of the photo that may be misread
        message, _ = refusal_with_suspects(error, photo, texts, str(body.get("knocker", "")), players)
        return api_error(message)
    except ValueError as error:
        return api_error(str(error))
    try:
        save_hand(game, entry, replace, photo, save_token)
    except ValueError as error:
        return api_error(str(error), 409)
    return jsonify(hand=result.to_dict(), sheet=sheet_json(load_game_or_404(game_id))), 201


def hand_text(hand: object) -> str:
    """One hand of a body's "cards": a list of card codes (or already one text)."""
    return " ".join(map(str, hand)) if isinstance(hand, list) else str(hand)


@bp.post("/games/<int:game_id>/undo")
def undo(game_id: int):
    """Remove the latest hand."""
    game = load_game_or_404(game_id)
    position = undo_last_hand(game)
    if position is None:
        return api_error("There is no hand to undo.", 409)
    return jsonify(undone=position, sheet=sheet_json(load_game_or_404(game_id)))
