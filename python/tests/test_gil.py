"""The computations release the GIL: another Python thread runs while they work."""

import json
import sys
import threading
import time

import yahtzee
from yahtzee import _native


def runs_meanwhile(work):
    """True when the main thread gets to run while `work` runs in another thread.

    With a switch interval longer than the test, Python never takes the GIL from a thread: the
    main thread, waiting for the worker to start, can run again only when the worker lets the
    GIL go. A call that holds it lets the main thread run only once it has returned; a call
    that releases it lets the main thread run at once, before it ends.
    """
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        started = threading.Event()
        ended = {}

        def run():
            started.set()
            work()
            ended["at"] = time.monotonic()

        t = threading.Thread(target=run)
        t.start()
        started.wait()
        woke = time.monotonic()
        t.join()
    finally:
        sys.setswitchinterval(old)
    return woke < ended["at"]


def test_the_check_sees_a_call_that_holds_the_gil():
    assert not runs_meanwhile(lambda: sum(range(3 * 10**7)))


def test_batches_stats_simulations_and_solves_release_the_gil(tmp_path):
    # Each call lasts a good part of a second or more, so that the main thread, once the GIL
    # is free, is surely scheduled before the call ends (a single query's microseconds are
    # too short to see).
    table = yahtzee.solve("yacht")
    lines = [json.dumps({"dice": [1 + (i % 6), 2, 3, 3, 5], "rolls_left": i % 3}) for i in range(100_000)]
    assert runs_meanwhile(lambda: _native.advise_lines(table, lines))
    upper_first = yahtzee.solve("yahtzee", upper_first=True)
    assert runs_meanwhile(lambda: _native.stats(upper_first, [200]))
    assert runs_meanwhile(lambda: _native.simulate(("yacht", False), 100_000, 1, "optimal", [200], table))
    fresh = str(tmp_path / "free-joker.table")  # no file yet: solved now
    assert runs_meanwhile(lambda: _native.solve("yahtzee-free-joker", False, fresh, None))
