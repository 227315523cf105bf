# bonded_other.sh: issue 38's experiment with the taught deck's own classifier that also says "not my deck"
# (session 26): as bonded_partner.sh, but the taught classifier now also learns 12,000 other decks' crops as its
# "not a card" class (retrain.TAUGHT_PARTNER_OTHER_DECKS), and the reader weighs it by the share it does not give
# that class (crop_reading.taught_weights). Makes BONDED50 and the taught instance first when they are missing
# (bonded10.sh's commands), so it runs on a new machine. The reader's settings were chosen on BONDED50 (every crop
# asked, weight 0.6: see the session-26 write-up), so the candidate is also measured on BONDED50B, 50 photos of a
# seed not looked at before (2602).
set -x
cd /work/main
export OMP_WAIT_POLICY=PASSIVE
B=/work/b38; S=/work/s26
date
for pair in "2501 BONDED50" "2602 BONDED50B"; do set -- $pair
if [ ! -d $B/$2 ]; then
  .venv/bin/ginscore synth --out $B/B80-$1 --count 80 --imgsz 1280 --seed $1 --deck bonded
  .venv/bin/python - "$B" "$1" "$2" <<'PY'
import shutil, sys
from pathlib import Path
b = Path(sys.argv[1]); src, out = b / f"B80-{sys.argv[2]}", b / sys.argv[3]
names = [line.split(":", 1)[1].strip() for line in (src / "data.yaml").read_text().splitlines()
         if line.startswith("  ") and ":" in line]
(out / "images").mkdir(parents=True); (out / "labels").mkdir()
for image in sorted(src.glob("images/*/*"), key=lambda p: p.name)[:50]:
    shutil.copy2(image, out / "images" / image.name)
    shutil.copy2(src / "labels" / image.parent.name / f"{image.stem}.txt", out / "labels" / f"{image.stem}.txt")
(out / "classes.txt").write_text("\n".join(names) + "\n")
PY
fi
done
if [ ! -d $B/I ]; then
  .venv/bin/python benchmarks/teach_experiment.py --deck bonded --instance $B/I --photos $B/P --check-photo \
    --check-cards Td,6s,Th,8s
fi
date
rm -rf $S/b38o $S/W3 && mkdir -p $S/b38o && cp models/*.pt models/model.json $S/b38o/
.venv/bin/ginscore retrain --taught-partner --hours 0.17 --instance $B/I --models-dir $S/b38o --work-dir $S/W3 \
  --deck bonded_taught --seed 136077 --quiet --eval datasets/real/real-val --eval datasets/real/real-clutter
date
for set in BONDED50 BONDED50B; do
  .venv/bin/ginscore eval $B/$set --json > $S/$set-shipped.json
  .venv/bin/ginscore eval $B/$set --models $S/W3/candidate --json > $S/$set-other.json
done
date
