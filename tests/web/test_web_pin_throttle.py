"""PIN guessing is throttled per client and for the whole table, on the form and the API header.

The loopback measurement drives the real server (waitress, as `ginscore serve` runs it) with 20
guessers from 20 loopback addresses that obey Retry-After exactly; a clock the test moves stands
in for the days it describes.
"""

from __future__ import annotations

import concurrent.futures
import time

import pytest
from servers import ThreadServer
from sheet_helpers import fake_pin_clock

from web import create_app
from web.pin_throttle import TABLE_BURST, PinThrottle

API = {"X-Requested-With": "t"}
PIN = "7391"
ALL_PINS = 10_000


@pytest.fixture
def pin_app(tmp_path):
    return create_app(
        {
            "DATABASE": str(tmp_path / "pin.sqlite"),
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            "PIN": PIN,
        }
    )


def test_waits_double_per_client_and_the_table_has_a_budget():
    clock = [0.0]
    throttle = PinThrottle(clock=lambda: clock[0])
    assert throttle.check("a").allowed
    throttle.failed("a")
    assert not throttle.check("a").allowed and throttle.check("b").allowed  # only a waits
    waits = []
    for _ in range(5):
        verdict = throttle.check("a")
        waits.append(verdict.wait_s)
        clock[0] += verdict.wait_s
        assert throttle.check("a").allowed
        throttle.failed("a")
    assert waits == [1, 2, 4, 8, 16]
    throttle.succeeded("a")  # the right PIN starts afresh
    assert throttle.check("a").allowed
    for name in "cdef":  # 10 wrong PINs in all
        throttle.failed(name)
    whole = throttle.check("z")
    assert not whole.allowed and whole.whole_table and "everyone" in whole.message()
    clock[0] += whole.wait_s
    assert throttle.check("z").allowed


def test_the_api_header_waits_like_the_form(pin_app):
    clock = fake_pin_clock(pin_app)
    client = pin_app.test_client()
    body = {"players": ["Ann", "Bob"]}
    wrong = client.post("/api/games", json=body, headers={**API, "X-Table-Pin": "0000"})
    assert wrong.status_code == 403 and "wrong PIN" in wrong.json["error"]
    at_once = client.post("/api/games", json=body, headers={**API, "X-Table-Pin": PIN})
    assert at_once.status_code == 429 and at_once.headers["Retry-After"] == "2"  # even the right PIN waits
    assert "locked on this device" in at_once.json["error"]
    clock.advance(1)
    assert client.post("/api/games", json=body, headers={**API, "X-Table-Pin": PIN}).status_code == 201


def test_the_form_explains_the_lockout(pin_app):
    clock = fake_pin_clock(pin_app)
    client = pin_app.test_client()
    first = client.post("/pin", data={"pin": "1111"})
    assert first.status_code == 403 and b"wrong" in first.data and b"1 second" in first.data
    locked = client.post("/pin", data={"pin": PIN})
    assert locked.status_code == 429 and b"locked on this device" in locked.data
    for n in range(TABLE_BURST - 1):  # more devices: the table's budget runs out
        wrong = client.post("/pin", data={"pin": "2222"}, environ_base={"REMOTE_ADDR": f"192.168.1.{n + 2}"})
        assert wrong.status_code == 403
    other_device = {"REMOTE_ADDR": "192.168.1.99"}
    paused = client.post("/pin", data={"pin": PIN}, environ_base=other_device)
    assert paused.status_code == 429 and b"paused for everyone" in paused.data and b"5 minutes" in paused.data
    clock.advance(300)
    assert client.post("/pin", data={"pin": PIN}, environ_base=other_device).status_code == 302
    assert client.post("/games/new", data={"player0": "A", "player1": "B"}).status_code == 302


@pytest.mark.slow
def test_every_four_digit_pin_would_take_days_over_loopback(pin_app, record_property):
    """20 guessers from 20 loopback addresses; reported: guesses tried, simulated time, and the
    extrapolation to all 10,000 PINs (figures in docs/web.md)."""
    guessers = [f"127.0.0.{10 + n}" for n in range(20)]
    body = {"players": ["Ann", "Bob"]}

    def guess(source: str, pin: str):
        status, headers, _ = server.request("POST", "/api/games", body, {**API, "X-Table-Pin": pin}, source=source)
        return status, int(headers.get("retry-after", 0))

    with ThreadServer(pin_app, threads=8) as server, concurrent.futures.ThreadPoolExecutor(len(guessers)) as pool:
        # 1. Real time: every guesser as fast as it can for 2 s.
        started, tried, refused = time.monotonic(), 0, 0
        next_pin = iter(range(ALL_PINS))
        while time.monotonic() - started < 2:
            results = list(pool.map(lambda s: guess(s, f"{next(next_pin):04d}"), guessers))
            tried += sum(status == 403 for status, _ in results)
            refused += sum(status == 429 for status, _ in results)
        real_seconds = time.monotonic() - started
        assert tried <= TABLE_BURST and refused > 0

        # 2. Simulated days: each guesser waits exactly as long as Retry-After says, then guesses again.
        clock = fake_pin_clock(pin_app)  # a full budget again
        simulated_start, sim_tried, requests = clock(), 0, 0
        ready_at = {source: clock() for source in guessers}
        while sim_tried < 60:
            due = [source for source in guessers if ready_at[source] <= clock()]
            results = list(pool.map(lambda s: guess(s, f"{next(next_pin):04d}"), due))
            requests += len(due)
            for source, (status, retry_after) in zip(due, results, strict=True):
                assert status in (403, 429)
                sim_tried += status == 403
                ready_at[source] = clock() + (retry_after if status == 429 else 0)
            if all(ready_at[source] > clock() for source in guessers):
                clock.advance(min(ready_at.values()) - clock())
        simulated = clock() - simulated_start
    days_for_all = ALL_PINS * simulated / sim_tried / 86400
    record_property("real_time", f"{tried} PINs tried in {real_seconds:.1f} s by 20 guessers ({refused} refused)")
    record_property("simulated", f"{sim_tried} PINs tried in {simulated / 3600:.1f} h simulated, {requests} requests")
    record_property("days_for_all_pins", round(days_for_all, 1))
    print(
        f"\nreal time: {tried} PINs tried in {real_seconds:.1f} s by 20 guessers ({refused} refused); "
        f"simulated: {sim_tried} PINs in {simulated / 3600:.1f} h ({requests} requests); "
        f"all 10,000 PINs: {days_for_all:.1f} days"
    )
    assert days_for_all >= 7
