"""Pages for players across games: the list, rename, merge (asks first), undo, the record of two
players, and the CSV of every game.

Every change here is a POST, behind the table PIN like every other change (the app's
``pin.require_pin_for_changes`` hook), done in one transaction by ``records``; each form carries a
one-time token, so a double tap does it once.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from . import forms, records, store
from .chart import head_to_head_svg
from .services import MAX_NAME_LENGTH, form_token
from .spreadsheet import csv_download

bp = Blueprint("players", __name__)


def status_of(error: Exception) -> int:
    return 404 if isinstance(error, records.UnknownPlayer) else 400


def selection(players: list[records.PlayerName], a: str | None, b: str | None) -> tuple[str, str]:
    """The keys of the two players a form shows chosen: the ones asked for, else the first two listed."""
    keys = [player.key for player in players] + ["", ""]
    return (records.name_key(a) if a else keys[0]), (records.name_key(b) if b else keys[1])


@bp.route("/players")
def index():
    """Every player named in the games: games played, won, in progress; rename, merge, records."""
    summaries = records.player_summaries(records.scored_games())
    return render_template(
        "players/index.html",
        players=summaries,
        latest=store.latest_player_change(),
        describe=records.describe_change,
    )


@bp.route("/players/record")
def record():
    """The record of two players: games, boxes, gins, undercuts, biggest hand, and a chart of the games won."""
    a, b = request.args.get("a"), request.args.get("b")
    players = records.player_names()
    if a is None and b is None:
        return render_template("players/record.html", record=None, players=players, selected=selection(players, a, b))
    try:
        record = records.record_of(
            records.check_name(a, "The first player"), records.check_name(b, "The second player")
        )
    except (records.UnknownPlayer, ValueError) as error:
        message = forms.sentence(error)
        return render_template(
            "players/record.html", record=None, players=players, selected=selection(players, a, b), error=message
        ), status_of(error)
    chart = head_to_head_svg(
        record.names, [game.winner if game.finished else None for game in record.games], records.chart_labels(record)
    )
    return render_template(
        "players/record.html",
        record=record,
        players=players,
        selected=selection(players, *record.names),
        chart=chart,
    )


@bp.route("/players/rename", methods=("GET", "POST"))
def rename():
    """Give a player another name (or write it one way) in every game."""
    source = request.form if request.method == "POST" else request.args
    token = form_token(request.form.get("change_token"))
    if request.method == "POST" and records.done_already(token):
        flash("That rename was done already (the button was pressed twice).")
        return redirect(url_for("players.index"), 303)
    old = records.clean_name(source.get("name"))
    known = {player.key: player for player in records.player_names()}
    player = known.get(records.name_key(old))
    if player is None:
        message = f"No game has a player called “{old}”." if old else "Choose a player to rename."
        return render_template("players/rename.html", player=None, error=message), 404 if old else 400
    if request.method == "GET":
        return render_template("players/rename.html", player=player, new=player.name, max_name=MAX_NAME_LENGTH)
    new = request.form.get("new", "")
    try:
        done = records.rename_player(old, new, token)
    except records.AlreadyDone as error:
        flash(str(error))
        return redirect(url_for("players.index"), 303)
    except (records.UnknownPlayer, ValueError) as error:
        merge_with = None
        other = known.get(records.name_key(new))
        if other is not None and other.key != player.key:
            merge_with = other
        return render_template(
            "players/rename.html",
            player=player,
            error=forms.sentence(error),
            new=new,
            merge_with=merge_with,
            max_name=MAX_NAME_LENGTH,
        ), status_of(error)
    flash(done.message)
    return redirect(url_for("players.index"), 303)


@bp.route("/players/merge", methods=("GET", "POST"))
def merge():
    """Make two names one player: the page says what will happen, the button does it (Undo on the list)."""
    source = request.form if request.method == "POST" else request.args
    a, b = records.clean_name(source.get("a")), records.clean_name(source.get("b"))
    keep = source.get("keep")
    players = records.player_names()
    if request.method == "POST":
        try:
            done = records.merge_players(a, b, keep, form_token(request.form.get("change_token")))
        except records.AlreadyDone as error:
            flash(str(error))
            return redirect(url_for("players.index"), 303)
        except (records.UnknownPlayer, ValueError) as error:
            return render_merge(players, a, b, keep, forms.sentence(error), status_of(error))
        flash(done.message)
        return redirect(url_for("players.index"), 303)
    return render_merge(players, a, b, keep, None, 200, check=bool(a or b))


def render_merge(
    players: list[records.PlayerName],
    a: str,
    b: str,
    keep: str | None,
    error: str | None,
    status: int,
    check: bool = False,
) -> ResponseReturnValue:
    """The merge page: the two players chosen and what merging them does, or the choice again with the error."""
    plan = None
    if error is None and check:
        try:
            plan = records.merge_plan(a, b, keep)
        except (records.UnknownPlayer, ValueError) as problem:
            error, status = forms.sentence(problem), status_of(problem)
    if plan is not None and plan.refusal is not None:
        error, plan, status = plan.refusal, None, 400
    return render_template(
        "players/merge.html",
        players=players,
        selected=selection(players, a, b),
        plan=plan,
        error=error,
        max_name=MAX_NAME_LENGTH,
    ), status


@bp.route("/players/undo", methods=("POST",))
def undo():
    """Take back the latest rename or merge."""
    change_id = forms.whole_number(request.form.get("change", ""))
    if change_id is None:
        flash("There is no such rename or merge to undo.", "error")
        return redirect(url_for("players.index"), 303)
    try:
        flash(records.undo_change(change_id))
    except records.AlreadyDone as error:
        flash(str(error))
    except (records.UnknownPlayer, ValueError) as error:
        flash(forms.sentence(error), "error")
    return redirect(url_for("players.index"), 303)


@bp.route("/games/export.csv")
def export_csv():
    """Every game as CSV: one line per game (id, date, players, target, scores, winner, hands, finished)."""
    return csv_download(records.games_csv_rows(records.scored_games()), "ginscore-games.csv")
