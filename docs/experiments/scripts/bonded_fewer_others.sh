# bonded_fewer_others.sh SHARE [SHARE...] (session 28): issue 38's taught classifier with fewer other decks' crops as
# its "not a card" (retrain.TAUGHT_PARTNER_OTHER_DECKS, 0.4 shipped). Session 27 found it calls 216 of BONDED50C's
# 2,303 reader crops of its own deck "not a card" (main: 92). Same instance, seed and budget as bonded_other.sh;
# measured on BONDED50/50B (seen before) and BONDED50C (made after session 26's choice), and the real sets.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=/work/b38; O=/work/s28/others; mkdir -p $O
for share in "$@"; do
  M=$O/m$share; W=$O/W$share; rm -rf $M $W; mkdir -p $M; cp models/*.pt models/model.json $M/
  date
  .venv/bin/python -c "
import sys
import vision.training.retrain as retrain
retrain.TAUGHT_PARTNER_OTHER_DECKS = float(sys.argv[1])
from web.cli import main
sys.exit(main(sys.argv[2:]))" $share retrain --taught-partner --hours 0.17 --instance $B/I --models-dir $M --work-dir $W \
    --deck bonded_taught --seed 136077 --quiet --eval datasets/real/real-val --eval datasets/real/real-clutter
  date
  for s in BONDED50 BONDED50B BONDED50C; do .venv/bin/ginscore eval $B/$s --models $W/candidate --json > $O/$s-$share.json; done
  date
done
