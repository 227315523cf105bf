# eval8.sh WEIGHTS (OUT=folder for the logs, default /work/ev8): crops-run8's checks (session 26; eval7.sh with its own logs), lean: the reader with WEIGHTS as its one classifier; webcam
# frames, real-val, real-clutter and the held-out benchmark (seed 39, 450 scenes, as session 24's ledger rows).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
W=$1; O=${OUT:-/work/ev8}; mkdir -p $O
.venv/bin/python docs/experiments/scripts/make_models.py $W $O/c8
M=$O/c8-alone
.venv/bin/python docs/experiments/scripts/frame_steadiness.py $M > $O/frames.log 2>&1
.venv/bin/ginscore eval datasets/real/real-val --models $M > $O/val.log 2>&1
.venv/bin/ginscore eval datasets/real/real-clutter --models $M > $O/clutter.log 2>&1
date
.venv/bin/python benchmarks/heldout_decks.py --seed 39 --scenes 450 --out /work/hd450 --models $M > $O/hd450.log 2>&1
date
