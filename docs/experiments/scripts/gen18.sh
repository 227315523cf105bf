# crops-run18 (session 35): the legibility arm of an A/B. From run 17's last epoch (models/candidates/crops-run17.pt),
# on 100,000 fresh drawn crops with no index under 16 px (ginscore crops --smallest-index 16; the default draws 11-90
# px, 18 % under 16) + rc14 without its card crops of boxes under 16 px (read 46-51 % right after training on them).
# The other arm (the next session): the same from the same start, seed and budget without SMALLEST/MIN_READER_PX.
SMALLEST=16 MIN_READER_PX=16 bash /work/main/docs/experiments/scripts/adds_up.sh 18 1812 models/candidates/crops-run17.pt ${HOURS:-0.85}
