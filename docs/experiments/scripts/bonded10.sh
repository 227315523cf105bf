# bonded10.sh: issue 38's experiment at ten minutes (session 24): the held-out four-index deck bonded taught from
# four rendered table photos, its check photo kept, then a 10-minute retrain with 34,000 of its drawn crops
# (200,000 per hour, five times the default rate), judged by its rule on 50 other photos of bonded, real-val and
# real-clutter. Session 21's command, with the budget and the taught crops changed.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=/work/b38
date
rm -rf $B/I $B/P $B/models $B/W
# BONDED50, made beforehand: ginscore synth --out $B/B80 --count 80 --imgsz 1280 --seed 2501 --deck bonded, then
# the first 50 scenes by name with their labels and classes.txt (the names of data.yaml) in images/ and labels/
.venv/bin/python benchmarks/teach_experiment.py --deck bonded --instance $B/I --photos $B/P --check-photo \
  --check-cards Td,6s,Th,8s
mkdir -p $B/models && cp models/*.pt models/model.json $B/models/
date
.venv/bin/ginscore retrain --hours 0.17 --taught-crops 34000 --instance $B/I --models-dir $B/models --work-dir $B/W \
  --deck bonded_taught --seed 136077 --quiet --eval $B/BONDED50 --eval datasets/real/real-val \
  --eval datasets/real/real-clutter
date
.venv/bin/ginscore eval $B/BONDED50 --models $B/W/candidate --json > $B/bonded50-after.json
.venv/bin/ginscore eval $B/BONDED50 --json > $B/bonded50-before.json
date
