"""Teaching the reader your deck from a phone: "Teach your deck" on the Training page, and each deck's
teaching page (``/training/decks/NAME``) with the faces found, their names to check, and Save.

Thin views: the photos are checked, kept and read in ``services.teach_deck_photos``; the faces, their names
and the deck are ``vision.training.teaching``'s, reached through ``learning``. Every POST is behind the
table PIN and CSRF like every form; a change to a face is the same whatever the number of taps; an upload
carries a one-time token (a double tap sends it once) and Save writes only what is not saved yet.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, send_file, url_for

from engine.cards import CARD_CODES, card_label
from vision.reading import ImageError

from . import forms, learning
from .services import form_token, read_deck_check_photo, read_unread_teaching_photos, teach_deck_photos

bp = Blueprint("teaching", __name__)

FACE_ID_LENGTH = 16  # "001a1b2c3-07": photo number, a random tag, the card's number in the photo


def deck_name_or_404(name: str) -> str:
    if not learning.valid_deck_name(name):
        abort(404)
    return name


def answer(location: str, error: bool = False, stop: bool = False):
    """A redirect (303: a reload never sends the photos again); the page's own upload, which sends the photos
    one by one with ``X-Upload-Progress``, gets the address as JSON (``stop``: send no more photos)."""
    if request.headers.get("X-Upload-Progress"):
        return jsonify(location=location, error=error, stop=stop), 200
    return redirect(location, 303)


@bp.errorhandler(learning.DamagedTeaching)
def damaged_record(error: learning.DamagedTeaching):
    """A deck whose teaching record cannot be read: say so, and offer to start again from its kept photos."""
    return render_template("training/damaged.html", name=error.deck, message=forms.sentence(error)), 409


@bp.route("/training/decks/<name>/start-again", methods=("POST",))
def start_again(name: str):
    """Start a deck with a damaged teaching record again: its kept photos wait to be read once more."""
    deck_name_or_404(name)
    kept = learning.start_teaching_again(current_app.instance_path, name)
    flash(
        f"Deck {name} starts again from its {kept} kept photo{'' if kept == 1 else 's'}: read "
        f"{'it' if kept == 1 else 'them'}, then check the names of the cards found."
    )
    return redirect(url_for("teaching.deck", name=name), 303)


@bp.route("/training/teach", methods=("POST",))
def upload():
    """Photos of a deck's cards: check, keep and read them, then its teaching page shows the faces found."""
    name = request.form.get("deck", "").strip()
    uploads = [(file.filename or "", file.read()) for file in request.files.getlist("photos") if file.filename]
    token = form_token(request.form.get("upload_token"))
    instance = current_app.instance_path
    try:
        learning.check_teaching_name(instance, name)
    except ValueError as error:
        flash(forms.sentence(error), "error")
        return answer(url_for("training.page", deck=name, _anchor="teach"), error=True, stop=True)
    known = learning.teaching_view(instance, name) is not None
    back = url_for("teaching.deck", name=name, _anchor="add-photos") if known else None
    if not uploads:
        flash("Choose one or more photos of your cards first (or take them with the camera).", "error")
        return answer(back or url_for("training.page", deck=name, _anchor="teach"), error=True)
    try:
        done = teach_deck_photos(name, uploads, token)
    except (ValueError, ImageError) as error:
        flash(forms.sentence(error), "error")
        return answer(back or url_for("training.page", deck=name, _anchor="teach"), error=True, stop=True)
    for category, sentence in done.said:
        flash(sentence, category)
    if not done.kept and not done.again:
        return answer(back or url_for("training.page", deck=name, _anchor="teach"), error=True)
    return answer(url_for("teaching.deck", name=name))


@bp.route("/training/decks/<name>")
def deck(name: str):
    """A deck's teaching page: the faces found with their names, what is missing, Save, Add photos."""
    deck_name_or_404(name)
    view = learning.teaching_view(current_app.instance_path, name)
    if view is None:
        abort(404)
    return render_template("training/deck.html", deck=view, cards=CARD_CODES)


def render_with_error(name: str, message: str, status: int = 400):
    """The teaching page again with what was wrong (nothing was changed)."""
    view = learning.teaching_view(current_app.instance_path, name)
    if view is None:
        abort(404)
    return render_template("training/deck.html", deck=view, cards=CARD_CODES, error=message), status


@bp.route("/training/decks/<name>/faces/<face_id>", methods=("POST",))
def change_face(name: str, face_id: str):
    """Name a face, confirm its name, leave it out or put it back (the same whatever the taps)."""
    deck_name_or_404(name)
    if len(face_id) > FACE_ID_LENGTH:
        abort(404)
    action = request.form.get("action", "")
    try:
        face = learning.change_taught_face(current_app.instance_path, name, face_id, action, request.form.get("code"))
    except LookupError:
        abort(404)
    except ValueError as error:
        return render_with_error(name, forms.sentence(error))
    label = face["label"][:1].upper() + face["label"][1:]
    if action == "leave_out":
        flash(f"{label} is left out; “Put it back” under its face undoes this.")
    elif action == "put_back":
        flash(f"{label} is back in, as {card_label(face['name'])}." if face["name"] else f"{label} is back in.")
    else:
        flash(f"{label} is {card_label(face['name'])}.")
    return redirect(url_for("teaching.deck", name=name, _anchor=f"face-{face_id}"), 303)


@bp.route("/training/decks/<name>/save", methods=("POST",))
def save(name: str):
    """Write the named faces into the deck (the writer of ``ginscore deck add``)."""
    deck_name_or_404(name)
    try:
        saved = learning.save_taught_faces(current_app.instance_path, name)
    except LookupError:
        abort(404)
    except ValueError as error:
        return render_with_error(name, forms.sentence(error), 409)
    faces = saved["faces"]
    state = "complete: the next retrain learns it" if faces == len(CARD_CODES) else f"{len(saved['missing'])} missing"
    if saved["written"]:
        replaced = (
            f" {len(saved['replaced'])} face{'s' if len(saved['replaced']) != 1 else ''} it had "
            f"{'were' if len(saved['replaced']) != 1 else 'was'} replaced (the old ones are kept in its replaced/ folder)."
            if saved["replaced"]
            else ""
        )
        flash(
            f"Deck {name} saved: {saved['written']} face{'s' if saved['written'] != 1 else ''} written; "
            f"it has {faces}/52 faces ({state}).{replaced}"
        )
    else:
        flash(f"Nothing new to save: deck {name} has {faces}/52 faces ({state}).")
    return redirect(url_for("teaching.deck", name=name), 303)


@bp.route("/training/decks/<name>/read", methods=("POST",))
def read_again(name: str):
    """Read the photos whose reading was cut short (the server stopped while reading them)."""
    deck_name_or_404(name)
    if learning.teaching_view(current_app.instance_path, name) is None:
        abort(404)
    try:
        said = read_unread_teaching_photos(name)
    except ImageError as error:
        flash(forms.sentence(error), "error")
        return redirect(url_for("teaching.deck", name=name), 303)
    for category, sentence in said or [("message", "Every photo is read.")]:
        flash(sentence, category)
    return redirect(url_for("teaching.deck", name=name), 303)


@bp.route("/training/decks/<name>/check", methods=("POST",))
def check_upload(name: str):
    """A photo of the taught deck in play, to judge retrains by: read it, then ask the user to confirm its cards."""
    deck_name_or_404(name)
    upload = request.files.get("photo")
    if upload is None or not upload.filename:
        flash("Choose a photo of a spread of the deck in play first (or take it with the camera).", "error")
        return redirect(url_for("teaching.deck", name=name, _anchor="check"), 303)
    try:
        pending = read_deck_check_photo(name, upload.filename, upload.read())
    except (ValueError, ImageError) as error:
        flash(forms.sentence(error), "error")
        return redirect(url_for("teaching.deck", name=name, _anchor="check"), 303)
    return redirect(url_for("teaching.check_photo", name=name, pending_id=pending["id"]), 303)


@bp.route("/training/decks/<name>/check/<pending_id>", methods=("GET", "POST"))
def check_photo(name: str, pending_id: str):
    """The cards read in a check photo: each confirmed or fixed, the ones missed named; then kept."""
    deck_name_or_404(name)
    instance = current_app.instance_path
    pending = learning.pending_check(instance, name, pending_id)
    if pending is None:
        abort(404)
    error = None
    if request.method == "POST":
        answers = [request.form.get(f"card-{k}", "") for k in range(len(pending["cards"]))]
        missed = request.form.get("missed", "").replace(",", " ").split()
        try:
            kept = learning.confirm_check_photo(instance, name, pending_id, answers, missed)
        except ValueError as error_said:
            error = forms.sentence(error_said)
        else:
            fixed = len(kept["fixed"])
            flash(
                f"Check photo {kept['photos']} of {name} kept: {len(kept['cards'])} cards"
                f"{f', {fixed} fixed' if fixed else ''}. A retrain now shows what it bought on this deck, and installs "
                "only if it reads it better."
            )
            return redirect(url_for("teaching.deck", name=name, _anchor="check"), 303)
    return (
        render_template("training/check.html", name=name, pending=pending, cards=CARD_CODES, error=error),
        400 if error else 200,
    )


@bp.route("/training/decks/<name>/check/<pending_id>/photo.jpg")
def check_photo_image(name: str, pending_id: str):
    deck_name_or_404(name)
    if learning.pending_check(current_app.instance_path, name, pending_id) is None:
        abort(404)
    return send_file(learning.pending_check_image(current_app.instance_path, name, pending_id), mimetype="image/jpeg")


@bp.route("/training/decks/<name>/faces/<face_id>.png")
def face_png(name: str, face_id: str):
    return _face_file(name, face_id, small=False)


@bp.route("/training/decks/<name>/faces/<face_id>.jpg")
def face_thumb(name: str, face_id: str):
    return _face_file(name, face_id, small=True)


def _face_file(name: str, face_id: str, small: bool):
    deck_name_or_404(name)
    path = learning.taught_face_image(current_app.instance_path, name, face_id, small)
    if path is None:
        abort(404)
    response = send_file(path, mimetype="image/jpeg" if small else "image/png", max_age=86400)
    return response
