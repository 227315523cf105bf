# crops-run16 (session 34): training that adds up. Run 15's epoch 3 (models/candidates/crops-run15.pt) learns on
# 100,000 fresh drawn 96-px crops (a new seed, the same recipe as run 15: procedural decks with
# BOTTOM_UPRIGHT_SHARE 0.3) + run 14's reader crops (rc14: the shipped reader's own 96-px crops of 2,500 training
# scenes, with its own "not a card"); val as runs 12-15 (the reader's 96-px crops of 100 seed-41 held-out scenes).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
date
.venv/bin/ginscore crops --out $D/r16 --count 100000 --val-count 3000 --seed 1612 --channels bgr --size 96
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r16/crops $D/rc14 $D/rc-hd41-96 $D/r16/crops $D/mix16
date
.venv/bin/ginscore train $D/mix16 --part classifier --classifier-weights ${START:-models/candidates/crops-run15.pt} \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.6} --name crops-run16 \
  --project $D/runs --no-install
date
