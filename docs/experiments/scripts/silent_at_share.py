"""silent_at_share.py A.jsonl B.jsonl ... (session 41): for each dump_cards.py dump, the cards, the wrong ones, the
right ones, and the wrong cards left unflagged per 2,000 when a threshold on the raw confidence flags 5 % and 7.5 % of
the right cards (a card with a structural reason is always flagged; benchmarks/calibration_features.py's sure_wrong):
the silent line at a matched flagged share."""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from calibration_features import sure_wrong

for path in sys.argv[1:]:
    cards = [json.loads(line) for line in open(path)]
    right = np.array([c["right"] for c in cards])
    score = np.array([c["raw"] for c in cards])
    silent = [sure_wrong(score, cards, share)[1] for share in (0.05, 0.075)]
    print(
        f"{path}: {len(cards)} cards, wrong {(~right).sum()} ({100 * (~right).mean():.2f} %), right {right.sum()}, "
        f"silent per 2,000 at 5 % flagged {silent[0]:.1f}, at 7.5 % {silent[1]:.1f}"
    )
