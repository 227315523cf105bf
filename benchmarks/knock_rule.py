"""What the knock's rule can catch: one misread card in a legal knocker's hand, played out by the engine.

    python3 benchmarks/knock_rule.py [--hands 2000] [--seed 1]

Draws legal knocks (10 cards, deadwood 1 to 10: random hands kept when the engine says the knock is legal),
then misreads one card at a time the way the reader misreads indices on outside photos (issue 24: tens as
queens or sixes, 6/9, 3/5/6, J/Q, K/Q, J read 2, spades as clubs, hearts as diamonds; and back), skipping a
misread that names a card already in the hand. For every misread it prints how often the cards as read make
the knock illegal (the engine refuses it, and ``vision.decision.knock_review`` names suspects), and of those,
how often the misread card is among the knocker's unmelded cards as read (where the rule looks) and how many
unmelded cards there are to choose from (the rule names the two least sure).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Rules, best_arrangement  # noqa: E402
from engine.cards import Card, card_label  # noqa: E402
from engine.sampling import random_hand  # noqa: E402

RANK_MISREADS = {"T": "Q6", "Q": "TK", "6": "9358", "9": "6", "3": "58", "5": "36", "8": "36", "J": "Q2", "K": "Q"}
SUIT_MISREADS = {"s": "c", "c": "s", "h": "d", "d": "h"}


def misreads(card: Card) -> list[str]:
    """The codes one card's index is misread as (ranks and suits the reader confuses)."""
    code = str(card)
    return [rank + code[1] for rank in RANK_MISREADS.get(code[0], "")] + [code[0] + SUIT_MISREADS[code[1]]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    limit = Rules().knock_limit_for(None)
    assert limit is not None
    rng = random.Random(args.seed)
    hands: list[list[Card]] = []
    while len(hands) < args.hands:
        hand = random_hand(rng)
        if 0 < best_arrangement(hand).deadwood_count <= limit:
            hands.append(hand)
    tried = illegal = among_unmelded = 0
    choices: list[int] = []
    by_kind: Counter[str] = Counter()
    for hand in hands:
        codes = {str(card) for card in hand}
        for card in hand:
            for wrong in misreads(card):
                if wrong in codes:
                    continue
                tried += 1
                read = [Card(wrong) if c == card else c for c in hand]
                arrangement = best_arrangement(read)
                if arrangement.deadwood_count <= limit:
                    continue
                illegal += 1
                by_kind[f"{card_label(str(card))[:-1]}->{card_label(wrong)[:-1]}"] += 1
                unmelded = {str(c) for c in arrangement.deadwood}
                if wrong in unmelded:
                    among_unmelded += 1
                    choices.append(len(unmelded))
    print(f"{len(hands)} legal knocks (deadwood 1-{limit}), {tried} single misreads of one card")
    print(f"  the knock as read is over the limit: {illegal} ({illegal / tried:.1%}): the engine refuses it")
    print(
        f"  of those, the misread card is one of the knocker's unmelded cards as read: {among_unmelded} "
        f"({among_unmelded / max(illegal, 1):.1%}), among {statistics.median(choices) if choices else 0:.0f} "
        "unmelded cards (median); the rule names the two least sure"
    )
    print("  most often refused, by misread rank:", ", ".join(f"{k} {v}" for k, v in by_kind.most_common(6)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
