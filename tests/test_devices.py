"""The noisy, device-aware backend: fake IBM devices' routing, calibrated noise, mitigation and routed cost.

Cross-checks: at ``noise_scale=0`` the routed Hadamard tests give the ideal
values within shot noise; one noisy Hadamard test equals a direct Aer run of the
same routed circuit under the device's own ``NoiseModel.from_backend``; noise
pulls ``<Z>`` towards 0 and readout mitigation pushes it back; Richardson
extrapolation is exact on polynomials and zero-noise extrapolation brings a
shallow circuit's ``<Z>`` back towards its ideal value; the tensored readout
inversion undoes a known confusion exactly; every circuit solve (HHL's with its
mitigation circuits) records its routed cost; bad names, widths and scales are
refused in one line. The tests split at their parameterised fronts give Aer's exact
noisy probabilities of the whole circuits and sample the whole circuits' distribution.
"""

import numpy as np
import pytest

from qlsbench.errors import InputError
from qlsbench.pauli import decompose
from qlsbench.problems import ising_inspired
from qlsbench.solvers import registry
from qlsbench.solvers.devices import (
    DEVICES,
    ZNE_FACTORS,
    Device,
    calibration_date,
    confusion,
    duration,
    fold,
    measured_qubits,
    region_target,
    richardson,
    unconfuse,
)
from qlsbench.solvers.vqls.backends import DeviceBackend, EmulatedShotsBackend
from qlsbench.solvers.vqls.problem import VQLSProblem

SHOTS = 20_000


def _backends(noise_scale: float, mitigation: str = "none", n: int = 2):
    system = ising_inspired(n, 10.0)
    problem, decomposition = VQLSProblem.from_system(system), decompose(system.A)
    device = DeviceBackend(
        problem,
        1,
        "local",
        True,
        decomposition=decomposition,
        shots=SHOTS,
        seed=3,
        noise_scale=noise_scale,
        mitigation=mitigation,
    )
    ideal = EmulatedShotsBackend(problem, 1, "local", True, decomposition=decomposition, shots=SHOTS, seed=3)
    return device, ideal


def _alpha(n: int = 2, layers: int = 1) -> np.ndarray:
    from qlsbench.solvers.vqls.ansatz import n_parameters

    return np.random.default_rng(0).uniform(-np.pi, np.pi, n_parameters(n, layers))


def test_at_noise_scale_zero_the_routed_tests_give_the_ideal_values_within_shot_noise():
    device, ideal = _backends(0.0)
    alpha = _alpha()
    got, exact = device.parts(alpha), ideal.exact_parts(alpha)
    for term, value in exact.items():
        sigma = np.sqrt(max(1.0 - value**2, 1e-4) / SHOTS)
        assert abs(got[term] - value) < 5 * sigma + 1e-9, term
    assert device.routed.two_qubit_gates > 0 and device.routed.depth > 0
    assert len(device.physical) == device.templates[0].num_qubits == 3  # the region holds the 3 qubits only


def test_a_noisy_hadamard_test_equals_a_direct_aer_run_with_the_devices_own_noise_model():
    from qiskit import transpile
    from qiskit_aer import AerSimulator
    from qiskit_aer.noise import NoiseModel

    from qlsbench.solvers.devices import load

    device, _ = _backends(1.0)
    alpha = _alpha()
    ours = device.parts(alpha)
    term, circuit = device.terms[0], device.templates[0]
    bound = circuit.assign_parameters({p: alpha[p.index] for p in circuit.parameters})
    # The same routed circuit on the whole chip: region qubit i is physical qubit device.physical[i].
    backend = load("sherbrooke")
    wide = transpile(bound, backend, initial_layout=list(device.physical), optimization_level=0)
    direct = AerSimulator(noise_model=NoiseModel.from_backend(backend), method="density_matrix")
    counts = direct.run(wide, shots=SHOTS, seed_simulator=11).result().get_counts()
    z = (counts.get("0", 0) - counts.get("1", 0)) / SHOTS
    sigma = np.sqrt(max(1.0 - z**2, 1e-4) / SHOTS)
    assert abs(ours[term] - z) < 5 * np.sqrt(2) * sigma


def test_noise_pulls_the_tests_towards_zero_and_readout_mitigation_pushes_back():
    alpha = _alpha()
    _, ideal = _backends(0.0)
    exact = np.array(list(ideal.exact_parts(alpha).values()))
    loud = np.array(list(_backends(8.0)[0].parts(alpha).values()))
    mitigated = np.array(list(_backends(8.0, "readout")[0].parts(alpha).values()))
    strong = np.abs(exact) > 0.3
    assert np.all(np.abs(loud[strong]) < np.abs(exact[strong]))
    assert np.mean(np.abs(mitigated - exact)) < np.mean(np.abs(loud - exact))


def test_richardson_is_exact_on_a_quadratic_in_the_noise_factor():
    factors = (1, 3, 5)
    values = np.array([[0.7 - 0.1 * f + 0.004 * f**2, 0.2 * f] for f in factors])
    np.testing.assert_allclose(richardson(factors, values), [0.7, 0.0], atol=1e-12)


def test_the_tensored_readout_inversion_undoes_a_known_confusion():
    true = np.array([0.5, 0.1, 0.0, 0.4])  # outcome index = bits (bit 0 is classical bit 0)
    confusions = [(0.97, 0.06), (0.9, 0.02)]  # (P(0|0), P(0|1)) of the qubits read into bits 0 and 1
    m = [np.array([[p00, p01], [1 - p00, 1 - p01]]) for p00, p01 in confusions]
    measured = np.kron(m[1], m[0]) @ true  # bit 1 is the high bit of the index
    np.testing.assert_allclose(unconfuse(measured, confusions), true, atol=1e-12)
    np.testing.assert_allclose(unconfuse(true, [(0.5, 0.5), (1.0, 0.0)]), true)  # no information, no change


def test_zero_noise_extrapolation_and_readout_inversion_bring_a_shallow_circuit_back_to_its_ideal_value():
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(2, 1)
    for _ in range(6):  # rotations between the CXs keep the transpiler from cancelling them
        qc.ry(0.05, 0)
        qc.cx(0, 1)
    qc.measure(1, 0)
    shots = 200_000

    def z(noise_scale, factors, readout=False):
        device = Device("sherbrooke", noise_scale)
        (placed,), region = device.place([qc])
        simulator = device.simulator(region)
        batch = [fold(placed, f, region_target("sherbrooke", tuple(region), 0.0)) for f in factors]
        counts = simulator.run(batch, shots=shots, seed_simulator=1).result()
        p0 = np.array([counts.get_counts(i).get("0", 0) / shots for i in range(len(batch))])
        if readout:
            c = confusion(simulator, measured_qubits(placed)[0], placed.num_qubits, shots, 5)
            p0 = np.array([unconfuse([p, 1 - p], [c])[0] for p in p0])
        return richardson(factors, 2 * p0 - 1) if len(factors) > 1 else 2 * p0[0] - 1

    ideal, noisy = z(0.0, (1,)), z(2.0, (1,))
    assert abs(noisy - ideal) > 0.1  # the noise is plain at twice the device's errors ...
    assert abs(z(2.0, ZNE_FACTORS) - ideal) < 0.7 * abs(noisy - ideal)  # ... folding removes the gates' part ...
    assert abs(z(2.0, (1,), readout=True) - ideal) < 0.7 * abs(noisy - ideal)  # ... inversion the readout's ...
    assert abs(z(2.0, ZNE_FACTORS, readout=True) - ideal) < 0.2 * abs(noisy - ideal)  # ... both nearly all


def test_hhl_counts_its_mitigation_circuits():
    system = ising_inspired(2, 10.0)
    base = dict(backend="device", clock=3, shots=2000)
    plain = registry.get("hhl", **base).solve(system, seed=0).resources
    readout = registry.get("hhl", **base, mitigation="readout").solve(system, seed=0).resources
    zne = registry.get("hhl", **base, mitigation="zne").solve(system, seed=0).resources
    measured = 2 + 3 + 1  # system, clock and ancilla qubits, each calibrated by two circuits once per solve
    assert plain["mitigation_circuits"] == 0 and readout["mitigation_circuits"] == 2 * measured
    assert zne["mitigation_circuits"] == 2 and zne["circuit_executions"] == plain["circuit_executions"] + 2
    assert readout["mitigation"] == "readout" and 0 < readout["postselection_probability"] <= 1
    # What ran is counted: the measured circuit as placed on the chip; ZNE's 3x and 5x copies run too, so the
    # device time is about 1 + 3 + 5 times the plain one (the measurements are not folded).
    for r in (plain, readout, zne):
        assert r["routed_depth"] >= r["logical_depth"] > 0 and r["two_qubit_gates"] >= r["logical_two_qubit_gates"] > 0
    assert plain["routed_depth"] == zne["routed_depth"] and readout["device_seconds"] == plain["device_seconds"]
    assert 8 < zne["device_seconds"] / plain["device_seconds"] < 9.5


def test_hhl_on_a_device_counts_its_routed_circuit_at_every_size(monkeypatch):
    """The textbook circuit's counts stop at MAX_TRANSPILED_SYSTEM_QUBITS; a device run counts the circuit it
    placed whatever the size (here with the limit lowered below the system, as a 4-qubit system meets it)."""
    import qlsbench.solvers.hhl as hhl

    monkeypatch.setattr(hhl, "MAX_TRANSPILED_SYSTEM_QUBITS", 0)
    system = ising_inspired(2, 10.0)
    device = registry.get("hhl", backend="device", clock=3, shots=500).solve(system, seed=0).resources
    assert device["routed_depth"] > 0 and device["two_qubit_gates"] > 0 and device["device_seconds"] > 0
    exact = registry.get("hhl", backend="exact", clock=3).solve(system, seed=0).resources
    assert "routed_depth" not in exact  # no circuit was built or run


def test_zero_noise_extrapolation_costs_its_folded_circuits():
    device, _ = _backends(1.0, "zne")
    device.parts(_alpha())
    base = len(device.templates)
    assert device.executions == 3 * base and device.mitigation_circuits == 2 * base
    folded = device.batch[base]  # 3x: G G^dagger G
    assert folded.size() > 2.5 * device.templates[0].size()


def test_every_circuit_solve_records_its_routed_cost_and_the_device():
    system = ising_inspired(2, 10.0)
    for backend in ("shots-emulated", "device"):
        result = registry.get("vqls-local", backend=backend, layers=1, maxiter=2, shots=200).solve(system, seed=0)
        r = result.resources
        assert r["routed_depth"] >= r["logical_depth"] > 0 and r["two_qubit_gates"] > 0
        assert r["device"] == "sherbrooke" and r["device_seconds"] > 0
    assert r["calibration_date"] == calibration_date("sherbrooke") and r["noise_scale"] == 1.0
    exact = registry.get("vqls-local", layers=1, maxiter=2).solve(system, seed=0)
    assert "routed_depth" not in exact.resources  # no circuit runs on the exact backend


def test_the_gate_time_is_the_critical_path_through_the_devices_durations():
    from qiskit import QuantumCircuit

    target = region_target("sherbrooke", (0, 1), 0.0)
    qc = QuantumCircuit(2)
    qc.sx(0)
    qc.sx(0)
    qc.x(1)
    sx, x = target["sx"][(0,)].duration, target["x"][(1,)].duration
    assert duration(qc, target) == pytest.approx(max(2 * sx, x))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"device": "nowhere"}, "unknown device 'nowhere'; use one of " + ", ".join(sorted(DEVICES))),
        ({"noise_scale": -1.0}, "noise_scale"),
        ({"mitigation": "magic"}, "unknown mitigation 'magic'"),
        (
            {"backend": "shots", "mitigation": "readout"},
            "mitigation applies to backend 'device' only, not backend='shots'",
        ),
        # every option of another backend alike: refused, never ignored (HHL's noise_scale on exact was ignored)
        (
            {"solver": "hhl", "backend": "exact", "noise_scale": 0.5},
            "hhl: noise_scale applies to backend 'device' only",
        ),
        ({"backend": "exact", "shots": 10}, "shots applies to backend 'shots' or 'shots-emulated' or 'device' only"),
        ({"backend": "circuits", "depolarizing": 0.1}, "depolarizing applies to backend 'shots' only"),
        (
            {"solver": "hhl", "backend": "shots", "mitigation": "zne"},
            "hhl: mitigation applies to backend 'device' only, not backend='shots'",
        ),
        ({"solver": "hhl", "backend": "device", "mitigation": "magic"}, "hhl: unknown mitigation 'magic'"),
    ],
)
def test_bad_device_options_are_refused_in_one_line(kwargs, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        options = {"backend": "device", **kwargs}
        registry.get(options.pop("solver", "vqls-local"), **options)


def test_a_circuit_wider_than_the_device_is_refused():
    from qiskit import QuantumCircuit

    wide = QuantumCircuit(200)
    wide.h(0)
    with pytest.raises(InputError, match="a circuit of 200 qubits is wider than device sherbrooke"):
        Device("sherbrooke").place([wide])
    with pytest.raises(InputError, match="noise_scale"):
        Device("sherbrooke", noise_scale=-0.5)


@pytest.mark.parametrize("hermitian", [True, False])
def test_hhl_on_a_fully_depolarised_device_reads_out_no_more_than_its_noise_floor(hermitian):
    """At 30x the device's errors nothing of the circuit survives: every post-selected outcome is about equally
    likely (post-selection 1/16 with 3 clock qubits and the ancilla), so the read-out is equal magnitudes with the
    ideal statevector's signs, and its fidelity is that of equal magnitudes with those signs, within shot noise: at most
    depolarised_fidelity's (x's own signs), far below the ideal machine's. A non-Hermitian A goes through the
    dilation and reads out its x block the same way."""
    from qlsbench.problems import LinearSystem, state_fidelity
    from qlsbench.solvers.hhl import depolarised_fidelity

    rng = np.random.default_rng(3)
    V, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    W = V if hermitian else np.linalg.qr(rng.normal(size=(4, 4)))[0]
    A = V @ np.diag([1.0, -0.5, 0.75, -0.25] if hermitian else [1.0, 0.5, 0.75, 0.25]) @ W.T
    x = np.array([1.0, -0.2, 0.1, 0.05])  # one large amplitude: equal magnitudes score far below the solution
    system = LinearSystem(A, A @ x, x_ref=x)
    floor = depolarised_fidelity(system)
    assert floor == pytest.approx(np.abs(x).sum() ** 2 / (4 * x @ x))

    def solve(scale, seed):
        return registry.get("hhl", backend="device", clock=3, shots=16000, noise_scale=scale).solve(system, seed=seed)

    assert state_fidelity(solve(0.0, 0).x, x) > floor + 0.3  # the ideal machine is far above what noise scores
    for seed in range(2):
        erased = solve(30.0, seed)
        assert abs(erased.resources["postselection_probability"] - 1 / 16) < 0.01
        shares = np.abs(erased.x) ** 2 / np.sum(np.abs(erased.x) ** 2)
        assert np.all(np.abs(shares - 0.25) < 0.06)  # ~1000 kept shots: equal magnitudes within shot noise
        fidelity = state_fidelity(erased.x, x)
        # Equal magnitudes with the read-out's signs: its fidelity is fixed by those signs, and at most the floor
        # (x's own signs). Three clock qubits get the smallest amplitude's sign wrong, so it lies below the floor;
        # 0.08 is four standard deviations of the fidelity's shot noise (about 0.02 with ~1000 kept shots).
        equal = state_fidelity(np.sign(erased.x.real) / 2, x)
        assert equal <= floor + 1e-12
        assert abs(fidelity - equal) < 0.08
        assert fidelity < floor + 0.05


def test_fused_density_matrix_runs_give_the_unfused_noisy_values_within_shot_noise():
    """Regions of FUSED_DENSITY_MATRIX_QUBITS or more fuse gates (faster); the noisy distribution must not move."""
    from qiskit_aer import AerSimulator

    from qlsbench.solvers.devices import FUSED_DENSITY_MATRIX_QUBITS

    system = ising_inspired(5, 10.0)
    # Two layers, as the noisy track runs: one layer's widest circuit lays out on a region too narrow for the rest.
    device = DeviceBackend(
        VQLSProblem.from_system(system), 2, "local", True, decomposition=decompose(system.A), shots=SHOTS, seed=3
    )
    assert len(device.physical) >= FUSED_DENSITY_MATRIX_QUBITS  # else this test checks nothing fused
    alpha = _alpha(5, 2)
    bound = [qc.assign_parameters({p: alpha[p.index] for p in qc.parameters}) for qc in device.templates[:6]]
    fused = device.simulator.run(bound, shots=SHOTS, seed_simulator=5).result()
    assert fused.results[0].metadata["fusion"]["applied"]
    plain = AerSimulator(
        method="density_matrix", noise_model=device.simulator.options.noise_model, enable_truncation=False
    )
    unfused = plain.run(bound, shots=SHOTS, seed_simulator=17).result()
    assert not unfused.results[0].metadata["fusion"]["applied"]
    for i in range(len(bound)):
        z = [(r.get_counts(i).get("0", 0) - r.get_counts(i).get("1", 0)) / SHOTS for r in (fused, unfused)]
        sigma = np.sqrt(max(1.0 - z[1] ** 2, 1e-4) / SHOTS)
        assert abs(z[0] - z[1]) < 5 * np.sqrt(2) * sigma, i


def _two_layer_backend(n: int, kind: str, **kwargs):
    system = ising_inspired(n, 10.0)
    return DeviceBackend(
        VQLSProblem.from_system(system), 2, kind, True, decomposition=decompose(system.A), shots=SHOTS, seed=3, **kwargs
    )


@pytest.mark.parametrize("kind", ["local", "global"])
def test_split_fronts_give_the_whole_noisy_circuits_probabilities(kind):
    """One density matrix per front and each test's rest as an observable: Aer's exact noisy probabilities.

    Tolerance 1e-8: Aer drops error terms below its probability threshold (an ECR error of the 5-qubit
    VQLS's region has terms of 1e-11, 7.7e-11 per gate off the full channel), about 4e-9 over a circuit.
    """
    from qlsbench.solvers.devices import noise_errors
    from qlsbench.solvers.heisenberg import split, whole_p0

    device = _two_layer_backend(3, kind)
    assert device.split is not None and len(device.split.fronts) < len(device.templates) / 3  # fronts are shared
    gates, readout = noise_errors("sherbrooke", tuple(device.physical), 1.0)
    alpha = _alpha(3, 2)
    aer = whole_p0(device.templates, device._front_simulator, alpha)
    assert np.all((aer > 0.05) & (aer < 0.999))  # no test trivially 0 or 1
    np.testing.assert_allclose(split(device.templates, gates, {}).p0(device._front_simulator, alpha), aer, atol=1e-8)
    # The readout's confusion enters as the effect of reading 0: P(0|0) p + P(0|1) (1 - p) on the measured qubit.
    confused = np.array(
        [
            readout[q][0] * p + readout[q][1] * (1.0 - p)
            for p, q in zip(aer, (measured_qubits(qc)[0] for qc in device.templates))
        ]
    )
    np.testing.assert_allclose(device.split.p0(device._front_simulator, alpha), confused, atol=1e-8)


def test_split_fronts_and_whole_circuits_sample_the_same_distribution_and_repeat_at_a_seed():
    split_path, whole = _two_layer_backend(2, "local"), _two_layer_backend(2, "local", split_fronts=False)
    assert split_path.split is not None and whole.split is None
    alpha = _alpha(2, 2)
    fast, reference = split_path.parts(alpha), whole.parts(alpha)
    for term, z in reference.items():
        sigma = np.sqrt(max(1.0 - z**2, 1e-4) / SHOTS)
        assert abs(fast[term] - z) < 5 * np.sqrt(2) * sigma, term
    assert split_path.executions == whole.executions == len(split_path.templates)
    first = split_path.cost(alpha)
    again = _two_layer_backend(2, "local")
    assert again.cost(alpha) == first  # the same seed and evaluation draw the same shots
    assert again.cost(alpha) != first  # the next evaluation new ones


def test_folded_circuits_run_whole():
    assert _two_layer_backend(2, "local", mitigation="zne").split is None
