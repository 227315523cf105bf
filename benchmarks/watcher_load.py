"""What the hands-free table watcher costs: the webcam's live view and photo uploads, watcher off and on.

    nice python3 benchmarks/watcher_load.py [--seconds 30] [--uploads 6]

Serves the app under waitress (8 threads, as ``ginscore serve``) with a rendered camera video that loops
every 12 s (3 s of empty table, 9 s of a still showdown), so that the watcher reads a new still table
twice a loop: the worst steady case, a table that keeps changing. For each of watcher off and on it
prints the live view's frames per second (one phone on ``/camera/stream`` for ``--seconds``) and the
seconds of ``--uploads`` photo uploads (a real-val crop through the API, one after another, while the
stream runs), their median and slowest, and the ratio on / off. Goals (issue 26): at least 8 frames/s,
uploads not slowed more than 1.5x.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "web"))

from servers import multipart  # noqa: E402
from sheet_helpers import real_val_crop  # noqa: E402

from vision.training.synth.showdown_video import showdown_pictures, write_showdown_video  # noqa: E402
from web import create_app  # noqa: E402
from web.serve_cli import make_server  # noqa: E402

HEADERS = {"X-Requested-With": "watcher_load"}


def count_stream_frames(url: str, seconds: float, counted: list[int]) -> None:
    """Read the MJPEG stream for ``seconds``; put the number of JPEG parts into ``counted``."""
    frames = 0
    with urllib.request.urlopen(url, timeout=30) as stream:
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            line = stream.readline()
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
                stream.readline()
                stream.read(length)
                frames += 1
    counted.append(frames)


def run(video: Path, watch: bool, seconds: float, uploads: int, photo: bytes) -> tuple[float, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE": str(Path(folder) / "sheet.sqlite"),
                "SECRET_KEY": "bench",
                "CAMERA_SOURCE": str(video),
                "WATCH_TABLE": watch,
            }
        )
        server = make_server(app, "127.0.0.1", 0, 8)
        threading.Thread(target=server.run, daemon=True).start()
        base = f"http://127.0.0.1:{server.effective_port}"
        create = urllib.request.Request(
            base + "/api/games",
            data=json.dumps({"players": ["Ann", "Bob"]}).encode(),
            headers={**HEADERS, "Content-Type": "application/json"},
        )
        game_id = json.load(urllib.request.urlopen(create, timeout=30))["id"]
        body, content_type = multipart("photo", "hand.jpg", photo)
        warm = urllib.request.Request(
            f"{base}/api/games/{game_id}/photo", data=body, headers={**HEADERS, "Content-Type": content_type}
        )
        urllib.request.urlopen(warm, timeout=120).read()  # the model loaded, as on a server that has run a while
        counted: list[int] = []
        viewer = threading.Thread(target=count_stream_frames, args=(base + "/camera/stream", seconds, counted))
        viewer.start()
        times = []
        pause = seconds / (uploads + 1)
        for _ in range(uploads):
            time.sleep(pause / 2)
            started = time.monotonic()
            urllib.request.urlopen(warm, timeout=120).read()
            times.append(time.monotonic() - started)
            time.sleep(pause / 2)
        viewer.join()
        if watch:
            app.extensions["table_watcher"].stop()
        server.close()
        return counted[0] / seconds, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--uploads", type=int, default=6)
    args = parser.parse_args()
    photo, _ = real_val_crop()
    with tempfile.TemporaryDirectory() as folder:
        video = write_showdown_video(
            Path(folder) / "table.avi", showdown_pictures(seed=1), fps=10, empty_s=3, still_s=9
        )
        results = {watch: run(video, watch, args.seconds, args.uploads, photo) for watch in (False, True)}
    for watch, (fps, times) in results.items():
        print(
            f"watcher {'on ' if watch else 'off'}: live view {fps:.1f} frames/s; uploads median "
            f"{statistics.median(times):.2f} s, slowest {max(times):.2f} s ({len(times)} uploads)"
        )
    off, on = results[False][1], results[True][1]
    print(
        f"uploads with the watcher on / off: median {statistics.median(on) / statistics.median(off):.2f}x, "
        f"slowest {max(on) / max(off):.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
