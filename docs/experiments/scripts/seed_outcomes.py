"""seed_outcomes.py MODELS OUT.json FOLDER... (session 38): every card the product reads in rendered held-out scenes
(``vision.evaluation.calibration.read_scenes``: the raw confidence, the boxes, right or wrong, the reasons, labelled),
saved for ``calibration_splits.py``. FOLDER: the deck folders of ``benchmarks/heldout_decks.py --out`` or
``render_only.py`` (``DIR/seedS-scenes450-1280px-photos/*``). About 2.5 minutes a seed of 450 scenes here."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from vision.detector import load_detector  # noqa: E402
from vision.evaluation.calibration import read_scenes  # noqa: E402

if __name__ == "__main__":
    models, out, folders = Path(sys.argv[1]), Path(sys.argv[2]), [Path(f) for f in sys.argv[3:]]
    outcomes = read_scenes(folders, load_detector(models))
    out.write_text(json.dumps([[o.raw, o.boxes, o.right, list(o.reasons), o.labelled] for o in outcomes]))
    print(out, len(outcomes), "cards", sum(not o.right for o in outcomes), "wrong")
