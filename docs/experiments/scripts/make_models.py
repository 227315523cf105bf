"""make_models.py WEIGHTS OUT: OUT-main (WEIGHTS as the main classifier, partners kept) and OUT-alone (no partners)."""

import json
import shutil
import sys
from pathlib import Path

weights, out = Path(sys.argv[1]), sys.argv[2]
repo = Path("/work/main/models")
for kind in ("main", "alone"):
    folder = Path(f"{out}-{kind}")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for p in repo.iterdir():
        if p.is_file() and p.suffix in (".pt", ".json"):
            shutil.copy2(p, folder / p.name)
    shutil.copy2(weights, folder / "card_index_classifier.pt")
    if kind == "alone":
        doc = json.loads((folder / "model.json").read_text())
        doc["classifiers"]["partners"] = []
        doc["classifiers"]["mix"] = 1.0
        (folder / "model.json").write_text(json.dumps(doc, indent=1))
        for name in ("card_index_partner_classifier.pt", "card_index_partner_classifier_52.pt"):
            (folder / name).unlink()
    print(folder)
