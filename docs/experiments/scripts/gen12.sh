# crops-run12 (session 30): session 29's run 11 was lost with its machine before it trained, so its data is made
# again on a fresh machine, smaller and aimed: crops-run10 (96 px) trained on the reader's own crops cut natively at
# 96 px (the reader with crops-run10 alone as its main classifier) of 4,500 new training scenes, 2,000 of them at
# 640 px for small indices (seeds 1210/1211, 100 procedural decks), 60,000 fresh drawn crops (seed 1212), and the
# reader's crops whose box is under 32 px linked in twice more (session 27's lesson: small and cut indices are
# what is left). Val: the reader's own 96-px crops of 100 seed-41 held-out scenes.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
M=${MODELS:-/work/s30/r10-alone}
date
.venv/bin/python docs/experiments/scripts/make_models.py models/candidates/crops-run10.pt /work/s30/r10
.venv/bin/ginscore synth --out $D/s12/train --count 2500 --imgsz 1280 --seed 1210 --procedural-decks 100
date
.venv/bin/ginscore synth --out $D/s12/small --count 2000 --imgsz 640 --seed 1211 --procedural-decks 100
date
.venv/bin/ginscore crops --out $D/r12 --count 60000 --val-count 3000 --seed 1212 --channels bgr
date
.venv/bin/python docs/experiments/scripts/render_only.py 41 100 $D/hd41
# the reader reads on one core: two at a time (the 1280-px scenes beside the held-out val, then the 640-px ones)
.venv/bin/python benchmarks/reader_crops.py $D/hd41/seed41-scenes100-1280px-photos --out $D/rc-hd41-96 --models $M &
mkdir -p $D/s12a $D/s12b; ln -sfn $D/s12/train $D/s12a/train; ln -sfn $D/s12/small $D/s12b/small
.venv/bin/python benchmarks/reader_crops.py $D/s12a --out $D/rc12 --nones --models $M &
wait -n
.venv/bin/python benchmarks/reader_crops.py $D/s12b --out $D/rc12 --nones --models $M &
wait
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r12/crops $D/rc12 $D/rc-hd41-96 $D/r12/crops $D/mix12
# small boxes twice more: the reader's crops whose long side is under 32 px
.venv/bin/python - $D/mix12 <<'PY'
import os, re, sys
from pathlib import Path
n = 0
for f in sorted(Path(sys.argv[1], "crops", "train").glob("*/r_*.png")):
    m = re.search(r"_(\d+)px$", f.stem)
    if m and int(m.group(1)) < 32:
        for k in (1, 2):
            os.link(f, f.with_name(f"{f.stem}_x{k}.png"))
            n += 1
print("small links", n)
PY
date
.venv/bin/ginscore train $D/mix12 --part classifier --classifier-weights ${START:-models/candidates/crops-run10.pt} \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.0} --name crops-run12 \
  --project $D/runs --no-install
date
