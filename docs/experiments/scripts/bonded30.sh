# bonded30.sh: issue 38's experiment with the reader of session 30 (crops-run10 alone, its calibration, review
# below 0.85): bonded taught from four rendered table photos with its check photo kept (teach_experiment.py), then
# `ginscore retrain --taught-partner` in its default ten minutes, judged by its rule (the check photo, real-val,
# real-clutter); then the shipped reader and the candidate on BONDED50, 50B and 50C (seeds 2501, 2602, 2703).
# Makes every set it needs, so it runs on a new machine.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=${B:-/work/b38}; S=${S:-/work/s30/b}; mkdir -p $B $S
date
for pair in "2501 BONDED50" "2602 BONDED50B" "2703 BONDED50C"; do set -- $pair
  if [ ! -d $B/$2 ]; then
    .venv/bin/ginscore synth --out $B/B80-$1 --count 80 --imgsz 1280 --seed $1 --deck bonded
    .venv/bin/python docs/experiments/scripts/first50.py $B/B80-$1 $B/$2
  fi
done
if [ ! -d $B/I ]; then
  .venv/bin/python benchmarks/teach_experiment.py --deck bonded --instance $B/I --photos $B/P --check-photo \
    --check-cards Td,6s,Th,8s
fi
date
rm -rf $S/models $S/W && mkdir -p $S/models && cp models/*.pt models/model.json $S/models/
.venv/bin/ginscore retrain --taught-partner --instance $B/I --models-dir $S/models --work-dir $S/W \
  --deck bonded_taught --seed 136077 --quiet --eval datasets/real/real-val --eval datasets/real/real-clutter
date
for set in BONDED50 BONDED50B BONDED50C; do
  .venv/bin/ginscore eval $B/$set --json > $S/$set-shipped.json
  .venv/bin/ginscore eval $B/$set --models $S/W/candidate --json > $S/$set-taught.json
done
date
