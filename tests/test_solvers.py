"""Classical solvers against dense solves; statuses where they do not apply; the registry."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_system

from qlsbench import solvers
from qlsbench.errors import InputError, UnknownSolverError
from qlsbench.problems import LinearSystem, ising_inspired
from qlsbench.solvers import Solver, Status
from qlsbench.solvers.registry import BUILTINS, options_of

ALL = ["lu", "splu", "cg", "minres", "gmres", "bicgstab"]
GENERAL = ["lu", "splu", "gmres", "bicgstab"]  # need no symmetry


def _rel_residual(system, x):
    return np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b)


def _spd_systems():
    rng = np.random.default_rng(7)
    return [ising_inspired(6, 100.0), random_system(rng, 50, spd=True), random_system(rng, 30, spd=True, complex_=True)]


@pytest.mark.parametrize("name", ALL)
def test_every_solver_solves_spd_systems(name):
    for system in _spd_systems():
        if name == "minres" and system.is_complex:
            continue  # see test_minres_refuses_complex_input
        result = solvers.get(name).solve(system)
        assert result.status == Status.CONVERGED, result.message
        assert _rel_residual(system, result.x) <= 1e-8
        np.testing.assert_allclose(result.x, np.linalg.solve(system.A.toarray(), system.b), rtol=1e-6, atol=1e-9)
        assert result.wall_time > 0 and result.iterations >= 1


@pytest.mark.parametrize("name", GENERAL)
def test_general_solvers_solve_nonsymmetric_systems(name):
    system = random_system(np.random.default_rng(3), 60)
    result = solvers.get(name).solve(system)
    assert result.status == Status.CONVERGED, result.message
    assert _rel_residual(system, result.x) <= 1e-8


@pytest.mark.parametrize("name", ["cg", "minres"])
def test_symmetric_only_solvers_say_so_on_nonsymmetric_input(name):
    system = random_system(np.random.default_rng(3), 20)
    result = solvers.get(name).solve(system)
    assert result.status == Status.SKIPPED and result.x is None
    assert "requires a symmetric (Hermitian) matrix" in result.message


@pytest.mark.parametrize("name", ["cg", "minres", "gmres", "bicgstab"])
def test_iteration_cap_gives_max_iter(name):
    system = ising_inspired(7, 100.0)
    options = {"maxiter": 2, "restart": 1} if name == "gmres" else {"maxiter": 2}
    result = solvers.get(name, **options).solve(system)
    assert result.status == Status.MAX_ITER
    assert "no convergence" in result.message
    assert _rel_residual(system, result.x) > 1e-8


@pytest.mark.parametrize("name", ["cg", "minres", "bicgstab"])
def test_history_is_the_true_residual(name):
    system = ising_inspired(5, 10.0)
    result = solvers.get(name, rtol=1e-12).solve(system)
    assert len(result.history) == result.iterations
    assert result.history[-1] == pytest.approx(_rel_residual(system, result.x), rel=1e-6, abs=1e-15)
    assert result.history[-1] < result.history[0]
    assert solvers.get(name, history=False).solve(system).history == []


@pytest.mark.parametrize("name", ["lu", "splu"])
def test_direct_solvers_report_singular_matrices(name):
    system = LinearSystem(sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])), np.ones(3))
    result = solvers.get(name).solve(system)
    assert result.status == Status.ERROR and "singular" in result.message


def test_registry_lists_builtins_and_refuses_unknowns():
    names = solvers.available()
    assert set(ALL) <= set(names)
    with pytest.raises(UnknownSolverError, match="unknown solver 'nope'; available: .*cg"):
        solvers.get("nope")
    with pytest.raises(InputError, match="solver 'cg': unknown option\\(s\\) 'tolerance'; accepted: rtol, atol"):
        solvers.get("cg", tolerance=1e-3)
    with pytest.raises(InputError, match="minres has no absolute tolerance"):
        solvers.get("minres", atol=1e-3)


def test_solvers_meet_the_protocol_and_record_options():
    solver = solvers.get("gmres", rtol=1e-9, restart=5)
    assert isinstance(solver, Solver)
    assert solver.options == {"rtol": 1e-9, "atol": 0.0, "maxiter": None, "history": True, "restart": 5}


def test_entry_point_plugin_is_discovered_and_solves(plugin_path):
    assert "normal-cg" in solvers.available()
    system = random_system(np.random.default_rng(11), 25)  # non-symmetric: CG itself would refuse
    result = solvers.get("normal-cg", rtol=1e-14).solve(system)
    assert result.status == Status.CONVERGED
    assert _rel_residual(system, result.x) <= 1e-8


def test_plugin_cannot_shadow_a_builtin(plugin_path):
    ep_file = next(plugin_path.glob("*.dist-info")) / "entry_points.txt"
    ep_file.write_text(ep_file.read_text() + "cg = qlsbench_testplugin:CrashSolver\n")
    assert solvers.available().count("cg") == 1
    assert type(solvers.get("cg")).__module__ == "qlsbench.solvers.classical"


def test_minres_refuses_complex_input():
    system = _spd_systems()[2]
    result = solvers.get("minres").solve(system)
    assert result.status == Status.SKIPPED and "real symmetric matrices only" in result.message


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_takes_exactly_its_options_record_and_says_what_each_option_means(name):
    """``qlsbench solvers NAME`` reads the record without importing the solver: the record must be the solver's."""
    entry = BUILTINS[name]
    module, attr = entry.solver.split(":")
    cls = getattr(importlib.import_module(module), attr)
    fields = [(f.name, f.default) for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []
    if entry.options is None:
        assert fields == [] and options_of(name) == []
        return
    assert issubclass(cls, entry.options)
    assert fields == [(f.name, f.default) for f in dataclasses.fields(entry.options)]
    assert entry.summary and "docstring" not in entry.summary
    for option in options_of(name):
        assert option.help and "\n" not in option.help and "docstring" not in option.help, option.name
        assert option.type, option.name


def test_a_solver_of_an_extra_not_installed_is_refused_in_one_line_naming_the_extra(monkeypatch):
    """A core install (no qiskit, no netket) refuses the quantum and neural solvers before building them."""
    import importlib.util

    from qlsbench.errors import InputError
    from qlsbench.solvers import registry

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] in ("qiskit", "netket") else real(name, *a),
    )
    for name, extra in (("vqls-local", "quantum"), ("hhl", "quantum"), ("qsvt", "qsvt"), ("vnls", "vnls")):
        with pytest.raises(
            InputError,
            match=rf"solver '{name}' needs the {extra} extra: pip install "
            rf"'qlsbench\[{extra}\]'",
        ):
            registry.get(name)
    assert registry.get("cg").name == "cg"  # the core's solvers are untouched
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyqsp" else real(name, *a))
    with pytest.raises(InputError, match=r"solver 'qsvt' needs the qsvt extra: .*\(pyqsp not installed\)"):
        registry.get("qsvt")


def test_the_core_loads_solves_and_ranks_with_every_optional_package_missing(tmp_path):
    """The core install's promise, in a child whose imports of the extras' packages fail: load the pinned set,
    solve it classically through the runner, rank it, and list the solvers."""
    import subprocess
    import sys

    script = tmp_path / "core.py"
    script.write_text(f"""
import importlib.abc, sys
BLOCKED = {{"qiskit", "qiskit_aer", "qiskit_ibm_runtime", "qiskit_machine_learning", "pyqsp", "netket", "jax", "jaxlib",
           "flax", "snakemake", "datasets", "asv"}}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("optional package " + name)
sys.meta_path.insert(0, Block())
from qlsbench.bench import SolverSpec, leaderboard, run_solver
from qlsbench.data import pinned
from qlsbench.data import PINNED
rows = run_solver(SolverSpec("cg"), PINNED / "systems" / "ising.parquet", {str(tmp_path / "cg.parquet")!r},
                  progress=False)
board = leaderboard(rows)
assert len(pinned()) == 47 and (rows["status"] == "converged").all() and board["solver"].tolist() == ["cg"]
from qlsbench.cli import main
assert main(["solvers"]) == 0
leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
assert not leaked, leaked
print("core ok")
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "core ok" in done.stdout, done.stderr[-3000:]
