"""first50.py SRC OUT: the first 50 photos (by name) of a `ginscore synth` dataset SRC, as an eval folder OUT
(images/, labels/, classes.txt): how the BONDED50 sets are made from 80 rendered scenes of one deck."""

import shutil
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
names = [
    line.split(":", 1)[1].strip()
    for line in (src / "data.yaml").read_text().splitlines()
    if line.startswith("  ") and ":" in line
]
(out / "images").mkdir(parents=True)
(out / "labels").mkdir()
for image in sorted(src.glob("images/*/*"), key=lambda p: p.name)[:50]:
    shutil.copy2(image, out / "images" / image.name)
    shutil.copy2(src / "labels" / image.parent.name / f"{image.stem}.txt", out / "labels" / f"{image.stem}.txt")
(out / "classes.txt").write_text("\n".join(names) + "\n")
