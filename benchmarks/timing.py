"""Timing helper shared by the suites: ratios are timed in one call, so machine noise cancels."""

import time

import numpy as np


def best_of(f, *args, repeats=3):
    """Shortest wall time of ``repeats`` calls ``f(*args)``, in seconds."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best
