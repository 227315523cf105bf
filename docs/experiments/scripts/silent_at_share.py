"""silent_at_share.py A.jsonl B.jsonl ... (session 41): for each dump_cards.py dump, the cards, the wrong ones, the
right ones, and the wrong cards left unflagged per 2,000 when a threshold on the raw confidence flags 5 % and 7.5 % of
the right cards (a card with a structural reason is always flagged): the silent line at a matched flagged share."""

import json
import sys

import numpy as np

STRUCTURAL_KINDS = {"not_a_card", "corners_disagree", "more_corners"}

for path in sys.argv[1:]:
    cards = [json.loads(line) for line in open(path)]
    right = np.array([c["right"] for c in cards])
    score = np.array([c["raw"] for c in cards])
    reason = np.array([bool(set(c["reasons"]) & STRUCTURAL_KINDS) for c in cards])
    silent = []
    for share in (0.05, 0.075):
        best = float("nan")
        for threshold in np.quantile(score, np.linspace(0, 0.5, 2001)):
            flagged = reason | (score < threshold)
            if (flagged & right).sum() / max(right.sum(), 1) <= share:
                best = 2000 * (~flagged & ~right).sum() / len(right)
        silent.append(best)
    print(
        f"{path}: {len(cards)} cards, wrong {(~right).sum()} ({100 * (~right).mean():.2f} %), right {right.sum()}, "
        f"silent per 2,000 at 5 % flagged {silent[0]:.1f}, at 7.5 % {silent[1]:.1f}"
    )
