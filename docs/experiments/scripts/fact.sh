# the factorised read against the 52-card classifier: same 30k crops, 2 epochs, lr0 0.0002, from crops-run4
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
date
rm -rf /work/data/fact-sub /work/data/fact-split
.venv/bin/python /work/data/subset.py /work/data/mix5 /work/data/fact-sub 30000 7
.venv/bin/python benchmarks/factorised_read.py split /work/data/fact-sub /work/data/fact-split
for kind in rank suit; do
  date
  .venv/bin/ginscore train /work/data/fact-split/$kind --part classifier --classifier-weights /work/data/fact/$kind-start.pt \
    --crops-channels bgr --lr0 0.0002 --epochs 2 --name fact-$kind --project /work/data/runs --no-install
done
date
.venv/bin/ginscore train /work/data/fact-sub --part classifier --classifier-weights models/candidates/crops-run4.pt \
  --crops-channels bgr --lr0 0.0002 --epochs 2 --name fact-cards --project /work/data/runs --no-install
date
.venv/bin/python benchmarks/factorised_read.py read --cards models/candidates/crops-run4.pt /work/data/runs/fact-cards/weights/best.pt \
  --rank /work/data/runs/fact-rank/weights/best.pt --suit /work/data/runs/fact-suit/weights/best.pt --folders /work/data/rc-hd41/*
date
