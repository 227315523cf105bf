"""soup.py OUT W1 W2 [W3 ...]: the mean of classifier weights that share one start (a "model soup").

Session 36: runs 16-18 are fine-tuned one from another, so their weights lie near each other; their mean reads as one
classifier at no extra cost per crop. Each checkpoint's EMA weights (or its model, once stripped) are averaged in
float32 and written, in half precision as ultralytics strips them, into a copy of W1's checkpoint. Batch-norm running
statistics are averaged too, and batch counters kept from W1.
"""

import sys

import torch


def weights(path: str) -> tuple[dict, dict]:
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    model = checkpoint.get("ema") or checkpoint["model"]
    return checkpoint, model.float().state_dict()


def main() -> None:
    out, paths = sys.argv[1], sys.argv[2:]
    if len(paths) < 2:
        raise SystemExit("usage: soup.py OUT W1 W2 [W3 ...]: give at least two classifier checkpoints")
    first, mean = weights(paths[0])
    mean = {name: value.clone() for name, value in mean.items()}
    for path in paths[1:]:
        _, state = weights(path)
        if state.keys() != mean.keys():
            raise SystemExit(f"{path} is not the same network as {paths[0]}")
        for name, value in state.items():
            if value.is_floating_point():
                mean[name] += value
    for value in mean.values():
        if value.is_floating_point():
            value /= len(paths)
    model = (first.get("ema") or first["model"]).float()
    model.load_state_dict(mean)
    first.update(model=model.half(), ema=None, optimizer=None, updates=None, epoch=-1)
    torch.save(first, out)
    print(f"{out}: the mean of {len(paths)} classifiers")


if __name__ == "__main__":
    main()
