# heldout_seeds.sh NAME SEED...: session 36. The held-out benchmark of the models copy /work/s36/m-NAME on 450 scenes of each seed
# (39: /work/hd450, 40: /work/s33/hd40, 42: /work/s35/hd42; rendered once by heldout_decks.py or render_only.py)
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
N=$1; shift
for s in "$@"; do
  case $s in 39) D=/work/hd450;; 40) D=/work/s33/hd40;; 42) D=/work/s35/hd42;; esac
  .venv/bin/python benchmarks/heldout_decks.py --seed $s --scenes 450 --out $D --models /work/s36/m-$N > /work/s36/$N-hd$s.txt 2>&1
  echo "$N seed $s: $(grep -E '^held-out' /work/s36/$N-hd$s.txt)"
done
