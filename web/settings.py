"""Settings page: keep photos for training, the webcam's device number.

The page takes only a device number (0, 1, ...) for the webcam: a stream URL or a video file
would let anyone on the LAN make the server fetch a URL or read a file, so those are set only
on the command line (``ginscore serve --camera``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from . import store
from .services import MOST_DEVICES, device_number

bp = Blueprint("settings", __name__)


@bp.route("/settings", methods=("GET", "POST"))
def page():
    """Show and change the table's settings."""
    if request.method == "POST":
        source = request.form.get("camera_source", "").strip()
        if source and not device_number(source):
            flash(
                f"The webcam here is a device number from 0 to {MOST_DEVICES - 1}; a stream URL or a video "
                "file is set when the server starts (ginscore serve --camera)."
            )
            return render_page(source), 400
        store.save_settings(
            {
                "keep_photos": "1" if request.form.get("keep_photos") == "1" else "0",
                "camera_source": device_number(source),
            }
        )
        flash("Settings saved.")
        return redirect(url_for("settings.page"))
    return render_page(store.get_setting("camera_source"))


def render_page(camera_source: str) -> str:
    return render_template(
        "settings/settings.html",
        keep_photos=store.get_setting("keep_photos") == "1",
        camera_source=camera_source,
        cli_camera=current_app.config.get("CAMERA_SOURCE"),
    )
