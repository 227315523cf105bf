"""How long photos are kept: uploads never saved as a hand go after a day, a deleted game's at once.

Confirmed photos (with their corrected cards) stay as long as their game, for training when
"keep photos" is on. The sweep runs when the app starts and with every new upload.
"""

from __future__ import annotations

from flask import current_app

from . import store
from .db import transaction

SAVE_TOKEN_DAYS = 7  # a form's one-time token is remembered this long (a week-old page could save twice)


def delete_stale_photos() -> int:
    """Delete unconfirmed uploads older than UNCONFIRMED_PHOTO_HOURS and photos of no game; return how many."""
    hours = float(current_app.config["UNCONFIRMED_PHOTO_HOURS"])
    with transaction() as connection:
        return store.delete_stale(connection, hours * 3600, SAVE_TOKEN_DAYS)
