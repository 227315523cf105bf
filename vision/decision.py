"""The decision stage: which proposed boxes are read as cards, and which cards the user must check.

In: per box, the evidence (``BoxEvidence``: the detector's score, the classifiers' ranked cards and
probabilities, the "not a card" probability). Out: the kept boxes with their reading confidences and
their reasons (``BoxDecision``). The rules are one ordered list, in ``decide_boxes``; their thresholds
are ``models/model.json``'s ``decision`` section (``vision.model_settings.DecisionSettings``: typed,
validated, one default each). The caller says the mode, photo or webcam frame; it is never guessed.

Steps ``decide`` and ``one_reading_per_index`` (``vision.recognise``) apply it to a reading's boxes.
Later steps only add reasons: merging corners (``vision.cards``), and the reviews (``vision.review``: the
calibrated confidence and the one review threshold, the rules of a showdown). A card is shown to the user
to check exactly when it carries a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import CARD_CODES, card_label
from vision.detections import Detections, box_overlap_of_smaller, suppress_duplicates, surest_of_overlapping
from vision.model_settings import DecisionSettings
from vision.reading import Reason
from vision.review import hand_size_review, knock_review  # noqa: F401 (the web app asks for them here)
from vision.steps import PHOTO, ReadingContext, ReadingMode, check_mode


@dataclass(frozen=True, eq=False)
class BoxEvidence:
    """What is known of each of N proposed boxes before deciding."""

    scores: np.ndarray  # (N,) the detector's confidence
    card_ids: np.ndarray  # (N, K) the classifiers' likeliest cards (CARD_CODES indices), best first
    probabilities: np.ndarray  # (N, K) their combined card probabilities
    rejected: np.ndarray  # (N,) the probability the surest-rejecting classifier gives "not a card"
    # (N,) a card another classifier reads first where it differs from the combined first card, else -1
    dissent: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class BoxDecision:
    """Per box: kept or not, the ranked reading confidences (N, K), and the reasons to check it."""

    keep: np.ndarray
    confidence: np.ndarray
    review: np.ndarray  # (N,) object array of tuples of Reason


def decide_boxes(
    evidence: BoxEvidence,
    settings: DecisionSettings,
    mode: ReadingMode,
    *,
    proposal_conf: float,
    conf: float | None = None,
) -> BoxDecision:
    """Keep, drop or flag each box, by these rules in this order:

    1. **Not a card.** A box that a classifier calls "not a card" with at least ``reject_gate`` is
       dropped (``reject_gate`` 0: no gate). In photo mode a box the detector proposed from
       ``doubted_proposal_conf`` is dropped only from ``doubted_reject_gate``; rejected between the two
       gates it is read all the same, with the reason ``not_a_card`` (a doubted card).
    2. **Reading confidence** = detector score ** ``detector_weight`` x card probability.
    3. **Kept** when the detector proposed it from ``proposal_conf`` and the confidence reaches ``conf``
       (default: the settings' ``conf``).
    4. **The second way in** (photo mode): a box proposed from ``sure_proposal_conf`` (below
       ``proposal_conf``) that the classifiers read as one card with at least ``sure_classifier`` is
       kept too (from ``conf``), its confidence raised to the settings' ``conf``. It gets no reason of its
       own: on rendered held-out scenes such cards were right as often as the others (0.77 % of right cards,
       0.9 % of wrong ones), so the calibrated number alone says whether to check it.
    5. **Classifiers that disagree** (``flag_disagreement``): a kept box that one classifier reads as
       another card than the combined reading gets the reason ``classifiers_disagree``, naming both.

    >>> from vision.steps import FRAME
    >>> evidence = BoxEvidence(np.array([0.9, 0.1, 0.9]), np.array([[0], [1], [2]]),
    ...                        np.array([[0.9], [0.99], [0.8]]), np.array([0.0, 0.0, 0.5]))
    >>> settings = DecisionSettings(detector_weight=0.5, reject_gate=0.15, sure_proposal_conf=0.05,
    ...                             sure_classifier=0.97, doubted_proposal_conf=0.6, doubted_reject_gate=0.75)
    >>> decided = decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2)
    >>> decided.keep.tolist(), [[r.kind for r in reasons] for reasons in decided.review]
    ([True, True, True], [[], [], ['not_a_card']])
    >>> decide_boxes(evidence, settings, FRAME, proposal_conf=0.2).keep.tolist()
    [True, False, False]
    """
    photo = check_mode(mode) == PHOTO
    conf = settings.conf if conf is None else conf
    scores = evidence.scores
    reasons: list[list[Reason]] = [[] for _ in range(len(scores))]
    # 1. not a card (and doubted cards, photos only)
    probabilities = _not_a_card(evidence, settings, photo, reasons)
    # 2. reading confidence
    confidence = scores[:, None] ** settings.detector_weight * probabilities
    # 3. kept from proposal_conf and conf
    keep = (scores >= proposal_conf) & (confidence[:, 0] >= conf)
    # 4. the second way in (photos only)
    if photo and settings.sure_proposal_conf > 0:
        extra = ~keep & (scores >= settings.sure_proposal_conf) & (probabilities[:, 0] >= settings.sure_classifier)
        # raised to model.json's conf (whatever lower conf the caller reads down to), then kept by the
        # caller's conf like any reading
        confidence[extra, 0] = np.maximum(confidence[extra, 0], settings.conf)
        extra &= confidence[:, 0] >= conf
        keep |= extra
    # 5. classifiers that disagree
    if settings.flag_disagreement and evidence.dissent is not None:
        _classifiers_disagree(evidence, keep, reasons)
    review = np.empty(len(scores), dtype=object)
    review[:] = [tuple(r) for r in reasons]
    return BoxDecision(keep=keep, confidence=confidence, review=review)


def _not_a_card(
    evidence: BoxEvidence, settings: DecisionSettings, photo: bool, reasons: list[list[Reason]]
) -> np.ndarray:
    """Rule 1 of ``decide_boxes``: the card probabilities after the "not a card" gate, the reason
    ``not_a_card`` added to each doubted card's ``reasons``."""
    scores, rejected = evidence.scores, evidence.rejected
    if settings.reject_gate <= 0:
        return evidence.probabilities
    gate = np.full(len(scores), settings.reject_gate)
    doubting = photo and settings.doubted_proposal_conf > 0 and settings.doubted_reject_gate > settings.reject_gate
    if doubting:
        gate[scores >= settings.doubted_proposal_conf] = settings.doubted_reject_gate
        doubted = (scores >= settings.doubted_proposal_conf) & (rejected >= settings.reject_gate) & (rejected < gate)
        for i in np.flatnonzero(doubted):
            reasons[i].append(
                Reason("not_a_card", f"a classifier says this may not be a card ({rejected[i]:.0%} sure)")
            )
    return not_a_card_gate(evidence.probabilities, rejected, gate)


def _classifiers_disagree(evidence: BoxEvidence, keep: np.ndarray, reasons: list[list[Reason]]) -> None:
    """Rule 5 of ``decide_boxes``: the reason ``classifiers_disagree`` added to each kept box that one
    classifier reads as another card than the combined reading."""
    assert evidence.dissent is not None
    for i in np.flatnonzero(keep & (evidence.dissent >= 0)):
        first, other = CARD_CODES[int(evidence.card_ids[i, 0])], CARD_CODES[int(evidence.dissent[i])]
        reasons[i].append(
            Reason(
                "classifiers_disagree",
                f"one classifier reads it as {card_label(other)}, the others as {card_label(first)}",
                (first, other),
            )
        )


def not_a_card_gate(probabilities: np.ndarray, rejected: np.ndarray, gate: float | np.ndarray) -> np.ndarray:
    """The card probabilities of each box, zero where a classifier calls it "not a card" with at least ``gate``
    (per box, or one for all; 0: no gate).

    >>> not_a_card_gate(np.array([[0.8], [0.9]]), np.array([0.1, 0.5]), 0.15).tolist()
    [[0.8], [0.0]]
    """
    if isinstance(gate, (int, float)) and gate <= 0:
        return probabilities
    return probabilities * (rejected < gate)[:, None]


def decide(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the boxes ``decide_boxes`` keeps, with their reading confidences and their reasons."""
    if not len(detections):
        return Detections.empty()
    runner_up_id, runner_up_confidence = detections.runner_ups
    card_ids = np.hstack([detections.class_id[:, None], runner_up_id])
    probabilities = np.hstack([detections.confidence[:, None], runner_up_confidence])
    data = detections.data
    evidence = BoxEvidence(data["score"], card_ids, probabilities, data["rejected"], data.get("dissent"))
    decided = decide_boxes(
        evidence, context.settings.decision, context.mode, proposal_conf=context.proposal_conf, conf=context.conf
    )
    keep = decided.keep
    return Detections(
        detections.xyxy[keep],
        card_ids[keep, 0],
        decided.confidence[keep, 0],
        card_ids[keep, 1:],
        decided.confidence[keep, 1:],
        decided.review[keep],
    )


def one_reading_per_index(detections: Detections, context: ReadingContext) -> Detections:
    """Step: one index, one reading (``one_reading_each``)."""
    return one_reading_each(detections, context.settings.decision)


def one_reading_each(detections: Detections, settings: DecisionSettings) -> Detections:
    """Of readings overlapping by more than ``one_index_iou``, or one of whose boxes lies more than
    ``one_index_inside`` inside the other's, only the surest: one index, one reading, whichever box framed it best.
    Then a reading whose box is ``around_surer_index`` times a surer one's that it half holds or more is dropped."""
    kept = suppress_duplicates(detections, settings.one_index_iou)
    if settings.one_index_inside < 1 and len(kept) > 1:
        kept = kept[
            surest_of_overlapping(kept.xyxy, kept.confidence, settings.one_index_inside, box_overlap_of_smaller)
        ]
    if settings.around_surer_index > 0 and len(kept) > 1:
        kept = kept[~around_a_surer_index(kept.xyxy, kept.confidence, settings.around_surer_index)]
    return kept


HALF_INSIDE = 0.5  # a box holds another when half of the other or more lies inside it


def around_a_surer_index(xyxy: np.ndarray, confidence: np.ndarray, area_ratio: float) -> np.ndarray:
    """(N,) whether each box is at least ``area_ratio`` times the area of a surer box that lies half or more inside
    it: a box round another card's index, on the pips or print beside it.

    >>> around_a_surer_index(np.array([[195, 120, 252, 182], [236, 141, 261, 170], [40, 211, 65, 237]]),
    ...                      np.array([0.62, 1.0, 1.0]), 2.5).tolist()
    [True, False, False]
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    confidence = np.asarray(confidence, dtype=np.float64)
    areas = np.prod(xyxy[:, 2:] - xyxy[:, :2], axis=1)
    holds = box_overlap_of_smaller(xyxy, xyxy) >= HALF_INSIDE
    larger = areas[:, None] >= area_ratio * areas[None, :]
    surer = confidence[None, :] > confidence[:, None]
    return (holds & larger & surer).any(axis=1)
