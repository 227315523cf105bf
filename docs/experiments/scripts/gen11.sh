# crops-run11 (session 29): crops-run10 (96 px, learned from 64 px crop files upscaled) trained on with the
# reader's own crops cut natively at 96 px (the reader with crops-run10 as its main classifier cuts at its trained
# size) of 4,200 new training scenes (seeds 1010/1011, 100 procedural decks), beside run 9's mix; val as run 9.
# MODELS: a models folder whose main classifier is crops-run10 (docs/experiments/scripts/make_models.py W OUT).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
M=${MODELS:-/work/ev10/c8-alone}
date
.venv/bin/ginscore synth --out $D/s10/train --count 3000 --imgsz 1280 --seed 1010 --procedural-decks 100
date
.venv/bin/ginscore synth --out $D/s10/small --count 1200 --imgsz 640 --seed 1011 --procedural-decks 100
date
.venv/bin/python benchmarks/reader_crops.py $D/s10 --out $D/rc10 --nones --models $M
date
mkdir -p $D/rc8910
for s in 8 9 10; do ln -sfn $D/rc$s/train $D/rc8910/s${s}train; ln -sfn $D/rc$s/small $D/rc8910/s${s}small; done
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r8/crops $D/rc8910 $D/rc-hd41 $D/r8/crops $D/mix11
date
.venv/bin/ginscore train $D/mix11 --part classifier --classifier-weights ${START:-/work/s29/run10.pt} \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.1} --name crops-run11 \
  --project $D/runs --no-install
date
