set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
date
.venv/bin/ginscore synth --out /work/data/run5-scenes/train --count 3000 --imgsz 1280 --seed 505
date
.venv/bin/ginscore crops --out /work/data/run5 --count 100000 --val-count 0 --seed 505 --channels bgr
date
.venv/bin/python benchmarks/reader_crops.py /work/data/run5-scenes --out /work/data/run5-rc
date
mkdir -p /work/data/run5-rcall && ln -sfn /work/data/run4-rc/train /work/data/run5-rcall/r4 && ln -sfn /work/data/run5-rc/train /work/data/run5-rcall/r5
.venv/bin/python /work/data/assemble4.py /work/data/run5/crops /work/data/run5-rcall /work/data/rc-hd100 /work/data/run4val/crops /work/data/mix5
date
.venv/bin/ginscore train /work/data/mix5 --part classifier --classifier-weights /work/data/runs/crops-run4/weights/best.pt \
  --crops-channels bgr --lr0 0.0002 --distill 1 --hours 1.25 --name crops-run5 --project /work/data/runs --no-install
date
