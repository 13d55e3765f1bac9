"""How many threads the compiled (numba) kernels use, and when they use only one.

A parallel kernel pays for its threads at every launch and at every barrier,
and on a shared machine (a workflow always runs jobs side by side) a thread
that the scheduler has parked holds up the barrier for a whole time slice: a
0.5 ms decomposition took 50 ms beside a busy sibling. So

- work below :data:`SERIAL_WORK` runs on one thread, where threads cannot pay;
- above it, kernels use at most the configured count: ``qlsbench --threads``
  (:func:`set_threads`), else the environment variable ``QLSBENCH_THREADS``,
  else numba's own (``NUMBA_NUM_THREADS``, by default every core);
- idle OpenMP workers sleep instead of spinning (``OMP_WAIT_POLICY=PASSIVE``,
  unless the environment says otherwise), so they do not take a core from
  the sibling job, or from our own thread that still has work. libgomp reads
  the policy once, when numba first launches a parallel kernel, which is why
  it is set on import here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from qlsbench.checks import Whole
from qlsbench.errors import InputError

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: Variable that caps the kernels' threads when ``--threads`` is not given.
ENV = "QLSBENCH_THREADS"
#: Below this many elementary operations (about 4 ms on one core) a kernel runs serially. Measured on an idle
#: 2-core EPYC, two threads cut a 12-qubit 2-D Laplacian (3e5 operations) only from 0.69 to 0.52 ms, and beside
#: a busy sibling the same decomposition had 50 ms outliers at two threads and none at one.
SERIAL_WORK = 1 << 21

#: A thread count: from 1 to 1024 (more threads than any machine here has cores is a typo).
THREADS = Whole(1, 1024)

_configured: int | None = None
_blas_limits: Any = None  # threadpoolctl's limiter while a count is set


def parse_threads(value: object, source: str) -> int:
    """``value`` as a thread count (:data:`THREADS`), or an :class:`InputError` naming ``source`` in the words
    the ``--threads`` flag uses."""
    import argparse

    try:
        return THREADS.parse(str(value))
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"{source}: {exc}") from None


def set_threads(count: int | None) -> None:
    """Cap the kernels' threads at ``count`` for this process (``None``: back to the default).

    BLAS and OpenMP pools already loaded (numpy's OpenBLAS) are capped too,
    and the environment tells worker processes started later the same, so
    a job given ``count`` cores by its scheduler stays within them.
    """
    global _configured, _blas_limits
    count = None if count is None else parse_threads(count, "threads")
    if _blas_limits is not None:
        _blas_limits.restore_original_limits()
        _blas_limits = None
    _configured = count
    if count is not None:
        from threadpoolctl import threadpool_limits

        _blas_limits = threadpool_limits(limits=count)
        for name in (ENV, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(count)


def configured() -> int | None:
    """The count set by ``--threads`` (:func:`set_threads`) or ``QLSBENCH_THREADS``, else ``None``."""
    if _configured is not None:
        return _configured
    if os.environ.get(ENV, "").strip():
        return parse_threads(os.environ[ENV], ENV)
    return None


def thread_limit() -> int:
    """The most threads a kernel may use: the configured count, never above numba's pool."""
    import numba

    pool = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # numba sets it from the environment
    count = configured()
    return pool if count is None else min(count, pool)


@contextmanager
def kernel_threads(work: float) -> Iterator[int]:
    """Run the numba kernels launched inside on one thread when ``work`` is small, else on :func:`thread_limit`.

    A caller's own ``numba.set_num_threads`` is a further cap. Yields the
    count used. numba's setting is per calling thread, so this does not
    change what other Python threads' kernels use.
    """
    import numba

    previous = numba.get_num_threads()
    count = 1 if work < SERIAL_WORK else min(thread_limit(), previous)
    numba.set_num_threads(count)
    try:
        yield count
    finally:
        numba.set_num_threads(previous)
