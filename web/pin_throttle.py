"""Slowing down PIN guessing: per client and for the whole table.

Each wrong PIN makes that client wait before its next try: 1 s, 2 s, 4 s, ... doubling up to an
hour. On top of that the whole table has a budget of wrong PINs (``TABLE_BURST`` at once, then
one more every ``TABLE_REFILL_S``); when it is spent, nobody may try a PIN until it refills.
A try during a wait is refused without looking at the PIN, so the waits cannot be raced.

With the defaults a guesser gets at most 10 tries and then 12 an hour, from however many
addresses: the 10,000 four-digit PINs take about 35 days (half of them, on average, 17 days).
Browsers that have entered the PIN are not affected: they never send it again.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FIRST_WAIT_S = 1.0  # after the first wrong PIN from a client
LONGEST_WAIT_S = 3600.0  # the doubling stops here
TABLE_BURST = 10  # wrong PINs the whole table may make in a row
TABLE_REFILL_S = 300.0  # then one more every 5 minutes (12 an hour)
FORGET_CLIENT_S = 24 * 3600.0
MOST_CLIENTS = 10_000  # remembered clients (the oldest are forgotten first)


@dataclass
class ClientRecord:
    failures: int = 0
    next_try: float = 0.0
    last_failure: float = 0.0


@dataclass(frozen=True)
class Verdict:
    """Whether a PIN may be tried now; if not, how long to wait and whose wait it is."""

    allowed: bool
    wait_s: float = 0.0
    whole_table: bool = False

    def message(self) -> str:
        wait = _human_duration(self.wait_s)
        if self.whole_table:
            return (
                f"Too many wrong PINs have been tried at this table, so PIN entry is paused for everyone "
                f"for {wait}. Devices that already entered the PIN keep working."
            )
        return f"PIN entry is locked on this device for {wait} after wrong PINs (each wrong PIN doubles the wait)."


def _human_duration(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


class PinThrottle:
    """Per-client doubling waits and a table-wide budget of wrong PINs; thread-safe."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        table_burst: int = TABLE_BURST,
        table_refill_s: float = TABLE_REFILL_S,
    ) -> None:
        self.clock = clock
        self.table_burst = table_burst
        self.table_refill_s = table_refill_s
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, ClientRecord] = OrderedDict()
        self._table_budget = float(table_burst)
        self._table_updated = clock()

    def check(self, client: str) -> Verdict:
        """May this client try a PIN now?"""
        with self._lock:
            now = self.clock()
            self._refill(now)
            record = self._clients.get(client)
            if record is not None and now < record.next_try:
                return Verdict(False, record.next_try - now)
            if self._table_budget < 1:
                return Verdict(False, (1 - self._table_budget) * self.table_refill_s, whole_table=True)
            return Verdict(True)

    def failed(self, client: str) -> None:
        """Record a wrong PIN from this client."""
        with self._lock:
            now = self.clock()
            self._refill(now)
            self._table_budget = max(0.0, self._table_budget - 1)
            record = self._clients.pop(client, None) or ClientRecord()
            if now - record.last_failure > FORGET_CLIENT_S:
                record.failures = 0
            record.failures += 1
            record.last_failure = now
            record.next_try = now + min(LONGEST_WAIT_S, FIRST_WAIT_S * 2 ** (record.failures - 1))
            self._clients[client] = record
            while len(self._clients) > MOST_CLIENTS:
                self._clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        """The right PIN: this client starts afresh."""
        with self._lock:
            self._clients.pop(client, None)

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._table_updated)
        self._table_budget = min(float(self.table_burst), self._table_budget + elapsed / self.table_refill_s)
        self._table_updated = now
