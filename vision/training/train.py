"""``ginscore train``: train the card detector on a synthetic dataset from ``ginscore synth``.

The detector works in two stages, both ultralytics YOLO models:

1. ``card_index_detector.pt`` finds every corner index (one class: "a card index").
2. ``card_index_classifier.pt`` reads which card each index crop shows (52 classes).

Finding indices is learned quickly and transfers to real photos; telling 52 cards apart is learned
far faster from crops than inside the detector (docs/training.md has the measurements).
"""

from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vision.crops import CROP_SIZE
from vision.detector import classify_crops, prepare_ultralytics, trained_imgsz, use_all_cores
from vision.model_settings import (
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    read_settings_document,
    settings_path,
    write_settings_document,
)
from vision.paths import DEFAULT_MODELS_DIR

MODELS_DIR = DEFAULT_MODELS_DIR


def let_idle_threads_sleep() -> None:
    """Make torch's OpenMP threads sleep while they wait for work instead of spinning (``OMP_WAIT_POLICY=PASSIVE``,
    unless set otherwise). It must be set before torch is first imported, so every training command calls this
    first. On two cores that a training run shares with anything else (a test suite, a benchmark), spinning
    threads take the cores from each other and the run crawls (``benchmarks/idle_threads.py`` measures it)."""
    import sys

    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _use_all_cores() -> None:
    """ultralytics runs torch with one thread on a 2-core machine; use every core instead."""
    import torch

    prepare_ultralytics()
    from ultralytics.utils import torch_utils

    use_all_cores()
    torch_utils.NUM_THREADS = torch.get_num_threads()  # ultralytics' trainer sets torch back to this


def _no_downloads() -> None:
    """ultralytics' AMP self-check downloads a model on GPUs; nothing may download here, so skip it."""
    prepare_ultralytics()
    from ultralytics.engine import trainer

    trainer.check_amp = lambda model: True


def _prepare_device(device: str | None) -> str:
    """The device to train on (a GPU if there is one), with ultralytics set up for this machine."""
    device = _pick_device(device)
    _no_downloads()
    if device == "cpu":
        _use_all_cores()
    return device


def _pick_device(device: str | None) -> str:
    if device:
        return device
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


def _start_weights(explicit: str | None, shipped: Path, scratch_yaml: str) -> str:
    """Where training starts: given weights, else the shipped model, else from scratch."""
    if explicit:
        if explicit != scratch_yaml and not Path(explicit).exists():
            raise FileNotFoundError(f"start weights {explicit} not found")
        return explicit
    return str(shipped) if shipped.exists() else scratch_yaml


def classifier_input_size(weights: str | Path) -> int:
    """The input size a classifier's weights were trained at, the size a fine-tune of them keeps (a crop cut at
    another size is read resized, so a fine-tune at another size reads differently): ``CROP_SIZE`` for weights
    that do not say (or a model yaml)."""
    if not str(weights).endswith(".pt") or not Path(weights).exists():
        return CROP_SIZE
    prepare_ultralytics()
    from ultralytics import YOLO

    return trained_imgsz(YOLO(str(weights), task="classify")) or CROP_SIZE


@dataclass(frozen=True)
class TrainRun:
    """One training run's options, for either model (ultralytics' names; ``hours``: a time budget, ``weights``:
    the start, default the installed model's; ``callbacks``: ultralytics event name -> function(trainer))."""

    epochs: int
    imgsz: int
    batch: int
    name: str
    device: str | None = None
    hours: float | None = None
    weights: str | None = None
    workers: int = 2
    cache: bool | str = False
    project: Path = Path("runs")
    resume: bool = False
    models_dir: Path = MODELS_DIR
    callbacks: dict | None = None


DETECTOR_RUN = TrainRun(epochs=30, imgsz=640, batch=16, name="detector")
CLASSIFIER_RUN = TrainRun(epochs=20, imgsz=CROP_SIZE, batch=128, name="classifier")


def train_detector(data_yaml: Path, run: TrainRun = DETECTOR_RUN) -> Path:
    """Train the one-class corner-index detector; returns the best weights of the run.

    From scratch: SGD lr 0.01 with a short warm-up. Fine-tuning trained weights: lr 0.002 and no
    warm-up (the warm-up's high bias learning rate shakes a trained head).

    ``run.callbacks``: e.g. a progress bar (``ginscore retrain``)."""
    prepare_ultralytics()
    from ultralytics import YOLO

    device = _prepare_device(run.device)
    run_dir = run.project / run.name
    if run.resume:
        last = run_dir / "weights" / "last.pt"
        if not last.exists():
            raise FileNotFoundError(f"--resume: no interrupted run at {last}")
        YOLO(str(last)).train(resume=True)
        return run_dir / "weights" / "best.pt"
    start = _start_weights(run.weights, run.models_dir / DETECTOR_FILE, "yolov8n.yaml")
    fine_tuning = start.endswith(".pt")
    model = YOLO(start)
    args = dict(
        _run_args(model, run, device, fine_tuning),
        data=str(data_yaml),
        single_cls=True,
        optimizer="SGD",
        lr0=0.002 if fine_tuning else 0.01,
        momentum=0.937,
        close_mosaic=max(1, run.epochs // 10),
        degrees=0.0,
        mosaic=1.0,
        scale=0.4,
        translate=0.1,
        hsv_s=0.5,
    )
    model.train(**args)
    return run_dir / "weights" / "best.pt"


def _run_args(model: Any, run: TrainRun, device: str | None, fine_tuning: bool) -> dict[str, Any]:
    """What every training run here gives ultralytics, detector or classifier, the run's callbacks added to
    ``model``."""
    for event, function in (run.callbacks or {}).items():
        model.add_callback(event, function)
    args: dict[str, Any] = dict(
        epochs=run.epochs,
        imgsz=run.imgsz,
        batch=run.batch,
        device=device,
        workers=run.workers,
        cache=run.cache,
        project=str(run.project.resolve()),
        name=run.name,
        exist_ok=True,
        nbs=run.batch,
        warmup_epochs=0.0 if fine_tuning else min(1.0, run.epochs / 10),
        cos_lr=True,
        fliplr=0.0,
        flipud=0.0,
        hsv_h=0.015,
        hsv_v=0.4,
        pretrained=fine_tuning,
        amp=device != "cpu",
        plots=False,
        verbose=False,
        patience=100,
    )
    if run.hours:
        args["time"] = run.hours
    return args


def train_classifier(
    crops_dir: Path,
    run: TrainRun = CLASSIFIER_RUN,
    *,
    lr0: float | None = None,
    keep_classes: bool = False,
    swapped_crops: Path | None = None,
    distill: float = 0.0,
    step: float = 1.0,
    crops_channels: str = "rgb",
) -> Path:
    """Train the 52-card index-crop classifier; returns the best weights of the run.

    From scratch: AdamW lr 0.002 with a short warm-up. Fine-tuning trained weights: lr 0.0004 and
    no warm-up (at 0.002 the first epoch undid part of what the start model knew; see the model
    card), on crops in the channel order the start model was trained on (``start_channel_order``;
    the copy with red and blue swapped goes to ``swapped_crops``, default ``project/<name>-crops-bgr``,
    where several runs can share it). ``lr0`` gives another starting learning rate. A start model is
    grown to the classes of the crops (the 52 cards and ``none``) unless ``keep_classes``: then it
    learns only the classes it has (a 52-card partner stays one). ``distill`` > 0 (fine-tuning only) adds
    ``KeepWhatItReads``: on the crops the start model already reads right, the new one is held to the start
    model's outputs, with that weight. ``crops_channels="bgr"``: the crop files are already written with red and
    blue swapped (``ginscore crops --channels bgr``), so no swapped copy is made. ``step`` < 1 (fine-tuning only)
    returns instead a classifier that far from the weights the fine-tune began with (grown to the crops' classes) to its best ones (``step_toward``).
    """
    prepare_ultralytics()
    from ultralytics import YOLO

    device = _prepare_device(run.device)
    project, name = run.project, run.name
    if run.resume:
        last = project / name / "weights" / "last.pt"
        if not last.exists():
            raise FileNotFoundError(f"--resume: no interrupted classifier run at {last}")
        YOLO(str(last), task="classify").train(resume=True)
        return run_dir_best(project / name)
    start = _start_weights(run.weights, run.models_dir / CLASSIFIER_FILE, "yolov8n-cls.yaml")
    fine_tuning = start.endswith(".pt")
    if fine_tuning and start_channel_order(start, run.models_dir) == "bgr" and crops_channels != "bgr":
        crops_dir = crops_with_red_and_blue_swapped(crops_dir, swapped_crops or project / f"{name}-crops-bgr")
    if fine_tuning and keep_classes:
        crops_dir = crops_of_classes(crops_dir, classifier_classes(start), project / f"{name}-crops-own-classes")
    if fine_tuning:
        start = str(with_classes_of(start, crops_dir / "train", project / f"{name}-start.pt"))
    model = YOLO(start, task="classify")
    args = dict(
        _run_args(model, run, device, fine_tuning),
        data=str(crops_dir),
        optimizer="AdamW",
        lr0=lr0 if lr0 is not None else 0.0004 if fine_tuning else 0.002,
        scale=0.15,
        erasing=0.0,
        auto_augment=None,
        hsv_s=0.4,
    )
    if distill > 0 and fine_tuning:
        teacher = YOLO(start, task="classify").model

        def hold_to_start_model(trainer) -> None:  # after the trainer made its EMA copy, which keeps plain CE
            trainer.model.criterion = KeepWhatItReads(teacher, distill, device=trainer.device)

        model.add_callback("on_pretrain_routine_end", hold_to_start_model)
    model.train(**args)
    best = run_dir_best(project / name)
    if step < 1 and fine_tuning:
        return step_toward(start, best, step, project / f"{name}-step.pt")
    return best


class KeepWhatItReads:
    """A fine-tune's loss: cross-entropy on the labels, plus ``weight`` x the KL divergence (at ``temperature``)
    from the start model's outputs, on the crops of the batch that the start model already reads right.

    Learning without forgetting: a taught deck's crops that the start model misreads are learned from their
    labels alone, and everything it already read stays read as it was, with the same spread of probabilities
    that the fitted confidence (model.json ``calibration``) was fitted on. ultralytics calls it as a model's
    ``criterion``; its checkpoints drop the criterion, so the start model is never saved with the weights.
    """

    def __init__(self, start_model: Any, weight: float, temperature: float = 2.0, device: Any = "cpu") -> None:
        self.start_model = start_model.float().eval().to(device)  # on the device the batches come on
        for parameter in self.start_model.parameters():
            parameter.requires_grad_(False)
        self.weight = weight
        self.temperature = temperature

    def __call__(self, preds: Any, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        import torch
        import torch.nn.functional as F

        logits = preds[1] if isinstance(preds, (list, tuple)) else preds
        labels = batch["cls"]
        loss = F.cross_entropy(logits, labels)
        with torch.no_grad():
            start = self.start_model(batch["img"].to(logits.dtype))
            start_logits = start[1] if isinstance(start, (list, tuple)) else start
            read_right = start_logits.argmax(1) == labels
        if read_right.any():
            t = self.temperature
            kept = F.kl_div(
                F.log_softmax(logits[read_right] / t, dim=1),
                F.log_softmax(start_logits[read_right] / t, dim=1),
                log_target=True,
                reduction="sum",
            )
            loss = loss + self.weight * kept * t * t / len(labels)
        return loss, {"loss": loss.detach()}


def with_classes_of(start: str, train_dir: Path, out: Path) -> Path:
    """The start classifier, grown to the classes of a crops folder when that adds classes (the
    "not a card" class ``none`` beside the 52 cards): the rows it knows keep their weights, so
    fine-tuning does not start from a new random head. Returns ``start`` itself when nothing is new."""
    import torch

    prepare_ultralytics()
    from ultralytics import YOLO

    wanted = sorted(p.name for p in train_dir.iterdir() if p.is_dir())
    model = YOLO(start, task="classify")
    names = [model.names[i] for i in sorted(model.names)]
    if names == wanted:
        return Path(start)
    missing = [n for n in names if n not in wanted]
    if missing:
        raise ValueError(f"{train_dir} has no crops of {missing[:5]}; make the dataset with 'ginscore synth --crops'")
    # ultralytics types Model.model from its __init__ (None, or a weights path); once loaded it is the network
    network: Any = model.model
    head = network.model[-1].linear
    grown = torch.nn.Linear(head.in_features, len(wanted)).to(head.weight.dtype)
    with torch.no_grad():
        grown.weight.normal_(0, float(head.weight.std()) * 0.5)
        grown.bias.fill_(float(head.bias.mean()) - 2.0)  # a new class starts unlikely
        for row, name in enumerate(wanted):
            if name in names:
                grown.weight[row] = head.weight[names.index(name)]
                grown.bias[row] = head.bias[names.index(name)]
    network.model[-1].linear = grown
    network.names = dict(enumerate(wanted))
    network.yaml["nc"] = len(wanted)
    network.nc = len(wanted)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    return out


def step_toward(start: str | Path, tuned: str | Path, step: float, out: Path) -> Path:
    """A classifier whose weights lie ``step`` of the way from ``start`` to the fine-tuned ``tuned`` (0: the
    start, 1: the fine-tune), every parameter and normalisation statistic alike; written to ``out``.

    Weight-space ensembling (WiSE-FT, Wortsman et al. 2022): a fine-tune's weights and its start's lie in one
    basin, and a point between them keeps most of what the fine-tune learned (a taught deck) and most of what
    the start read (other decks), at no cost when reading. Both must be one network with the same classes."""
    import torch

    if not 0 <= step <= 1:
        raise ValueError(f"step {step}: give a fraction from 0 (the start weights) to 1 (the fine-tuned ones)")
    prepare_ultralytics()
    start_checkpoint = torch.load(str(start), map_location="cpu", weights_only=False)
    tuned_checkpoint = torch.load(str(tuned), map_location="cpu", weights_only=False)
    start_model = start_checkpoint.get("ema") or start_checkpoint["model"]
    tuned_model = tuned_checkpoint.get("ema") or tuned_checkpoint["model"]
    if dict(start_model.names) != dict(tuned_model.names):
        raise ValueError(f"{start} and {tuned} read different classes: fine-tune one from the other to step between")
    start_state = start_model.state_dict()
    tuned_state = tuned_model.state_dict()
    if start_state.keys() != tuned_state.keys() or any(
        start_state[k].shape != tuned_state[k].shape for k in start_state
    ):
        raise ValueError(f"{start} and {tuned} are different networks: fine-tune one from the other to step between")
    stepped = {}
    for key, tuned_value in tuned_state.items():
        if tuned_value.is_floating_point():
            mixed = (1 - step) * start_state[key].float() + step * tuned_value.float()
            stepped[key] = mixed.to(tuned_value.dtype)
        else:  # counters (a normalisation's batches seen) stay the fine-tune's
            stepped[key] = tuned_value
    tuned_model.load_state_dict(stepped)
    tuned_checkpoint["model"], tuned_checkpoint["ema"] = tuned_model, None
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(tuned_checkpoint, str(out))
    return out


def start_channel_order(start: str, models_dir: Path = MODELS_DIR) -> str:
    """The channel order a start classifier reads: recorded in model.json for the installed ones (the main
    classifier and its partners read the same order), else RGB (ultralytics trains classifiers on RGB
    tensors)."""
    if not settings_path(models_dir).exists():
        return "rgb"
    classifiers = read_settings_document(models_dir).get("classifiers", {})  # validated: partners is a list
    installed = [classifiers.get("main", CLASSIFIER_FILE), *classifiers.get("partners", [])]
    if Path(start).resolve() in {(models_dir / name).resolve() for name in installed}:
        return str(classifiers.get("channels", "bgr"))
    return "rgb"


def classifier_classes(weights: str | Path) -> list[str]:
    """The class names of a classifier's weights, in its order."""
    prepare_ultralytics()
    from ultralytics import YOLO

    names = YOLO(str(weights), task="classify").names
    return [names[i] for i in sorted(names)]


def crops_of_classes(crops_dir: Path, classes: list[str], out: Path) -> Path:
    """A copy of a crops dataset (``split/<class>/*.jpg``) with only ``classes``, its files hard-linked where
    the file system can (ultralytics does not follow a linked folder). A split left without a crop gets the
    train split's (ultralytics needs a val split to pick its best epoch). Returns ``crops_dir`` itself when it
    has no other class."""
    splits = [split for split in sorted(crops_dir.iterdir()) if split.is_dir()]
    if all({p.name for p in split.iterdir() if p.is_dir()} <= set(classes) for split in splits):
        return crops_dir
    if out.exists():
        shutil.rmtree(out)

    def link(split: Path, into: Path) -> int:
        count = 0
        for folder in sorted(split.iterdir()):
            if folder.is_dir() and folder.name in classes:
                (into / folder.name).mkdir(parents=True, exist_ok=True)
                for source in sorted(folder.iterdir()):
                    try:
                        os.link(source, into / folder.name / source.name)
                    except OSError:  # another file system, or one without hard links
                        shutil.copyfile(source, into / folder.name / source.name)
                    count += 1
        return count

    for split in splits:
        (out / split.name).mkdir(parents=True)
        if not link(split, out / split.name) and split.name != "train":
            link(crops_dir / "train", out / split.name)
    return out


def crops_with_red_and_blue_swapped(crops_dir: Path, out: Path) -> Path:
    """A copy of a crops dataset (``split/<code>/*.jpg``) with red and blue swapped.

    ultralytics feeds a classifier RGB tensors of the files. A classifier that reads BGR tensors
    (the shipped one, see the model card) keeps reading them when fine-tuned on swapped files."""
    import cv2

    for folder in sorted(crops_dir.glob("*/*/")):  # every class, even one without crops in a small set
        (out / folder.relative_to(crops_dir)).mkdir(parents=True, exist_ok=True)
    for source in sorted(crops_dir.glob("*/*/*.jpg")):
        target = out / source.relative_to(crops_dir)
        if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        image = cv2.imread(str(source))
        if image is None:
            raise ValueError(f"{source}: not a readable image; regenerate the crops with 'ginscore synth --crops'")
        cv2.imwrite(str(target), image[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 95])
    return out


def run_dir_best(run_dir: Path) -> Path:
    best = run_dir / "weights" / "best.pt"
    return best if best.exists() else run_dir / "weights" / "last.pt"


def classifier_channel_order(weights: Path, crops_dir: Path, limit: int = 600) -> tuple[str, float, float]:
    """Which channel order ("bgr" or "rgb") the classifier reads labelled crops best in.

    ultralytics has fed classifiers BGR or RGB tensors depending on the data path (e.g. cached on
    a GPU machine or not); the pipeline calls the network directly, so it must know. Returns the
    order and the accuracy in both orders on up to ``limit`` crops of ``crops_dir/<code>/*.jpg``.
    """
    import cv2
    import numpy as np

    prepare_ultralytics()
    from ultralytics import YOLO

    files = sorted(crops_dir.glob("*/*.jpg"))
    if not files:
        raise FileNotFoundError(f"no crops under {crops_dir}")
    step = max(1, len(files) // limit)
    files = files[::step][:limit]
    model = YOLO(str(weights), task="classify")
    names = dict(model.names)
    crops: list[np.ndarray] = []
    for f in files:
        crop = cv2.imread(str(f))
        if crop is None:
            raise ValueError(f"{f}: not a readable image; regenerate the crops with 'ginscore synth --crops'")
        crops.append(crop)
    truth = [f.parent.name for f in files]
    accuracy = {}
    for order in ("bgr", "rgb"):
        probabilities = classify_crops(model, crops, order)
        predicted = [names[int(i)] for i in probabilities.argmax(axis=1)]
        accuracy[order] = float(np.mean([p == t for p, t in zip(predicted, truth, strict=True)]))
    best = max(accuracy, key=lambda order: accuracy[order])
    return best, accuracy["bgr"], accuracy["rgb"]


def install_weights(
    detector: Path | None,
    classifier: Path | None,
    models_dir: Path = MODELS_DIR,
    detect_imgsz: int | None = None,
    classifier_channels: str | None = None,
) -> Path:
    """Copy trained weights where ``ginscore detect/score/serve`` load them and update model.json
    (every setting it does not name keeps its one default, in ``vision.model_settings``)."""
    models_dir.mkdir(parents=True, exist_ok=True)
    document = read_settings_document(models_dir)
    if detector is not None:
        if Path(detector).resolve() != (models_dir / DETECTOR_FILE).resolve():
            shutil.copyfile(detector, models_dir / DETECTOR_FILE)
        document.setdefault("detector", {})["weights"] = DETECTOR_FILE
    if detect_imgsz:
        document.setdefault("detector", {}).setdefault("imgsz", detect_imgsz)
    if classifier is not None:
        if Path(classifier).resolve() != (models_dir / CLASSIFIER_FILE).resolve():
            shutil.copyfile(classifier, models_dir / CLASSIFIER_FILE)
        document.setdefault("classifiers", {})["main"] = CLASSIFIER_FILE
        if classifier_channels:
            document["classifiers"]["channels"] = classifier_channels
    return write_settings_document(models_dir, document)


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "train",
        help="train the card detector on a dataset from 'ginscore synth'",
        description="Train the corner-index detector and/or the card classifier with ultralytics. "
        "Starts from the shipped models (or from scratch with --scratch); never downloads "
        "weights. The best weights are installed into models/ unless --no-install.",
    )
    parser.add_argument(
        "data", type=Path, help="dataset folder written by 'ginscore synth' (use --crops there for the classifier)"
    )
    parser.add_argument("--part", choices=["detector", "classifier", "both"], default="both")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--imgsz", type=int, default=640, help="detector training image size")
    parser.add_argument(
        "--classifier-imgsz",
        type=int,
        default=None,
        help=f"the classifier's input size; the reader cuts its crops at the size it was trained at "
        f"(default: the start weights' own size, {CLASSIFIER_RUN.imgsz} from scratch)",
    )
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--device", default=None, help="'cpu', '0' for the first GPU; default: a GPU if there is one")
    parser.add_argument("--hours", type=float, default=None, help="wall-time budget per model (overrides --epochs)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cache",
        choices=["ram", "disk", "none"],
        default="none",
        help="cache decoded images (ram needs ~1 GB per 1,000 scenes at 640)",
    )
    parser.add_argument("--scratch", action="store_true", help="start from random weights, not the shipped model")
    parser.add_argument("--weights", default=None, help="start from these detector weights")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted runs of --part in runs/detector and runs/classifier",
    )
    parser.add_argument(
        "--project", type=Path, default=Path("runs"), help="where ultralytics writes runs (default runs/)"
    )
    parser.add_argument("--models-dir", type=Path, default=MODELS_DIR, help="where to install the weights")
    parser.add_argument("--no-install", action="store_true", help="leave models/ alone")
    parser.add_argument("--name", default="classifier", help="the classifier run's folder under --project")
    parser.add_argument("--classifier-weights", default=None, help="start the classifier from these weights")
    parser.add_argument("--lr0", type=float, default=None, help="the classifier's first learning rate")
    parser.add_argument(
        "--crops-channels",
        choices=["rgb", "bgr"],
        default="rgb",
        help="the channel order the crop files are in ('ginscore crops --channels'); default rgb",
    )
    parser.add_argument(
        "--distill",
        type=float,
        default=0.0,
        metavar="WEIGHT",
        help="fine-tuning the classifier: hold it to what its start read right, with this weight (default 0: off)",
    )
    parser.set_defaults(run=run_train)


def check_classifier_size(size: int, option: str) -> None:
    """A classifier's input size is a multiple of 32 (the network's stride); ``option`` names the flag that gave it."""
    if size < 32 or size % 32:
        raise ValueError(f"{option} {size}: give a multiple of 32 (the network's stride), such as 64 or 96")


def run_train(args: argparse.Namespace) -> int:
    let_idle_threads_sleep()
    if args.distill < 0:
        raise ValueError(f"--distill {args.distill}: give a weight of 0 (off) or more")
    if args.classifier_imgsz is not None:
        check_classifier_size(args.classifier_imgsz, "--classifier-imgsz")
    data_yaml = args.data / "data.yaml"
    crops = args.data / "crops"
    if args.part in ("detector", "both") and not data_yaml.exists():
        raise FileNotFoundError(f"{data_yaml} not found: make a dataset with 'ginscore synth --out {args.data}'")
    if args.part in ("classifier", "both") and not (crops / "train").is_dir():
        raise FileNotFoundError(f"{crops}/train not found: make the dataset with 'ginscore synth --crops'")
    detector = classifier = None
    cache = False if args.cache == "none" else args.cache
    options = dict(epochs=args.epochs, device=args.device, hours=args.hours, workers=args.workers, cache=cache)
    where = dict(project=args.project, resume=args.resume, models_dir=args.models_dir)
    if args.part in ("detector", "both"):
        weights = "yolov8n.yaml" if args.scratch else args.weights
        run = replace(DETECTOR_RUN, imgsz=args.imgsz, batch=args.batch, weights=weights, **options, **where)
        detector = train_detector(data_yaml, run)
    if args.part in ("classifier", "both"):
        weights = "yolov8n-cls.yaml" if args.scratch else args.classifier_weights
        start = _start_weights(weights, args.models_dir / CLASSIFIER_FILE, "yolov8n-cls.yaml")
        run = replace(
            CLASSIFIER_RUN,
            # a fine-tune keeps the size its start was trained at (the reader cuts crops at it)
            imgsz=args.classifier_imgsz or classifier_input_size(start),
            batch=max(args.batch, 64),
            weights=start,  # resolved once: train_classifier takes an explicit start as it is
            name=args.name,
            **options,
            **where,
        )
        classifier = train_classifier(
            crops, run, lr0=args.lr0, crops_channels=args.crops_channels, distill=args.distill
        )
    channels = None
    if classifier is not None:
        channels, bgr, rgb = classifier_channel_order(classifier, crops / "val")
        print(f"classifier reads {channels.upper()} crops (val accuracy: BGR {bgr:.3f}, RGB {rgb:.3f})")
    if not args.no_install:
        info = install_weights(detector, classifier, args.models_dir, classifier_channels=channels)
        print(f"installed into {info.parent} ({info.name} updated)")
    return 0
