"""Shared fixtures: small systems, a written dataset and an installed-looking plug-in."""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import textwrap
from pathlib import Path

import hypothesis
import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.data import write_systems
from qlsbench.problems import LinearSystem, ising_inspired

# Hypothesis' per-example deadline (200 ms) is a timed test: on a machine with other work on its cores an example
# took 631 ms once and 0.24 ms on the rerun, and the run failed as "flaky"; the too-slow health check times the
# drawing the same way. Speed is measured in benchmarks/.
hypothesis.settings.register_profile("qlsbench", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile("qlsbench")

PLUGIN_MODULE = textwrap.dedent('''
    """Solvers used by the tests through the qlsbench.solvers entry-point group."""
    import os
    import time
    from dataclasses import dataclass
    from typing import ClassVar

    import numpy as np
    import scipy.sparse.linalg as spla

    from qlsbench.solvers import BaseSolver, SolveResult, Status


    @dataclass
    class NormalEquationsCG(BaseSolver):
        """CG on the normal equations A^T A x = A^T b (works for any non-singular A)."""
        name: ClassVar[str] = "normal-cg"
        rtol: float = 1e-12

        def _solve(self, system, seed):
            A = system.A
            x, info = spla.cg(A.T @ A, A.T @ system.b, rtol=self.rtol, maxiter=10 * system.dim)
            return SolveResult(x, Status.CONVERGED if info == 0 else Status.MAX_ITER)


    @dataclass
    class CrashSolver(BaseSolver):
        """Raises on every solve."""
        name: ClassVar[str] = "crash"

        def _solve(self, system, seed):
            raise ZeroDivisionError("deliberate crash")


    @dataclass
    class HangSolver(BaseSolver):
        """Sleeps far past any test time limit on systems of dimension `hang_dim` (all if < 0)."""
        name: ClassVar[str] = "hang"
        hang_dim: int = -1

        def _solve(self, system, seed):
            if self.hang_dim < 0 or system.dim == self.hang_dim:
                time.sleep(600)
            return SolveResult(np.zeros(system.dim), Status.MAX_ITER)


    @dataclass
    class DieSolver(BaseSolver):
        """Kills its own process, as a segfault would."""
        name: ClassVar[str] = "die"

        def _solve(self, system, seed):
            os._exit(3)


    @dataclass
    class SegfaultSolver(BaseSolver):
        """Dereferences a null pointer: a real SIGSEGV."""
        name: ClassVar[str] = "segfault"

        def _solve(self, system, seed):
            import ctypes
            ctypes.string_at(0)


    @dataclass
    class NaNSolver(BaseSolver):
        """Claims convergence with a NaN-filled solution."""
        name: ClassVar[str] = "nan"

        def _solve(self, system, seed):
            return SolveResult(np.full(system.dim, np.nan), Status.CONVERGED, "all good")


    @dataclass
    class CountingSolver(BaseSolver):
        """Dense solve that appends one line per call to the file named by $QLSBENCH_TEST_CALLS.

        Sleeps `sleep` seconds per call; raises KeyboardInterrupt on the call whose number is
        $QLSBENCH_TEST_INTERRUPT_AT (an environment variable, so the options - and with them the
        journal key - are the same in the interrupted run and the resumed one).
        """
        name: ClassVar[str] = "counting"
        sleep: float = 0.0

        def _solve(self, system, seed):
            log = os.environ["QLSBENCH_TEST_CALLS"]
            with open(log, "a") as f:
                f.write(f"{system.system_id} {seed}\\n")
            with open(log) as f:
                calls = len(f.read().splitlines())
            if calls == int(os.environ.get("QLSBENCH_TEST_INTERRUPT_AT", "0")):
                raise KeyboardInterrupt
            time.sleep(self.sleep)
            return SolveResult(np.linalg.solve(system.A.toarray(), system.b), Status.CONVERGED)
''')

ENTRY_POINTS = textwrap.dedent("""
    [qlsbench.solvers]
    normal-cg = qlsbench_testplugin:NormalEquationsCG
    crash = qlsbench_testplugin:CrashSolver
    hang = qlsbench_testplugin:HangSolver
    die = qlsbench_testplugin:DieSolver
    segfault = qlsbench_testplugin:SegfaultSolver
    nan = qlsbench_testplugin:NaNSolver
    counting = qlsbench_testplugin:CountingSolver
""")

#: The fast tier (`pytest -m fast`), one entry a line: a test's node id without its parameters (every case of it),
#: or an fnmatch pattern with ``*``; tests/test_fast_tier.py checks that it runs every module of the package.
FAST_TESTS = Path(__file__).with_name("fast_tests.txt")


def fast_patterns() -> list[str]:
    """The fast tier's entries, comments and blank lines left out."""
    lines = (line.split("#", 1)[0].strip() for line in FAST_TESTS.read_text().splitlines())
    return [line for line in lines if line]


def in_fast_tier(nodeid: str, entry: str) -> bool:
    """Whether a test is one an entry of :data:`FAST_TESTS` names."""
    return nodeid == entry or nodeid.startswith(entry + "[") or ("*" in entry and fnmatch.fnmatchcase(nodeid, entry))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    """Mark the tests :data:`FAST_TESTS` names ``fast``: the list, not the test files, says what the tier holds.

    When whole files were collected (no node id or ``-k`` on the command line), an entry of a collected file that
    matches no test is an error: a test renamed or removed would otherwise leave the tier quietly.
    """
    patterns, matched = fast_patterns(), set()
    for item in items:
        hits = [pattern for pattern in patterns if in_fast_tier(item.nodeid, pattern)]
        if hits:
            item.add_marker(pytest.mark.fast)
            matched.update(hits)
    whole_files = not config.option.keyword and not any("::" in str(arg) for arg in config.args)
    files = {item.nodeid.split("::", 1)[0] for item in items}
    stale = [p for p in patterns if p not in matched and p.split("::", 1)[0] in files]
    if whole_files and stale:
        raise pytest.UsageError(f"{FAST_TESTS.name} names tests that do not exist: {', '.join(stale)}")


@pytest.fixture(scope="session", autouse=True)
def _session_folder(tmp_path_factory):
    """Module and session fixtures start in an empty folder, not in the clone (issue 62).

    A workflow or ``qlsbench`` run leaves ``datasets/``, ``results/``, ``logs/``, ``submissions/`` and
    ``.snakemake/`` in the folder it ran in; a fixture that read a relative path there would see that state.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("session-cwd"))
        yield


@pytest.fixture(autouse=True)
def _own_folder(tmp_path_factory, monkeypatch):
    """Every test starts in an empty folder of its own, so none reads what an earlier run left in the clone.

    The folder is not ``tmp_path``: tests check that a failed command leaves ``tmp_path`` as it was. A test
    that means the shipped files names them from ``REPO``; one that means the clone's folder says so with
    ``monkeypatch.chdir``.
    """
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    """Make a plug-in distribution importable, as `pip install` would.

    The folder holds the module and a ``.dist-info`` with ``entry_points.txt``;
    importlib.metadata discovers it from ``sys.path`` exactly as it discovers
    an installed package. ``PYTHONPATH`` is set too, for child processes.
    """
    root = tmp_path / "site"
    root.mkdir()
    (root / "qlsbench_testplugin.py").write_text(PLUGIN_MODULE)
    info = root / "qlsbench_testplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: qlsbench-testplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    return root


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_system(rng, n, *, spd=False, density=0.3, complex_=False) -> LinearSystem:
    """A well-conditioned random sparse system (diagonally dominant)."""
    M = sp.random(n, n, density=density, random_state=rng, format="csr")
    if complex_:
        M = M + 1j * sp.random(n, n, density=density, random_state=rng, format="csr")
    if spd:
        M = M @ M.conj().T
    A = M + sp.identity(n) * (abs(M).sum(axis=1).max() + 1.0)
    b = rng.normal(size=n) + (1j * rng.normal(size=n) if complex_ else 0)
    return LinearSystem(A, b, {"family": "random", "scene": f"n{n}"})


@pytest.fixture
def ising_dataset(tmp_path):
    """A small Ising dataset file: n = 2, 3, 4 at kappa = 10."""
    path = tmp_path / "datasets" / "ising" / "kappa10" / "part-0000.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3, 4)], path)
    return path


def _diagonally_dominant(n: int, seed: int) -> LinearSystem:
    rng = np.random.default_rng(seed)
    N = 2**n
    M = sp.random(N, N, density=0.2, random_state=rng, format="csr")
    A = sp.csr_matrix(M + M.T + sp.identity(N) * (abs(M).sum(axis=1).max() * 2 + 1))
    return LinearSystem(A, rng.normal(size=N), {"family": "random", "scene": f"dd-n{n}"})


@pytest.fixture(scope="session")
def _small_board_template(tmp_path_factory):
    """The small board, run and published once per test process (a run spawns solver workers: seconds)."""
    root = tmp_path_factory.mktemp("small-board")
    folder = root / "board"
    folder.mkdir()
    groups = {
        "ising": [ising_inspired(n, 100.0) for n in (2, 3, 4)],
        "dd": [_diagonally_dominant(n, n) for n in (3, 5)],
    }
    entries = []
    for group, systems in groups.items():
        write_systems(systems, folder / "systems" / f"{group}.parquet")
        entries += [
            {
                "name": f"{group}-{s.dim}",
                "group": group,
                "system_id": s.system_id,
                "family": group,
                "n_qubits": s.dim.bit_length() - 1,
                "cond": 0.0,
                "symmetric": True,
            }
            for s in systems
        ]
    from qlsbench.data import dataset_hash

    manifest = {
        "version": 1,
        "systems": entries,
        "groups": {g: dataset_hash(folder / "systems" / f"{g}.parquet") for g in groups},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "board.yaml").write_text(
        "version: 1\nrun: {repeats: 2, seed: 0, time_limit: 30}\n"
        "solvers: [{name: lu}, {name: cg, options: {rtol: 1.0e-12}}]\n"
    )
    from qlsbench.bench.board import Board, run_board
    from qlsbench.report import publish

    board = Board(folder)
    run_board(board, root / "board-results", progress=False)
    publish(board, root / "board-results", root / "pages")
    return root


@pytest.fixture
def small_board(tmp_path, _small_board_template):
    """A board of two groups (Ising and diagonally dominant systems) with lu and cg published.

    Each test gets its own copy (board, results and pages under its ``tmp_path``), free to add to it.
    """
    from qlsbench.bench.board import Board

    for name in ("board", "board-results", "pages"):
        shutil.copytree(_small_board_template / name, tmp_path / name)
    return Board(tmp_path / "board")
