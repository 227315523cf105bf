"""The optional table PIN: when set, a browser enters it once before it may change anything."""
from __future__ import annotations

import hmac
import time

from flask import (Blueprint, current_app, flash, jsonify, redirect, render_template, request,
                   session, url_for)

bp = Blueprint("pin", __name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def pin_entered() -> bool:
    """True when no PIN is set or this browser has entered it."""
    pin = current_app.config.get("PIN")
    return not pin or session.get("pin") == _pin_token(str(pin))


def _pin_token(pin: str) -> str:
    # The session stores a digest tied to the PIN, so changing --pin logs every browser out.
    return hmac.new(current_app.config["SECRET_KEY"].encode(), pin.encode(), "sha256").hexdigest()


def require_pin_for_changes():
    """before_request hook: refuse changes from a browser that has not entered the PIN."""
    if request.method in SAFE_METHODS or request.endpoint in ("pin.enter", "static") or pin_entered():
        return None
    message = "This table has a PIN: enter it once on this device before changing anything."
    if request.path.startswith("/api/"):
        header = request.headers.get("X-Table-Pin", "")
        if header and hmac.compare_digest(header.strip().encode(), str(current_app.config["PIN"]).encode()):
            return None
        message = "This table has a PIN: send it in the X-Table-Pin header."
        return jsonify(error=message), 403
    flash(message)
    return redirect(url_for("pin.enter", next=request.referrer or url_for("games.index")))


def _safe_next(target: str | None) -> str:
    """Only same-site paths as a redirect target."""
    if not target:
        return url_for("games.index")
    from urllib.parse import urlsplit
    parts = urlsplit(target)
    if parts.netloc and parts.netloc != request.host:
        return url_for("games.index")
    return parts.path + (f"?{parts.query}" if parts.query else "") or url_for("games.index")


@bp.route("/pin", methods=("GET", "POST"))
def enter():
    """Ask for the table PIN."""
    pin = current_app.config.get("PIN")
    target = _safe_next(request.values.get("next"))
    if not pin:
        return redirect(target)
    if request.method == "POST":
        if hmac.compare_digest(request.form.get("pin", "").strip().encode(), str(pin).encode()):
            session["pin"] = _pin_token(str(pin))
            session.permanent = True
            return redirect(target)
        time.sleep(0.5)  # slows guessing a short PIN
        return render_template("pin.html", error="That PIN is wrong; ask the table.", next=target), 403
    return render_template("pin.html", error=None, next=target)
