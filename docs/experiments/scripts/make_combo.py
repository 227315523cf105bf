"""make_combo.py WEIGHTS OUT MIX [PARTNERS_BELOW]: WEIGHTS as the main classifier, the shipped main classifier its one partner."""

import json
import shutil
import sys
from pathlib import Path

weights, out, mix = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
below = float(sys.argv[4]) if len(sys.argv) > 4 else None
repo = Path("/work/main/models")
if out.exists():
    shutil.rmtree(out)
out.mkdir(parents=True)
for p in repo.iterdir():
    if p.is_file() and p.suffix in (".pt", ".json") and "partner" not in p.name:
        shutil.copy2(p, out / p.name)
shutil.copy2(repo / "card_index_classifier.pt", out / "shipped_main_classifier.pt")
shutil.copy2(weights, out / "card_index_classifier.pt")
doc = json.loads((out / "model.json").read_text())
doc["classifiers"]["partners"] = ["shipped_main_classifier.pt"]
doc["classifiers"]["mix"] = mix
if below is not None:
    doc["classifiers"]["partners_below"] = below
(out / "model.json").write_text(json.dumps(doc, indent=1))
print(out)
