"""How far a retrain's classifiers should move: read the sets with each classifier's weights a fraction of the
way from the start models to a retrain's candidate (``ginscore retrain --step``; ``train.step_toward``).

    python3 benchmarks/weight_step.py --start models --candidate WORK/candidate --steps 0 0.25 0.5 0.75 1 \\
        --eval TAUGHT_DECK_PHOTOS --eval datasets/real/real-val --eval datasets/real/real-clutter [--out DIR]

Prints, for each step and set: cards right of those labelled, recall, precision, wrong cards shown as sure
(card sets) or false cards (rank sets), and whether the retrain's rule (``retrain.decide``) would install it
against the start models. Step 0 is the start models themselves, 1 the candidate as the retrain made it.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.model_settings import read_model_settings  # noqa: E402
from vision.training import train  # noqa: E402
from vision.training.retrain import decide, eval_set_of, measure  # noqa: E402


def stepped_models(start: Path, candidate: Path, step: float, out: Path) -> Path:
    """The candidate's folder with every classifier it retrained moved only ``step`` of the way from ``start``."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(candidate, out)
    settings = read_model_settings(candidate)
    classifiers = [settings.classifiers.main, *settings.classifiers.partners]
    for weights in classifiers:
        if weights is None:
            continue
        name = Path(weights).name
        if not filecmp.cmp(start / name, candidate / name, shallow=False):
            train.step_toward(start / name, candidate / name, step, out / name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=Path, required=True, help="the models folder the retrain started from")
    parser.add_argument("--candidate", type=Path, required=True, help="the retrain's candidate folder")
    parser.add_argument("--steps", type=float, nargs="+", default=[0, 0.25, 0.5, 0.75, 1])
    parser.add_argument("--eval", type=Path, action="append", required=True, help="a set to read (repeatable)")
    parser.add_argument("--out", type=Path, help="keep the stepped models folders here")
    parser.add_argument("--cache", type=Path, help="measurements cache (JSON), as the retrain keeps one")
    args = parser.parse_args()
    sets = tuple(eval_set_of(folder) for folder in args.eval)
    out = args.out or Path(tempfile.mkdtemp(prefix="ginscore-step-"))
    results = {}
    for step in args.steps:
        folder = args.start if step == 0 else stepped_models(args.start, args.candidate, step, out / f"step-{step:g}")
        results[step] = measure(folder, sets, cache_path=args.cache)
        print(f"step {step:g}:")
        for name, numbers in results[step].items():
            if numbers["measure"] == "card":
                extra = f"wrong shown as sure {numbers['wrong'] - numbers['wrong_flagged']}"
            else:
                extra = f"false cards {numbers['false_cards']}"
            print(
                f"  {name}: {numbers['right']}/{numbers['labelled']} right, recall {numbers['recall']:.4f}, "
                f"precision {numbers['precision']:.4f}, exact {numbers['photos_exact']}/{numbers['photos']}, {extra}"
            )
        if step != 0 and 0 in results:
            installs, reasons = decide(results[0], results[step])
            print("  the retrain's rule: " + ("installs" if installs else "refuses: " + "; ".join(reasons)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
