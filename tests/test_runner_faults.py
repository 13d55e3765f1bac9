"""What a solver or a kill can do to a run: corrupt the metrics, take the process down, leave files behind.

Each fault ends as one row or one line naming it, with nothing lost and nothing left: a plug-in that rescales
its system in place is scored on the stored one, options are checked against the solver's signature before
anything runs, a solve that aborts the process is a ``crashed`` row on the rerun, a writer killed mid-write
leaves a temporary file the next write removes, and a worker whose parent was killed ends without a word.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import SolverSpec, leaderboard, load_results, run_solver
from qlsbench.bench._isolation import IsolatedSolver, private_copy
from qlsbench.bench.board import Board, run_board
from qlsbench.data import atomic_write_text, iter_systems, write_systems
from qlsbench.data._writer import remove_stale_temporaries
from qlsbench.errors import InputError, SolverProcessError, UnknownSolverError
from qlsbench.problems import LinearSystem, ising_inspired
from qlsbench.solvers.registry import check_solver

#: Plug-ins that misbehave, imported as ``faults_plugin:Class``. Calls are logged to $QLSBENCH_TEST_LOG.
FAULTS = textwrap.dedent('''
    import os
    import time
    from dataclasses import dataclass
    from typing import ClassVar

    import numpy as np

    from qlsbench.solvers import BaseSolver, SolveResult, Status


    def _log(text):
        log = os.environ.get("QLSBENCH_TEST_LOG")
        if log:
            with open(log, "a") as f:
                f.write(f"{text}\\n")


    def _dense(system):
        return np.linalg.solve(system.A.toarray(), system.b)


    @dataclass
    class Rescaler(BaseSolver):
        """Scales A and b by 3 in place, then solves: correct, but it changes what it was given."""
        name: ClassVar[str] = "rescaler"

        def _solve(self, system, seed):
            _log(repr(float(np.linalg.norm(system.b))))
            system.A.data *= 3.0
            system.b[:] *= 3.0  # (system.b *= 3 would rebind the field of a frozen dataclass)
            system.meta["family"] = "mine now"
            return SolveResult(_dense(system), Status.CONVERGED)


    @dataclass
    class AbortOn(BaseSolver):
        """Dense solve, except on systems of dimension `dim`, where it aborts the process."""
        name: ClassVar[str] = "abort-on"
        dim: int = 8

        def _solve(self, system, seed):
            if system.dim == self.dim:
                os.abort()
            return SolveResult(_dense(system), Status.CONVERGED)


    @dataclass
    class SlowOn(BaseSolver):
        """Dense solve; on dimension `dim`, when $QLSBENCH_TEST_SLOW is set, it logs its process id and sleeps,
        or (``busy``) computes for minutes in one C call that never lets go of the interpreter lock."""
        name: ClassVar[str] = "slow-on"
        dim: int = 8
        sleep: float = 60.0
        busy: bool = False

        def _solve(self, system, seed):
            if system.dim == self.dim and os.environ.get("QLSBENCH_TEST_SLOW"):
                _log(os.getpid())
                if self.busy:
                    sum(range(10 ** 12))  # minutes, holding the GIL: no Python thread of this process runs
                time.sleep(self.sleep)
            return SolveResult(_dense(system), Status.CONVERGED)


    @dataclass
    class Dawdler(BaseSolver):
        """Logs its process id, then sleeps through every solve: a process provably at work for a minute."""
        name: ClassVar[str] = "dawdler"

        def _solve(self, system, seed):
            _log(os.getpid())
            time.sleep(60.0)
            return SolveResult(_dense(system), Status.CONVERGED)


    @dataclass
    class FailOnSmall(BaseSolver):
        """Dense solve, but an error on systems of dimension 2."""
        name: ClassVar[str] = "fail-small"

        def _solve(self, system, seed):
            if system.dim == 2:
                return SolveResult(None, Status.ERROR, "no 2x2 today")
            return SolveResult(_dense(system), Status.CONVERGED)


    class Picky:
        """A plain class: options from its signature, one without a default."""
        name = "picky"

        def __init__(self, tol: float, *, steps=10, label=None, mode: "str | None" = None):
            self.options = {"tol": tol, "steps": steps, "label": label, "mode": mode}

        def solve(self, system, *, seed=0):
            return SolveResult(_dense(system), Status.CONVERGED)


    class NotASolver:
        """Builds without complaint, and has no solve."""


    class DiesWhenBuilt(Picky):
        """Takes its process down while it is built in a worker (a crash in an import would do the same)."""

        def __init__(self):
            import multiprocessing
            if multiprocessing.parent_process() is not None:
                os._exit(3)
            self.options = {}


    class Unsendable(Picky):
        """Returns a result whose resources hold a function: fine in this process, unpicklable for a worker's."""

        def __init__(self):
            self.options = {}

        def solve(self, system, *, seed=0):
            return SolveResult(_dense(system), Status.CONVERGED, resources={"callback": lambda: None})


    class Loose(Picky):
        """Takes any option at all."""

        def __init__(self, **options):
            self.options = options


    class Strict(Picky):
        """Checks its option itself, in the constructor."""

        def __init__(self, level=None):
            if not isinstance(level, int):
                raise TypeError(f"level must be a whole number, not {type(level).__name__}")
            self.options = {"level": level}
''')


@pytest.fixture
def faults(tmp_path, monkeypatch):
    """The plug-in module importable here and in child processes; its call log."""
    root = tmp_path / "plugins"
    root.mkdir()
    (root / "faults_plugin.py").write_text(FAULTS)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    log = tmp_path / "calls.log"
    monkeypatch.setenv("QLSBENCH_TEST_LOG", str(log))
    return log


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _cli(*args, cwd, timeout=300) -> subprocess.CompletedProcess:
    """``qlsbench args`` in a child process that dumps no core when it aborts (``exec``: same process)."""
    return subprocess.run(
        ["sh", "-c", 'ulimit -c 0; exec "$@"', "sh", sys.executable, "-m", "qlsbench.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _wait_for(condition, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# ---------------------------------------------------------------- A: solvers get data they cannot corrupt


@pytest.mark.parametrize("time_limit", [None, 30.0], ids=["in-process", "isolated"])
def test_a_solver_rescaling_its_system_in_place_is_scored_on_the_stored_one(
    ising_dataset, tmp_path, faults, time_limit
):
    stored = ising_dataset.read_bytes()
    df = run_solver(
        SolverSpec("faults_plugin:Rescaler"),
        ising_dataset,
        tmp_path / "r.parquet",
        repeats=2,
        time_limit=time_limit,
        progress=False,
    )
    assert len(df) == 6 and (df["status"] == "converged").all()
    assert (df["rel_residual"] < 1e-13).all(), df["rel_residual"].tolist()
    assert (df["fidelity"] > 1 - 1e-12).all() and (df["family"] == "ising").all()
    # Both repeats of each system were handed the same, unscaled right-hand side.
    norms = [float(v) for v in faults.read_text().split()]
    assert norms[0::2] == norms[1::2]
    assert ising_dataset.read_bytes() == stored


def test_a_private_copy_shares_nothing_with_the_original():
    system = ising_inspired(3, 10.0)
    system = system.with_reference(np.linalg.solve(system.A.toarray(), system.b))
    A, b, x_ref = system.A.toarray(), system.b.copy(), system.x_ref.copy()
    mine = private_copy(system)
    mine.A.data[:] = 0.0
    mine.A.indices[:] = 0
    mine.b[:] = 7.0
    mine.x_ref[:] = 1.0
    mine.meta["family"] = "changed"
    np.testing.assert_array_equal(system.A.toarray(), A)
    np.testing.assert_array_equal(system.b, b)
    np.testing.assert_array_equal(system.x_ref, x_ref)
    assert system.meta["family"] == "ising" and mine.system_id == system.system_id


# ---------------------------------------------------------------- B: solver names and options, checked first


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("gmres", {"restart": "two"}, "solver 'gmres': option 'restart' must be int, got str 'two'"),
        ("gmres", {"restart": 2.0}, "option 'restart' must be int, got float 2.0"),
        ("cg", {"maxiter": 2.5}, "option 'maxiter' must be int or None, got float 2.5"),
        ("cg", {"history": 1}, "option 'history' must be bool, got int 1"),
        ("cg", {"rtol": "1e-3 m"}, "option 'rtol' must be float, got str '1e-3 m'"),  # "1e-3" alone is the number
        ("splu", {"permc_spec": 3}, "option 'permc_spec' must be str, got int 3"),
        (
            "gmres",
            {"restrat": 5},
            "unknown option(s) 'restrat'; accepted: rtol, atol, maxiter, history, restart (did you mean 'restart'?)",
        ),
        ("gmress", {}, "unknown solver 'gmress'; available: "),
        ("vqls-local", {"backend": "exat"}, "unknown backend 'exat'"),
        ("faults_plugin:Picky", {"tol": "small"}, "option 'tol' must be float, got str 'small'"),
        ("faults_plugin:Picky", {"steps": 3}, "required option(s) 'tol' not given"),
        ("faults_plugin:Picky", {"tol": 1e-3, "steps": 2.5}, "option 'steps' must be int, got float 2.5"),
        (
            "faults_plugin:Picky",
            {"tol": 1e-3, "stpes": 2},
            "unknown option(s) 'stpes'; accepted: tol, steps, label, mode (did you mean 'steps'?)",
        ),
        ("faults_plugin:Picky", {"tol": 1e-3, "mode": 3}, "option 'mode' must be str or None, got int 3"),
        ("faults_plugin:Strict", {"level": "high"}, "level must be a whole number, not str"),
        ("faults_plugin:Pickey", {}, "module 'faults_plugin' has no attribute 'Pickey' (did you mean 'Picky'?)"),
        ("faults_plugin:NotASolver", {}, "NotASolver is not a solver"),
    ],
)
def test_check_solver_names_the_solver_and_the_option_in_one_line(faults, name, options, message):
    with pytest.raises(InputError) as caught:
        check_solver(name, options, where="run.yaml: solvers[3]")
    text = str(caught.value)
    assert text.startswith("run.yaml: solvers[3]: ") and message in text and "\n" not in text, text


def test_check_solver_accepts_what_the_signature_admits(faults):
    check_solver("cg", {"rtol": 1, "maxiter": None, "history": False})  # an int is a float
    check_solver("gmres", {"restart": np.int64(4), "rtol": np.float32(1e-6)})
    check_solver("faults_plugin:Picky", {"tol": 1, "label": ["any", "thing"], "mode": None})  # None default: anything
    check_solver("faults_plugin:Loose", {"whatever": object(), "n": "x"})  # **options takes anything
    check_solver("faults_plugin:Strict", {"level": 3})


def test_an_unknown_solver_is_an_input_error_with_close_matches():
    with pytest.raises(InputError) as caught:
        check_solver("bicgstb", {})
    assert isinstance(caught.value, UnknownSolverError)
    assert str(caught.value).endswith("(did you mean 'bicgstab'?)")


def test_solve_refuses_a_bad_option_type_before_writing_anything(ising_dataset, tmp_path):
    from qlsbench.cli import main

    out = tmp_path / "out" / "r.parquet"
    before = _files(tmp_path)
    assert (
        main(
            [
                "solve",
                "--solver",
                "gmres",
                "--option",
                "restart=two",
                "--dataset",
                str(ising_dataset),
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 2
    )
    assert _files(tmp_path) == before and not (tmp_path / "out").exists()


def test_a_board_with_a_typo_in_its_last_solver_runs_none(tmp_path):
    folder = tmp_path / "board"
    folder.mkdir()
    (folder / "board.yaml").write_text(
        "version: 1\nrun: {repeats: 1, time_limit: 30}\n"
        "solvers: [{name: lu}, {name: cg, options: {rtol: 1.0e-12}},"
        " {name: gmres, options: {restart: two}}]\n"
    )
    with pytest.raises(InputError, match=r"board.yaml: solvers\[2\]: solver 'gmres': option 'restart' must be int"):
        run_board(Board(folder), tmp_path / "results", progress=False)
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------- C: a solve that takes the process down


def test_a_solver_aborting_the_process_is_a_crashed_row_on_the_rerun(ising_dataset, tmp_path, faults):
    out = tmp_path / "results" / "abort.parquet"
    args = [
        "solve",
        "--solver",
        "faults_plugin:AbortOn",
        "--option",
        "dim=8",
        "--repeats",
        "2",
        "--dataset",
        ising_dataset,
        "--out",
        out,
        "--quiet",
    ]
    first = _cli(*args, cwd=tmp_path)
    assert first.returncode == -signal.SIGABRT, first.stderr
    # one line of ours naming the solver, the signal and the advice; the cause and where in a file beside
    line = first.stderr.strip()
    assert "\n" not in line and "solver 'faults_plugin:AbortOn[dim=8]' took the process down with SIGABRT" in line
    assert "--time-limit" in line
    report = (tmp_path / "results" / "abort.parquet.fault.txt").read_text()
    assert "Fatal Python error: Aborted" in report and "_solve" in report
    assert not out.exists()
    journal = tmp_path / "results" / ".abort.parquet.journal"
    assert len(list(journal.glob("*.started"))) == 1 and len(list(journal.glob("*.parquet"))) == 2

    second = _cli(*args, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    df = load_results([out])
    by_dim = df.groupby("dim")["status"].agg(list).to_dict()
    assert by_dim == {4: ["converged"] * 2, 8: ["crashed"] * 2, 16: ["converged"] * 2}
    crashed = df[df["dim"] == 8]  # retried in a child process, which the abort took down: seen, and named
    assert crashed["message"].str.contains("the solver took its process down \\(killed by SIGABRT").all()
    assert crashed["rel_residual"].isna().all()
    assert not journal.exists()
    board = leaderboard(df).set_index("solver").iloc[0]
    assert board["failed"] == 2 and board["success_rate"] == pytest.approx(2 / 3)
    assert np.isfinite(board["time_sgm_ms"])


def test_a_polite_kill_mid_solve_leaves_no_crash_mark(ising_dataset, tmp_path, faults):
    """SIGTERM (a scheduler stopping the job) is not the solver's fault: the rerun solves that system again."""
    out = tmp_path / "slow.parquet"
    args = ["solve", "--solver", "faults_plugin:SlowOn", "--dataset", ising_dataset, "--out", out, "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "qlsbench.cli", *map(str, args)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "QLSBENCH_TEST_SLOW": "1"},
    )
    _wait_for(lambda: faults.exists() and faults.read_text().strip(), 120, "the slow solve to start")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == -signal.SIGTERM
    journal = tmp_path / ".slow.parquet.journal"
    assert len(list(journal.glob("*.parquet"))) == 1 and not list(journal.glob("*.started"))
    rerun = _cli(*args, cwd=tmp_path)  # the same configuration, now quick
    assert rerun.returncode == 0, rerun.stderr
    assert (load_results([out])["status"] == "converged").all()


def test_a_runner_killed_mid_solve_reruns_to_the_rows_of_an_uninterrupted_run(ising_dataset, tmp_path, faults):
    """kill -9 of the runner (the OOM killer, a lost node) is not the solver's failure: the solve in flight is
    retried, and the results equal an uninterrupted run's, wall times aside."""
    out = tmp_path / "killed.parquet"
    args = [
        "solve",
        "--solver",
        "faults_plugin:SlowOn",
        "--repeats",
        "2",
        "--dataset",
        ising_dataset,
        "--out",
        out,
        "--quiet",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "qlsbench.cli", *map(str, args)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "QLSBENCH_TEST_SLOW": "1"},
    )
    _wait_for(lambda: faults.exists() and faults.read_text().strip(), 120, "the slow solve to start")
    proc.kill()
    assert proc.wait(timeout=60) == -signal.SIGKILL
    assert len(list((tmp_path / ".killed.parquet.journal").glob("*.started"))) == 1  # the solve in flight
    rerun = _cli(*args, cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    whole = tmp_path / "whole.parquet"
    assert _cli(*[str(whole) if a == out else a for a in args], cwd=tmp_path).returncode == 0
    pd.testing.assert_frame_equal(
        load_results([out]).drop(columns="wall_time"), load_results([whole]).drop(columns="wall_time")
    )


# ---------------------------------------------------------------- D: nothing left behind


_SLOW_WRITER = textwrap.dedent("""
    import sys, time
    from qlsbench.data import atomic_write

    def slow(tmp):
        tmp.write_text("partial")
        print("writing", flush=True)
        time.sleep(120)

    atomic_write(sys.argv[1], slow)
""")


def _start_slow_writer(target: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    return proc


def test_a_writer_killed_mid_write_leaves_a_temporary_file_the_next_write_removes(tmp_path):
    target = tmp_path / "out" / "table.parquet"
    killed = _start_slow_writer(target)
    killed.kill()
    killed.wait()
    left = list(target.parent.glob(".table.parquet.*.tmp"))
    assert len(left) == 1 and str(killed.pid) in left[0].name
    live = _start_slow_writer(target)  # a writer still at work: its file must survive
    try:
        other = target.parent / ".other.parquet.vm-1.abcdefgh.tmp"  # another target's: not this write's business
        other.write_text("x")
        atomic_write_text(target, "whole")
        assert target.read_text() == "whole"
        remaining = {p.name for p in target.parent.glob(".*.tmp")}
        assert left[0].name not in remaining and other.name in remaining
        assert any(f"-{live.pid}." in name for name in remaining)
    finally:
        live.kill()
        live.wait()
    assert [p.name for p in remove_stale_temporaries(target)] == [p for p in remaining if f"-{live.pid}." in p]
    assert {p.name for p in target.parent.iterdir()} == {"table.parquet", other.name}


def test_a_folder_of_many_targets_is_swept_in_one_pass(tmp_path):
    """A run's journal: one file per solve, so its temporaries are swept once when the run resumes."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)
    from qlsbench.data._writer import _host_tag

    host = _host_tag()
    stale = [tmp_path / f".{k}.parquet.{host}-{dead}.abcd1234.tmp" for k in ("a1", "b2")]
    kept = [
        tmp_path / f".c3.parquet.{host}-{os.getpid()}.abcd1234.tmp",
        tmp_path / ".c3.parquet.x1y2.tmp",
        tmp_path / "c3.parquet",
    ]
    for path in stale + kept:
        path.write_text("x")
    assert sorted(remove_stale_temporaries(tmp_path, every_target=True)) == sorted(stale)
    assert sorted(tmp_path.iterdir()) == sorted(kept)


_ISOLATED_RUN = textwrap.dedent("""
    import sys
    from qlsbench.bench import SolverSpec, run_solver

    run_solver(SolverSpec("faults_plugin:SlowOn", {"sleep": 60.0, "busy": sys.argv[3] == "busy"}), sys.argv[1],
               sys.argv[2], time_limit=600, progress=False)
""")


@pytest.mark.parametrize(
    "end, solve",
    [(signal.SIGKILL, "sleeping"), (signal.SIGTERM, "sleeping"), (signal.SIGKILL, "busy"), (signal.SIGTERM, "busy")],
)
def test_a_worker_whose_parent_was_killed_ends_at_once_and_quietly(ising_dataset, tmp_path, faults, end, solve):
    # "busy": a solve inside one long C call holds the interpreter lock, so nothing in the worker's Python can
    # notice the parent's end; the worker must end all the same (the kernel ends it).
    err = tmp_path / "stderr.txt"
    with open(err, "w") as stderr:  # the worker inherits it: what it would print lands here
        parent = subprocess.Popen(
            [sys.executable, "-c", _ISOLATED_RUN, str(ising_dataset), str(tmp_path / "r.parquet"), solve],
            stderr=stderr,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "QLSBENCH_TEST_SLOW": "1"},
        )
    _wait_for(lambda: faults.exists() and faults.read_text().strip(), 120, "the worker to start the slow solve")
    worker = int(faults.read_text().split()[0])
    assert worker != parent.pid and _running(worker)
    parent.send_signal(end)
    parent.wait()
    _wait_for(lambda: not _running(worker), 20, "the orphaned worker to end")  # not after its 60 s solve
    assert "Traceback" not in err.read_text() and "Error" not in err.read_text(), err.read_text()


def _in_session(sid: int) -> list[int]:
    """The live processes of session ``sid``: what a command started in its own session left running."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):  # ended while we looked
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_an_in_loop_sweep_killed_outright_leaves_no_process_behind(tmp_path, faults):
    """kill -9 of ``in-loop --jobs 2`` while both workers solve: the workers and multiprocessing's resource
    tracker end within seconds (they went on for minutes, then waited on a pipe to the dead parent), and the
    caller's output pipe closes, since nothing holds it any more."""
    args = [
        "in-loop",
        "--solver",
        "faults_plugin:Dawdler",
        "--family",
        "penalty",
        "--steps",
        "2",
        "--seeds",
        "2",
        "--jobs",
        "2",
        "--out",
        tmp_path / "loop.parquet",
        "--quiet",
    ]
    parent = subprocess.Popen(
        [sys.executable, "-m", "qlsbench.cli", *map(str, args)],
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for(
            lambda: faults.exists() and len(set(faults.read_text().split())) == 2, 120, "both workers to be solving"
        )
        assert len(_in_session(parent.pid)) >= 4  # the parent, two workers and the resource tracker
        parent.kill()
        parent.wait()
        _wait_for(lambda: not _in_session(parent.pid), 10, "the killed sweep's processes to end")
        parent.stdout.read()  # returns: every holder of the caller's pipe is gone (it blocked for minutes)
    finally:
        for pid in _in_session(parent.pid):
            os.kill(pid, signal.SIGKILL)
        parent.stdout.close()


def test_a_worker_dying_while_it_starts_is_named_and_leaves_nothing_open(ising_dataset, faults):
    system = next(iter_systems(ising_dataset))
    worker = IsolatedSolver("faults_plugin:DiesWhenBuilt", {}, time_limit=30.0)
    with pytest.raises(
        SolverProcessError,
        match=r"'faults_plugin:DiesWhenBuilt': its process died while starting "
        r"\(exit code 3\)",
    ):
        worker.solve(system, 0)
    worker.close()  # nothing left to close: no AttributeError on the pipe
    assert worker._proc is None and worker._conn is None


def test_a_worker_that_cannot_reach_its_parent_exits_quietly():
    code = textwrap.dedent("""
        import multiprocessing as mp
        from qlsbench.bench._isolation import _worker_main

        parent, child = mp.Pipe()
        parent.close()
        _worker_main(child, "lu", {})
        raise SystemExit(7)  # not reached: the worker exits at the broken pipe
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr


# ---------------------------------------------------------------- E: a system that occurs many times counts once


def test_a_system_that_occurs_many_times_is_ranked_once(tmp_path, faults):
    small = LinearSystem(np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0]), {"family": "dem_c"})
    data = write_systems(
        [small] * 27 + [ising_inspired(n, 10.0) for n in (2, 3, 4)], tmp_path / "datasets" / "dem" / "part-0000.parquet"
    )
    for spec in (SolverSpec("lu"), SolverSpec("faults_plugin:FailOnSmall", label="fails-small")):
        df = run_solver(spec, data, tmp_path / "results" / f"{spec.label}.parquet", repeats=2, progress=False)
        assert len(df) == 30 * 2
    results = load_results([tmp_path / "results"])
    board = leaderboard(results).set_index("solver")
    assert (board["systems"] == 4).all() and (board["solves"] == 8).all()
    assert board.loc["fails-small", "success_rate"] == pytest.approx(3 / 4)  # not 3 / 30
    assert board.loc["fails-small", "failed"] == 2 and board.loc["lu", "failed"] == 0
    # The same system in a second dataset is still one system in the ranking.
    again = results[results["system_id"] == small.system_id].assign(dataset="other")
    board = leaderboard(pd.concat([results, again], ignore_index=True)).set_index("solver")
    assert (board["systems"] == 4).all() and board.loc["fails-small", "success_rate"] == pytest.approx(3 / 4)


def test_a_result_that_cannot_leave_the_worker_is_an_error_row_saying_why(ising_dataset, tmp_path, faults):
    """Under a time limit the result is pickled back to the runner: one that cannot be is a row naming the cause,
    not 'solver process died (exit code 1)' and a worker traceback."""
    df = run_solver(
        SolverSpec("faults_plugin:Unsendable"), ising_dataset, tmp_path / "r.parquet", time_limit=60, progress=False
    )
    assert (df["status"] == "error").all()
    assert df["message"].str.contains("cannot be sent back from its process").all()
    assert not df["message"].str.contains("process died").any()


def test_a_solver_process_that_cannot_start_ends_the_command_in_one_line(ising_dataset, tmp_path, faults, capsys):
    from qlsbench.cli import main

    code = main(
        [
            "solve",
            "--solver",
            "faults_plugin:DiesWhenBuilt",
            "--dataset",
            str(ising_dataset),
            "--out",
            str(tmp_path / "r.parquet"),
            "--time-limit",
            "30",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "its process died while starting (exit code 3)" in err, err


@pytest.mark.parametrize(
    "yaml_text, culprit",
    [
        ("run: {repeats: three}\nsolvers: [{name: lu}]\n", "board.yaml: run: repeats must be"),
        ("run: {time_limt: 30}\nsolvers: [{name: lu}]\n", "board.yaml: run: unknown key(s) time_limt"),
        ("run: {time_limit: -1}\nsolvers: [{name: lu}]\n", "board.yaml: run: time_limit must be"),
        ("solvers: [{name: lu}, {name: cg, repeat: 2}]\n", "board.yaml: solvers[1]: unknown key(s) repeat"),
        ("solvers: [{name: cg, max_qubits: .nan}]\n", "board.yaml: solvers[0]: max_qubits must be"),
        ("solvers: [{name: cg, options: [1, 2]}]\n", "board.yaml: solvers[0]: options must be a mapping"),
    ],
)
def test_a_board_config_error_names_the_file_the_entry_and_the_key(tmp_path, yaml_text, culprit):
    folder = tmp_path / "board"
    folder.mkdir()
    (folder / "board.yaml").write_text("version: 1\n" + yaml_text)
    with pytest.raises(InputError) as error:
        run_board(Board(folder), tmp_path / "results", progress=False)
    assert culprit in str(error.value) and "\n" not in str(error.value)
    assert not (tmp_path / "results").exists()
