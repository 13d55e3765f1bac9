"""The advantage map's systems: the Poisson control's exact spectrum, and the profile every system gets (issue 63).

Truth here: the Laplacian's eigenvalues are known in closed form, dense SVD is exact to rounding, and the sparse
estimates used above 4,096 unknowns must agree with it at every size where both run.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.data import pinned, to_system
from qlsbench.errors import InputError
from qlsbench.problems import ising_inspired, poisson, poisson_kappa, poisson_matrix, profile


@pytest.mark.parametrize(("dims", "points"), [(1, 1), (1, 40), (2, 12), (3, 6)])
def test_the_laplacians_spectrum_is_the_closed_form(dims, points):
    A = poisson_matrix(dims, points).toarray()
    eigenvalues = np.linalg.eigvalsh(A)
    k = np.arange(1, points + 1)
    one_axis = 4 * np.sin(k * np.pi / (2 * (points + 1))) ** 2
    grid = np.meshgrid(*[one_axis] * dims, indexing="ij")
    assert np.allclose(np.sort(sum(g.ravel() for g in grid)), eigenvalues, rtol=1e-12, atol=1e-12)
    assert eigenvalues[-1] / eigenvalues[0] == pytest.approx(poisson_kappa(points), rel=1e-10)


def test_the_controls_kappa_grows_as_n_to_the_two_over_d():
    """kappa = cot^2(pi / (2 (m + 1))) ~ (2 (m + 1) / pi)^2: doubling m multiplies it by about 4 in any dimension."""
    assert poisson_kappa(1) == pytest.approx(1.0)
    ratios = [poisson_kappa(2 * m) / poisson_kappa(m) for m in (50, 100, 200)]
    assert all(3.9 < r < 4.01 for r in ratios), ratios
    assert poisson_kappa(1000) == pytest.approx((2 * 1001 / np.pi) ** 2, rel=1e-5)


def _sizes():
    """Systems of every kind the map holds, small enough for a dense SVD in well under a second."""
    df = pinned("dem_c-mu0")
    dem = to_system(df.loc[df["n_qubits"].idxmax()])
    return {
        "poisson-1d-800": poisson_matrix(1, 800),
        "poisson-2d-40": poisson_matrix(2, 40),
        "poisson-3d-9": poisson_matrix(3, 9),
        "ising-9": ising_inspired(9, kappa=100.0).A,
        f"dem_c-{dem.dim}": dem.A,
        "nonsymmetric-300": sp.random(300, 300, density=0.02, random_state=1) + 3 * sp.identity(300),
    }


@pytest.mark.parametrize("name", list(_sizes()))
def test_the_sparse_kappa_estimate_matches_dense_svd(name):
    A = _sizes()[name]
    dense, sparse = profile(A), profile(A, dense_limit=0)
    assert dense["kappa_method"] == "dense" and sparse["kappa_method"] == "sparse"
    assert sparse["norm2"] == pytest.approx(dense["norm2"], rel=1e-8)
    assert sparse["kappa"] == pytest.approx(dense["kappa"], rel=1e-6)


def test_the_profile_counts_the_stencil():
    m = 9
    p = profile(poisson_matrix(2, m))
    assert (p["N"], p["s"], p["max_abs"]) == (m * m, 5, 4.0)
    assert p["nnz"] == 5 * m * m - 4 * m  # each of 4 directions loses one neighbour per boundary row
    assert p["kappa"] == pytest.approx(poisson_kappa(m), rel=1e-10)
    A = sp.csr_matrix(np.array([[1.0, 0.0, 5.0], [0.0, 2.0, 0.0], [0.0, 0.0, -7.0]]))
    A.data[A.data == 2.0] = 0.0  # a stored zero is not an entry
    q = profile(A)
    assert (q["nnz"], q["s"], q["max_abs"], q["kappa"]) == (3, 2, 7.0, np.inf)


def test_the_control_system_and_its_bad_input():
    system = poisson(2, 8)
    assert system.dim == 64 and system.meta["kappa"] == poisson_kappa(8) and np.linalg.norm(system.b) == 1.0
    with pytest.raises(InputError, match="dims must be 1, 2 or 3"):
        poisson(4, 3)
    with pytest.raises(InputError, match="above the limit"):
        poisson(3, 300)
    with pytest.raises(InputError, match="points"):
        poisson(1, 0)
