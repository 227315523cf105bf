# crops-run6's data and run (sessions 23-24): training scenes with 40 procedural decks beside the library's, at
# 1280 px and, new, at 640 px (the size of a webcam frame's indices), the reader's own crops of both (with its
# own "not a card"), 80,000 drawn crops, and the run from crops-run5.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
date
.venv/bin/ginscore synth --out $D/s6/train --count 3000 --imgsz 1280 --seed 606 --procedural-decks 40
date
.venv/bin/ginscore synth --out $D/s6/small --count 1500 --imgsz 640 --seed 607 --procedural-decks 40
date
.venv/bin/ginscore crops --out $D/r6 --count 80000 --val-count 3000 --seed 606 --channels bgr
date
.venv/bin/python docs/experiments/scripts/render_only.py 39 100 $D/hd100
.venv/bin/python benchmarks/reader_crops.py $D/hd100/seed39-scenes100-1280px-photos --out $D/rc-hd100
date
.venv/bin/python benchmarks/reader_crops.py $D/s6 --out $D/rc6 --nones
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r6/crops $D/rc6 $D/rc-hd100 $D/r6/crops $D/mix6
date
.venv/bin/ginscore train $D/mix6 --part classifier --classifier-weights models/candidates/crops-run5.pt \
  --crops-channels bgr --lr0 0.0002 --distill 1 --hours 0.75 --name crops-run6 --project $D/runs --no-install
date
