# crops-run17 (session 35): training that adds up, from run 16's last epoch (models/candidates/crops-run16.pt) on
# 100,000 fresh drawn crops (seed 1712) + rc14, 1.6 h.
bash /work/main/docs/experiments/scripts/adds_up.sh 17 1712 models/candidates/crops-run16.pt 1.6
