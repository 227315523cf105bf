"""Load of the live sheet: N phones polling one game's version under waitress (8 threads, as `ginscore serve`).

    python3 benchmarks/live_sheet_load.py [--phones 20] [--seconds 20] [--interval 1.5]

Each phone asks ``GET /games/<id>/version`` every ``--interval`` seconds with the version it has as
If-None-Match, as ``static/app.js`` does, while a writer saves a hand through the API every 3 s. Prints the
polls, the share answered 304, their latency percentiles, and how long after each write the slowest phone
saw the new version (the live sheet's promise: within 2 s). Loopback only; it stops by itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web import create_app

HEADERS = {"X-Requested-With": "live_sheet_load", "Content-Type": "application/json"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=1.5)
    args = parser.parse_args()
    from waitress.server import create_server

    folder = tempfile.mkdtemp(prefix="ginscore-live-")
    app = create_app({"DATABASE": str(Path(folder) / "live.sqlite"), "SECRET_KEY": "live"})
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{server.effective_port}"
    create = urllib.request.Request(
        f"{base}/api/games", data=json.dumps({"players": ["Ann", "Bob"]}).encode(), headers=HEADERS
    )
    with urllib.request.urlopen(create, timeout=10) as answer:
        game_id = json.load(answer)["id"]
    url = f"{base}/games/{game_id}/version"
    stop = time.monotonic() + args.seconds
    polls: list[tuple[float, int]] = []
    seen: dict[str, list[float]] = {}  # version -> when each phone first saw it
    lock = threading.Lock()

    def phone() -> None:
        version = ""
        while time.monotonic() < stop:
            started = time.monotonic()
            request = urllib.request.Request(url, headers={"If-None-Match": f'"{version}"'} if version else {})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    status, new = answer.status, json.load(answer)["version"]
            except urllib.error.HTTPError as error:
                status, new = error.code, version
            now = time.monotonic()
            with lock:
                polls.append((now - started, status))
                if new != version:
                    seen.setdefault(new, []).append(now)
            version = new
            time.sleep(max(0.0, args.interval - (time.monotonic() - started)))

    writes: dict[int, float] = {}

    def writer() -> None:
        count = 0
        while time.monotonic() < stop - 3:
            time.sleep(3)
            body = json.dumps({"knocker": 0, "deadwood": [2, 10 + count]}).encode()
            request = urllib.request.Request(f"{base}/api/games/{game_id}/hands", data=body, headers=HEADERS)
            with urllib.request.urlopen(request, timeout=10):
                count += 1
                writes[count] = time.monotonic()

    threads = [threading.Thread(target=phone) for _ in range(args.phones)] + [threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    server.close()
    latencies = [seconds for seconds, _ in polls]
    not_modified = sum(status == 304 for _, status in polls)
    errors = sum(status >= 400 for _, status in polls)
    print(f"{args.phones} phones polling every {args.interval} s for {args.seconds:.0f} s, {len(writes)} hands saved")
    print(
        f"  {len(polls)} polls ({len(polls) / args.seconds:.1f}/s), {not_modified / max(len(polls), 1):.0%} answered "
        f"304, {errors} errors; latency p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p90 {percentile(latencies, 0.9) * 1000:.1f} ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms"
    )
    # each write's version is the one first seen after it: lag = the slowest phone's first sight - write time
    lags = []
    for when in writes.values():
        after = [times for times in seen.values() if min(times) >= when]
        if after:
            first = min(after, key=min)
            lags.append(max(first) - when)
    if lags:
        print(
            f"  the slowest phone saw a saved hand after {max(lags):.2f} s at most (median {statistics.median(lags):.2f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
