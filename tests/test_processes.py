"""Whatever a program qlsbench starts leaves running ends with it (qlsbench.solvers.processes).

Truth: the kernel's own process table (``/proc``): every descendant a program leaves behind, in its session or
escaped from it (a new session, its parent gone), is dead once the program's run is over, whether it answered,
failed, ran past its time or past a solve's time limit; and output held open by a descendant delays nothing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.bench import SolverSpec, run_solver
from qlsbench.data import write_systems
from qlsbench.problems import LinearSystem
from qlsbench.solvers import Status, get
from qlsbench.solvers.processes import run_program

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")

#: A program that leaves descendants: a child in its session holding its output (``sleep 30``: a reader that
#: waits for the output's end waits for it), and a grandchild that escapes to a session of its own and is
#: orphaned (double fork, ``setsid``); it writes their pids, then answers the external protocol (when given its
#: two files) or just prints, or hangs.
LEAVER = textwrap.dedent("""
    import json, os, subprocess, sys, time
    pids = sys.argv[1]
    child = subprocess.Popen(["sleep", "30"])  # inherits stdout and stderr: it holds them open
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_WRONLY)  # only the child above holds the output
            os.dup2(null, 1)
            os.dup2(null, 2)
            open(pids + ".escaped", "w").write(str(os.getpid()))
            time.sleep(600)
            os._exit(0)
        os._exit(0)
    while not os.path.exists(pids + ".escaped") or not open(pids + ".escaped").read():
        time.sleep(0.01)
    open(pids, "w").write(json.dumps([child.pid, int(open(pids + ".escaped").read())]))
    what = sys.argv[2]
    print("answered", flush=True)
    if what == "hang":
        time.sleep(600)
    if what == "answer":
        req = json.load(open(sys.argv[3]))
        n = req["A"]["shape"][0]
        json.dump({"status": "converged", "x": {"re": [0.0] * n}}, open(sys.argv[4], "w"))
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _all_dead(pids: list[int], wait: float = 5.0) -> bool:
    end = time.monotonic() + wait
    while any(_alive(pid) for pid in pids) and time.monotonic() < end:
        time.sleep(0.05)
    return not any(_alive(pid) for pid in pids)


@pytest.fixture
def leaver(tmp_path):
    script = tmp_path / "leaver.py"
    script.write_text(LEAVER)
    return script


def _left(pidfile: Path) -> list[int]:
    import json

    pids = json.loads(pidfile.read_text())
    assert len(pids) == 2, "the program did not leave its child and its escaped grandchild"
    return pids


def test_a_programs_descendants_end_with_it_and_its_held_output_delays_nothing(leaver, tmp_path):
    pidfile = tmp_path / "pids"
    done = run_program([sys.executable, str(leaver), str(pidfile), "print"])
    assert done.returncode == 0 and "answered" in done.stdout
    assert _all_dead(_left(pidfile))


def test_past_its_time_the_program_and_its_descendants_end(leaver, tmp_path):
    pidfile = tmp_path / "pids"
    with pytest.raises(subprocess.TimeoutExpired):
        run_program([sys.executable, str(leaver), str(pidfile), "hang"], timeout=3)
    assert _all_dead(_left(pidfile))


def _system() -> LinearSystem:
    return LinearSystem(sp.diags([2.0, 4.0, 8.0]).tocsr(), np.ones(3), {"family": "test", "n_qubits": 0})


def test_an_external_solver_that_leaves_children_answers_at_once_and_leaves_nothing(leaver, tmp_path):
    """The answer is read when the solver's own process ends, not when the child holding its output does."""
    pidfile = tmp_path / "pids"
    result = get("external", command=f"{sys.executable} {leaver} {pidfile} answer").solve(_system())
    assert result.status == Status.CONVERGED
    assert _all_dead(_left(pidfile), wait=0.0)  # ended by the solve, not later


def test_a_timed_out_external_solvers_descendants_end_with_the_time_limit(leaver, tmp_path):
    pidfile = tmp_path / "pids"
    dataset = write_systems([_system()], tmp_path / "systems.parquet")
    spec = SolverSpec("external", {"command": f"{sys.executable} {leaver} {pidfile} hang"})
    rows = run_solver(spec, dataset, tmp_path / "out.parquet", time_limit=3, progress=False)
    assert list(rows["status"]) == ["timeout"]
    assert _all_dead(_left(pidfile))


#: A process that adopts its orphans: a child of it leaves a grandchild in its session and exits; ``end_orphans``
#: must end the grandchild and nothing else of the session (here a ``sleep`` it started itself).
ADOPTER = textwrap.dedent("""
    import os, subprocess, sys, time
    from qlsbench.solvers.processes import become_subreaper, children_now, end_orphans
    pidfile = sys.argv[1]
    become_subreaper()
    sentinel = subprocess.Popen(["sleep", "60"])
    before = children_now()
    leaver = "import os, time\\nif os.fork() == 0:\\n    time.sleep(60)\\n    os._exit(0)"
    subprocess.run([sys.executable, "-c", leaver], check=True)
    time.sleep(0.2)
    orphans = children_now() - before
    end_orphans(before, settle=0.5)
    print(int(sentinel.poll() is None), *orphans)  # whether the session's other process lives, the orphans
    sentinel.kill()
""")


def test_the_orphans_end_and_nothing_else_of_the_session(tmp_path):
    """A solver's plain child shares the run's own session: ending it must not end the session's other processes
    (a shell, the user's other jobs)."""
    done = subprocess.run(
        [sys.executable, "-c", ADOPTER, str(tmp_path / "pid")],
        capture_output=True,
        text=True,
        start_new_session=True,  # were the whole session ended, only this test's stand-in would go
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    sentinel_alive, *orphans = (int(word) for word in done.stdout.split())
    assert orphans and _all_dead(orphans)
    assert sentinel_alive
