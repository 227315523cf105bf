# eval39.sh NAME (session 39; eval37.sh with the scene folders under $HD): real-val, real-clutter and the held-out
# seeds 39, 40, 42 (450 scenes each, rendered on first use) of the models copy /work/s37/m-NAME; pool_seeds.py NAME sums them
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
N=$1; M=/work/s37/m-$N; O=/work/s37; HD=${HD:-/work/s39}
.venv/bin/ginscore eval datasets/real/real-val --models $M > $O/$N-realval.txt 2>&1; echo "$N realval: $(grep ^total $O/$N-realval.txt)"
.venv/bin/ginscore eval datasets/real/real-clutter --models $M > $O/$N-clutter.txt 2>&1; echo "$N clutter: $(grep ^total $O/$N-clutter.txt)"
for s in 39 40 42; do
  .venv/bin/python benchmarks/heldout_decks.py --seed $s --scenes 450 --out $HD/hd$s --models $M > $O/$N-hd$s.txt 2>&1
  echo "$N seed $s: $(grep -E '^held-out' $O/$N-hd$s.txt)"
done
