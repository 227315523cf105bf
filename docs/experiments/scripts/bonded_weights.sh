# bonded_weights.sh: the taught classifier bonded_other.sh installed (/work/s26/W3/candidate), weighed 1 and 2 in the
# reading instead of 0.6 (session 27; model.json's classifiers.taught_weight edited in a copy), on BONDED50 and
# BONDED50B (used to choose), then the chosen weight on BONDED50C (seed 2703, made after the choice) and the real sets.
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=/work/b38; C=/work/s26/W3/candidate; O=/work/s27/tw; mkdir -p $O
if [ ! -d $B/BONDED50C ]; then
  .venv/bin/ginscore synth --out $B/B80-2703 --count 80 --imgsz 1280 --seed 2703 --deck bonded
  .venv/bin/python docs/experiments/scripts/first50.py $B/B80-2703 $B/BONDED50C
fi
for w in 1.0 2.0; do
  M=$O/w$w; rm -rf $M; mkdir -p $M; ln -s $C/*.pt $M/
  .venv/bin/python -c "import json,sys; d=json.load(open(sys.argv[1])); d['classifiers']['taught_weight']=float(sys.argv[2]); json.dump(d, open(sys.argv[3], 'w'), indent=1)" $C/model.json $w $M/model.json
  for s in BONDED50 BONDED50B; do .venv/bin/ginscore eval $B/$s --models $M --json > $O/$s-$w.json; done
done
for m in "" "--models $C" "--models $O/w1.0"; do .venv/bin/ginscore eval $B/BONDED50C $m --json; done > $O/BONDED50C.jsonl
for s in real-val real-clutter; do .venv/bin/ginscore eval datasets/real/$s --models $O/w1.0 --json > $O/$s-1.0.json; done
