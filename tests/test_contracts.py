"""One contract for every registered solver and every LCP method, checked here without naming them.

A solver added to the registry (built in or through the ``qlsbench.solvers``
entry point) and a line added to the LCP method table are tested by this file
with no edit. Where a member may differ from the rest, the tables below say
so explicitly, with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from solver_setups import REQUIRED

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics import LCP, LCP_METHODS, LCPResult, solve_lcp
from qlsbench.problems import (
    LinearSystem,
    ising_inspired,
    pad_and_normalize,
    reference_solution,
)
from qlsbench.solvers import SolveResult, available, get
from qlsbench.solvers.base import RETURNED

# ---------------------------------------------------------------- linear solvers

#: Options that keep a slow solver's contract run short; its defaults are the paper's budgets (minutes).
QUICK_OPTIONS = {"vnls": {"n_iter": 20, "n_samples": 128}, "qsvt": {"epsilon": 0.1}, **REQUIRED}
#: (solver, system) pairs on which the solver declines the system, as it must say with a ``skipped`` status:
#: CG and MINRES are for symmetric matrices only.
DECLINES = {("cg", "nonsymmetric"), ("minres", "nonsymmetric")}
#: Solvers whose read-out need not reach the residual bar on these tiny systems within QUICK_OPTIONS (HHL's
#: converged means its rtol, 1e-2 by default: the clock's precision, unless refinement rounds are asked for; QSVT's
#: answer is as close as its polynomial, epsilon). The null solvers' converged means they returned their answer
#: (b, a random vector), which is no solution: what they score is what the pages set the solvers against
#: (tests/test_controls.py checks their scores).
APPROXIMATE = {"vnls", "vqls-global", "vqls-local", "hhl", "qsvt", "null-b", "null-random"}


def _nonsymmetric() -> LinearSystem:
    A = sp.csr_matrix(
        np.array([[4.0, 1.0, 0.0, 0.5], [-1.0, 3.0, 0.5, 0.0], [0.0, -0.5, 5.0, 1.0], [0.3, 0.0, -1.0, 4.0]])
    )
    return pad_and_normalize(LinearSystem(A, np.array([1.0, 0.0, 2.0, -1.0]), meta={"family": "contract"}))


SYSTEMS = {"spd": ising_inspired(2, 10.0), "nonsymmetric": _nonsymmetric()}


def _solver(name: str):
    return get(name, **QUICK_OPTIONS.get(name, {}))


@pytest.fixture(scope="module", params=available())
def solved(request):
    """Each solver on each contract system, twice with one seed and once with another."""
    name = request.param
    out = {}
    for key, system in SYSTEMS.items():
        out[key] = [_solver(name).solve(system, seed=seed) for seed in (3, 3)]
    return name, out


def test_result_shape_and_status(solved):
    name, out = solved
    for key, (result, _) in out.items():
        system = SYSTEMS[key]
        assert isinstance(result, SolveResult) and isinstance(result.status, Status), (name, key)
        if (name, key) in DECLINES:
            assert result.status is Status.SKIPPED and result.message, (name, key)
            continue
        assert result.status in RETURNED, (name, key, result.status, result.message)
        assert result.x is not None and result.x.shape == (system.dim,) and np.all(np.isfinite(result.x))
        residual = np.linalg.norm(system.A @ result.x - system.b) / np.linalg.norm(system.b)
        if result.status is Status.CONVERGED and name not in APPROXIMATE:
            assert residual <= 1e-6, (name, key, residual)
        if name not in APPROXIMATE:
            x_ref = reference_solution(system.A, system.b)
            assert np.allclose(result.x, x_ref, atol=1e-6), (name, key)


def test_the_same_seed_gives_the_same_answer(solved):
    name, out = solved
    for key, (first, again) in out.items():
        if first.x is None:
            assert again.x is None and again.status is first.status
            continue
        np.testing.assert_array_equal(first.x, again.x, err_msg=f"{name} on {key}")
        assert first.status is again.status


@pytest.mark.parametrize("name", available())
def test_an_unknown_option_is_refused_by_name(name):
    with pytest.raises(InputError, match="no_such_option"):
        get(name, no_such_option=1)


@pytest.mark.parametrize("name", available())
def test_the_solver_records_its_options(name):
    solver = _solver(name)
    assert solver.name == name or name.endswith(solver.name)
    assert isinstance(solver.options, dict)
    for key, value in QUICK_OPTIONS.get(name, {}).items():
        assert solver.options[key] == value


# ---------------------------------------------------------------- LCP methods

#: Methods that do not take a start point (a pivoting method starts from its own basis).
NO_START = {"lemke"}


def _lcp(seed: int, m: int = 12) -> LCP:
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((m, m))
    return LCP(B @ B.T + m * np.eye(m), rng.standard_normal(m))


@pytest.mark.parametrize("method", list(LCP_METHODS))
@pytest.mark.parametrize("seed", [0, 1])
def test_every_lcp_method_solves_a_positive_definite_lcp(method, seed):
    lcp = _lcp(seed)
    result = solve_lcp(lcp, method)
    assert isinstance(result, LCPResult) and isinstance(result.status, Status)
    assert result.status is Status.CONVERGED, result.message
    assert result.y.shape == (lcp.size,) and np.all(result.y >= 0)
    assert result.residual == pytest.approx(lcp.natural_residual(result.y), abs=1e-14)
    assert result.residual <= 1e-8 * (1 + np.linalg.norm(lcp.r))
    other = solve_lcp(lcp, "lemke")  # a P-matrix LCP has one solution
    np.testing.assert_allclose(result.y, other.y, atol=1e-7)
    np.testing.assert_array_equal(solve_lcp(lcp, method).y, result.y)  # deterministic


@pytest.mark.parametrize("method", sorted(set(LCP_METHODS) - NO_START))
def test_lcp_methods_that_take_a_start_use_it(method):
    lcp = _lcp(2)
    exact = solve_lcp(lcp, "lemke").y
    warm = solve_lcp(lcp, method, y0=exact)
    assert warm.status is Status.CONVERGED and warm.iterations <= 1


@pytest.mark.parametrize("method", list(LCP_METHODS))
def test_lcp_methods_refuse_unknown_options_by_name(method):
    with pytest.raises(InputError, match="no_such_option"):
        solve_lcp(_lcp(0), method, no_such_option=1)


def test_an_unknown_lcp_method_lists_the_table():
    with pytest.raises(InputError, match="unknown LCP method 'simplex'; available: " + ", ".join(LCP_METHODS)):
        solve_lcp(_lcp(0), "simplex")
