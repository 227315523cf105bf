# bonded34.sh: issue 38's experiment as bonded30.sh ran it, with the reader of session 34: the taught deck's
# classifier reads a photo only when its median "my deck" share over the photo's card crops reaches
# classifiers.taught_photo_median (crop_reading.taught_deck_in_photo), so other decks' photos (real-val,
# real-clutter) read as the shipped reader reads them. Taught from four rendered table photos with its check photo,
# `ginscore retrain --taught-partner` in its default budget, judged by its rule; then BONDED50, 50B and 50C.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=${B:-/work/b38}; S=${S:-/work/s34/b}; mkdir -p $B $S
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
