"""pool_seeds.py NAME [DIR]: session 37. The held-out results of NAME on seeds 39, 40 and 42 (DIR/NAME-hdS.txt, as
eval37.sh writes them) pooled: cards, wrong, silent per 2,000, right flagged, and the reliability bins."""

import re
import sys
from collections import Counter, defaultdict

SEEDS = (39, 40, 42)
TOTAL = re.compile(
    r"(\d+) cards, wrong [\d.]+% \((\d+)\), silent [\d.]+ per 2,000 \((\d+) wrong.*?flagged [\d.]+% \((\d+)/(\d+)\)"
)


def main(name: str, folder: str) -> None:
    total: Counter[str] = Counter()
    bins: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # cards, sum of confidence, sum of right
    for seed in SEEDS:
        text = open(f"{folder}/{name}-hd{seed}.txt").read()
        overall = text[text.index("all held-out decks") :]
        match = TOTAL.search(overall)
        assert match, f"{name} seed {seed}: no overall line"
        cards, wrong, silent, flagged, right = map(int, match.groups())
        total.update(cards=cards, wrong=wrong, silent=silent, flagged=flagged, right=right)
        for line in overall.splitlines()[2:8]:
            cells = line.split()
            if len(cells) >= 5 and cells[0].startswith("0."):
                n = int(cells[1])
                bins[cells[0]][0] += n
                bins[cells[0]][1] += n * float(cells[2])
                bins[cells[0]][2] += n * float(cells[3])
    print(
        f"{name} pooled: {total['cards']} cards, wrong {100 * total['wrong'] / total['cards']:.2f} % ({total['wrong']}), "
        f"silent {2000 * total['silent'] / total['cards']:.1f} per 2,000 ({total['silent']}), "
        f"flagged {100 * total['flagged'] / total['right']:.1f} %"
    )
    print("  bins: " + "; ".join(f"{k} {int(v[0])} gap {(v[2] - v[1]) / v[0]:+.3f}" for k, v in sorted(bins.items())))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "/work/s37")
