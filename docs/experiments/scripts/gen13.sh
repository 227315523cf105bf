# crops-run13 (session 31): run 12 tripled every crop whose box was under 32 px, and a third of its data became
# "not a card". Here: run 12's reader crops with only the small *card* crops linked in three times (its "not a
# card" links dropped), and 100,000 fresh drawn crops made at the classifier's own 96 px
# (`ginscore crops --size 96`). Start: crops-run10 (the shipped classifier). Val: the reader's 96-px crops of 100
# seed-41 held-out scenes (as run 12). Needs gen12.sh's data ($D/mix12).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
date
.venv/bin/ginscore crops --out $D/r13 --count 100000 --val-count 0 --seed 1313 --channels bgr --size 96
date
.venv/bin/python - $D/mix12 $D/r13 $D/mix13 <<'PY'
import os, re, sys
from pathlib import Path
mix12, r13, out = map(Path, sys.argv[1:4])
n = {"kept": 0, "none_links_dropped": 0, "drawn96": 0, "val": 0}
for split in ("train", "val"):
    for code_dir in sorted((mix12 / "crops" / split).iterdir()):
        if not code_dir.is_dir():
            continue
        dest = out / "crops" / split / code_dir.name
        dest.mkdir(parents=True, exist_ok=True)
        for f in code_dir.iterdir():
            if code_dir.name == "none" and re.search(r"_x[12]$", f.stem):
                n["none_links_dropped"] += 1
                continue
            os.link(f, dest / f.name)
            n["kept" if split == "train" else "val"] += 1
for code_dir in sorted((r13 / "crops" / "train").iterdir()):
    for f in code_dir.iterdir():
        os.link(f, out / "crops" / "train" / code_dir.name / f"d96_{f.name}")
        n["drawn96"] += 1
print(n)
PY
date
.venv/bin/ginscore train $D/mix13 --part classifier --classifier-weights ${START:-models/candidates/crops-run10.pt} \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-2.2} --name crops-run13 \
  --project $D/runs --no-install
date
