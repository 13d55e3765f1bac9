"""The MPS (tensor-train) peer solver (contrib/mps_als) through the ``external`` solver, in its own environment.

Building that environment (quimb and numba from the package index) takes a minute or more, so this test does not
build it: it runs where ``contrib/mps_als/requirements.txt`` has been built already (by a ``qlsbench compare`` or
``board verify`` of the peer, or by the command in the skip reason) and skips, saying so, where it has not.

At a bond dimension that reaches the largest bond of the qubit count, ``min(2^k, 2^(n-k))``, the MPS can hold
every vector, and one sweep of exact local solves must return the dense solution to rounding; below it, it must
not (the bond cap is real), and it must report the parameters of the MPS it used.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.problems import LinearSystem
from qlsbench.solvers import Status, get
from qlsbench.solvers.environments import environments_folder, requirements_key

PEER = Path(__file__).resolve().parents[1] / "contrib" / "mps_als"
REQUIREMENTS = PEER / "requirements.txt"


def _built() -> bool:
    """Whether the peer's pinned environment exists (named as qlsbench.solvers.environments names it)."""
    target = environments_folder() / f"{REQUIREMENTS.stem}-{requirements_key(REQUIREMENTS)}"
    return (target / "bin" / "python").is_file()


pytestmark = pytest.mark.skipif(
    not _built(),
    reason=f"the MPS peer's environment is not built in {environments_folder()} (build it once: "
    f'python -c "from qlsbench.solvers.environments import interpreter; '
    f"interpreter('contrib/mps_als/requirements.txt')\")",
)


def _system(n: int, complex_: bool = False, seed: int = 0) -> LinearSystem:
    """A nonsymmetric system on n qubits with an unstructured solution (no MPS of small bond dimension holds it)."""
    rng = np.random.default_rng(seed)
    dim = 2**n
    M = rng.standard_normal((dim, dim)) + (1j * rng.standard_normal((dim, dim)) if complex_ else 0)
    A = M / np.sqrt(dim) + 2 * np.eye(dim)  # condition number of order ten
    b = rng.standard_normal(dim) + (1j * rng.standard_normal(dim) if complex_ else 0)
    return LinearSystem(sp.csr_matrix(A), b, {"family": "test", "n_qubits": n})


def _mps(**options):
    return get(
        "external",
        environment=str(REQUIREMENTS),
        entry=f"{PEER / 'solver.py'}:solve",
        solver_options=options,
        peer="mps-als",
    )


@pytest.mark.parametrize("complex_", [False, True])
def test_full_bond_dimension_is_a_dense_solve(complex_):
    system = _system(4, complex_)
    result = _mps(bond_dim=4).solve(system, seed=3)
    assert result.status == Status.CONVERGED, result.message
    np.testing.assert_allclose(result.x, np.linalg.solve(system.A.toarray(), system.b), rtol=1e-10, atol=1e-12)
    assert np.iscomplexobj(result.x) == complex_
    res = result.resources
    assert res["parameters"] == 2 * (1 * 2 + 2 * 4 + 4 * 2 + 2 * 1)  # bonds 2, 4, 2 on four sites
    assert result.iterations == 1 and res["cost_evaluations"] == 6  # one sweep: three pairs each way
    assert res["environment"]["packages"]["quimb"] == "1.16.0"  # the peer's environment answered, not ours


def test_below_full_bond_dimension_it_is_not():
    system = _system(4)
    result = _mps(bond_dim=2, max_sweeps=5).solve(system, seed=3)
    x, exact = result.x, np.linalg.solve(system.A.toarray(), system.b)
    assert result.status in (Status.STALLED, Status.MAX_ITER)
    assert result.resources["parameters"] == 2 * (1 * 2 + 2 * 2 + 2 * 2 + 2 * 1)
    assert np.linalg.norm(x - exact) > 1e-3 * np.linalg.norm(exact)
    assert len(result.history) == result.iterations and result.history[-1] <= result.history[0] * (1 + 1e-12)
