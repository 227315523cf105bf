"""A deck's repeated misreads, as `ginscore eval` counts them: one per card per photo, however many corners show it."""

from __future__ import annotations

import numpy as np

from engine.cards import CARD_CODES
from vision.detections import Detections
from vision.evaluation.evaluate import _Tally, format_report
from vision.reading import CardReading, PhotoReading

FOUR_CORNERS = ((0, 0, 10, 10), (50, 0, 60, 10), (0, 50, 10, 60), (50, 50, 60, 60))


def boxes(code: str, where: tuple[tuple[float, float, float, float], ...]) -> Detections:
    return Detections(np.array(where, dtype=float), np.full(len(where), CARD_CODES.index(code)), np.ones(len(where)))


def photo(tally: _Tally, name: str, read_as: str) -> None:
    labels = boxes("Td", FOUR_CORNERS)
    read = boxes(read_as, FOUR_CORNERS)
    reading = PhotoReading((99, 99), (CardReading(read_as, 0.9, FOUR_CORNERS),), ((read_as,), ()))
    tally.add(name, read, read, reading, labels)


def test_a_four_index_card_misread_in_two_photos_is_one_misread_a_photo_and_repeated():
    tally = _Tally()
    photo(tally, "a.jpg", "Th")
    assert tally.photos[0]["misread"] == [["Td", "Th"]]  # four corners, one card
    assert tally.summary()["repeated_misreads"] == []  # once is not again
    photo(tally, "b.jpg", "Td")  # read right
    photo(tally, "c.jpg", "Th")
    photo(tally, "d.jpg", "Qd")
    summary = tally.summary()
    assert summary["repeated_misreads"] == [{"labelled": "Td", "read": "Th", "photos": 2}]
    assert summary["confusions"][0] == {"labelled": "Td", "read": "Th", "count": 8}  # the boxes, as before
    summary.update(imgsz=1024, tiles=1, conf=0.25, model_file="m.pt", model="test")
    assert "cards misread in 2 or more photos: Td->Th in 2" in format_report(summary)
