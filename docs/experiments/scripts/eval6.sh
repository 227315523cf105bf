# eval6.sh WEIGHTS: crops-run6's checks (session 24), lean: two readers, alone and with the shipped main classifier as
# its one partner (mix 0.5); webcam frames, real-val, real-clutter and the held-out benchmark for each; then real-val's
# zoom and shrink and leave-one-photo-out for the pair.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
W=$1; O=/work/ev6; mkdir -p $O
.venv/bin/python docs/experiments/scripts/make_models.py $W $O/c6
.venv/bin/python docs/experiments/scripts/make_combo.py $W $O/c6-combo 0.5
for M in $O/c6-alone $O/c6-combo; do
  T=$(basename $M)
  .venv/bin/python docs/experiments/scripts/frame_steadiness.py $M > $O/$T-frames.log 2>&1
  .venv/bin/ginscore eval datasets/real/real-val --models $M > $O/$T-val.log 2>&1
  .venv/bin/ginscore eval datasets/real/real-clutter --models $M > $O/$T-clutter.log 2>&1
  .venv/bin/python benchmarks/heldout_decks.py --seed 39 --scenes 450 --out /work/hd450 --models $M > $O/$T-hd450.log 2>&1
  date
done
.venv/bin/ginscore eval datasets/real/real-val --zoom 2,3 --shrink 0.5,0.33 --models $O/c6-combo > $O/c6-combo-scale.log 2>&1
.venv/bin/python benchmarks/confidence_rule.py --models $O/c6-combo > $O/c6-combo-lopo.log 2>&1
date
# the shipped reader on the same scenes, for the comparison in one machine's render
.venv/bin/python benchmarks/heldout_decks.py --seed 39 --scenes 450 --out /work/hd450 > $O/shipped-hd450.log 2>&1
date
