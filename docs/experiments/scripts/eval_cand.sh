# eval_cand.sh MODELS TAG [LOGS]: the real-photo checks and the held-out benchmark of one candidate models folder,
# each check's output in LOGS/ev-TAG-*.log (default /work/ev)
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
M=$1; T=$2; L=${3:-/work/ev}; mkdir -p $L
date
.venv/bin/python docs/experiments/scripts/frame_steadiness.py $M > $L/ev-$T-frames.log 2>&1
.venv/bin/ginscore eval datasets/real/real-val --zoom 2,3 --shrink 0.5,0.33 --models $M > $L/ev-$T-scale.log 2>&1
.venv/bin/ginscore eval datasets/real/real-clutter --models $M > $L/ev-$T-clutter.log 2>&1
date
.venv/bin/python benchmarks/heldout_decks.py --seed 39 --scenes 450 --out /work/hd450 --models $M > $L/ev-$T-hd450.log 2>&1
date
.venv/bin/python benchmarks/confidence_rule.py --models $M > $L/ev-$T-lopo.log 2>&1
date
