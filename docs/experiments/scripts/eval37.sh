# eval37.sh NAME (session 37): real-val, real-clutter and the held-out seeds 39, 40, 42 (450 scenes each) of the models copy /work/s37/m-NAME; pool_seeds.py NAME sums the three
# HD=DIR (session 39): the seeds' scenes in DIR/hdS instead of session 33-35's folders, rendered there on first use (the renderer draws the same scenes on any machine)
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
N=$1; M=/work/s37/m-$N; O=/work/s37
.venv/bin/ginscore eval datasets/real/real-val --models $M > $O/$N-realval.txt 2>&1; echo "$N realval: $(grep ^total $O/$N-realval.txt)"
.venv/bin/ginscore eval datasets/real/real-clutter --models $M > $O/$N-clutter.txt 2>&1; echo "$N clutter: $(grep ^total $O/$N-clutter.txt)"
for s in 39 40 42; do
  case $s in 39) D=/work/hd450;; 40) D=/work/s33/hd40;; 42) D=/work/s35/hd42;; esac
  [ -n "$HD" ] && D=$HD/hd$s
  .venv/bin/python benchmarks/heldout_decks.py --seed $s --scenes 450 --out $D --models $M > $O/$N-hd$s.txt 2>&1
  echo "$N seed $s: $(grep -E '^held-out' $O/$N-hd$s.txt)"
done
