"""The hands-free showdown: a background thread watches the camera over the table while a game is open.

Each loop takes the camera's current frame and compares it with the last (``vision.stillness``: a
cheap 160 px grey copy, so the live view and photo uploads keep the CPU). When the picture has been
still for ``STILL_S`` and differs from the last still picture it read, it reads ``VOTE_FRAMES`` frames
at photo quality and votes card by card (``recognition.read_still_table``). When that finds two spreads
of at least ``FEWEST_CARDS_A_SPREAD`` cards each that were not offered before, it keeps the middle frame
with the voted reading as a pending photo of the game (source ``"camera"``): every open sheet shows
"Showdown read: 20 cards, check it" with a link to its review page (the sheet's version changes).

A camera that gives no picture (unplugged, a dropped stream) is opened again every ``RETRY_S`` until it
answers; meanwhile the sheets say so (``CameraFeed.problem``). Nothing here writes more than one pending photo per still table.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from flask import Flask

from vision.reading import ImageError, PhotoReading
from vision.stillness import StillnessMeter, changed_share, signature

from . import recognition, store
from .camera_feed import CameraError, encode_jpeg, feed_for
from .db import transaction
from .services import current_camera_source

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

LOOK_INTERVAL_S = 0.1  # the watcher looks at a frame about this often (a signature costs ~2 ms)
IDLE_INTERVAL_S = 1.0  # ... and this often when no game is open or no camera is set
STILL_S = 2.0  # the picture unchanged this long: the table is still, read it
VOTE_FRAMES = 3  # frames read at photo quality and voted on (odd: a majority always exists)
VOTE_SPACING_S = 0.3  # seconds between them
SAME_TABLE_SHARE = 0.01  # a still picture that differs from the last one read by less is not read again
FEWEST_CARDS_A_SPREAD = 7  # both spreads this full (a hand shows 10): a showdown, offer it
RETRY_S = 3.0  # a camera that gave no picture is tried again this often


def is_showdown(reading: PhotoReading) -> bool:
    """Two spreads of at least ``FEWEST_CARDS_A_SPREAD`` cards each."""
    return all(len(hand) >= FEWEST_CARDS_A_SPREAD for hand in reading.hands)


class TableWatcher:
    """The watching thread of one app (``app.extensions["table_watcher"]``)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.offers = 0  # pending photos offered since the start (for the tests and the log)
        self.reads = 0  # still tables read
        self._meter = StillnessMeter()
        self._camera_lost = False
        self._last_read: np.ndarray | None = None  # the signature of the last still table read
        self._offered: frozenset[str] = frozenset()  # the cards of the last spread offered
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="table-watcher", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        pause = IDLE_INTERVAL_S
        while not self._stop.wait(pause):
            try:
                with self.app.app_context():
                    pause = self.look()
            except Exception:  # never let the thread die: a damaged frame or a full disk is logged
                log.exception("the table watcher failed; it goes on")
                pause = RETRY_S

    def look(self) -> float:
        """One look at the table; return the seconds to wait before the next."""
        source = current_camera_source()
        game_id = store.watched_game_id() if source else None
        if not source or game_id is None:
            self._meter.reset()
            return IDLE_INTERVAL_S
        feed = feed_for(source)
        try:
            frame = feed.read_frame()  # after a failure this opens the camera again
        except CameraError as error:
            if not self._camera_lost:
                log.warning("%s", error)
            self._camera_lost = True
            self._meter.reset()
            return RETRY_S
        if self._camera_lost:
            log.warning("the camera %r gives pictures again", source)
        self._camera_lost = False
        small = signature(frame)
        if self._meter.see(small, time.monotonic()) < STILL_S:
            return LOOK_INTERVAL_S
        if self._last_read is not None and changed_share(self._last_read, small) <= SAME_TABLE_SHARE:
            return LOOK_INTERVAL_S
        frames = [frame]
        for _ in range(VOTE_FRAMES - 1):
            if self._stop.wait(VOTE_SPACING_S):
                return LOOK_INTERVAL_S
            frames.append(feed.read_frame())
            if changed_share(small, signature(frames[-1])) > self._meter.moving_share * 3:
                self._meter.reset()  # it moved meanwhile: wait until it is still again
                return LOOK_INTERVAL_S
        self._last_read = small
        self._offer(game_id, frames)
        return LOOK_INTERVAL_S

    def _offer(self, game_id: int, frames: list) -> None:
        try:
            reading = recognition.read_still_table(frames, self.app.config.get("MODEL_PATH"))
        except ImageError as error:
            log.warning("the still table could not be read: %s", error)
            return
        self.reads += 1
        cards = frozenset(card.card for card in reading.cards)
        if not is_showdown(reading) or cards == self._offered:
            return
        shown = frames[len(frames) // 2]
        height, width = shown.shape[:2]
        with transaction() as connection:
            if store.get_game(game_id) is None:
                return
            store.insert_photo(
                connection, game_id, encode_jpeg(shown), "image/jpeg", width, height, reading, store.CAMERA_OFFER_SOURCE
            )
        self._offered = cards
        self.offers += 1
        log.info("offered a showdown of %d cards to game %d", len(cards), game_id)
