"""The formats the field reads: every pinned system as Matrix Market, read back by scipy bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from qasm_check import on_region, same_state, two_qubit_pairs, unitary

from qlsbench.data import PINNED, export_matrix_market, iter_systems, write_systems
from qlsbench.problems import LinearSystem


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit for bit, dtype and shape included, but for the sign of a zero: the file keeps it (``-0.0``),
    scipy's reader returns +0."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nonzero = b != 0
    return bool(
        np.array_equal(a, b, equal_nan=True) and np.array_equal(a[nonzero].view(np.uint8), b[nonzero].view(np.uint8))
    )


def test_every_pinned_system_reads_back_from_matrix_market_bit_for_bit(tmp_path):
    systems = {s.system_id: s for s in iter_systems(PINNED / "systems")}
    export_matrix_market(PINNED / "systems", tmp_path)
    manifest = json.loads((PINNED / "manifest.json").read_text())
    assert len(list(tmp_path.glob("*.json"))) == len(systems) == len({e["system_id"] for e in manifest["systems"]})
    for meta_path in tmp_path.glob("*.json"):
        meta = json.loads(meta_path.read_text())
        system = systems[meta["system_id"]]
        stem = meta_path.name.removesuffix(".json")
        A = sp.csr_matrix(scipy.io.mmread(tmp_path / f"{stem}.mtx"))
        A.sum_duplicates()
        A.sort_indices()
        expected = system.A.tocsr()
        expected.sort_indices()
        assert _same(A.toarray(), expected.toarray()), stem
        assert _same(scipy.io.mmread(tmp_path / f"{stem}.b.mtx").ravel(), np.asarray(system.b)), stem
        assert _same(scipy.io.mmread(tmp_path / f"{stem}.x_ref.mtx").ravel(), np.asarray(system.x_ref)), stem
        assert meta["dim"] == system.dim and meta["n_orig"] == system.meta["n_orig"]
        assert meta["source"]["dataset_hash"]


def test_a_complex_system_is_written_as_a_complex_matrix(tmp_path):
    A = sp.csr_matrix(np.array([[2.0 + 1e-3j, 0.1], [0.1, 1.0 - 0.5j]]))
    b = np.array([1.0 + 1.0 / 3.0j, -2.0])
    data = write_systems([LinearSystem(A, b, {"family": "test", "scene": "complex"})], tmp_path / "c.parquet")
    export_matrix_market(data, tmp_path / "out")
    (meta,) = (tmp_path / "out").glob("*.json")
    stem = meta.name.removesuffix(".json")
    assert "complex general" in (tmp_path / "out" / f"{stem}.mtx").read_text().splitlines()[0]
    assert _same(scipy.io.mmread(tmp_path / "out" / f"{stem}.mtx").toarray(), A.toarray())
    assert _same(scipy.io.mmread(tmp_path / "out" / f"{stem}.b.mtx").ravel(), b)


def test_hhl_circuits_in_openqasm_3_read_back_to_the_same_state_and_solve_the_system(tmp_path):
    """The written circuit is the transpiled HHL circuit: qasm3.loads gives back its state, whose post-selected
    branch points along the solution (4 clock qubits resolve the kappa-10 Ising system's spectrum). Its device
    level names the chip's physical qubits ($p), each two-qubit gate on a coupler of the device."""
    from qiskit import qasm3
    from qiskit.quantum_info import Statevector

    from qlsbench.solvers.devices import load
    from qlsbench.solvers.hhl.circuit import postselected
    from qlsbench.solvers.qasm import export_hhl_qasm, hhl_transpiled

    written = export_hhl_qasm(PINNED / "systems" / "ising.parquet", tmp_path, clock=4)
    assert sorted(p.name for p in written) == sorted(
        f"ising-k{k}-n{n}.hhl{level}.qasm" for k in (10, 100) for n in (2, 3) for level in ("", ".device")
    )
    device = qasm3.loads((tmp_path / "ising-k10-n2.hhl.device.qasm").read_text())
    pairs = [
        tuple(device.find_bit(q).index for q in inst.qubits) for inst in device.data if inst.operation.num_qubits == 2
    ]
    assert len(pairs) > 100 and set(pairs) <= set(load("sherbrooke").coupling_map.get_edges())
    system = next(s for s in iter_systems(PINNED / "systems" / "ising.parquet") if s.dim == 4)
    loaded = qasm3.loads((tmp_path / "ising-k10-n2.hhl.qasm").read_text())
    assert set(loaded.count_ops()) <= {"cx", "U", "u", "measure", "barrier"}
    state = Statevector(loaded.remove_final_measurements(inplace=False))
    original = Statevector(hhl_transpiled(system, 4).remove_final_measurements(inplace=False))
    assert abs(state.inner(original)) > 1 - 1e-9
    x = postselected(np.asarray(state.data), 2, 4)
    fidelity = abs(np.vdot(x, system.x_ref)) ** 2 / (np.vdot(x, x).real * np.vdot(system.x_ref, system.x_ref).real)
    assert fidelity > 0.9


def test_a_frictional_step_written_in_fclib_reads_back_as_the_steppers_own_problem(tmp_path):
    """A DEM-C step's contact problem in FCLIB's global form: read back through the FCLIB reader, its local
    form W = H^T M^-1 H, q = H^T M^-1 f + w has the stepper's own normal LCP as its normal block, and its
    tangent rows the relative tangential velocities before the impulses."""
    from qlsbench.physics import StepOptions, build_scene, detect_contacts, simulate
    from qlsbench.physics.lcp import read_fclib, write_fclib_global
    from qlsbench.physics.spheres.assembly import assemble
    from qlsbench.physics.spheres.stepping import _margin

    scene = build_scene("sedimentation", n_spheres=12, seed=0)
    simulate(scene, 150, StepOptions(mu=0.0))
    v_known = scene.velocities + 1e-3 * scene.gravity
    contacts = detect_contacts(scene, _margin(scene, v_known, StepOptions(mu=0.3)))
    problem = assemble(contacts, scene.masses, v_known, 1e-3, 0.3, 8)
    assert problem.nc >= 3
    path = write_fclib_global(tmp_path / "step.hdf5", *problem.global_form(), title="sedimentation step 150")
    read = read_fclib(path)
    normal = np.arange(0, 3 * problem.nc, 3)
    lcp = assemble(contacts, scene.masses, v_known, 1e-3, 0.0).lcp  # the frictionless normal LCP, Q and r
    np.testing.assert_allclose(read.W[normal][:, normal].toarray(), lcp.Q.toarray(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(read.q[normal], problem.r[: problem.nc], rtol=1e-12, atol=1e-12)
    v = v_known.reshape(-1, 3)
    relative = v[contacts.body_j] - np.where((contacts.body_i >= 0)[:, None], v[contacts.body_i], 0.0)
    np.testing.assert_allclose(read.q[1::3], np.sum(relative * contacts.t1, axis=1), atol=1e-12)
    np.testing.assert_allclose(read.q[2::3], np.sum(relative * contacts.t2, axis=1), atol=1e-12)
    np.testing.assert_array_equal(read.mu, np.full(problem.nc, 0.3))
    assert read.kind == "global" and read.nc == problem.nc


def test_export_writes_qsvt_circuits_that_read_back_to_the_solvers_post_selected_state(tmp_path, capsys):
    """`export --format qasm --circuits qsvt` writes each 2-qubit pinned system's QSVT circuit, and beside it the
    circuit routed to the device; read back, its post-selected branch is the solver's own (the degree the solver
    predicts), pointing along x_ref."""
    pytest.importorskip("pyqsp")
    from qiskit import qasm3
    from qiskit_aer import AerSimulator

    from qlsbench.cli import main
    from qlsbench.solvers.qsvt import circuit as qc

    code = main(
        [
            "export",
            str(PINNED / "systems" / "ising.parquet"),
            "--out",
            str(tmp_path),
            "--format",
            "qasm",
            "--circuits",
            "qsvt",
            "--epsilon",
            "0.3",
        ]
    )
    assert code in (0, None) and "QSVT circuit" in capsys.readouterr().out
    # kappa = 100 needs degree ~2000, over the solver's max_degree (1001): declined, as the solver declines it.
    assert sorted(p.name for p in tmp_path.glob("*.qasm")) == [
        "ising-k10-n2.qsvt.device.qasm",
        "ising-k10-n2.qsvt.qasm",
    ]
    system = next(
        s
        for s in iter_systems(PINNED / "systems" / "ising.parquet")
        if s.dim == 4 and np.linalg.cond(s.A.toarray()) < 20
    )
    loaded = qasm3.loads((tmp_path / "ising-k10-n2.qsvt.qasm").read_text()).remove_final_measurements(inplace=False)
    loaded.save_statevector()
    state = np.asarray(AerSimulator(method="statevector").run(loaded).result().get_statevector())
    x = qc.postselected(state, 2)
    x_ref = system.x_ref / np.linalg.norm(system.x_ref)
    assert abs(np.vdot(x / np.linalg.norm(x), x_ref)) ** 2 > 1 - 0.3**2  # the polynomial's bound
    # epsilon is bounded as the solver's option is: one line, exit 2, nothing more written
    assert (
        main(
            [
                "export",
                str(PINNED / "systems" / "ising.parquet"),
                "--out",
                str(tmp_path / "bad"),
                "--format",
                "qasm",
                "--circuits",
                "qsvt",
                "--epsilon",
                "0",
            ]
        )
        == 2
    )
    assert "--epsilon: must be a finite number in (0, 0.5]" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_a_simulation_writes_its_steps_contact_problems_as_fclib_without_changing_its_dataset(tmp_path):
    from qlsbench.families import FAMILIES
    from qlsbench.physics.lcp import read_fclib

    family = FAMILIES["dem_c"]
    base = {"scene": "sedimentation", "n_spheres": 8, "steps": 60, "mu": 0.3}
    family.build(family.options.from_mapping(base), tmp_path / "plain", False)
    facts = family.build(
        family.options.from_mapping({**base, "fclib": str(tmp_path / "fclib"), "fclib_every": 20}),
        tmp_path / "with",
        False,
    )
    files = sorted((tmp_path / "fclib").glob("step-*.hdf5"))
    assert [f.name for f in files] == ["step-000000.hdf5", "step-000020.hdf5", "step-000040.hdf5"]
    assert facts["fclib_files"] == 3
    for path in files:
        problem = read_fclib(path)
        assert problem.kind == "global" and problem.nc >= 1 and np.all(problem.mu == 0.3)
    assert (tmp_path / "with" / "part-0000.parquet").read_bytes() == (
        tmp_path / "plain" / "part-0000.parquet"
    ).read_bytes()  # the export leaves the dataset as it was


def _ancilla_z(circuit) -> float:
    """``<Z>`` of the qubit a Hadamard-test circuit measures into ``c[0]``, from its exact state."""
    from qiskit.quantum_info import Pauli, Statevector

    (ancilla,) = [circuit.find_bit(inst.qubits[0]).index for inst in circuit.data if inst.operation.name == "measure"]
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    return float(state.expectation_value(Pauli("Z"), [ancilla]).real)


def _cost_from(tests: list, terms: list, decomposition, kind: str) -> float:
    from qlsbench.solvers.vqls import circuits

    values = {term: _ancilla_z(qc) for term, qc in zip(terms, tests)}
    return circuits.combine(values, decomposition.coeffs, decomposition.labels(), kind, decomposition.n_qubits, True)


def _ising_n2():
    return next(
        s
        for s in iter_systems(PINNED / "systems" / "ising.parquet")
        if s.dim == 4 and np.linalg.cond(s.A.toarray()) < 20
    )


def test_export_writes_vqls_circuits_whose_tests_give_back_the_trained_cost_at_every_level(tmp_path, capsys):
    """`export --format qasm --circuits vqls`: read back with qasm3.loads, the ansatz at each level (the device
    level through the index's layout) is the trained state, which solves the system; the Hadamard tests' <Z>
    values, combined as the index says, give the index's cost, which is the exact cost at the trained angles."""
    from qiskit import QuantumCircuit, qasm3
    from qiskit.quantum_info import Statevector

    from qlsbench.cli import main
    from qlsbench.solvers.vqls import circuits
    from qlsbench.solvers.vqls.ansatz import RealAnsatz
    from qlsbench.solvers.vqls.backends import ExactBackend
    from qlsbench.solvers.vqls.problem import VQLSProblem

    system = _ising_n2()
    dataset = write_systems([system], tmp_path / "one.parquet")
    out = tmp_path / "qasm"
    assert main(["export", str(dataset), "--out", str(out), "--format", "qasm", "--circuits", "vqls"]) in (0, None)
    assert "vqls-local trained on 1 system" in capsys.readouterr().out
    (folder,) = out.glob("*.vqls-local")
    index = json.loads((folder / "index.json").read_text())
    alpha = np.array(index["alpha"])
    trained = RealAnsatz(2, index["training"]["layers"]).state(alpha)
    x_ref = system.x_ref.real / np.linalg.norm(system.x_ref)
    assert abs(trained @ x_ref) ** 2 > 0.999
    exact = ExactBackend(VQLSProblem.from_system(system), index["training"]["layers"], "local", True).cost(alpha)
    assert index["cost"] == pytest.approx(exact, abs=1e-12)
    labels = index["pauli"]["labels"]
    coeffs = np.array(index["pauli"]["re"]) + 1j * np.array(index["pauli"]["im"])
    terms = [circuits.Term(t["kind"], t["l"], t["lp"], t["j"], int(t["part"] == "im")) for t in index["tests"]]
    assert len(terms) == index["tests_written"] == index["circuits_per_evaluation"] > 0
    for level in ("algorithmic", "basis", "device"):
        ansatz = qasm3.loads((folder / f"ansatz.{level}.qasm").read_text())
        tests = [qasm3.loads((folder / level / t["file"]).read_text()) for t in index["tests"]]
        if level == "device":  # in the chip's numbering: simulated on the region, the state on the layout's qubits
            region = index["regions"]["ansatz"]
            ansatz = on_region(ansatz, region)
            expected = QuantumCircuit(ansatz.num_qubits)
            expected.initialize(trained, [region.index(p) for p in index["ansatz_layout"]])
            assert abs(Statevector(ansatz).inner(Statevector(expected))) ** 2 > 1 - 1e-9
            tests = [on_region(qc, index["regions"]["tests"]) for qc in tests]
        else:
            assert abs(Statevector(ansatz).data @ trained) ** 2 > 1 - 1e-9
        if level == "basis":
            assert set().union(*(qc.count_ops() for qc in tests)) <= {"cx", "U", "u", "measure"}
        values = {term: _ancilla_z(qc) for term, qc in zip(terms, tests)}
        cost = circuits.combine(values, coeffs, labels, "local", 2, True)
        assert cost == pytest.approx(index["cost"], abs=1e-9), level


def test_vqls_hadamard_tests_give_the_exact_global_cost_at_any_angles():
    """Away from the optimum (random angles, so no term can hide behind a zero cost), the written global-cost
    tests (controlled ansatz and controlled U^dagger) give the state-vector cost at the basis and device levels."""
    from qlsbench.solvers.qasm import vqls_circuits
    from qlsbench.solvers.vqls.backends import ExactBackend
    from qlsbench.solvers.vqls.problem import VQLSProblem

    system = _ising_n2()
    alpha = np.random.default_rng(3).uniform(0, 2 * np.pi, 6)
    built = vqls_circuits(system, alpha, cost="global", layers=2)
    exact = ExactBackend(VQLSProblem.from_system(system), 2, "global", True).cost(alpha)
    assert 0.05 < exact < 0.95
    for level in ("algorithmic", "basis", "device"):
        cost = _cost_from(built["tests"][level], built["terms"], built["decomposition"], "global")
        assert cost == pytest.approx(exact, abs=1e-9), level


def _header_layouts(text: str) -> dict:
    """The layouts a device-level file's header states: ``layout`` and ``final layout, after routing``, each
    virtual qubit's physical qubit in order."""
    return {
        key: [int(p) for p in re.findall(r"virtual \d+ -> physical (\d+)", line)]
        for key, line in re.findall(r"^// (layout|final layout, after routing): (.*)$", text, re.M)
    }


def test_openqasm_2_files_load_in_a_strict_reader_as_the_same_circuits_with_device_gates_on_couplers(tmp_path, capsys):
    """`--qasm-version 2`: every file (HHL and the VQLS ansatz and tests, every level) loads in Qiskit's strict
    reader (the paper's qelib1.inc, no custom instructions) and passes a second reader's check of its gates
    (qasm_check, no Qiskit); a VQLS file reads back as the same unitary as its OpenQASM 3 file, an HHL file gives
    the state of the circuit written (the 7-qubit unitaries take seconds). The device level is in the chip's
    numbering: both readers find every two-qubit gate on a coupler of the device; the HHL file, on its region,
    is the circuit placed there, whose layout its header states; an unknown version is one line."""
    from qiskit import qasm2, qasm3

    from qlsbench.cli import main
    from qlsbench.errors import InputError
    from qlsbench.solvers.devices import load
    from qlsbench.solvers.qasm import dumps, hhl_transpiled, place

    dataset = write_systems([_ising_n2()], tmp_path / "one.parquet")
    for version in (2, 3):
        assert main(
            [
                "export",
                str(dataset),
                "--out",
                str(tmp_path / f"v{version}"),
                "--format",
                "qasm",
                "--circuits",
                "hhl",
                "vqls",
                "--layers",
                "1",
                "--qasm-version",
                str(version),
            ]
        ) in (0, None)
    assert "as OpenQASM 2" in capsys.readouterr().out
    (index_path,) = (tmp_path / "v2").glob("*/index.json")
    index = json.loads(index_path.read_text())
    assert index["openqasm"] == 2
    v2 = sorted(p.relative_to(tmp_path / "v2") for p in (tmp_path / "v2").rglob("*.qasm"))
    assert v2 == sorted(p.relative_to(tmp_path / "v3") for p in (tmp_path / "v3").rglob("*.qasm")) and len(v2) > 10
    couplers = set(load("sherbrooke").coupling_map.get_edges())
    read, on_device = {}, [p for p in v2 if "device" in p.parts or p.name.endswith("device.qasm")]
    for relative in v2:
        text = (tmp_path / "v2" / relative).read_text()
        read[relative] = qasm2.loads(text, strict=True)
        pairs = two_qubit_pairs(text)
        assert pairs == [
            tuple(read[relative].find_bit(q).index for q in inst.qubits)
            for inst in read[relative].data
            if inst.operation.num_qubits == 2
        ], relative
        if relative in on_device:
            assert read[relative].num_qubits == 127 and pairs and set(pairs) <= couplers, relative
    assert len(on_device) == len(index["tests"]) + 2  # every test, the ansatz, the HHL circuit
    vqls = [p for p in v2 if len(p.parts) > 1]
    for relative in vqls[:: max(1, len(vqls) // 8)] + [p for p in vqls if p.name.startswith("ansatz")]:
        two, three = read[relative], qasm3.loads((tmp_path / "v3" / relative).read_text())
        if relative in on_device:  # the two readers' chips differ in width (OpenQASM 3 names only the used $p)
            used = sorted({two.find_bit(q).index for inst in two.data for q in inst.qubits})
            two, three = on_region(two, used), on_region(three, used)
        assert unitary(two).equiv(unitary(three)), relative
    basis = hhl_transpiled(_ising_n2())
    (placed,), region, _ = place([basis])
    (hhl,) = [p for p in on_device if p.name.endswith(".hhl.device.qasm")]
    assert same_state(read[Path(hhl.name.replace(".device", ""))], basis)
    assert same_state(on_region(read[hhl], region), placed)
    layouts = _header_layouts((tmp_path / "v2" / hhl).read_text())
    assert layouts["layout"] == [region[i] for i in placed.layout.initial_index_layout(filter_ancillas=True)]
    assert layouts["final layout, after routing"] == [
        region[i] for i in placed.layout.final_index_layout(filter_ancillas=True)
    ]
    ansatz = _header_layouts((index_path.parent / "ansatz.device.qasm").read_text())
    assert ansatz["final layout, after routing"] == index["ansatz_layout"]
    with pytest.raises(InputError, match="OpenQASM version 4: written are 2, 3"):
        dumps(placed, 4)


def test_the_openqasm_2_writer_uses_only_qelib1_gates_defines_the_rest_and_writes_the_same_text_twice():
    """Gates outside the paper's qelib1.inc (u, p, cp, sx, ecr, rzx at two angles, swap, two different
    unitaries, open controls, cu) come out as qelib1.inc gates or gates the file defines; the strict reader gives
    back the circuit's unitary (up to the global phase OpenQASM 2 cannot state), the same circuit gives the same
    text, and Qiskit's own writer fails the Qiskit-free check that this one passes."""
    from qiskit import QuantumCircuit, qasm2
    from qiskit.circuit import Parameter
    from qiskit.circuit.library import CUGate, ECRGate, RYGate, RZXGate, UnitaryGate
    from qiskit.quantum_info import random_unitary

    from qlsbench.errors import InputError
    from qlsbench.solvers import qelib1

    circuit = QuantumCircuit(3, 1, global_phase=0.4)
    circuit.u(0.1, 0.2, 0.3, 0)
    circuit.p(0.7, 1)
    circuit.cp(-0.2, 0, 2)
    circuit.sx(1)
    circuit.append(ECRGate(), [1, 2])
    circuit.append(RZXGate(np.pi / 4), [0, 1])
    circuit.append(RZXGate(-np.pi / 4), [2, 0])
    circuit.swap(0, 2)
    for seed, qubits in ((1, [0, 2]), (2, [1, 2])):
        circuit.append(UnitaryGate(random_unitary(4, seed=seed)), qubits)
    circuit.append(RYGate(0.3).control(1, ctrl_state=0), [2, 1])
    circuit.append(CUGate(0.1, 0.2, 0.3, 0.4), [0, 1])
    circuit.rz(1e-5, 1)
    circuit.measure(2, 0)
    text = qelib1.dumps(circuit, ("a comment",))
    assert text == qelib1.dumps(circuit.copy(), ("a comment",)) and "// a comment\n" in text
    assert re.findall(r"^gate (\w+)", text, re.M) == [
        "sx",
        "ecr",
        "rzx",
        "rzx_1",
        "swap",
        "unitary",
        "unitary_1",
        "cry",
        "cry_o0",
        "cu",
    ]
    two_qubit_pairs(text)
    assert unitary(qasm2.loads(text, strict=True)).equiv(unitary(circuit))
    with pytest.raises(AssertionError, match="not a gate a strict reader knows: sx "):
        two_qubit_pairs(qasm2.dumps(circuit))
    circuit.rx(Parameter("theta"), 0)
    with pytest.raises(InputError, match="OpenQASM 2: the circuit has 1 unbound parameters"):
        qelib1.dumps(circuit)


TINY_BOARD = """version: 1
sources:
  dem_c:
    - {group: tiny, n_spheres: 8, mu: 0.3, steps: 40, seed: 0, every: 5, regularization: 1.0e-8, lcp_chain: v1,
       bands: ["1-4"]}
    - {group: tiny0, n_spheres: 16, mu: 0.0, steps: 130, seed: 0, every: 5, bands: ["2-4"]}
  ising: {n_qubits: [2], kappas: [10], J: 0.1}
per_band: 2
min_qubits: 1
run: {repeats: 1, seed: 0, time_limit: 30}
solvers: [{name: lu}]
"""


def test_export_writes_each_pinned_dem_c_systems_step_as_fclib_and_says_it_reran_to_the_pinned_bytes(tmp_path):
    """A board's pinned DEM-C systems (pinned here from two small sources, frictional and frictionless): one
    FCLIB file each, read back with the step's contacts and friction. The rerun gave each pinned system back to
    the bit, and a frictionless system's matrix is the Jacobi-scaled normal block of its file's Delassus
    operator on the active contacts (the same spectrum), so the file is that system's step."""
    import itertools

    from qlsbench.bench.board import Board, pin
    from qlsbench.bench.board.contacts import export_contact_problems
    from qlsbench.physics.lcp import read_fclib

    folder = tmp_path / "board"
    folder.mkdir()
    (folder / "board.yaml").write_text(TINY_BOARD)
    board = Board(folder)
    pin(board, progress=False)
    out = tmp_path / "fclib"
    written = export_contact_problems(folder / "systems", out, board=board)
    dem_c = [s for s in iter_systems(folder / "systems") if s.meta["family"] == "dem_c"]
    assert sorted(p.name for p in written) == sorted(f"{s.meta['pinned_name']}.fclib.hdf5" for s in dem_c)
    report = json.loads((out / "fclib.json").read_text())["systems"]
    assert sorted(report) == sorted(s.meta["pinned_name"] for s in dem_c) and len(report) >= 3
    frictionless = 0
    for system in dem_c:
        entry = report[system.meta["pinned_name"]]
        assert entry["reproduced"] and entry["step"] == system.meta["step"]
        problem = read_fclib(out / entry["file"])
        assert problem.nc == system.meta["contacts"] == entry["contacts"]
        assert np.all(problem.mu == system.meta["mu"])
        if system.meta["mu"] == 0:
            W = problem.W.toarray() if sp.issparse(problem.W) else np.asarray(problem.W)
            normal = W[0::3, 0::3]
            scaled = normal / np.sqrt(np.outer(np.diag(normal), np.diag(normal)))
            n = system.meta["n_orig"]
            A = system.A.toarray()[:n, :n]
            eig = np.linalg.eigvalsh(A / np.mean(np.diag(A)))
            assert any(
                np.allclose(np.linalg.eigvalsh(scaled[np.ix_(S, S)]), eig, atol=1e-9)
                for S in itertools.combinations(range(len(normal)), n)
            )
            frictionless += 1
    assert frictionless >= 2


def test_fclib_export_refuses_what_it_cannot_rebuild(tmp_path, capsys):
    """No DEM-C system, or one the pinned set does not name: one line each, nothing written."""
    from qlsbench.cli import main

    ising = PINNED / "systems" / "ising.parquet"
    assert main(["export", str(ising), "--out", str(tmp_path / "a"), "--format", "fclib", "--quiet"]) == 2
    assert "no DEM-C system; FCLIB problems are written for the pinned set's DEM-C systems" in capsys.readouterr().err
    stranger = next(iter_systems(PINNED / "systems" / "dem_c-mu0.parquet"))
    dataset = write_systems([LinearSystem(stranger.A, stranger.b * 2, dict(stranger.meta))], tmp_path / "own.parquet")
    assert main(["export", str(dataset), "--out", str(tmp_path / "b"), "--format", "fclib", "--quiet"]) == 2
    assert "1 DEM-C system not in the pinned set" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
