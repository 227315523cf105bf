"""render_only.py SEED SCENES OUT: held-out scenes as benchmarks/heldout_decks.py renders them, without reading."""

import sys

sys.path.insert(0, "/work/main/benchmarks")
sys.path.insert(0, "/work/main")
from pathlib import Path

import heldout_decks as h

seed, scenes, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
if __name__ == "__main__":
    decks = h.heldout_decks()
    surfaces, about = h.skimage_surfaces()
    counts = dict(zip(decks, h.scenes_per_deck(scenes, len(decks)), strict=False))
    print(h.render_decks(out, seed, counts, surfaces, 1))
