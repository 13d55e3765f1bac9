"""Work the bounds admit but the machine cannot hold is refused up front; long work says what it needs and does.

Truth: the kernel's own limits, set here on a child process (``RLIMIT_AS``, as ``ulimit -v`` sets it), and what
the command prints, run as a user runs it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from qlsbench.errors import InputError
from qlsbench.families.spheres import SphereOptions, memory_estimate
from qlsbench.machine import GIB, check_memory, memory_limit

#: An address space a pile of 50,000 spheres kept every step cannot fit, and qlsbench's own start does.
LIMIT = 3 * 1024**3


def _limited(*args: str, limit: int | None = LIMIT, timeout: float = 300) -> subprocess.CompletedProcess:
    def cap():
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, preexec_fn=cap, env=env, timeout=timeout
    )


def test_the_limit_is_the_address_space_a_child_is_given():
    code = "from qlsbench.machine import memory_limit; room, why = memory_limit(); print(room, why)"
    done = _limited("-c", code)
    room, _, why = done.stdout.strip().partition(" ")
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < float(room) < LIMIT and ("ulimit -v" in why or "MemAvailable" in why or "cgroup" in why)


def test_an_estimate_above_the_limit_is_refused_by_name():
    limit = memory_limit()
    assert limit is not None and limit[0] > 0
    check_memory(1.0, "a tiny run")
    with pytest.raises(InputError, match=r"a huge run needs about [\d,.]+ GiB of memory; this process may take"):
        check_memory(limit[0] + GIB, "a huge run")


def test_a_pile_the_machine_cannot_hold_is_refused_in_one_line_before_any_work(tmp_path):
    out = tmp_path / "big"
    args = ["-m", "qlsbench", "simulate", "--n-spheres", "50000", "--steps", "1000", "--out", str(out), "--quiet"]
    done = _limited(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "50,000 spheres" in lines[0] and "needs about" in lines[0] and "GiB" in lines[0]
    assert not out.exists()
    assert memory_estimate(SphereOptions(n_spheres=50_000, steps=1000)) > LIMIT  # the refusal's own figure


def _read_until(stream, marks: tuple[str, ...], seconds: float) -> str:
    """What ``stream`` gave until it held one of ``marks`` (or ``seconds`` passed), read by a thread: a progress
    bar writes no line end, so a plain readline could wait for the whole run."""
    import threading
    import time

    text: list[str] = []
    reader = threading.Thread(target=lambda: text.extend(iter(lambda: stream.read(1), "")), daemon=True)
    reader.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end and not any(mark in "".join(text) for mark in marks) and reader.is_alive():
        time.sleep(0.05)
    return "".join(text)


def test_a_large_run_states_its_need_first_and_the_export_shows_progress(tmp_path):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    # 10,000 spheres keeping 400 steps: about 1.5 GiB; the statement comes before the first step, then it is stopped
    args = ["-m", "qlsbench", "simulate", "--n-spheres", "10000", "--steps", "400", "--out", str(tmp_path / "a")]
    with subprocess.Popen([sys.executable, *args], stderr=subprocess.PIPE, text=True, env=env) as big:
        assert big.stderr is not None
        said = _read_until(big.stderr, ("needs about", "%|"), seconds=120)
        big.kill()
    first = said.replace("\r", "\n").strip().splitlines()[0] if said.strip() else ""
    assert "10,000 spheres" in first and "needs about" in first and "GiB" in first, said[-2000:]
    small = _limited(
        "-m",
        "qlsbench",
        "simulate",
        "--n-spheres",
        "12",
        "--steps",
        "150",
        "--every",
        "5",
        "--out",
        str(tmp_path / "b"),
        limit=None,
    )
    assert small.returncode == 0 and "exporting" in small.stderr and "needs about" not in small.stderr
