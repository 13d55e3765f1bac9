"""The circuit solvers' circuits in OpenQASM 3, the format quantum compilers and benchmark suites read.

``hhl_qasm`` gives the HHL circuit of one system (:meth:`qlsbench.solvers.hhl.HHL.circuit`: state preparation,
phase estimation, inversion, uncomputation, every qubit measured) transpiled to CX and U gates (Qiskit level 1,
seed 0), the level at which every tool reads it: the dense controlled powers and the state preparation have no
QASM spelling of their own. ``qiskit.qasm3.loads`` reads it back to the same circuit (test).

``qsvt_qasm`` does the same for the QSVT circuit (:meth:`qlsbench.solvers.qsvt.QSVT.circuit`: ``|b>``, the
phase sequence around the LCU block encoding and its inverse, every qubit measured); its size grows as the
degree times the Pauli terms, so it is meant for small systems at a low degree.

The exports write each HHL and QSVT circuit twice: in CX and U, and at the device level, that circuit as HHL's
``device`` backend runs it at its default optimisation level (:func:`place`: routed inside one region of a
device's chip).

A device-level file numbers its qubits as the chip does (:func:`device_qasm`): the register is the chip's width
(OpenQASM 3: the physical qubits ``$p``), so every two-qubit gate lies on one of the device's couplers as written,
and a header comment gives the layout (``// layout: virtual 0 -> physical 60, ...``) and where routing leaves
each virtual qubit.

``export_vqls_qasm`` writes what VQLS runs on a device, at its trained angles (``vqls-global`` or ``vqls-local``
on exact state vectors, L-BFGS-B, seeded): the ansatz V(alpha*) and every Hadamard test of one cost evaluation,
each at three levels (:data:`LEVELS`), with an ``index.json`` that says how the tests' ``<Z>`` values combine into
the cost. The tests measure their ancilla into ``c[0]``, so the ancilla is the measured qubit at every level.

Every writer takes ``version``: 3, or 2 for the tools that read only OpenQASM 2 (:func:`dumps`); OpenQASM 2 is
written in the gates of the paper's ``qelib1.inc`` and gates the file defines (:mod:`qlsbench.solvers.qelib1`), so a
strict reader accepts it.
"""

from __future__ import annotations

import json

#: The OpenQASM versions a circuit is written in: 3, and 2 for the tools that read only 2 (read back by a strict
#: reader: ``qiskit.qasm2.loads`` with no custom instructions).
QASM_VERSIONS = (2, 3)
#: The gates a written circuit is expressed in.
BASIS = ("cx", "u")
#: Largest system (qubits) whose HHL circuit is written: the controlled powers are synthesised from dense
#: unitaries, which takes seconds at 3 system qubits and grows as 4^n.
MAX_QASM_QUBITS = 3
#: Largest system whose QSVT circuit is written: it holds degree x Pauli terms controlled strings (about 200 x 16
#: at 2 qubits and the benchmark's kappa ~ 10), so the text grows fast with the qubits.
MAX_QSVT_QASM_QUBITS = 2
#: Largest system whose VQLS circuits are written (the ansatz is cheap; the cost's tests grow as terms^2 x qubits).
MAX_VQLS_QASM_QUBITS = 3
#: Most Hadamard tests written per system and level: a system needing more gets its ansatz only, and its
#: index says why (a 3-qubit DEM-C system with 28 Pauli terms takes 2730 tests per local-cost evaluation).
MAX_VQLS_TESTS = 1000
#: The levels a VQLS circuit is written at: as built (custom gates defined in the file), in :data:`BASIS`, and
#: routed to a device (its basis and coupling map, inside the region :meth:`~qlsbench.solvers.devices.Device.place`
#: picks, written in the chip's qubit numbering: :func:`device_qasm`).
LEVELS = ("algorithmic", "basis", "device")


def hhl_transpiled(system, clock: int = 4):
    """The HHL circuit of ``system`` with ``clock`` clock qubits, transpiled to :data:`BASIS`."""
    from qlsbench.solvers import registry

    solver = registry.get("hhl", clock=clock)
    return to_basis([solver.circuit(system)])[0]  # type: ignore[attr-defined]  # HHL's circuit, not a Solver's


def hhl_qasm(system, clock: int = 4, version: int = 3) -> str:
    """OpenQASM text (:func:`dumps`) of :func:`hhl_transpiled`."""
    return dumps(hhl_transpiled(system, clock), version)


def export_hhl_qasm(dataset, out, clock: int = 4, version: int = 3, device: str | None = None) -> list:
    """``<name>.hhl.qasm`` (:func:`hhl_transpiled`) and ``<name>.hhl.device.qasm`` (that circuit on ``device``,
    :func:`device_qasm`) in ``out`` for every system of ``dataset`` up to :data:`MAX_QASM_QUBITS` qubits (named
    as :func:`~qlsbench.data._matrix_market.export_matrix_market` names them); the paths written."""
    return _export(dataset, out, "hhl", MAX_QASM_QUBITS, lambda system: hhl_transpiled(system, clock), version, device)


def export_qsvt_qasm(dataset, out, epsilon: float = 0.1, version: int = 3, device: str | None = None) -> list:
    """``<name>.qsvt.qasm`` and ``<name>.qsvt.device.qasm`` in ``out`` for every system of ``dataset`` up to
    :data:`MAX_QSVT_QASM_QUBITS` qubits, at the degree ``qsvt`` predicts for ``epsilon``, as
    :func:`export_hhl_qasm` writes HHL's; a system whose degree is over the solver's ``max_degree`` is left out,
    as the solver declines it. The paths written."""
    from qlsbench.errors import InputError

    def circuit(system):
        try:
            return qsvt_transpiled(system, epsilon)
        except InputError:  # degree over max_degree: no circuit the solver would run
            return None

    return _export(dataset, out, "qsvt", MAX_QSVT_QASM_QUBITS, circuit, version, device)


def _export(dataset, out, kind: str, max_qubits: int, circuit_of, version: int, device: str | None) -> list:
    """``<name>.<kind>.qasm`` and ``<name>.<kind>.device.qasm`` for each system of :func:`_small_systems` whose
    ``circuit_of`` (in :data:`BASIS`) is not None."""
    from pathlib import Path

    from qlsbench.data import atomic_write_text

    written = []
    for system, name in _small_systems(dataset, max_qubits):
        circuit = circuit_of(system)
        if circuit is None:
            continue
        written.append(atomic_write_text(Path(out) / f"{name}.{kind}.qasm", dumps(circuit, version)))
        (placed,), region, device_name = place([circuit], device)
        written.append(
            atomic_write_text(
                Path(out) / f"{name}.{kind}.device.qasm", device_qasm(placed, region, device_name, version)
            )
        )
    return written


def place(circuits: list, device: str | None = None) -> tuple[list, list[int], str]:
    """``circuits`` routed to ``device`` (default :data:`~qlsbench.solvers.devices.DEFAULT_DEVICE`) as the circuit
    solvers' ``device`` backends route them: :meth:`~qlsbench.solvers.devices.Device.place` at optimisation level
    1, seed 0, no noise. The circuits (numbered 0..k-1 inside the region), the region and the device's name."""
    from qlsbench.solvers.devices import DEFAULT_DEVICE, Device

    on_device = Device(device or DEFAULT_DEVICE, noise_scale=0.0, optimization_level=1, seed=0)
    placed, region = on_device.place(circuits)
    return placed, region, on_device.name


def device_qasm(placed, region: list[int], device: str, version: int = 3) -> str:
    """OpenQASM text of a circuit :func:`place` put inside ``region`` of ``device``, in the chip's numbering.

    The register is the chip's width and qubit ``i`` of ``placed`` is written as the chip's qubit ``region[i]``
    (:func:`~qlsbench.solvers.devices.on_chip`), so a reader finds each two-qubit gate on a coupler without the
    layout; the header comment states it anyway: where each virtual qubit (the circuit's before routing) starts
    and where routing leaves it.
    """
    from qlsbench.solvers.devices import load, on_chip

    chip = on_chip(placed, region, load(device).num_qubits)
    return dumps(chip, version, layout_comments(chip, device))


def layout_comments(chip, device: str) -> tuple[str, ...]:
    """The header lines of a device-level file: the device and the layout of ``chip`` (a circuit in the chip's
    numbering, with its layout)."""

    def pairs(physical: list[int]) -> str:
        return ", ".join(f"virtual {v} -> physical {p}" for v, p in enumerate(physical))

    return (
        f"device: {device}, {chip.num_qubits} qubits numbered as on the chip; every two-qubit gate is on a "
        "coupler as written",
        f"layout: {pairs(chip.layout.initial_index_layout(filter_ancillas=True))}",
        f"final layout, after routing: {pairs(chip.layout.final_index_layout(filter_ancillas=True))}",
    )


def _small_systems(dataset, max_qubits: int):
    """``(system, name)`` for each distinct system of ``dataset`` up to ``max_qubits``, named as
    :func:`~qlsbench.data._matrix_market.export_matrix_market` names it (the pinned name, else its id)."""
    from qlsbench.data import iter_systems
    from qlsbench.data._matrix_market import system_names

    names, seen = system_names(), set()
    for system in iter_systems(dataset):
        if system.system_id in seen or system.dim > 2**max_qubits:
            continue
        seen.add(system.system_id)
        yield system, names.get(system.system_id, system.system_id)


def qsvt_transpiled(system, epsilon: float = 0.1, degree: int | None = None):
    """The QSVT circuit of ``system`` (``qsvt`` with ``epsilon`` and ``degree``), transpiled to :data:`BASIS`."""
    from qlsbench.solvers import registry

    solver = registry.get("qsvt", epsilon=epsilon, degree=degree)
    return to_basis([solver.circuit(system)])[0]  # type: ignore[attr-defined]  # QSVT's circuit, not a Solver's


def qsvt_qasm(system, epsilon: float = 0.1, degree: int | None = None, version: int = 3) -> str:
    """OpenQASM text (:func:`dumps`) of :func:`qsvt_transpiled`."""
    return dumps(qsvt_transpiled(system, epsilon, degree), version)


def export_vqls_qasm(
    dataset, out, cost: str = "local", layers: int = 4, seed: int = 0, device: str | None = None, version: int = 3
) -> list:
    """``<name>.vqls-<cost>/`` in ``out`` for every system of ``dataset`` up to :data:`MAX_VQLS_QASM_QUBITS`
    qubits (see :func:`write_vqls_circuits`); the index files written."""
    from pathlib import Path

    return [
        write_vqls_circuits(
            system,
            Path(out) / f"{name}.vqls-{cost}",
            cost=cost,
            layers=layers,
            seed=seed,
            device=device,
            version=version,
        )
        for system, name in _small_systems(dataset, MAX_VQLS_QASM_QUBITS)
    ]


def trained_angles(system, cost: str = "local", layers: int = 4, seed: int = 0):
    """VQLS's angles for ``system`` (exact state vectors, L-BFGS-B, ``seed``) and the solve's result."""
    from qlsbench.errors import InputError
    from qlsbench.solvers import registry

    result = registry.get(f"vqls-{cost}", backend="exact", layers=layers).solve(system, seed=seed)
    if result.state is None:
        raise InputError(f"system {system.system_id}: vqls-{cost} gave no angles ({result.message})")
    return result.state["alpha"], result


def vqls_circuits(system, alpha, cost: str = "local", layers: int = 4, device: str | None = None) -> dict:
    """The ansatz at ``alpha`` and one ``cost`` evaluation's Hadamard tests at every level of :data:`LEVELS`.

    Returns
    -------
    dict
        ``ansatz`` and ``tests``: level to circuit (list of circuits); ``terms``: the tests'
        :class:`~qlsbench.solvers.vqls.circuits.Term`; ``decomposition``; ``layout``: the ansatz's final layout
        on the device (routing leaves virtual qubit i on the chip's qubit ``layout[i]``); ``regions``: the
        device's physical qubits behind the device-level ansatz and tests (the device-level circuits here are
        numbered 0..k-1 inside them; :func:`device_qasm` writes them in the chip's numbering). ``tests`` is empty
        when the cost takes more than :data:`MAX_VQLS_TESTS` circuits.
    """
    from qlsbench.solvers.vqls import circuits, pauli_terms
    from qlsbench.solvers.vqls.ansatz import ansatz_circuit
    from qlsbench.solvers.vqls.problem import VQLSProblem

    problem = VQLSProblem.from_system(system)
    decomposition = pauli_terms(system, 1e-12)
    labels = decomposition.labels()
    terms = circuits.terms(labels, decomposition.coeffs, cost)
    v_circuit = ansatz_circuit(problem.n_qubits, layers)
    ansatz = _bound(v_circuit, alpha)
    tests = []
    if len(terms) <= MAX_VQLS_TESTS:
        u_circuit = problem.u_circuit()
        tests = [_bound(circuits.build(t, labels, layers, v_circuit, u_circuit, measure=True), alpha) for t in terms]
    routed_ansatz, ansatz_region, device_name = place([ansatz], device)
    routed_tests, test_region, _ = place(tests, device) if tests else ([], [], device_name)
    return {
        "ansatz": {"algorithmic": ansatz, "basis": to_basis([ansatz])[0], "device": routed_ansatz[0]},
        "tests": {"algorithmic": tests, "basis": to_basis(tests), "device": routed_tests} if tests else {},
        "terms": terms,
        "decomposition": decomposition,
        "layout": [ansatz_region[i] for i in routed_ansatz[0].layout.final_index_layout()[: problem.n_qubits]],
        "regions": {"ansatz": ansatz_region, "tests": test_region},
        "device": device_name,
    }


def write_vqls_circuits(
    system, folder, cost: str = "local", layers: int = 4, seed: int = 0, device: str | None = None, version: int = 3
):
    """Train VQLS on ``system`` and write its circuits to ``folder``; the path of its ``index.json``.

    ``ansatz.<level>.qasm`` for each level, ``<level>/<test>.qasm`` for each Hadamard test (named by
    :func:`test_name`), and ``index.json``: the angles, the Pauli terms, each test's role, the device layout and
    the cost the tests give at the trained angles, so a reader can recombine them. The device level is in the
    chip's qubit numbering (:func:`device_qasm`), with each file's layout in its header. Each file is written
    atomically, the index last; ``.qasm`` files of an earlier export that this one does not write are removed.
    """
    from pathlib import Path

    from qlsbench.data import atomic_write_text

    alpha, result = trained_angles(system, cost, layers, seed)
    built = vqls_circuits(system, alpha, cost, layers, device)
    folder = Path(folder)
    written = set()
    for level in LEVELS:
        ansatz = _level_text(built["ansatz"][level], level, built["regions"]["ansatz"], built["device"], version)
        written.add(atomic_write_text(folder / f"ansatz.{level}.qasm", ansatz))
        for term, circuit in zip(built["terms"], built["tests"].get(level, [])):
            test = _level_text(circuit, level, built["regions"]["tests"], built["device"], version)
            written.add(atomic_write_text(folder / level / f"{test_name(term)}.qasm", test))
    for stale in set(folder.glob("**/*.qasm")) - written:
        stale.unlink()
    index = _index(system, alpha, result, built, cost, layers, seed, version)
    return atomic_write_text(folder / "index.json", json.dumps(index, indent=1) + "\n")


def _level_text(circuit, level: str, region: list[int], device: str, version: int) -> str:
    """The text of one VQLS circuit at ``level``: the device level in the chip's numbering (:func:`device_qasm`)."""
    if level == "device":
        return device_qasm(circuit, region, device, version)
    return dumps(circuit, version)


def test_name(term) -> str:
    """A Hadamard test's file name: ``beta-l0-l2-re``, ``gamma-l1-im``, ``delta-l0-l3-z1-re``."""
    part = "im" if term.part else "re"
    if term.kind == "gamma":
        return f"gamma-l{term.l}-{part}"
    if term.kind == "beta":
        return f"beta-l{term.l}-l{term.lp}-{part}"
    return f"delta-l{term.l}-l{term.lp}-z{term.j}-{part}"


def _index(system, alpha, result, built: dict, cost: str, layers: int, seed: int, version: int) -> dict:
    """What ``index.json`` holds (see :func:`write_vqls_circuits`)."""
    import numpy as np
    import qiskit

    from qlsbench.solvers.vqls import circuits
    from qlsbench.solvers.vqls.backends import ExactBackend
    from qlsbench.solvers.vqls.problem import VQLSProblem

    decomposition, terms = built["decomposition"], built["terms"]
    coeffs = np.asarray(decomposition.coeffs, dtype=complex)
    exact = ExactBackend(VQLSProblem.from_system(system), layers, cost, True).cost(alpha)
    tests = len(terms) if built["tests"] else 0
    return {
        "system_id": system.system_id,
        "n_qubits": int(decomposition.n_qubits),
        "solver": f"vqls-{cost}",
        "training": {
            "backend": "exact",
            "optimizer": "lbfgsb",
            "layers": layers,
            "ansatz": "brickwall",
            "seed": seed,
            "status": result.status.value,
            "iterations": result.iterations,
        },
        "alpha": [float(a) for a in alpha],
        "cost": float(exact),
        "pauli": {"labels": decomposition.labels(), "re": coeffs.real.tolist(), "im": coeffs.imag.tolist()},
        "combine": "qlsbench.solvers.vqls.circuits.combine: each test's <Z> on its measured ancilla (c[0]); "
        "beta/gamma/delta as in that module's docstring; normalised cost",
        "tests": [
            {
                "file": f"{test_name(t)}.qasm",
                "kind": t.kind,
                "l": t.l,
                "lp": t.lp,
                "j": t.j,
                "part": "im" if t.part else "re",
            }
            for t in terms
        ]
        if tests
        else [],
        "tests_written": tests,
        "tests_skipped": ""
        if tests
        else (f"{len(terms)} Hadamard tests per evaluation, over {MAX_VQLS_TESTS}: the ansatz only"),
        "circuits_per_evaluation": circuits.circuit_count(
            len(coeffs), decomposition.n_qubits, cost, bool(np.any(coeffs.imag != 0))
        ),
        "levels": {
            "algorithmic": "as built; gates outside stdgates.inc defined in the file",
            "basis": f"{'+'.join(BASIS)}, Qiskit optimisation level 1, seed 0",
            "device": f"{built['device']} basis and coupling map, optimisation level 1, seed 0, inside the "
            "physical qubits listed in regions; written in the chip's numbering (qubit p of a "
            "file is the chip's qubit p), each file's layout in its header comment",
        },
        "device": built["device"],
        "regions": built["regions"],
        "ansatz_layout": built["layout"],
        "openqasm": version,
        "qiskit": qiskit.__version__,
    }


def _bound(circuit, alpha):
    """``circuit`` with the ansatz angles ``alpha`` bound (by their index in the parameter vector)."""
    return circuit.assign_parameters({p: float(alpha[p.index]) for p in circuit.parameters})


def to_basis(circuits: list) -> list:
    """``circuits`` transpiled to :data:`BASIS` (Qiskit optimisation level 1, seed 0): every written basis level."""
    from qiskit import transpile

    if not circuits:
        return []
    return list(transpile(circuits, basis_gates=list(BASIS), optimization_level=1, seed_transpiler=0))


def dumps(circuit, version: int = 3, comments: tuple[str, ...] = ()) -> str:
    """OpenQASM ``version`` text of ``circuit``, ``comments`` as ``//`` lines after the include.

    3 is Qiskit's writer; 2, for tools that read only 2, is :func:`qlsbench.solvers.qelib1.dumps` (the paper's
    ``qelib1.inc`` gates and gates the file defines: Qiskit's own OpenQASM 2 leaves ``u``, ``sx`` and others
    undefined, which a strict reader refuses).

    Raises
    ------
    InputError
        If ``version`` is neither 2 nor 3.
    """
    from qiskit import qasm3

    from qlsbench.errors import InputError
    from qlsbench.solvers import qelib1

    if version not in QASM_VERSIONS:
        raise InputError(f"OpenQASM version {version!r}: written are {', '.join(map(str, QASM_VERSIONS))}")
    if version == 2:
        return qelib1.dumps(circuit, comments)
    version_line, include, rest = qasm3.dumps(circuit).split("\n", 2)
    return "\n".join([version_line, include, *(f"// {line}" for line in comments), rest])


__all__ = [
    "BASIS",
    "LEVELS",
    "MAX_QASM_QUBITS",
    "MAX_QSVT_QASM_QUBITS",
    "MAX_VQLS_QASM_QUBITS",
    "MAX_VQLS_TESTS",
    "QASM_VERSIONS",
    "device_qasm",
    "dumps",
    "export_hhl_qasm",
    "export_qsvt_qasm",
    "export_vqls_qasm",
    "hhl_qasm",
    "hhl_transpiled",
    "layout_comments",
    "place",
    "qsvt_qasm",
    "qsvt_transpiled",
    "to_basis",
    "trained_angles",
    "vqls_circuits",
    "write_vqls_circuits",
]
