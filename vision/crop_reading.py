"""Which card each index box shows: its crop read by the crop classifiers (the main one, and the partners
asked about the crops it reads less surely), their readings combined as one.

Step ``read_crops`` leaves on each box its ranked cards (``class_id`` and the runner-ups), their
probabilities before the "not a card" gate (``confidence`` and the runner-ups'), and in ``data``: the
probability the surest-rejecting classifier gives "not a card" (``rejected``) and the card another
classifier reads first where it differs from the combined reading (``dissent``, else -1).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from vision.crops import crop_indices
from vision.decision import not_a_card_gate
from vision.detections import Detections
from vision.detector import NOT_A_CARD, CardIndexDetector
from vision.model_settings import ClassifierSettings, ModelError, ModelSettings
from vision.probabilities import geometric_mean, normalised_rows
from vision.steps import ReadingContext


class CropReadings(NamedTuple):
    """Per crop: the ranked card ids (N, 1 + runner-ups) and their probabilities, the "not a card"
    probability, and a dissenting classifier's first card (or -1)."""

    card_ids: np.ndarray
    probabilities: np.ndarray
    rejected: np.ndarray
    dissent: np.ndarray


def read_crops(detections: Detections, context: ReadingContext) -> Detections:
    """Step: each box's crop read by the classifiers (``CropReadings``, as columns of the boxes)."""
    if not len(detections):
        return Detections.empty()
    models = context.models
    crops, isolated = crops_of(models, context.pixels, detections.xyxy, context.settings.classifiers)
    return with_readings(detections, crop_readings(models, context.settings, crops, isolated, context.rotations))


def with_readings(detections: Detections, readings: CropReadings) -> Detections:
    """The boxes with the classifiers' readings of their crops."""
    return Detections(
        detections.xyxy,
        readings.card_ids[:, 0],
        readings.probabilities[:, 0],
        readings.card_ids[:, 1:],
        readings.probabilities[:, 1:],
        detections.reasons,
        {**detections.data, "rejected": readings.rejected, "dissent": readings.dissent},
    )


def crops_of(
    detector: CardIndexDetector, pixels: np.ndarray, xyxy: np.ndarray, classifiers: ClassifierSettings
) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
    """The crops every classifier reads, and the isolated ones the main classifier reads (or None)."""
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    crops = crop_indices(pixels, xyxy, size=detector.classifier_imgsz)
    if classifiers.isolate <= 0:
        return crops, None
    return crops, crop_indices(pixels, xyxy, size=detector.classifier_imgsz, isolate=classifiers.isolate)


def crop_readings(
    detector: CardIndexDetector,
    settings: ModelSettings,
    crops: list[np.ndarray],
    isolated: list[np.ndarray] | None,
    rotations: int,
) -> CropReadings:
    """The classifiers' readings of crops cut at ``detector.classifier_imgsz`` (``vision.crops.crop_index``),
    before the "not a card" gate; ``isolated``: the same crops cut with ``classifiers.isolate``, for the main
    classifier when that is set. The partners are those of ``settings.classifiers`` (of those loaded)."""
    classifiers = settings.classifiers
    runner_ups = classifiers.runner_ups
    if len(crops) == 0:
        empty = np.zeros((0, 1 + runner_ups))
        return CropReadings(empty.astype(np.int64), empty, np.zeros(0), np.zeros(0, dtype=np.int64))
    if classifiers.isolate > 0 and isolated is None:
        raise ValueError(
            f"this classifier reads isolated crops: pass them (crop_index(..., isolate={classifiers.isolate}))"
        )
    turns_below = classifiers.other_turns_below
    probabilities = detector.classify(
        detector.classifier, isolated if isolated is not None else crops, rotations, turns_below
    )
    to_card = detector.classifier_card_ids
    rejected = not_a_card_probability(probabilities, to_card)
    cards, to_card = probabilities[:, to_card != NOT_A_CARD], to_card[to_card != NOT_A_CARD]
    firsts = [to_card[np.argmax(cards, axis=1)]]  # each classifier's own first card
    partners = chosen_partners(detector, classifiers)
    if partners:  # a crop the partners are not asked about is read by the main classifier alone
        cards = normalised_rows(cards)
        asked = asked_of_partners(probabilities, classifiers.partners_below)
        if len(asked):
            readings = [
                (detector.classify(partner, [crops[i] for i in asked], rotations, turns_below), ids)
                for partner, ids in partners
            ]
            for partner, partner_ids in readings:
                # a partner that can say "not a card" too: any classifier's "no" counts
                rejected[asked] = np.maximum(rejected[asked], not_a_card_probability(partner, partner_ids))
                first = firsts[0].copy()
                first[asked] = partner_ids[partner_ids != NOT_A_CARD][
                    np.argmax(partner[:, partner_ids != NOT_A_CARD], axis=1)
                ]
                firsts.append(first)
            cards[asked] = combine_card_readings(cards[asked], to_card, readings, classifiers.mix)
    taught_asked = asked_of_taught(detector, classifiers, cards)
    if len(taught_asked):
        taught, taught_ids = detector.taught  # type: ignore[misc]  # asked only when it is loaded
        reading = detector.classify(taught, crops, rotations, turns_below)  # every crop: the photo's deck
        if taught_deck_in_photo(reading, taught_ids, rejected, classifiers.taught_photo_median):
            reading = reading[taught_asked]
        else:  # another deck's photo: read as if no deck were taught
            taught_asked = taught_asked[:0]
    if len(taught_asked):
        cards = normalised_rows(cards)
        cards[taught_asked] = combine_card_readings(
            cards[taught_asked],
            to_card,
            [(reading, taught_ids)],
            1.0 - taught_weights(reading, taught_ids, classifiers.taught_weight),
        )
    if settings.decision.reject_gate > 0:
        cards = normalised_rows(cards)
    elif partners or len(taught_asked):
        cards = cards * (1.0 - rejected)[:, None]
    # (no gate, one classifier: a card's probability is already what the crop is not rejected by)
    ranked = np.argsort(-cards, axis=1)[:, : 1 + runner_ups]
    card_ids = to_card[ranked]
    dissent = np.full(len(crops), -1, dtype=np.int64)
    for first in firsts:
        dissent = np.where((dissent < 0) & (first != card_ids[:, 0]), first, dissent)
    return CropReadings(card_ids, np.take_along_axis(cards, ranked, axis=1), rejected, dissent)


def chosen_partners(detector: CardIndexDetector, classifiers: ClassifierSettings) -> list[tuple[object, np.ndarray]]:
    """The loaded partner classifiers ``classifiers.partners`` names (with the card id of each class)."""
    missing = [path.name for path in classifiers.partners if path not in detector.partners]
    if missing:
        raise ModelError(f"partner classifiers {missing} are not among those loaded: {list(detector.partners)}")
    return [detector.partners[path] for path in classifiers.partners]


def asked_of_taught(detector: CardIndexDetector, classifiers: ClassifierSettings, cards: np.ndarray) -> np.ndarray:
    """The crops (indices) a taught deck's classifier reads: none when it is not set or not loaded, else those
    whose card probabilities ``cards`` (the other classifiers' combined reading) give the first card less than
    ``classifiers.taught_below`` of their sum (every crop at 1)."""
    if classifiers.taught is None or detector.taught is None or not len(cards):
        return np.zeros(0, dtype=np.int64)
    if classifiers.taught_below >= 1:
        return np.arange(len(cards))
    return np.flatnonzero(normalised_rows(cards).max(axis=1) < classifiers.taught_below)


# a crop counts in the vote on a photo's deck (taught_deck_in_photo) when the classifiers above give "not a card"
# less than this: an even chance, so that a picture or pip the detector boxed does not vote
VOTES_AS_A_CARD_BELOW = 0.5


def taught_deck_in_photo(
    reading: np.ndarray, taught_ids: np.ndarray, rejected: np.ndarray, median_at_least: float
) -> bool:
    """Whether a photo (or frame) shows the taught deck, so that its classifier joins the reading: the median
    share of "my deck" it gives (what it does not give "not a card", which learned other decks' cards) over the
    crops the other classifiers read as cards (rejected below ``VOTES_AS_A_CARD_BELOW``; every crop when none is) reaches
    ``median_at_least``. A photo of another deck is read as if no deck were taught: else the few of its crops
    the taught classifier takes for its own are pushed to the taught deck's nearest card (session 34: real-val's
    3h read 8h and 6s read 3s, where the taught classifier gave a median of 0.000-0.003 a photo, and 0.94-1.00 on
    photos of the deck it learned).

    >>> ids = np.array([0, 1, NOT_A_CARD])
    >>> mine, other = [0.9, 0.05, 0.05], [0.1, 0.0, 0.9]
    >>> taught_deck_in_photo(np.array([mine, mine, other]), ids, np.zeros(3), 0.5)
    True
    >>> taught_deck_in_photo(np.array([mine, other, other]), ids, np.zeros(3), 0.5)
    False
    >>> taught_deck_in_photo(np.array([mine, other, other]), ids, np.array([0.0, 0.9, 0.9]), 0.5)  # two no cards
    True
    """
    if not len(reading):
        return False
    cards = rejected < VOTES_AS_A_CARD_BELOW
    mine = 1.0 - not_a_card_probability(reading, taught_ids)
    return bool(np.median(mine[cards] if cards.any() else mine) >= median_at_least)


def taught_weights(reading: np.ndarray, taught_ids: np.ndarray, taught_weight: float) -> np.ndarray:
    """The weight of a taught deck's classifier in each crop's reading: ``taught_weight`` times the share it
    does not give to its "not a card" class. That class also learned other decks' cards (``ginscore retrain
    --taught-partner``), so a crop of another deck, or no card, is left to the other classifiers instead of
    being pushed to the taught deck's nearest card.

    >>> taught_weights(np.array([[0.7, 0.2, 0.1], [0.0, 0.2, 0.8]]), np.array([0, 1, NOT_A_CARD]), 0.5).round(2).tolist()
    [0.45, 0.1]
    """
    return taught_weight * (1.0 - not_a_card_probability(reading, taught_ids))


def asked_of_partners(main: np.ndarray, partners_below: float) -> np.ndarray:
    """The crops (indices) the partner classifiers read: those the main classifier's probabilities ``main``
    read less surely than ``partners_below`` (every crop at 1)."""
    return np.arange(len(main)) if partners_below >= 1 else np.flatnonzero(main.max(axis=1) < partners_below)


def read_boxes(
    detector: CardIndexDetector,
    pixels: np.ndarray,
    xyxy: np.ndarray,
    settings: ModelSettings | None = None,
    rotations: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The classifiers' reading of given index boxes after the "not a card" gate alone (``gated_readings``).
    ``ginscore eval`` uses it on the labelled boxes to measure the classifiers."""
    settings = settings or detector.settings
    crops, isolated = crops_of(detector, pixels, xyxy, settings.classifiers)
    return gated_readings(detector, crops, isolated, settings, rotations)


def gated_readings(
    detector: CardIndexDetector,
    crops: list[np.ndarray],
    isolated: list[np.ndarray] | None = None,
    settings: ModelSettings | None = None,
    rotations: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """For each crop (cut as ``crops_of`` cuts them), the likeliest card ids (``CARD_CODES`` indices), best
    first, and their probabilities after the "not a card" gate alone (``reject_gate``; 0 for a crop it calls
    no card)."""
    settings = settings or detector.settings
    read = crop_readings(detector, settings, crops, isolated, rotations or settings.classifiers.rotations)
    return read.card_ids, not_a_card_gate(read.probabilities, read.rejected, settings.decision.reject_gate)


def with_classifiers(
    settings: ModelSettings, partners: tuple[Path, ...], rotations: int, partners_below: float | None = None
) -> ModelSettings:
    """``settings`` reading crops with only the named ``partners`` (of those loaded; fewer than all are weighed
    equally with the main classifier) at ``rotations`` quarter turns, the partners asked about the crops read
    less surely than ``partners_below`` (default: as set): what a measurement compares before model.json's
    ``classifiers`` is changed (``benchmarks/classifier_choice.py``)."""
    classifiers = settings.classifiers
    all_of_them = tuple(partners) == classifiers.partners
    return replace(
        settings,
        classifiers=replace(
            classifiers,
            partners=tuple(partners),
            rotations=rotations,
            mix=classifiers.mix if all_of_them else 1.0 / (1 + len(partners)),
            partners_below=classifiers.partners_below if partners_below is None else partners_below,
        ),
    )


def not_a_card_probability(probabilities: np.ndarray, card_ids: np.ndarray) -> np.ndarray:
    """Per crop, the probability a classifier gives its "not a card" class (0 for a 52-card classifier).

    >>> not_a_card_probability(np.array([[0.7, 0.3], [0.1, 0.9]]), np.array([5, NOT_A_CARD])).tolist()
    [0.3, 0.9]
    >>> not_a_card_probability(np.array([[0.7, 0.3]]), np.array([5, 6])).tolist()
    [0.0]
    """
    return probabilities[:, card_ids == NOT_A_CARD].sum(axis=1)


def combine_card_readings(
    main: np.ndarray,
    main_ids: np.ndarray,
    partners: list[tuple[np.ndarray, np.ndarray]],
    main_weight: float | np.ndarray,
) -> np.ndarray:
    """Several classifiers' card probabilities as one (in ``main_ids`` order): their weighted geometric
    mean, each first normalised over the cards (a partner's "not a card" class is left out), the main
    one weighted ``main_weight`` (a number, or one a crop) and the ``partners`` (probabilities, card id of each column) sharing
    the rest equally; renormalised to sum to one per crop.

    >>> combine_card_readings(np.array([[0.6, 0.2]]), np.array([0, 1]), [(np.array([[0.2, 0.8]]), np.array([1, 0]))], 0.5).round(3).tolist()
    [[0.776, 0.224]]
    >>> partners = [(np.array([[0.2, 0.8]]), np.array([1, 0])), (np.array([[0.5, 0.3, 0.2]]), np.array([0, 1, NOT_A_CARD]))]
    >>> combine_card_readings(np.array([[0.6, 0.2]]), np.array([0, 1]), partners, 0.5).round(3).tolist()
    [[0.736, 0.264]]
    >>> two = np.array([[0.6, 0.4], [0.6, 0.4]])  # one weight a crop: the second crop is the main one's alone
    >>> combine_card_readings(two, np.array([0, 1]), [(two[:, ::-1], np.array([0, 1]))], np.array([0.5, 1.0])).round(3).tolist()
    [[0.5, 0.5], [0.6, 0.4]]
    """
    if isinstance(main_weight, np.ndarray):  # one weight a crop
        main_weight = main_weight.reshape(-1, 1)
    readings, weights = [normalised_rows(main)], [main_weight]
    for partner, partner_ids in partners:
        column_of = {int(card): k for k, card in enumerate(partner_ids)}
        readings.append(normalised_rows(partner[:, [column_of[int(card)] for card in main_ids]]))
        weights.append((1.0 - main_weight) / len(partners))
    return geometric_mean(readings, weights)
