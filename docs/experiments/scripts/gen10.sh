# crops-run10 (session 28): does the classifier read better at 96 px than at 64? crops-run9 fine-tuned on run 9's
# own data (mix9, docs/experiments/scripts/gen9.sh: the crop files are 64 px, upscaled by ultralytics to 96) at
# an input of 96 px, so that the network sees a 3 x 3 grid where it saw 2 x 2; the one change from run 9 is the size.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
date
.venv/bin/ginscore train $D/mix9 --part classifier --classifier-weights models/candidates/crops-run9.pt \
  --classifier-imgsz 96 --crops-channels bgr --lr0 0.0002 --distill 1 --hours ${HOURS:-1.6} --name crops-run10 \
  --project $D/runs --no-install
date
