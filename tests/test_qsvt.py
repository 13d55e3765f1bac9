"""QSVT on 1-3 qubits against dense linear algebra: the block encoding's block, the polynomial against 1/x, the
circuit's post-selected state against the polynomial of the matrix and against A^-1 b, shots against the exact
success probability, and bad options refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.polynomial import chebyshev

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.pauli import qsvt_degree
from qlsbench.problems import LinearSystem, ising_inspired, pad_and_normalize
from qlsbench.solvers import get

pytest.importorskip("qiskit_aer")
pytest.importorskip("pyqsp")

from qlsbench.solvers.qsvt import MAX_SYSTEM_QUBITS
from qlsbench.solvers.qsvt import circuit as qc
from qlsbench.solvers.qsvt import polynomial as qp


def _nonsymmetric(n: int, seed: int = 0) -> np.ndarray:
    """A real non-symmetric, well-conditioned matrix of spectral norm 1."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((2**n, 2**n)) + 2.5 * np.eye(2**n)
    return A / np.linalg.norm(A, 2)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_block_encodings_top_left_block_is_a_over_alpha(n):
    from qiskit_aer import AerSimulator

    from qlsbench.pauli import lcu_form

    A = _nonsymmetric(n, seed=n)
    terms = lcu_form(A)
    block, alpha = qc.block_encoding(terms, n)
    assert alpha == pytest.approx(np.abs(terms.coeffs).sum(), rel=1e-14)
    assert block.num_qubits == n + qc.select_qubits(len(terms))
    saved = block.copy()
    saved.save_unitary()
    U = np.asarray(AerSimulator(method="unitary").run(saved).result().get_unitary())
    np.testing.assert_allclose(U @ U.conj().T, np.eye(len(U)), atol=1e-12)  # a unitary
    np.testing.assert_allclose(U[: 2**n, : 2**n], A / alpha, atol=1e-12)


@pytest.mark.parametrize("kappa, epsilon", [(2.0, 1e-2), (5.0, 1e-3), (10.0, 1e-2)])
def test_the_polynomial_is_within_epsilon_of_one_over_x_and_bounded(kappa, epsilon):
    poly = qp.cks_polynomial(kappa, epsilon)
    assert poly["degree"] == qsvt_degree(kappa, epsilon)
    f = poly["coefficients"] / poly["scale"]
    x = np.linspace(1.0 / kappa, 1.0, 20001)
    assert np.max(np.abs(chebyshev.chebval(x, f) - 1.0 / x)) <= epsilon
    assert poly["error"] <= epsilon
    np.testing.assert_allclose(chebyshev.chebval(-x, f), -chebyshev.chebval(x, f), atol=1e-12)  # odd
    everywhere = np.abs(chebyshev.chebval(np.linspace(-1.0, 1.0, 40001), poly["coefficients"]))
    assert everywhere.max() <= 1.0 - qp.MARGIN + 1e-9  # what QSP can implement
    phases = qp.qsp_phases(poly["coefficients"])
    assert len(phases) == poly["degree"] + 1
    assert qp.response_error(phases, poly["coefficients"]) <= qp.PHASE_TOLERANCE


def test_a_lower_degree_of_the_family_is_the_construction_for_a_smaller_kappa():
    kappa, epsilon = 10.0, 1e-2
    assert qp.family_b(qsvt_degree(kappa, epsilon), kappa, epsilon) == qp.cks_b(kappa, epsilon)
    assert qp.family_b(qsvt_degree(4.0, epsilon), kappa, epsilon) == qp.cks_b(4.0, epsilon)
    assert qp.family_b(1, kappa, epsilon) == 1  # p(x) = x


@pytest.mark.parametrize("n", [1, 2])
def test_the_post_selected_state_is_the_polynomial_of_a_dagger_applied_to_b(n):
    """The circuit's block, simulated on Aer, against p(sigma) on the singular values of A^dag / alpha."""
    from qiskit_aer import AerSimulator

    from qlsbench.pauli import lcu_form

    A = _nonsymmetric(n, seed=10 + n)
    b = np.random.default_rng(n).standard_normal(2**n)
    b /= np.linalg.norm(b)
    block, alpha = qc.block_encoding(lcu_form(A), n)
    kappa_eff = alpha / np.linalg.svd(A, compute_uv=False)[-1]
    poly = qp.cks_polynomial(kappa_eff, 1e-2, degree=21)
    circuit = qc.qsvt(b, block, n, qp.qsp_phases(poly["coefficients"]))
    circuit.save_statevector()
    state = np.asarray(AerSimulator(method="statevector").run(circuit).result().get_statevector())
    W, s, Vh = np.linalg.svd(A.T / alpha)
    expected = W @ (chebyshev.chebval(s, poly["coefficients"])[:, None] * Vh) @ b
    np.testing.assert_allclose(qc.postselected(state, n), expected, atol=1e-10)


@pytest.mark.parametrize("epsilon", [1e-1, 1e-2])
def test_the_solution_has_the_direction_of_a_inverse_b(epsilon):
    """A 2-qubit non-symmetric system: fidelity with A^-1 b above 1 - epsilon^2 (the polynomial's error bounds the
    solution's direction error by about epsilon), and the resources the solve reports."""
    system = LinearSystem(sp.csr_matrix(_nonsymmetric(2, seed=3)), np.array([1.0, -0.5, 0.25, 2.0]))
    result = get("qsvt", epsilon=epsilon).solve(system, seed=0)
    x = np.linalg.solve(system.A.toarray(), system.b)
    fidelity = abs(np.vdot(result.x, x)) ** 2 / (np.vdot(result.x, result.x).real * np.vdot(x, x).real)
    assert fidelity >= 1.0 - epsilon**2
    r = result.resources
    assert r["degree"] == r["predicted_degree"] == qsvt_degree(r["kappa_eff"], epsilon)
    assert r["kappa_eff"] == pytest.approx(r["alpha"] * r["kappa"])  # the system has norm 1
    assert r["total_qubits"] == 2 + r["select_qubits"] + 1 and r["circuit_executions"] == 1
    assert 0 < r["success_probability"] < 1 and r["amplification_rounds"] >= 1
    assert r["queries_amplified"] == r["degree"] * (2 * r["amplification_rounds"] + 1)
    assert r["logical_two_qubit_gates"] > r["degree"] * r["block_encoding_two_qubit_gates"]


def test_the_degree_bisection_finds_the_smallest_degree_that_meets_epsilon():
    system = LinearSystem(sp.csr_matrix(np.diag([1.0, 0.25])), np.array([1.0, 1.0]))
    result = get("qsvt", epsilon=0.05, find_degree=True).solve(system, seed=0)
    r = result.resources
    needed = r["needed_degree"]
    assert needed is not None and needed <= r["predicted_degree"]
    assert r["needed_degree_error"] <= 0.05
    # every b: the polynomial must invert both eigenvalues, 1 and 1/4, to 5 %; b = (1, 1) needs no less
    assert needed <= r["spectral_degree"] <= r["predicted_degree"]
    spectral = qp.cks_polynomial(r["kappa_eff"], 0.05, r["spectral_degree"])
    sigma = np.array([1.0, 0.25]) / r["alpha"]
    f = spectral["coefficients"] / spectral["scale"]
    assert np.max(np.abs(sigma * chebyshev.chebval(sigma, f) - 1)) <= 0.05
    below = get("qsvt", epsilon=0.05, degree=needed - 2).solve(system, seed=0) if needed > 1 else None
    if below is not None:
        x = np.array([1.0, 4.0]) / np.linalg.norm([1.0, 4.0])
        v = below.x / np.linalg.norm(below.x)
        assert np.linalg.norm(v * np.sign(v @ x) - x) > 0.05


def test_shots_agree_with_the_exact_success_probability_within_binomial_error():
    system = LinearSystem(sp.csr_matrix(np.array([[1.0, 0.3], [0.3, 0.8]]) / 1.3), np.array([1.0, 0.5]))
    exact = get("qsvt", epsilon=0.05).solve(system, seed=0)
    shots = 20_000
    sampled = get("qsvt", epsilon=0.05, backend="shots", shots=shots).solve(system, seed=4)
    p = exact.resources["success_probability"]
    assert sampled.resources["success_probability"] == pytest.approx(p)
    measured = sampled.resources["success_probability_measured"]
    assert abs(measured - p) <= 4 * np.sqrt(p * (1 - p) / shots)
    kept = sampled.resources["shots_kept"]
    # each post-selected magnitude squared within binomial error of the exact state's share
    share = np.abs(exact.x) ** 2 / np.sum(np.abs(exact.x) ** 2)
    read = np.abs(sampled.x) ** 2 / np.sum(np.abs(sampled.x) ** 2)
    assert np.all(np.abs(read - share) <= 4 * np.sqrt(share * (1 - share) / kept) + 1e-12)
    again = get("qsvt", epsilon=0.05, backend="shots", shots=shots).solve(system, seed=4)
    np.testing.assert_array_equal(again.x, sampled.x)  # seeded


@pytest.mark.parametrize(
    "options, message",
    [
        ({"degree": 10}, "qsvt: degree must be odd"),
        ({"degree": 5001}, "qsvt: degree must be"),
        ({"epsilon": 0.0}, "qsvt: epsilon must be"),
        ({"epsilon": 0.7}, "qsvt: epsilon must be"),
        ({"backend": "device"}, "qsvt: unknown backend 'device'; use one of exact, shots"),
        ({"shots": 0}, "qsvt: shots must be"),
        ({"degree": 51, "max_degree": 21}, "qsvt: degree 51 is above max_degree 21"),
        ({"find_degree": "yes"}, "option 'find_degree' must be bool"),
    ],
)
def test_bad_options_are_refused_in_one_line(options, message):
    with pytest.raises(InputError) as info:
        get("qsvt", **options)
    text = str(info.value)
    assert "\n" not in text and message in text, text


def test_too_large_a_system_or_degree_is_skipped_with_the_reason():
    big = pad_and_normalize(
        LinearSystem(sp.identity(2 ** (MAX_SYSTEM_QUBITS + 1), format="csr"), np.ones(2 ** (MAX_SYSTEM_QUBITS + 1)))
    )
    result = get("qsvt").solve(big, seed=0)
    assert result.status is Status.SKIPPED and f"exceed {MAX_SYSTEM_QUBITS}" in result.message
    hard = ising_inspired(2, 100.0)
    result = get("qsvt", max_degree=101).solve(hard, seed=0)
    assert result.status is Status.SKIPPED and "exceeds max_degree 101" in result.message
    assert "\n" not in result.message and result.resources["predicted_degree"] > 101


def test_the_qsvt_circuit_in_openqasm_3_reads_back_to_the_same_post_selected_state():
    from qiskit import qasm3
    from qiskit_aer import AerSimulator

    from qlsbench.solvers.qasm import qsvt_qasm

    system = LinearSystem(sp.csr_matrix(np.array([[1.0, 0.3], [0.3, 0.8]]) / 1.3), np.array([1.0, 0.5]))
    loaded = qasm3.loads(qsvt_qasm(system, epsilon=0.1, degree=7))
    direct = get("qsvt", epsilon=0.1, degree=7).circuit(system, measure=False)
    states = []
    for circuit in (loaded.remove_final_measurements(inplace=False), direct):
        circuit.save_statevector()
        states.append(np.asarray(AerSimulator(method="statevector").run(circuit).result().get_statevector()))
    assert set(loaded.count_ops()) <= {"cx", "u", "measure", "barrier"}
    read, built = qc.postselected(states[0], 1), qc.postselected(states[1], 1)
    overlap = np.vdot(read, built)  # OpenQASM 3 as Qiskit writes it keeps no global phase
    np.testing.assert_allclose(read * overlap / abs(overlap), built, atol=1e-8)


def test_the_qsvt_circuit_in_strict_openqasm_2_and_on_a_device_is_the_same_circuit():
    """In OpenQASM 2 the QSVT circuit loads in a strict reader (no custom instructions) as the same unitary; at
    the device level (torino, CZ couplers) the file is in the chip's numbering, every two-qubit gate on a coupler
    for both readers, and on its region it is the circuit placed there."""
    from qasm_check import on_region, two_qubit_pairs, unitary
    from qiskit import qasm2

    from qlsbench.solvers.devices import load
    from qlsbench.solvers.qasm import device_qasm, dumps, place, qsvt_transpiled

    system = LinearSystem(sp.csr_matrix(np.array([[1.0, 0.3], [0.3, 0.8]]) / 1.3), np.array([1.0, 0.5]))
    circuit = qsvt_transpiled(system, epsilon=0.1, degree=7)
    text = dumps(circuit, version=2)
    two_qubit_pairs(text)
    assert unitary(qasm2.loads(text, strict=True)).equiv(unitary(circuit))
    (placed,), region, device = place([circuit], "torino")
    text = device_qasm(placed, region, device, version=2)
    chip = qasm2.loads(text, strict=True)
    pairs = two_qubit_pairs(text)
    assert pairs == [
        tuple(chip.find_bit(q).index for q in inst.qubits) for inst in chip.data if inst.operation.num_qubits == 2
    ]
    assert chip.num_qubits == 133 and pairs and set(pairs) <= set(load("torino").coupling_map.get_edges())
    assert unitary(on_region(chip, region)).equiv(unitary(placed))
