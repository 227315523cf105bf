"""Pages for games: the list, a new game, the score sheet, undo, delete, rematch, CSV export."""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from . import forms, sheet_view, store
from .chart import running_totals_svg
from .db import transaction
from .services import (
    camera_problem,
    current_camera_source,
    live_sheet_version,
    load_game_or_404,
    parse_new_game_form,
    sheet_for,
    undo_last_hand,
)
from .spreadsheet import spreadsheet_safe

bp = Blueprint("games", __name__)


@bp.route("/")
def index():
    """Games in progress and finished."""
    games = store.list_games()
    in_progress = [g for g in games if not g["finished"]]
    finished = [g for g in games if g["finished"]]
    return render_template("games/index.html", in_progress=in_progress, finished=finished, lan_qr_svg=_lan_qr_svg())


def _lan_qr_svg() -> str | None:
    url = current_app.config.get("LAN_URL")
    if not url:
        return None
    import segno

    return segno.make(url, error="m").svg_inline(scale=4, dark="#111", light="#fff")


@bp.route("/games/new", methods=("GET", "POST"))
def new_game():
    """Players, rules (a preset and every option) and the target."""
    if request.method == "POST":
        try:
            players, rules, target = parse_new_game_form(request.form)
        except ValueError as error:
            flash(str(error), "error")
            return render_template(
                "games/new_game.html",
                fields=forms.rule_fields(request.form),
                presets=forms.preset_names(),
                form=request.form,
                preset_target=forms.preset_target(request.form.get("preset")),
            ), 400
        first_dealer = 1 if request.form.get("first_dealer") == "1" else 0
        with transaction() as connection:
            game_id = store.insert_game(connection, players, rules, target, first_dealer)
        return redirect(url_for("games.sheet", game_id=game_id))
    preset = request.args.get("preset", "standard")
    return render_template(
        "games/new_game.html",
        fields=forms.rule_fields({"preset": preset}),
        presets=forms.preset_names(),
        form={"preset": preset},
        preset_target=forms.preset_target(preset),
    )


@bp.route("/games/<int:game_id>")
def sheet(game_id: int):
    """The score sheet: every hand, running totals, boxes, next deal, the reckoning at the end."""
    game = load_game_or_404(game_id)
    sheet = sheet_for(game)
    return render_template(
        "games/sheet.html",
        game=game,
        sheet=sheet,
        chart_svg=running_totals_svg(sheet.players, sheet.running_totals, game.target),
        camera_on=bool(current_camera_source()),
        photos=store.kept_photo_ids(game_id),
        undone=undone_hand(game_id, len(sheet.rows)),
        version=live_sheet_version(game_id),
        offer=store.current_offer(game_id),
        camera_problem=camera_problem(),
    )


@bp.route("/games/<int:game_id>/version")
def sheet_version(game_id: int):
    """What every open sheet polls (``static/app.js``) to follow the game: ``{"version", "hands"}`` with the
    version (``services.live_sheet_version``) as ETag, and 304 Not Modified when the phone already has it (a conditional poll: one short
    request that frees its server thread at once, so 20 phones and 8 server threads get along, where a
    stream per phone would hold a thread each)."""
    version = live_sheet_version(game_id)
    if version is None:
        abort(404)
    if version in request.if_none_match:
        response = Response(status=304)
    else:  # "hands": the saved hands alone, which the review page follows
        response = jsonify(version=version, hands=store.sheet_version(game_id))
    response.set_etag(version)
    response.headers["Cache-Control"] = "no-cache"
    return response


UNDONE_KEY = "undone_hand"


def undone_hand(game_id: int, hand_count: int) -> dict[str, Any] | None:
    """The hand this device undid last in this game, while it can still be put back (no hand since)."""
    undone = session.get(UNDONE_KEY)
    if not isinstance(undone, dict) or undone.get("game") != game_id or undone.get("position") != hand_count + 1:
        return None
    return undone


@bp.route("/games/<int:game_id>/undo", methods=("POST",))
def undo(game_id: int):
    """Take back the latest hand; the totals are recomputed."""
    game = load_game_or_404(game_id)
    expected_text = request.form.get("position", "").strip()
    expected = forms.whole_number(expected_text)
    if expected_text and expected is None:
        abort(400)
    removed: dict[str, Any] = {}
    position = undo_last_hand(game, expected, removed)
    if position is None and expected is not None:
        flash(f"Hand {expected} was undone already (the button was pressed twice, or on another device).")
    elif position is None:
        flash("There is no hand to undo.")
    else:  # the sheet shows "Hand N removed — Restore" instead of a flash
        session[UNDONE_KEY] = {"game": game_id, "position": position, **removed}
    return redirect(url_for("games.sheet", game_id=game_id))


@bp.route("/games/<int:game_id>/restore", methods=("POST",))
def restore(game_id: int):
    """Put back the hand this device just undid, at its place (if no hand was added since)."""
    game = load_game_or_404(game_id)
    undone = session.pop(UNDONE_KEY, None)
    if not isinstance(undone, dict) or undone.get("game") != game_id:
        flash("There is no undone hand to restore here.", "error")
        return redirect(url_for("games.sheet", game_id=game_id), 303)
    position = undone["position"]
    try:
        entry = store.HandEntry.from_dict(undone["hand"])
        with transaction() as connection:
            if store.hand_count(connection, game_id) != position - 1:
                raise store.SaveConflict(
                    f"Hand {position} cannot be restored: the sheet changed since "
                    "(a hand was added or undone meanwhile)."
                )
            hand_id, _ = store.write_hand(connection, game_id, entry)
            if undone.get("photo"):
                store.reattach_photo(connection, game_id, undone["photo"], hand_id)
            store.set_finished(
                connection, game_id, sheet_view.build_sheet(game, store.get_hands(game_id, connection)).game_over
            )
    except (ValueError, KeyError, TypeError) as error:
        message = (
            str(error)
            if isinstance(error, store.SaveConflict)
            else f"Hand {position} cannot be restored; enter it again."
        )
        flash(message, "error")
        return redirect(url_for("games.sheet", game_id=game_id), 303)
    flash(f"Hand {position} restored.")
    return redirect(url_for("games.sheet", game_id=game_id, _anchor=f"hand-{position}"), 303)


@bp.route("/games/<int:game_id>/delete", methods=("GET", "POST"))
def delete(game_id: int):
    """Ask, then delete the game with all its hands and photos."""
    game = load_game_or_404(game_id)
    if request.method == "POST":
        if request.form.get("confirm") != "yes":
            flash("The game was not deleted.")
            return redirect(url_for("games.sheet", game_id=game_id))
        with transaction() as connection:
            store.delete_game(connection, game_id)
        flash(f"The game {game.player0} v {game.player1} was deleted.")
        return redirect(url_for("games.index"))
    return render_template("games/confirm_delete.html", game=game)


@bp.route("/games/<int:game_id>/rematch", methods=("POST",))
def rematch(game_id: int):
    """A new game between the same players with the same rules; the loser deals first."""
    game = load_game_or_404(game_id)
    sheet = sheet_for(game)
    first_dealer = 1 - sheet.winner if sheet.winner is not None else game.first_dealer
    with transaction() as connection:
        new_id = store.insert_game(connection, game.players, game.rules, game.target, first_dealer, rematch_of=game_id)
    return redirect(url_for("games.sheet", game_id=new_id))


@bp.route("/games/<int:game_id>/export.csv")
def export_csv(game_id: int):
    """The sheet as CSV: one line per hand, then the final reckoning when the game is over."""
    game = load_game_or_404(game_id)
    sheet = sheet_for(game)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    names = [spreadsheet_safe(name) for name in sheet.players]
    writer.writerow(
        [
            "hand",
            "knocker",
            "kind",
            "winner",
            "points",
            f"{names[0]} total",
            f"{names[1]} total",
            f"{names[0]} cards",
            f"{names[1]} cards",
            f"{names[0]} deadwood",
            f"{names[1]} deadwood",
            "entered as",
        ]
    )
    for row in sheet.rows:
        writer.writerow(
            [
                row.position,
                spreadsheet_safe(row.knocker_name or ""),
                row.kind.words,
                spreadsheet_safe(row.winner_name or ""),
                row.points,
                row.totals[0],
                row.totals[1],
                " ".join(row.cards[0]),
                " ".join(row.cards[1]),
                "" if row.deadwood[0] is None else row.deadwood[0],
                "" if row.deadwood[1] is None else row.deadwood[1],
                row.entry,
            ]
        )
    if sheet.reckoning:
        writer.writerow([])
        for line in sheet.reckoning:
            writer.writerow(["reckoning", line.label, "", "", "", line.amounts[0], line.amounts[1]])
    filename = f"ginscore-game-{game_id}.csv"
    return Response(
        buffer.getvalue(), mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
