# eval_cand.sh MODELS TAG: the real-photo checks and the held-out benchmark of one candidate models folder
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
M=$1; T=$2
date
.venv/bin/python docs/experiments/scripts/frame_steadiness.py $M > ev-$T-frames.log 2>&1
.venv/bin/ginscore eval datasets/real/real-val --zoom 2,3 --shrink 0.5,0.33 --models $M > ev-$T-scale.log 2>&1
.venv/bin/ginscore eval datasets/real/real-clutter --models $M > ev-$T-clutter.log 2>&1
date
.venv/bin/python benchmarks/heldout_decks.py --seed 39 --scenes 450 --out /work/hd450 --models $M > ev-$T-hd450.log 2>&1
date
.venv/bin/python benchmarks/confidence_rule.py --models $M > ev-$T-lopo.log 2>&1
date
