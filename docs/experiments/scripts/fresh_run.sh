# fresh_run.sh N PART: crops-runN, the recipe of crops-run19 (gen19.sh) with fresh data each session: the shipped
# reader's crops (with its own "not a card") of 2,500 NEW training scenes with 100 procedural decks (seeds N10/N11,
# 1,500 at 1280 px and 1,000 at 640 px) + 100,000 fresh drawn crops (seed N12), from START (the last run's kept
# checkpoint), lr0 0.0002, distill 1, 96 px, a budget of HOURS. Session 36 found fresh reader crops worth it: run 19
# reached val 0.950 where runs 18/18b, on reader crops seen in four runs before, stopped at 0.944.
# PART 1: the scenes (both sizes at once, one core each); 2: the reader's crops of them; 3: drawn crops and training
# (START=... HOURS=... [HARD=copies] [COUNT=drawn crops] fresh_run.sh N 3; HARD: hard_crops.py, session 38; run 21 used
# HARD=2; COUNT: the fresh drawn crops, 100,000 unless set).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
N=$1
D=${D:-/work/data}
M=${MODELS:-models}
date
if [ "$2" = 1 ]; then
  .venv/bin/ginscore synth --out $D/s$N/train --count 1500 --imgsz 1280 --seed ${N}10 --procedural-decks 100 &
  .venv/bin/ginscore synth --out $D/s$N/small --count 1000 --imgsz 640 --seed ${N}11 --procedural-decks 100 &
  wait
  date
  exit 0
fi
if [ "$2" = 2 ]; then
  mkdir -p $D/s${N}a $D/s${N}b; ln -sfn $D/s$N/train $D/s${N}a/train; ln -sfn $D/s$N/small $D/s${N}b/small
  .venv/bin/python benchmarks/reader_crops.py $D/s${N}a --out $D/rc$N --nones --models $M &
  .venv/bin/python benchmarks/reader_crops.py $D/s${N}b --out $D/rc$N --nones --models $M &
  wait
  date
  exit 0
fi
.venv/bin/ginscore crops --out $D/r$N --count ${COUNT:-100000} --val-count 3000 --seed ${N}12 --channels bgr --size 96
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r$N/crops $D/rc$N $D/rc-hd41-96 $D/r$N/crops $D/mix$N 0
date
if [ -n "$HARD" ]; then  # session 38: link the crops START reads surely as another card HARD more times
  .venv/bin/python docs/experiments/scripts/hard_crops.py $START $D/mix$N --copies $HARD
  date
fi
.venv/bin/ginscore train $D/mix$N --part classifier --classifier-weights $START \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours $HOURS --name crops-run$N \
  --project $D/runs --no-install
date
