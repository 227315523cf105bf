"""nocard.py MODELS...: false cards on 100 random no-card tables (vision.training.synth.mining.no_card_table, seed 99)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
from vision.detector import load_detector
from vision.recognise import read_photo
from vision.training.synth.dataset import load_synth_assets
from vision.training.synth.mining import no_card_table

assets = load_synth_assets(None)
images = [no_card_table(np.random.default_rng([99, i]), assets) for i in range(100)]
for models in sys.argv[1:]:
    detector = load_detector(Path(models))
    false = flagged = 0
    for image in images:
        reading = read_photo(image, detector=detector)
        false += len(reading.cards)
        flagged += sum(1 for c in reading.cards if c.review)
    print(f"{models}: {false} false cards on 100 no-card tables, {flagged} flagged")
