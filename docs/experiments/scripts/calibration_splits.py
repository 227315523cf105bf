"""calibration_splits.py DIR NAME [--fixed MODELS] [--seeds 39,40,...] (session 38): how often a reader meets the
reliability line ("every bin of 50+ cards within 0.05 of its mean confidence") on three held-out seeds pooled.

DIR/out-NAME-S.json: ``seed_outcomes.py`` of seed S. Without --fixed: for each choice of three check seeds, the
calibration is fitted (as ``ginscore calibrate``: ``fit_calibration``, ``fit_curve``) on 1, 2, 3 and all 4 of the
other seeds, and, on the 4, with 30-80 curve groups. With --fixed MODELS: the calibration of MODELS/model.json
checked on every three of --seeds. Prints the mean worst gap, how many splits lie within 0.05, and the review
numbers at 0.85."""

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from vision.evaluation.calibration import (  # noqa: E402
    CardOutcome,
    calibrated_of,
    counted_reasons,
    fit_calibration,
    fit_curve,
    reliability_table,
    review_numbers,
)
from vision.model_settings import DecisionSettings  # noqa: E402

KINDS = counted_reasons(DecisionSettings())  # the reasons model.json's review counts (no classifier disagreement)
SEEDS = ("39", "40", "42", "43", "44", "45", "46")


def check(cards: list[CardOutcome], calibration, curve) -> tuple[float, float, float]:
    rows = reliability_table(calibrated_of(cards, calibration, KINDS, curve), [o.right for o in cards])
    worst = max(abs(r["accuracy"] - r["mean_confidence"]) for r in rows if r["cards"] >= 50)
    review = review_numbers(cards, calibration, 0.85, KINDS, curve)
    return worst, review["wrong_shown_as_sure_per_2000"], review["right_flagged_share"]


def summary(label: str, results: list[tuple[float, float, float]]) -> None:
    worst = [r[0] for r in results]
    within = sum(w <= 0.05 for w in worst)
    print(
        f"{label}: {len(results)} splits, worst gap mean {np.mean(worst):.3f}, within 0.05 in {within} "
        f"({within / len(results):.0%}); silent {np.mean([r[1] for r in results]):.1f} per 2,000, "
        f"flagged {100 * np.mean([r[2] for r in results]):.1f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("name")
    parser.add_argument("--fixed", type=Path, help="check this models folder's calibration instead of refitting")
    parser.add_argument("--seeds", default=",".join(SEEDS))
    args = parser.parse_args()
    seeds = args.seeds.split(",")
    data = {
        s: [
            CardOutcome(r[0], r[1], r[2], tuple(r[3]), r[4])
            for r in json.loads((args.dir / f"out-{args.name}-{s}.json").read_text())
        ]
        for s in seeds
    }
    triples = list(itertools.combinations(seeds, 3))
    if args.fixed:
        decision = json.loads((args.fixed / "model.json").read_text())["decision"]
        calibration, curve = decision["calibration"], decision["calibration_curve"]
        summary(
            f"{args.name}, {args.fixed}'s calibration",
            [check([o for s in t for o in data[s]], calibration, curve) for t in triples],
        )
        return
    for size, points in [(1, 40), (2, 40), (3, 40), (4, 30), (4, 40), (4, 50), (4, 60), (4, 80)]:
        results = []
        for t in triples:
            cards = [o for s in t for o in data[s]]
            for fit_seeds in itertools.combinations([s for s in seeds if s not in t], size):
                fit = [o for s in fit_seeds for o in data[s]]
                calibration = fit_calibration(fit, KINDS)
                curve = fit_curve(calibrated_of(fit, calibration, KINDS), [o.right for o in fit], points)
                results.append(check(cards, calibration, curve))
        summary(f"{args.name}, fitted on {size} seeds, {points} groups", results)


if __name__ == "__main__":
    main()
