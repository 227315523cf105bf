"""The Flask app factory behind ``web.create_app``.

``create_app(test_config)`` builds the Flask app (flaskr style): an SQLite file in the instance
folder by default, blueprints for games, hands, players, settings, the camera, training, teaching a deck
and the JSON API.
"""

from __future__ import annotations

import os
import secrets
import threading
from typing import Any

from flask import Flask
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException

from engine.cards import card_label

from . import api, camera, db, games, hands, pin, players, settings, teaching, training
from .http_safety import add_security_headers, check_host, error_response
from .pin_throttle import PinThrottle
from .retention import delete_stale_photos
from .table_watcher import TableWatcher

MEBIBYTE = 1024 * 1024

# A sentence for people for each HTTP error that has no handler of its own (never Werkzeug's text).
HTTP_MESSAGES = {
    400: "The request was not understood; go back, reload the page and try again.",
    403: "That is not allowed here.",
    405: "This address cannot be used that way; go back and use the page's buttons.",
    409: "That changed meanwhile (another device was quicker); reload the page to see the sheet as it is.",
    429: "Too many tries; wait a minute and try again.",
    503: "The server is busy; try again in a moment.",
}
DEFAULT_MESSAGE = "That did not work; go back, reload the page and try again."


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app; ``test_config`` overrides the defaults (DATABASE, PIN, CAMERA_SOURCE, ...)."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY=None,
        DATABASE=os.path.join(app.instance_path, "ginscore.sqlite"),
        MAX_CONTENT_LENGTH=20 * MEBIBYTE,  # whole request; uploads bigger than this get a 413
        MAX_IMAGE_PIXELS=40_000_000,  # decompression bombs: refuse bigger images
        PIN=None,  # table PIN: required before any change when set
        CAMERA_SOURCE=None,  # device index, stream URL or video file
        WATCH_TABLE=False,  # watch the camera for a still showdown (web.table_watcher); serve turns it on
        MODEL_PATH=None,  # detector weights; None = the shipped model
        LAN_URL=None,  # shown with a QR code when serving on the LAN
        ALLOWED_HOSTS=(),  # Host names answered besides localhost and 127.0.0.1
        PHOTO_LONGEST_SIDE=2048,  # uploads are stored as one JPEG at most this big
        PHOTO_DECODE_SLOTS=2,  # photos decoded at the same time (memory bound)
        UNCONFIRMED_PHOTO_HOURS=24,  # uploads never saved as a hand are deleted after this
        WTF_CSRF_TIME_LIMIT=12 * 3600,  # form tokens last a long evening at the table
        SESSION_COOKIE_SAMESITE="Lax",
    )
    if test_config is not None:
        app.config.update(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _instance_secret_key(app.instance_path)

    db.init_app(app)
    app.extensions["pin_throttle"] = PinThrottle()
    app.extensions["photo_decode_slots"] = threading.BoundedSemaphore(app.config["PHOTO_DECODE_SLOTS"])

    csrf = CSRFProtect(app)
    app.register_blueprint(pin.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(settings.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(training.bp)
    app.register_blueprint(teaching.bp)
    app.register_blueprint(players.bp)
    csrf.exempt(api.bp)  # the API is protected by its required X-Requested-With header instead
    app.before_request(check_host)
    app.before_request(pin.require_pin_for_changes)
    app.after_request(add_security_headers)

    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> ResponseReturnValue:
        return error_response("The form had expired or came from another page; reload the page and try again.", 400)

    @app.errorhandler(413)
    def too_large(error: Exception) -> ResponseReturnValue:
        limit = app.config["MAX_CONTENT_LENGTH"] // MEBIBYTE
        return error_response(
            f"The upload is larger than {limit} MB; send a smaller photo (a phone photo is 2-6 MB).", 413
        )

    @app.errorhandler(404)
    def not_found(error: Exception) -> ResponseReturnValue:
        return error_response("There is no such page, game or hand (it may have been deleted).", 404)

    @app.errorhandler(HTTPException)
    def other_http_error(error: HTTPException) -> ResponseReturnValue:
        status = error.code or 500
        return error_response(HTTP_MESSAGES.get(status, DEFAULT_MESSAGE), status)

    @app.errorhandler(500)
    def server_error(error: Exception) -> ResponseReturnValue:
        return error_response("Something went wrong on the server; nothing was changed. Try again.", 500)

    app.add_template_filter(card_label, "card_label")

    @app.context_processor
    def page_globals() -> dict[str, Any]:
        return {
            "lan_url": app.config.get("LAN_URL"),
            "pin_required": bool(app.config.get("PIN")),
            "new_save_token": lambda: secrets.token_urlsafe(18),
        }

    with app.app_context():
        delete_stale_photos()
    if app.config["WATCH_TABLE"]:
        watcher = app.extensions["table_watcher"] = TableWatcher(app)
        watcher.start()
    return app


def _instance_secret_key(instance_path: str) -> str:
    """A random key kept in the instance folder, so sessions survive a restart."""
    path = os.path.join(instance_path, "secret_key")
    try:
        with open(path, encoding="ascii") as file:
            key = file.read().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    with open(path, "w", encoding="ascii") as file:
        file.write(key)
    os.chmod(path, 0o600)
    return key
