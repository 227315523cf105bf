# bonded_partner.sh: issue 38's experiment with the taught deck's own classifier (session 25): bonded taught as in
# bonded10.sh (the same instance, /work/b38/I), then `ginscore retrain --taught-partner` in ten minutes: the main
# classifier fine-tuned on 30,000 of bonded's drawn crops alone, asked only about the crops the shipped classifiers
# read less surely than 0.5; judged by its rule on bonded's check photo, real-val and real-clutter, and then on 50
# other photos of bonded (BONDED50).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=/work/b38; S=/work/s25
date
rm -rf $S/b38m $S/W2 && mkdir -p $S/b38m && cp models/*.pt models/model.json $S/b38m/
.venv/bin/ginscore retrain --taught-partner --hours 0.17 --instance $B/I --models-dir $S/b38m --work-dir $S/W2 \
  --deck bonded_taught --seed 136077 --quiet --eval datasets/real/real-val --eval datasets/real/real-clutter
date
.venv/bin/ginscore eval $B/BONDED50 --models $S/W2/candidate --json > $S/bonded50-partner.json
.venv/bin/ginscore eval $B/BONDED50 --models $S/W2/candidate > $S/bonded50-partner.log
date
