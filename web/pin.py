"""The optional table PIN: when set, a browser enters it once before it may change anything.

Every try of the PIN (the form, or the ``X-Table-Pin`` header of the API) goes through the
throttle in ``pin_throttle``: growing waits per client and a budget of wrong PINs for the table.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, jsonify, redirect, render_template, request, session, url_for

from .pin_throttle import PinThrottle

bp = Blueprint("pin", __name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def throttle() -> PinThrottle:
    """The app's one throttle (created with the app)."""
    return current_app.extensions["pin_throttle"]


def pin_entered() -> bool:
    """True when no PIN is set or this browser has entered it."""
    pin = current_app.config.get("PIN")
    return not pin or session.get("pin") == _pin_token(str(pin))


def _pin_token(pin: str) -> str:
    # The session stores a digest tied to the PIN, so changing --pin logs every browser out.
    return hmac.new(current_app.config["SECRET_KEY"].encode(), pin.encode(), "sha256").hexdigest()


def _is_the_pin(guess: str) -> bool:
    return hmac.compare_digest(guess.strip().encode(), str(current_app.config["PIN"]).encode())


def require_pin_for_changes():
    """before_request hook: refuse changes from a browser that has not entered the PIN."""
    if request.method in SAFE_METHODS or request.endpoint in ("pin.enter", "static") or pin_entered():
        return None
    if request.path.startswith("/api/"):
        return _check_pin_header()
    flash("This table has a PIN: enter it once on this device before changing anything.")
    return redirect(url_for("pin.enter", next=_referrer_path()))


def _check_pin_header():
    """The API's X-Table-Pin header, throttled like the form; None lets the request through."""
    guess = request.headers.get("X-Table-Pin", "")
    if not guess:
        return jsonify(error="This table has a PIN: send it in the X-Table-Pin header."), 403
    client = request.remote_addr or "unknown"
    verdict = throttle().check(client)
    if not verdict.allowed:
        return jsonify(error=verdict.message()), 429, {"Retry-After": str(int(verdict.wait_s) + 1)}
    if _is_the_pin(guess):
        throttle().succeeded(client)
        return None
    throttle().failed(client)
    return jsonify(error="The X-Table-Pin header has the wrong PIN."), 403


def _referrer_path() -> str:
    """The page the refused form came from, as a local path (the games list otherwise)."""
    parts = urlsplit(request.referrer or "")
    if parts.netloc != request.host:
        return url_for("games.index")
    return local_path(parts.path + (f"?{parts.query}" if parts.query else ""))


def local_path(target: str | None) -> str:
    """``target`` when it is a path on this site, else the games list: redirects never leave the site."""
    fallback = url_for("games.index")
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return fallback
    if any(character in target for character in "\\\r\n\t") or not target.isprintable():
        return fallback
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return fallback
    return target


@bp.route("/pin", methods=("GET", "POST"))
def enter():
    """Ask for the table PIN."""
    pin = current_app.config.get("PIN")
    target = local_path(request.values.get("next"))
    if not pin:
        return redirect(target)
    if request.method == "GET":
        return render_template("pin/pin.html", error=None, next=target)
    client = request.remote_addr or "unknown"
    verdict = throttle().check(client)
    if not verdict.allowed:
        return (
            render_template("pin/pin.html", error=verdict.message(), next=target),
            429,
            {"Retry-After": str(int(verdict.wait_s) + 1)},
        )
    if _is_the_pin(request.form.get("pin", "")):
        throttle().succeeded(client)
        session["pin"] = _pin_token(str(pin))
        session.permanent = True
        return redirect(target)
    throttle().failed(client)
    wait = throttle().check(client)
    error = "That PIN is wrong; ask the table."
    if not wait.allowed:
        error += " " + wait.message()
    return render_template("pin/pin.html", error=error, next=target), 403
