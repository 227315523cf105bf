"""Settings page: keep photos for training, the webcam source."""
from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from . import store

bp = Blueprint("settings", __name__)

MAX_SOURCE_LENGTH = 500


@bp.route("/settings", methods=("GET", "POST"))
def page():
    """Show and change the table's settings."""
    if request.method == "POST":
        source = request.form.get("camera_source", "").strip()
        if len(source) > MAX_SOURCE_LENGTH:
            flash(f"The camera source is longer than {MAX_SOURCE_LENGTH} characters.")
            return redirect(url_for("settings.page")), 303
        store.save_settings({"keep_photos": "1" if request.form.get("keep_photos") == "1" else "0",
                             "camera_source": source})
        flash("Settings saved.")
        return redirect(url_for("settings.page"))
    return render_template("settings.html", keep_photos=store.get_setting("keep_photos") == "1",
                           camera_source=store.get_setting("camera_source"),
                           cli_camera=current_app.config.get("CAMERA_SOURCE"))
