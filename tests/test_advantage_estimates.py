"""The quantum side of the advantage map, part by part: each count against its formula, the block encoding's
normalisation against the matrix norm it must bound, and the physical layer against the Resource Estimator.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.estimates import (
    BITS,
    HARDWARE_MODELS,
    lookup,
    one_solve,
    pauli_lcu,
    physical,
    repetitions,
    solver_queries,
    sparse_access,
    state_preparation,
)
from qlsbench.pauli import ADIABATIC_PRACTICAL, adiabatic_queries, qsvt_degree
from qlsbench.problems import poisson_matrix, profile


@pytest.mark.parametrize(("items", "bits"), [(1, 1), (7, 3), (1000, 20), (2**16, 16)])
def test_a_lookup_costs_the_best_split_and_about_twice_the_root_of_the_data(items, bits):
    """QROAM: ceil(L/k) + b (k - 1) to read, ceil(L/k') + k' to erase, each k a power of two, the best taken."""
    splits = [2**e for e in range(20)]
    best_read = min(math.ceil(items / k) + bits * (k - 1) for k in splits)
    best_erase = min(math.ceil(items / k) + k for k in splits)
    cost = lookup(items, bits)
    assert cost["toffolis"] == best_read + best_erase
    assert cost["ancillas"] == bits * (cost["k"] - 1)
    if items >= 1000:  # the square-root law, within the power-of-two rounding
        assert 2 * math.sqrt(items * bits) <= cost["toffolis"] <= 3 * (math.sqrt(items * bits) + math.sqrt(items))


def test_a_generic_state_costs_a_lookup_and_a_rotation_per_level():
    for dim in (2, 5, 1024):
        n = math.ceil(math.log2(dim))
        expected = sum(lookup(2**j, BITS)["toffolis"] + BITS for j in range(n)) + lookup(2**n, 1)["toffolis"]
        assert state_preparation(dim)["toffolis"] == expected
        assert state_preparation(dim)["qubits"] == n
    big, bigger = state_preparation(2**16)["toffolis"], state_preparation(2**18)["toffolis"]
    assert 1.8 < bigger / big < 2.2  # sqrt(N) growth: 4x the entries, about 2x the Toffolis


def test_the_sparse_access_normalisation_bounds_the_norm_and_is_reached():
    """alpha = s max|A_ij| must bound ||A||_2 for every matrix (or the encoding is not a block encoding), and the
    all-ones s x s block reaches it."""
    rng = np.random.default_rng(0)
    for seed in range(5):
        A = sp.random(64, 64, density=0.05, random_state=seed) + sp.diags(rng.standard_normal(64))
        p = profile(A)
        assert p["norm2"] <= sparse_access(p["N"], p["s"], p["max_abs"])["alpha"] * (1 + 1e-12)
    ones = sp.csr_matrix(np.ones((4, 4)))
    p = profile(ones)
    assert sparse_access(p["N"], p["s"], p["max_abs"])["alpha"] == pytest.approx(p["norm2"], rel=1e-12)


def test_a_query_costs_two_index_and_two_value_lookups():
    dim, s = 4096, 5
    slots = dim * s
    record = sparse_access(dim, s, 4.0)
    assert record["toffolis_per_query"] == 2 * lookup(slots, 12)["toffolis"] + 2 * (
        lookup(slots, BITS)["toffolis"] + BITS
    )
    assert record["alpha"] == 20.0 and record["rotations_per_query"] == 0
    lcu = pauli_lcu(6, 40, 3.5)
    assert (lcu["toffolis_per_query"], lcu["rotations_per_query"], lcu["alpha"]) == (39, 2 * 63, 3.5)


def test_one_solve_counts_the_solvers_queries_and_the_state_preparations():
    encoding = sparse_access(256, 5, 4.0)
    sigma_min, eps = 0.02, 1e-3
    kappa_eff = 20.0 / sigma_min
    prep = state_preparation(256)["toffolis"]
    qsvt = one_solve(encoding, sigma_min, 256, "qsvt", eps)
    attempts = math.ceil(kappa_eff)
    assert qsvt["kappa_eff"] == kappa_eff and qsvt["queries"] == qsvt_degree(kappa_eff, eps) * attempts
    assert qsvt["toffolis"] == qsvt["queries"] * encoding["toffolis_per_query"] + 2 * attempts * prep
    walk = one_solve(encoding, sigma_min, 256, "adiabatic", eps)
    assert walk["queries"] == adiabatic_queries(kappa_eff, eps, ADIABATIC_PRACTICAL)
    assert walk["toffolis"] == walk["queries"] * (encoding["toffolis_per_query"] + 2 * prep)
    assert walk["queries"] < qsvt["queries"]  # kappa log(1/eps) against kappa^2 log: the optimal scaling wins
    assert solver_queries("adiabatic", 1.0, 0.1)["queries"] >= 1
    with pytest.raises(InputError, match="solver must be one of qsvt, adiabatic"):
        one_solve(encoding, sigma_min, 256, "hhl", eps)


def test_both_readouts_are_counted():
    assert repetitions("observable", 10**6, 1e-2) == 2 * math.ceil(math.pi / 1e-2)  # independent of N
    assert repetitions("sampling", 10**6, 1e-2) == pytest.approx(1e10)
    with pytest.raises(InputError, match="readout must be one of observable, sampling"):
        repetitions("all", 4, 0.1)


@pytest.fixture
def estimator():
    pytest.importorskip("qdk.estimator", reason="the Resource Estimator (qdk) is not installed")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the estimator announces its next interface
def test_the_physical_layer_is_the_resource_estimators(estimator):
    """Our record equals the estimator called directly on the same logical counts, for every model, and a
    longer program takes longer at no smaller code distance (its qubits may fall: fewer T factories, run longer)."""
    from qdk.estimator import EstimatorParams, LogicalCounts

    counts = {"qubits": 40, "toffolis": 1e6, "rotations": 100}
    ours = physical(counts)
    for model, (qubit, scheme) in HARDWARE_MODELS.items():
        params = EstimatorParams()
        params.error_budget = 1e-2
        params.qubit_params.name, params.qec_scheme.name = qubit, scheme
        theirs = LogicalCounts(
            {"numQubits": 40, "cczCount": 10**6, "rotationCount": 100, "rotationDepth": 100, "measurementCount": 40}
        ).estimate(params)
        assert ours[model]["physical_qubits"] == theirs["physicalCounts"]["physicalQubits"]
        assert ours[model]["runtime_s"] == pytest.approx(theirs["physicalCounts"]["runtime"] * 1e-9)
    longer = physical({**counts, "toffolis": 1e8})
    for model in HARDWARE_MODELS:
        assert longer[model]["runtime_s"] > 50 * ours[model]["runtime_s"]
        assert longer[model]["code_distance"] >= ours[model]["code_distance"]


def test_a_poisson_solve_end_to_end_grows_with_the_grid(estimator):
    runtimes = []
    for m in (8, 16):
        p = profile(poisson_matrix(2, m))
        counts = one_solve(sparse_access(p["N"], p["s"], p["max_abs"]), p["sigma_min"], p["N"], "adiabatic", 1e-2)
        runtimes.append(physical(counts, ["superconducting-1e-4"])["superconducting-1e-4"]["runtime_s"])
    assert runtimes[1] > 4 * runtimes[0]  # kappa x 4 and the lookups x 2 at least


def test_an_unknown_model_or_a_missing_estimator_is_named(monkeypatch):
    with pytest.raises(InputError, match="hardware model 'ion-trap' is unknown; known: superconducting-1e-3"):
        physical({"qubits": 1, "toffolis": 1, "rotations": 0}, ["ion-trap"])
    monkeypatch.setitem(sys.modules, "qdk.estimator", None)  # what an environment without qdk imports
    with pytest.raises(InputError, match=r"pip install 'qlsbench\[advantage\]'"):
        physical({"qubits": 1, "toffolis": 1, "rotations": 0})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_solve_past_what_the_estimator_answers_is_scaled_from_the_longest_it_does(estimator):
    """Above 1e12 Toffolis the estimator's nanoseconds wrap around 2^64: the solve is estimated at 1e12 (Toffolis
    and rotations scaled together) and its runtime scaled back, flagged, never a wrapped number."""
    from qlsbench.estimates import LONGEST

    at_cap = physical({"qubits": 80, "toffolis": LONGEST, "rotations": LONGEST / 100})
    beyond = physical({"qubits": 80, "toffolis": 100 * LONGEST, "rotations": LONGEST})
    for model in HARDWARE_MODELS:
        assert not at_cap[model]["extrapolated"] and beyond[model]["extrapolated"]
        assert beyond[model]["runtime_s"] == pytest.approx(100 * at_cap[model]["runtime_s"], rel=1e-9)
        assert beyond[model]["physical_qubits"] == at_cap[model]["physical_qubits"]
