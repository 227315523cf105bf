"""The retrain's rule once more on the shipped models and a candidate folder, with the code of now (session 34).
Usage: retrain_rule_again.py SHIPPED_MODELS CANDIDATE TAUGHT_DECK_FOLDER (the cache goes to /work/s34)."""

import sys
from pathlib import Path

from vision.training.retrain import decide, default_eval_sets, measure, taught_deck_sets

shipped, cand, deck = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
sets = (*default_eval_sets(), *taught_deck_sets([deck]))
before = measure(shipped, sets, cache_path=Path("/work/s34/rule_cache.json"))
after = measure(cand, sets, cache_path=Path("/work/s34/rule_cache.json"))
keys = ("right", "labelled", "false_cards", "leave_one_out_right", "photos_exact")
for name in before:
    print(name, {k: before[name].get(k) for k in keys}, "->", {k: after[name].get(k) for k in keys})
print(decide(before, after))
