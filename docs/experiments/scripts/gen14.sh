# crops-run14 (session 32): the input size again. Run 10's one change, 64 -> 96 px (the same 64-px crops upscaled),
# bought more on the reader's own crops (0.929 -> 0.949) than any data since; runs 12 and 13 (more and native
# 96-px data at 96) fell below their start. Here: crops-run10 at 128 px, on fresh data made as run 12's (drawn
# 96-px crops and the reader's own 96-px crops of new training scenes with 100 procedural decks, fewer scenes:
# one session's time), upscaled by ultralytics to 128. Val: the reader's 96-px crops of 100 seed-41 held-out
# scenes (as runs 12 and 13). The reader: the shipped models/ (crops-run10 alone).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
M=${MODELS:-models}
date
.venv/bin/ginscore synth --out $D/s14/train --count 1500 --imgsz 1280 --seed 1410 --procedural-decks 100
.venv/bin/ginscore synth --out $D/s14/small --count 1000 --imgsz 640 --seed 1411 --procedural-decks 100
date
.venv/bin/ginscore crops --out $D/r14 --count 80000 --val-count 3000 --seed 1412 --channels bgr --size 96
date
.venv/bin/python docs/experiments/scripts/render_only.py 41 100 $D/hd41
.venv/bin/python benchmarks/reader_crops.py $D/hd41/seed41-scenes100-1280px-photos --out $D/rc-hd41-96 --models $M &
mkdir -p $D/s14a $D/s14b; ln -sfn $D/s14/train $D/s14a/train; ln -sfn $D/s14/small $D/s14b/small
.venv/bin/python benchmarks/reader_crops.py $D/s14a --out $D/rc14 --nones --models $M &
wait -n
.venv/bin/python benchmarks/reader_crops.py $D/s14b --out $D/rc14 --nones --models $M &
wait
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r14/crops $D/rc14 $D/rc-hd41-96 $D/r14/crops $D/mix14
date
.venv/bin/ginscore train $D/mix14 --part classifier --classifier-weights ${START:-models/candidates/crops-run10.pt} \
  --classifier-imgsz 128 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.2} --name crops-run14 \
  --project $D/runs --no-install
date
