# egypt33.sh: issue 38's experiment on the deck whose misreads repeat under the shipped reader (session 33): the
# held-out Ancient Egyptians print their bottom indices upright, and the reader takes their 6s and 9s the other way
# round, mostly as sure (22 of the 53 wrong cards shown as sure on the seed-39 held-out scenes). Taught from four
# rendered table photos with a check photo holding 6c,9c,6d,9d (teach_experiment.py), then `ginscore retrain
# --taught-partner` in its default budget, judged by its rule (the check photo, real-val, real-clutter); then the
# shipped reader and the candidate on EGYPT50 and EGYPT50B (seeds 3301, 3302; never used to teach).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=${B:-/work/e38}; S=${S:-/work/s33/e}; mkdir -p $B $S
date
for pair in "3301 EGYPT50" "3302 EGYPT50B"; do set -- $pair
  if [ ! -d $B/$2 ]; then
    .venv/bin/ginscore synth --out $B/E80-$1 --count 80 --imgsz 1280 --seed $1 --deck kde_ancient_egyptians
    .venv/bin/python docs/experiments/scripts/first50.py $B/E80-$1 $B/$2
  fi
done
if [ ! -d $B/I ]; then
  .venv/bin/python benchmarks/teach_experiment.py --deck kde_ancient_egyptians --instance $B/I --photos $B/P \
    --check-photo --check-cards 6c,9c,6d,9d
fi
date
rm -rf $S/models $S/W && mkdir -p $S/models && cp models/*.pt models/model.json $S/models/
.venv/bin/ginscore retrain --taught-partner --instance $B/I --models-dir $S/models --work-dir $S/W \
  --deck kde_ancient_egyptians_taught --seed 3303 --quiet --eval datasets/real/real-val --eval datasets/real/real-clutter
date
for set in EGYPT50 EGYPT50B; do
  .venv/bin/ginscore eval $B/$set --json > $S/$set-shipped.json
  .venv/bin/ginscore eval $B/$set --models $S/W/candidate --json > $S/$set-taught.json
done
date
