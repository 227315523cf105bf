# crops-run19 (session 36): fresh reader crops. rc14 (the shipped reader's crops of 2,500 training scenes) has been in
# runs 14-18, and run 16 reads it at 0.911 against 0.844 for drawn crops it never saw: its scenes are learned. Here the
# reader's own crops (with its own "not a card") of 2,500 NEW training scenes with 100 procedural decks (seeds
# 1910/1911, 1,500 at 1280 px and 1,000 at 640 px, as rc14) + 100,000 fresh drawn crops (seed 1912), from START
# (the better arm of session 36's A/B), lr0 0.0002, distill 1, 96 px, a budget of HOURS.
# Part 1: the scenes (niced: it ran beside crops-run18b); 2: the reader's crops of them; 3: drawn crops and training
# (START=... HOURS=... gen19.sh 3). gen19.sh 1|2|3.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
M=${MODELS:-models}
date
if [ "$1" = 1 ]; then
  nice -n 19 .venv/bin/ginscore synth --out $D/s19/train --count 1500 --imgsz 1280 --seed 1910 --procedural-decks 100
  nice -n 19 .venv/bin/ginscore synth --out $D/s19/small --count 1000 --imgsz 640 --seed 1911 --procedural-decks 100
  date
  exit 0
fi
if [ "$1" = 2 ]; then
mkdir -p $D/s19a $D/s19b; ln -sfn $D/s19/train $D/s19a/train; ln -sfn $D/s19/small $D/s19b/small
.venv/bin/python benchmarks/reader_crops.py $D/s19a --out $D/rc19 --nones --models $M &
.venv/bin/python benchmarks/reader_crops.py $D/s19b --out $D/rc19 --nones --models $M &
wait
date
exit 0
fi
.venv/bin/ginscore crops --out $D/r19 --count 100000 --val-count 3000 --seed 1912 --channels bgr --size 96 \
  ${SMALLEST:+--smallest-index $SMALLEST}
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r19/crops $D/rc19 $D/rc-hd41-96 $D/r19/crops $D/mix19 ${MIN_READER_PX:-0}
date
.venv/bin/ginscore train $D/mix19 --part classifier --classifier-weights $START \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours $HOURS --name crops-run19 \
  --project $D/runs --no-install
date
