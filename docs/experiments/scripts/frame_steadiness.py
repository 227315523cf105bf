import sys

sys.path.insert(0, "/work/main/tests/vision")
sys.path.insert(0, "/work/main")
from pathlib import Path

from test_frame_memory import webcam_frames

import vision.detector as vd
from vision.recognise import detect

frames = webcam_frames(4) + webcam_frames(2, seed=1)
for models in sys.argv[1:]:
    det = vd.load_detector(Path(models))
    res = [sorted(detect(f, det, mode="frame", imgsz=640, rotations=1).codes) for f in frames]
    base = res[0]
    print(models, len(base), [(len(r), sorted(set(r) ^ set(base))) for r in res[1:]])
