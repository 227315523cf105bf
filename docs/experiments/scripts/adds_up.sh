# adds_up.sh RUN SEED START HOURS: one run of training that adds up (runs 16 on). START's weights learn on 100,000
# fresh drawn 96-px crops (seed SEED, the recipe of runs 15-16: procedural decks with BOTTOM_UPRIGHT_SHARE 0.3) + run
# 14's reader crops (rc14: the shipped reader's own 96-px crops of 2,500 training scenes, with its own "not a card");
# val: the reader's 96-px crops of 100 seed-41 held-out scenes (as runs 12-16). AdamW lr0 0.0002, held to START
# (distill 1), read at 96 px, a budget of HOURS. Output: $D/runs/crops-runRUN. SMALLEST=PX draws no index under PX
# (ginscore crops --smallest-index) and MIN_READER_PX=PX leaves out rc14's crops of boxes under PX (session 35).
set -x
RUN=$1; SEED=$2; START=$3; HOURS=$4
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
date
.venv/bin/ginscore crops --out $D/r$RUN --count 100000 --val-count 3000 --seed $SEED --channels bgr --size 96 \
  ${SMALLEST:+--smallest-index $SMALLEST}
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r$RUN/crops $D/rc14 $D/rc-hd41-96 $D/r$RUN/crops $D/mix$RUN ${MIN_READER_PX:-0}
date
.venv/bin/ginscore train $D/mix$RUN --part classifier --classifier-weights $START \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours $HOURS --name crops-run$RUN \
  --project $D/runs --no-install
date
