"""x3_misses.py MODELS...: session 37. The zoom x3 variants of real-val (``ginscore eval --zoom 3``'s four quadrants of
each photo), with the labelled cards each models folder misses and the cards it reads that the quadrant does not
label wholly, printed where the folders differ."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from vision.detections import canonical_code, read_yolo_labels  # noqa: E402
from vision.detector import load_detector  # noqa: E402
from vision.evaluation.evaluate import check_eval_folder, decode_image, zoom_variants  # noqa: E402
from vision.recognise import recognise  # noqa: E402

REAL_VAL = Path(__file__).resolve().parents[3] / "datasets" / "real" / "real-val"


def main(models: list[str]) -> None:
    codes = [canonical_code(line) for line in (REAL_VAL / "classes.txt").read_text().split()]
    detectors = [load_detector(Path(folder)) for folder in models]
    for path in check_eval_folder(REAL_VAL):
        photo = decode_image(path)
        labels = read_yolo_labels(REAL_VAL / "labels" / f"{path.stem}.txt", codes, photo.original_size)
        for quadrant, (pixels, quadrant_labels) in enumerate(zoom_variants(photo.pixels, labels, 3.0)):
            wanted = set(quadrant_labels.codes)
            outcomes = []
            for detector in detectors:
                read = {card.card for card in recognise(pixels, detector=detector).reading.cards}
                outcomes.append((sorted(wanted - read), sorted(read - wanted)))
            if len({str(outcome) for outcome in outcomes}) > 1:
                print(path.stem, quadrant, outcomes)


if __name__ == "__main__":
    main(sys.argv[1:])
