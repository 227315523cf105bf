"""Load on the web app: concurrent photo uploads (and hand writes) over loopback.

Starts the app (threaded werkzeug server, temp SQLite file) in this process, creates a game, sends
N concurrent uploads of one photo to POST /api/games/<id>/photo, then N concurrent hand writes
to POST /api/games/<id>/hands, and prints errors and latency percentiles. Finally it checks that
the sheet is consistent: as many hands as writes that succeeded, totals equal to the sum of points.

    python3 benchmarks/web_load.py [--uploads 20] [--photo PATH]

Model calls are serialised (one model per process), so upload latency grows with the queue.
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
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_PHOTO = REPO / "datasets" / "real" / "real-val" / "images" / "deal1.jpg"
HEADERS = {"X-Requested-With": "web_load"}


def request(url: str, body: bytes | None = None, content_type: str | None = None) -> tuple[int, dict, float]:
    headers = dict(HEADERS)
    if content_type:
        headers["Content-Type"] = content_type
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=600) as reply:
            status, payload = reply.status, reply.read()
    except urllib.error.HTTPError as error:
        status, payload = error.code, error.read()
    elapsed = time.perf_counter() - started
    try:
        data = json.loads(payload)
    except ValueError:
        data = {"raw": payload[:200].decode(errors="replace")}
    return status, data, elapsed


def multipart(field: str, filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def percentiles(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]

    return (
        f"p50 {pick(0.5) * 1000:.0f} ms, p90 {pick(0.9) * 1000:.0f} ms, p99 {pick(0.99) * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms, mean {statistics.fmean(ordered) * 1000:.0f} ms"
    )


def report(name: str, results: list[tuple[int, dict, float]]) -> None:
    errors: dict[int, int] = {}
    for status, _, _ in results:
        if status >= 400:
            errors[status] = errors.get(status, 0) + 1
    print(f"{name}: {len(results)} requests, {sum(errors.values())} errors {errors or ''}")
    print(f"  latency {percentiles([elapsed for _, _, elapsed in results])}")
    first_error = next((data for status, data, _ in results if status >= 400), None)
    if first_error:
        print(f"  first error: {first_error.get('error', first_error)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=20, help="concurrent uploads (and hand writes)")
    parser.add_argument("--photo", type=Path, default=DEFAULT_PHOTO, help="photo to upload")
    args = parser.parse_args()

    from werkzeug.serving import make_server

    from web import create_app

    folder = tempfile.mkdtemp(prefix="ginscore-load-")
    app = create_app({"DATABASE": str(Path(folder) / "load.sqlite"), "SECRET_KEY": "load"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    status, game, _ = request(
        base + "/api/games", json.dumps({"players": ["Ann", "Bob"], "target": 10000}).encode(), "application/json"
    )
    assert status == 201, game
    game_id = game["id"]

    photo = args.photo.read_bytes()
    body, content_type = multipart("photo", args.photo.name, photo)
    with ThreadPoolExecutor(args.uploads) as pool:
        started = time.perf_counter()
        uploads = list(
            pool.map(lambda _: request(f"{base}/api/games/{game_id}/photo", body, content_type), range(args.uploads))
        )
        wall = time.perf_counter() - started
    report(f"{args.uploads} concurrent uploads of {args.photo.name} ({len(photo) // 1024} kB)", uploads)
    print(f"  wall {wall:.1f} s for all")

    hand = json.dumps({"knocker": 0, "deadwood": [4, 30]}).encode()
    with ThreadPoolExecutor(args.uploads) as pool:
        writes = list(
            pool.map(
                lambda _: request(f"{base}/api/games/{game_id}/hands", hand, "application/json"), range(args.uploads)
            )
        )
    report(f"{args.uploads} concurrent hand writes", writes)

    _, sheet, _ = request(f"{base}/api/games/{game_id}")
    succeeded = [data for status, data, _ in writes if status == 201]
    hands_ok = len(sheet["hands"]) == len(succeeded)
    positions_ok = [h["position"] for h in sheet["hands"]] == list(range(1, len(sheet["hands"]) + 1))
    totals_ok = sheet["totals"] == [
        sum(h["points"] for h in sheet["hands"] if h["winner"] == name) for name in sheet["players"]
    ]
    print(
        f"sheet: {len(sheet['hands'])} hands for {len(succeeded)} successful writes, totals {sheet['totals']}; "
        f"consistent: {hands_ok and positions_ok and totals_ok}"
    )
    server.shutdown()
    return 0 if hands_ok and positions_ok and totals_ok else 1


if __name__ == "__main__":
    sys.exit(main())
