# crops-run8's data and run (session 26): crops-run7 trained on with MORE of the reader's own crops (session 25's
# lesson: fresh drawn crops alone moved nothing, 4.7 -> 4.6 % wrong): new training scenes of seeds 808/809 with 60
# procedural decks beside the library's, 4,000 at 1280 px and 2,000 at 640 px (run 6 had 3,000 + 1,500 with 40),
# the reader's own crops of them with its own "not a card", 60,000 fresh drawn crops, and val on the reader's crops
# of 100 seed-41 held-out scenes (as run 7).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
date
.venv/bin/ginscore synth --out $D/s8/train --count 4000 --imgsz 1280 --seed 808 --procedural-decks 60
date
.venv/bin/ginscore synth --out $D/s8/small --count 2000 --imgsz 640 --seed 809 --procedural-decks 60
date
.venv/bin/ginscore crops --out $D/r8 --count 60000 --val-count 3000 --seed 808 --channels bgr
date
.venv/bin/python docs/experiments/scripts/render_only.py 41 100 $D/hd41
.venv/bin/python benchmarks/reader_crops.py $D/hd41/seed41-scenes100-1280px-photos --out $D/rc-hd41
date
.venv/bin/python benchmarks/reader_crops.py $D/s8 --out $D/rc8 --nones
date
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r8/crops $D/rc8 $D/rc-hd41 $D/r8/crops $D/mix8
date
.venv/bin/ginscore train $D/mix8 --part classifier --classifier-weights models/candidates/crops-run7.pt \
  --crops-channels bgr --lr0 0.0002 --distill 1 --hours 1.2 --name crops-run8 --project $D/runs --no-install
date
