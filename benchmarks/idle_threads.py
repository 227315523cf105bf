"""What spinning OpenMP threads cost a training run that shares the two cores, and what sleeping ones save.

Trains the classifier's network (YOLOv8n-cls, 64 px, batch 128, two torch threads) on random crops for a few
seconds in a fresh process, once with OpenMP's default wait policy and once with ``OMP_WAIT_POLICY=PASSIVE``
(``vision.training.train.let_idle_threads_sleep``), each time alone and beside one busy process (as a test
suite or a benchmark would be), and prints batches a second and their ratio::

    python3 benchmarks/idle_threads.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import time

WORKLOAD = """
import time, torch
torch.set_num_threads(2)
from ultralytics.nn.tasks import ClassificationModel
model = ClassificationModel("yolov8n-cls.yaml", nc=53, verbose=False)
optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3)
images, labels = torch.rand(128, 3, 64, 64), torch.randint(0, 53, (128,))
def step():
    optimiser.zero_grad()
    torch.nn.functional.cross_entropy(model(images), labels).backward()
    optimiser.step()
step()
started, steps = time.perf_counter(), 0
while time.perf_counter() - started < {seconds}:
    step(); steps += 1
print(steps / (time.perf_counter() - started))
"""


def busy(stop: float) -> None:
    while time.time() < stop:
        pass


def batches_a_second(passive: bool, seconds: float, beside_busy: bool) -> float:
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    competitor = None
    if beside_busy:
        competitor = mp.Process(target=busy, args=(time.time() + seconds + 30,))
        competitor.start()
    try:
        out = subprocess.run(
            [sys.executable, "-c", WORKLOAD.format(seconds=seconds)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        if competitor is not None:
            competitor.terminate()
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="training time of each measurement")
    args = parser.parse_args()
    for beside_busy in (False, True):
        spinning = batches_a_second(False, args.seconds, beside_busy)
        sleeping = batches_a_second(True, args.seconds, beside_busy)
        where = "beside one busy process" if beside_busy else "alone"
        print(
            f"{where}: default wait {spinning:.2f} batches/s, OMP_WAIT_POLICY=PASSIVE {sleeping:.2f} batches/s "
            f"({sleeping / spinning:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
