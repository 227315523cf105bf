# crops-run15 (session 33): the held-out Ancient Egyptians print their bottom indices upright (suit over rank), and
# 22 of the 53 wrong cards shown as sure on the held-out scenes (seed 39) are its 6s and 9s read the other way
# round: the classifier takes "a 6 shape at a card's lower corner" for a turned 9, as on most decks. Here the
# procedural decks print their bottom indices upright three times as often (procedural_decks.BOTTOM_UPRIGHT_SHARE
# 0.12 -> 0.3), so that only the suit's way up can tell a 6 from a 9 there. Data: 100,000 fresh drawn crops at
# 96 px + run 14's reader crops (rc14: the shipped reader's own 96-px crops of 2,500 training scenes, with its own
# "not a card"); val as runs 12-14 (the reader's 96-px crops of 100 seed-41 held-out scenes). Start: the shipped
# classifier (crops-run10), read at its 96 px.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=${D:-/work/data}
date
.venv/bin/ginscore crops --out $D/r15 --count 100000 --val-count 3000 --seed 1512 --channels bgr --size 96
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r15/crops $D/rc14 $D/rc-hd41-96 $D/r15/crops $D/mix15
date
.venv/bin/ginscore train $D/mix15 --part classifier --classifier-weights ${START:-models/candidates/crops-run10.pt} \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.4} --name crops-run15 \
  --project $D/runs --no-install
date
