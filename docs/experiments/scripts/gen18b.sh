# crops-run18b (session 36): the control arm of session 35's A/B. The same start (run 17's last epoch), seed (1812)
# and budget (0.85 h) as crops-run18, without SMALLEST/MIN_READER_PX: drawn indices over the default 11-90 px and all
# of rc14's reader crops. Compare the two on the reader's crops by box size, the held-out scenes and the real sets.
bash /work/main/docs/experiments/scripts/adds_up.sh 18b 1812 models/candidates/crops-run17.pt ${HOURS:-0.85}
