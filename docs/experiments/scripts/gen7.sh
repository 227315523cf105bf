# crops-run7's data and run (session 25): crops-run6 trained on for about two hours more, on fresh drawn crops (a new
# seed: 80,000 crops the run has not seen) beside run 6's reader crops (training scenes at 1280 and 640 px, unchanged),
# and validated on the reader's crops of 100 scenes of seed 41, so that the epoch is no longer picked on the seed the
# held-out benchmark (seed 39) reads.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
D=/work/data
date
.venv/bin/ginscore crops --out $D/r7 --count 80000 --val-count 3000 --seed 707 --channels bgr
date
.venv/bin/python docs/experiments/scripts/render_only.py 41 100 $D/hd41
.venv/bin/python benchmarks/reader_crops.py $D/hd41/seed41-scenes100-1280px-photos --out $D/rc-hd41
date
# train: the new drawn crops + run 6's reader crops (already channel-swapped in mix6, linked as they are)
.venv/bin/python docs/experiments/scripts/assemble_mix.py $D/r7/crops $D/empty $D/rc-hd41 $D/r7/crops $D/mix7
for code in $(ls $D/mix6/crops/train); do
  find $D/mix6/crops/train/$code -name 'r_*.png' -exec ln -t $D/mix7/crops/train/$code {} +
done
date
.venv/bin/ginscore train $D/mix7 --part classifier --classifier-weights models/candidates/crops-run6.pt \
  --crops-channels bgr --lr0 0.0002 --distill 1 --hours 2.0 --name crops-run7 --project $D/runs --no-install
date
