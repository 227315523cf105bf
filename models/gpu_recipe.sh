#!/usr/bin/env bash
# The GPU training recipe: generate a synthetic dataset on all cores, then train the corner-index
# detector and the card classifier side by side on one GPU, copying the best weights to $OUT as
# they improve. Run from the repository root on a machine with a CUDA GPU and ultralytics:
#   OUT=/tmp/out [CROPS=1000000] bash models/gpu_recipe.sh [SCENES] [DETECTOR_HOURS] [CLASSIFIER_HOURS] [DEVICE]
# (With DEVICE=cpu and tiny numbers it runs anywhere; that is how it is tested.)
set -u
OUT=${OUT:-/tmp/gpu_out}; mkdir -p "$OUT"
SCENES=${1:-16000}; DET_HOURS=${2:-0.09}; CLS_HOURS=${3:-0.07}; DEVICE=${4:-0}
WORK=${WORK:-/tmp/ginscore_gpu}; mkdir -p "$WORK"
# START=scratch trains from random weights; START=shipped fine-tunes the models in models/.
START=${START:-scratch}; FROM=""; [ "$START" = scratch ] && FROM="--scratch"
DET_SHARE=${DET_SHARE:-67}   # percent of the CPU cores feeding the detector's data loader
CPUS=$(nproc)
export PYTHONUNBUFFERED=1
start=$(date +%s)
python3 -m web.cli synth --out "$WORK/data" --count "$SCENES" --imgsz 640 --crops --seed 1 \
  > "$OUT/synth.log" 2>&1 || { tail -20 "$OUT/synth.log"; exit 1; }
tail -1 "$OUT/synth.log"; echo "synth done after $(( $(date +%s) - start )) s"
# CROPS > 0: the classifier also learns from index crops drawn directly ('ginscore crops': procedural decks in
# the fonts of datasets/install_fonts.sh, where they are installed), added to the scenes' crops.
CROPS=${CROPS:-0}
if [ "$CROPS" -gt 0 ]; then
  python3 -m web.cli crops --out "$WORK/direct" --count "$CROPS" --val-count 0 --seed 2 > "$OUT/crops.log" 2>&1 \
    || { tail -20 "$OUT/crops.log"; exit 1; }
  cp -rl "$WORK/direct/crops/train/." "$WORK/data/crops/train/"
  tail -1 "$OUT/crops.log"
fi
DET_WORKERS=$(( CPUS * DET_SHARE / 100 )); CLS_WORKERS=$(( CPUS - DET_WORKERS - 1 ))
[ "$CLS_WORKERS" -lt 1 ] && CLS_WORKERS=1
python3 -m web.cli train "$WORK/data" --part detector $FROM --hours "$DET_HOURS" --batch 64 \
  --workers "$DET_WORKERS" --device "$DEVICE" --cache ram --project "$WORK/runs" --no-install \
  > "$OUT/detector.log" 2>&1 &
det=$!
python3 -m web.cli train "$WORK/data" --part classifier $FROM --hours "$CLS_HOURS" --batch 512 \
  --workers "$CLS_WORKERS" --device "$DEVICE" --cache ram --project "$WORK/runs" --no-install \
  > "$OUT/classifier.log" 2>&1 &
cls=$!
copy_back() {
  for part in detector classifier; do
    w="$WORK/runs/$part/weights"
    [ -f "$w/best.pt" ] && cp "$w/best.pt" "$OUT/$part.pt"
    [ -f "$WORK/runs/$part/results.csv" ] && cp "$WORK/runs/$part/results.csv" "$OUT/$part-results.csv"
  done
}
while kill -0 $det 2>/dev/null || kill -0 $cls 2>/dev/null; do
  sleep 20; copy_back
  echo "t=$(( $(date +%s) - start ))s det: $(tail -c 300 "$OUT/detector.log" | tr '\r' '\n' | tail -1 | cut -c1-120)"
done
wait $det; echo "detector exit $?"; wait $cls; echo "classifier exit $?"
copy_back
for f in detector classifier; do tail -c 20000 "$OUT/$f.log" > "$OUT/$f.tail.log"; rm "$OUT/$f.log"; done
ls -la "$OUT"; echo "total $(( $(date +%s) - start )) s"
