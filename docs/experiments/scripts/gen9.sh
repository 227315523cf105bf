# crops-run9's data and run (session 27): crops-run8 trained on with still more of the reader's own crops (session
# 26's lesson: the reader's own crops of new scenes moved every held-out number). 5,000 new training scenes of
# seeds 908/909 (3,500 at 1280 px and 1,500 at 640 px) with 100 procedural decks beside the library's, the reader's
# own crops of them with its own "not a card", added to run 8's mix (its 60,000 drawn crops and the reader's crops
# of seeds 808/809); val stays the reader's crops of 100 seed-41 held-out scenes (as runs 7 and 8).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
date
.venv/bin/ginscore synth --out $D/s9/train --count 3500 --imgsz 1280 --seed 908 --procedural-decks 100
date
.venv/bin/ginscore synth --out $D/s9/small --count 1500 --imgsz 640 --seed 909 --procedural-decks 100
date
.venv/bin/python benchmarks/reader_crops.py $D/s9 --out $D/rc9 --nones
date
mkdir -p $D/rc89
ln -sfn $D/rc8/train $D/rc89/s8train; ln -sfn $D/rc8/small $D/rc89/s8small
ln -sfn $D/rc9/train $D/rc89/s9train; ln -sfn $D/rc9/small $D/rc89/s9small
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r8/crops $D/rc89 $D/rc-hd41 $D/r8/crops $D/mix9
date
.venv/bin/ginscore train $D/mix9 --part classifier --classifier-weights models/candidates/crops-run8.pt \
  --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.0} --name crops-run9 --project $D/runs --no-install
date
