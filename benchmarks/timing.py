"""Timing helpers shared by the suites: ratios are timed in one call, so machine noise cancels."""

import subprocess
import sys
import time
from contextlib import contextmanager

import numpy as np


def best_of(f, *args, repeats=3):
    """Shortest wall time of ``repeats`` calls ``f(*args)``, in seconds."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def best_of_interleaved(functions, *args, repeats=3):
    """Shortest wall time of each of ``functions`` called with ``args``, the calls taking turns (``repeats``
    rounds), so that a load changing during the run weighs on every one alike; in seconds, one per function."""
    best = [np.inf] * len(functions)
    for _ in range(repeats):
        for i, f in enumerate(functions):
            t0 = time.perf_counter()
            f(*args)
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def median_of(f, *args, repeats=9):
    """Median wall time of ``repeats`` calls ``f(*args)``, in seconds: typical, where ``best_of`` is lucky."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


@contextmanager
def busy_sibling():
    """Another process keeps one core busy for the duration (as a second workflow job would)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)  # let it start spinning before anything is timed
        yield
    finally:
        spinner.kill()
        spinner.wait()
