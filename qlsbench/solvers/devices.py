"""Devices as the circuit solvers meet them: routed circuits, calibrated noise and gate time.

No device can be reached from where qlsbench runs, so the standard stand-in is
used: the calibration snapshots that ship with ``qiskit-ibm-runtime``'s fake
backends (offline). A snapshot gives the device's coupling map, basis gates,
gate durations and errors, T1/T2 and readout errors. Circuits are transpiled to
it (layout, routing, basis translation) at a stated optimisation level and seed;
the region of the chip the transpiler lays them out on is cut out (a circuit on
5 of 127 qubits is simulated on 5) and the batch is routed inside it, with the
noise of exactly those qubits and couplers, built the way Aer's ``NoiseModel.from_backend`` builds it (a
depolarising error per gate sized so that, composed with thermal relaxation over
the gate's duration, the gate's infidelity is the calibrated one; a readout
error per qubit).

``noise_scale`` multiplies every gate and readout error and divides T1 and T2:
0 is the ideal machine with the same routing, 1 the device, values between and
above read as a curve. Idle qubits do not decohere while others work (the
circuits are not scheduled), as in ``NoiseModel.from_backend`` used without a
scheduling pass: a device's numbers are, if anything, worse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache

from qlsbench.checks import NON_NEGATIVE
from qlsbench.errors import InputError

#: Devices by name: the fake backend class of ``qiskit_ibm_runtime.fake_provider`` and what it is.
DEVICES = {
    "sherbrooke": ("FakeSherbrooke", "IBM Eagle r3, 127 qubits, heavy-hex, ECR"),
    "torino": ("FakeTorino", "IBM Heron r1, 133 qubits, heavy-hex, CZ"),
}
#: The device a circuit solve is routed to when none is named (a current heavy-hex device).
DEFAULT_DEVICE = "sherbrooke"
#: Noisy circuits on a region of up to this many qubits run on Aer's density-matrix method; wider ones on
#: statevector trajectories, one per shot. Measured (``benchmarks/bench_devices.py``, 1000 shots, 4-layer
#: ansatz on sherbrooke): the density matrix is 5x faster at 4 qubits, 2.1x at 11 and even at 12.
DENSITY_MATRIX_QUBITS = 11
#: Density-matrix runs on a region of at least this many qubits fuse gates (Aer's fusion, off below its default
#: threshold of 7 there). Measured on the noisy VQLS-local batches (2 layers, 2000 shots, same counts bit for
#: bit): 1.85x faster per evaluation on 6 qubits (n = 5), no gain on 5, 1.1x slower on 4; on the 37 shared
#: fronts of those batches (:mod:`qlsbench.solvers.heisenberg`) 1.65x on 6 qubits.
FUSED_DENSITY_MATRIX_QUBITS = 6
#: Largest error a scaled gate or readout error may reach (a depolarising or readout error must stay a
#: probability; beyond this the device is noise).
MAX_SCALED_ERROR = 0.75


@cache
def load(name: str):
    """The fake backend of device ``name`` (one of :data:`DEVICES`).

    Raises
    ------
    InputError
        Naming the devices there are, when ``name`` is not one of them, or when qiskit-ibm-runtime is missing.
    """
    if name not in DEVICES:
        raise InputError(f"unknown device {name!r}; use one of {', '.join(sorted(DEVICES))}")
    try:
        from qiskit_ibm_runtime import fake_provider
    except ImportError:  # pragma: no cover - a dependency of the package
        raise InputError("device backends need qiskit-ibm-runtime (pip install qiskit-ibm-runtime)") from None
    return getattr(fake_provider, DEVICES[name][0])()


def check_options(device: str, noise_scale: float, optimization_level: int, who: str = "") -> None:
    """Refuse, in one line prefixed by ``who``, a device that does not exist, a negative noise scale or an
    optimisation level other than 0-3 (a :class:`Device` checks its settings with this; a solver's are its
    options record's to check)."""
    prefix = f"{who}: " if who else ""
    if device not in DEVICES:
        raise InputError(f"{prefix}unknown device {device!r}; use one of {', '.join(sorted(DEVICES))}")
    NON_NEGATIVE.check(noise_scale, f"{prefix}noise_scale")
    if optimization_level not in (0, 1, 2, 3):
        raise InputError(f"{prefix}optimization_level must be 0, 1, 2 or 3, got {optimization_level!r}")


def calibration_date(name: str) -> str:
    """The date of device ``name``'s calibration snapshot (ISO format)."""
    return load(name).properties().last_update_date.isoformat()


@dataclass(frozen=True)
class RoutedCost:
    """What circuits cost as the device runs them.

    Attributes
    ----------
    depth : int
        Largest depth of the routed circuits (device basis, SWAPs included).
    two_qubit_gates : int
        Largest two-qubit gate count of one routed circuit.
    seconds : float
        Longest gate-time duration of one routed circuit, from the device's gate durations (s); no reset or
        repetition delay.
    qubits : int
        Physical qubits the circuits touch.
    """

    depth: int
    two_qubit_gates: int
    seconds: float
    qubits: int


class Device:
    """One device at one noise scale: routes circuits, places a batch in one region, simulates it with its noise.

    Parameters
    ----------
    name : str
        One of :data:`DEVICES`.
    noise_scale : float
        Multiplies gate and readout errors, divides T1 and T2 (0: ideal, 1: the device).
    optimization_level : int
        Qiskit transpiler optimisation level (0-3).
    seed : int
        Seed of the transpiler's layout and routing.
    """

    def __init__(
        self, name: str = DEFAULT_DEVICE, noise_scale: float = 1.0, optimization_level: int = 1, seed: int = 0
    ) -> None:
        check_options(name, noise_scale, optimization_level)
        self.name, self.noise_scale = name, float(noise_scale)
        self.optimization_level, self.seed = int(optimization_level), int(seed)
        self.backend = load(name)

    def route(self, circuits: list) -> list:
        """``circuits`` transpiled to the whole device (full chip width): for counting, not for simulation.

        Raises
        ------
        InputError
            When a circuit is wider than the device.
        """
        from qiskit import transpile

        self._check_width(circuits)
        return transpile(
            list(circuits), self.backend, optimization_level=self.optimization_level, seed_transpiler=self.seed
        )

    def place(self, circuits: list) -> tuple[list, list[int]]:
        """``circuits`` routed inside one region of the chip, numbered 0..k-1, and the region's physical qubits.

        The region is where the transpiler lays out the widest circuit on the whole device (the qubits that
        routed circuit touches); every circuit is then transpiled to the device restricted to that region
        (its qubits, their couplers, durations and errors), so a batch shares one set of qubits and one
        noise model, and a simulation holds k qubits, not the chip's 127.
        """
        from qiskit import transpile

        self._check_width(circuits)
        widest = max(circuits, key=lambda qc: (qc.num_qubits, qc.size()))
        routed = transpile(widest, self.backend, optimization_level=self.optimization_level, seed_transpiler=self.seed)
        region = sorted({routed.find_bit(q).index for inst in routed.data for q in inst.qubits})
        placed = transpile(
            list(circuits),
            target=region_target(self.name, tuple(region), 0.0),
            optimization_level=self.optimization_level,
            seed_transpiler=self.seed,
        )
        return placed, region

    def _check_width(self, circuits: list) -> None:
        width = max((qc.num_qubits for qc in circuits), default=0)
        if width > self.backend.num_qubits:
            raise InputError(
                f"a circuit of {width} qubits is wider than device {self.name} ({self.backend.num_qubits} qubits)"
            )

    def noise_model(self, physical: list[int]):
        """The device's noise on ``physical`` qubits (renumbered 0..k-1), scaled; ``None`` at scale 0."""
        if self.noise_scale == 0:
            return None
        return _noise_model(self.name, tuple(physical), self.noise_scale)

    def cost(self, routed: list, region: list[int] | None = None) -> RoutedCost:
        """Depth, two-qubit gates and gate time of routed circuits (the worst circuit of each); ``region``: the
        physical qubits of circuits from :meth:`place` (numbered 0..k-1 inside it)."""
        if not routed:
            return RoutedCost(0, 0, 0.0, 0)
        used = {qc.find_bit(q).index for qc in routed for inst in qc.data for q in inst.qubits}
        target = self.backend.target if region is None else region_target(self.name, tuple(region), 0.0)
        return RoutedCost(
            depth=max(qc.depth() for qc in routed),
            two_qubit_gates=max(two_qubit_count(qc) for qc in routed),
            seconds=max(duration(qc, target) for qc in routed),
            qubits=len(used),
        )

    def simulator(self, physical: list[int], threads: int = 1, density_matrix: bool = False):
        """An Aer simulator with the noise of ``physical`` qubits: density matrix when small (or asked for, noise or
        not), else trajectories."""
        from qiskit_aer import AerSimulator

        noise = self.noise_model(physical)
        small = noise is not None and len(physical) <= DENSITY_MATRIX_QUBITS
        method = "density_matrix" if density_matrix or small else "statevector"
        # Aer fuses a density-matrix circuit only when it holds more qubits than the threshold (measured).
        fusion = {"fusion_threshold": FUSED_DENSITY_MATRIX_QUBITS - 1} if method == "density_matrix" else {}
        return AerSimulator(
            method=method,
            noise_model=noise,
            enable_truncation=False,
            max_parallel_experiments=threads,
            max_parallel_threads=threads,
            max_parallel_shots=1,
            **fusion,
        )

    def describe(self) -> dict:
        """Name, calibration date and settings, for a result's resources."""
        return {
            "device": self.name,
            "calibration_date": calibration_date(self.name),
            "noise_scale": self.noise_scale,
            "optimization_level": self.optimization_level,
            "seed_transpiler": self.seed,
        }


def on_chip(placed, region: list[int], width: int):
    """A circuit from :meth:`Device.place` (numbered 0..k-1 inside ``region``) in the chip's own numbering.

    Qubit ``i`` of ``placed`` becomes qubit ``region[i]`` of a ``width``-qubit circuit, so every two-qubit gate
    sits on one of the device's couplers as written; the layout is carried over (virtual qubits to physical
    ones, the chip's other qubits as ancillas), which is what makes a writer such as OpenQASM 3's name the
    qubits ``$p``.
    """
    from qiskit import QuantumCircuit, QuantumRegister
    from qiskit.transpiler import Layout, TranspileLayout

    chip = QuantumCircuit(QuantumRegister(width, "q"), global_phase=placed.global_phase)
    chip.add_bits(placed.clbits)
    for register in placed.cregs:
        chip.add_register(register)
    chip.compose(placed, qubits=list(region), clbits=chip.clbits, inplace=True)
    old = placed.layout
    virtual = {bit: region[index] for bit, index in old.initial_layout.get_virtual_bits().items()}
    inputs = dict(old.input_qubit_mapping)
    spare = sorted(set(range(width)) - set(region))
    if spare:
        ancillas = QuantumRegister(len(spare), "chip_ancilla")
        virtual.update(zip(ancillas, spare))
        inputs.update({bit: len(old.input_qubit_mapping) + j for j, bit in enumerate(ancillas)})
    moved = (
        {}
        if old.final_layout is None
        else {
            chip.qubits[region[placed.find_bit(bit).index]]: region[index]
            for bit, index in old.final_layout.get_virtual_bits().items()
        }
    )
    # The transpiler's own way of saying a circuit is physical (QuantumCircuit.layout has no setter).
    chip._layout = TranspileLayout(
        initial_layout=Layout(virtual),
        input_qubit_mapping=inputs,
        final_layout=None
        if old.final_layout is None
        else Layout({qubit: moved.get(qubit, p) for p, qubit in enumerate(chip.qubits)}),
        _input_qubit_count=old._input_qubit_count,
        _output_qubit_list=list(chip.qubits),
    )
    return chip


def two_qubit_count(circuit) -> int:
    """Gates acting on two qubits (SWAPs decomposed by routing already count as their gates)."""
    return sum(1 for inst in circuit.data if inst.operation.num_qubits == 2 and inst.operation.name != "barrier")


#: Error mitigations of the circuit solvers' ``device`` backends.
MITIGATIONS = ("none", "readout", "zne", "readout+zne")
#: Gate-folding factors of zero-noise extrapolation (odd: G (G^dagger G)^k).
ZNE_FACTORS = (1, 3, 5)


def check_mitigation(mitigation: str, prefix: str = "") -> None:
    """One line, after ``prefix``, when ``mitigation`` is not one of :data:`MITIGATIONS`."""
    if mitigation not in MITIGATIONS:
        raise InputError(f"{prefix}unknown mitigation {mitigation!r}; use one of {', '.join(MITIGATIONS)}")


def richardson(factors, values):
    """Values extrapolated to zero noise: the polynomial through ``(factor, value)`` evaluated at 0.

    ``values`` has one row per factor (and a column per quantity); Lagrange weights at 0.
    """
    import numpy as np

    factors = np.asarray(factors, dtype=float)
    weights = np.array(
        [np.prod([fj / (fj - fi) for j, fj in enumerate(factors) if j != i]) for i, fi in enumerate(factors)]
    )
    return weights @ np.asarray(values, dtype=float)


def fold(circuit, factor: int, target):
    """``circuit`` with its gates folded to ``factor`` times (odd): ``G (G^dagger G)^k``, measured as before.

    The folded body is translated back to ``target``'s gates (the inverse of sx is not one) at level 0, so
    nothing folded cancels.
    """
    if factor == 1:
        return circuit
    from qiskit import transpile

    measured = measured_qubits(circuit)
    body = circuit.remove_final_measurements(inplace=False)
    folded = body.copy()
    for _ in range((factor - 1) // 2):
        folded.compose(body.inverse(), inplace=True)
        folded.compose(body, inplace=True)
    folded.add_register(*circuit.cregs)
    for clbit, qubit in measured.items():
        folded.measure(qubit, clbit)
    return transpile(folded, target=target, optimization_level=0)


def measured_qubits(circuit) -> dict[int, int]:
    """Classical bit -> the qubit measured into it (the last measurement of each bit)."""
    out = {}
    for inst in circuit.data:
        if inst.operation.name == "measure":
            out[circuit.find_bit(inst.clbits[0]).index] = circuit.find_bit(inst.qubits[0]).index
    if not out:
        raise ValueError("the circuit measures nothing")
    return out


def confusion(simulator, qubit: int, width: int, shots: int, seed: int) -> tuple[float, float]:
    """``P(read 0 | prepared 0)`` and ``P(read 0 | prepared 1)`` of ``qubit``: two calibration circuits."""
    from qiskit import QuantumCircuit

    zero, one = QuantumCircuit(width, 1), QuantumCircuit(width, 1)
    one.x(qubit)
    for qc in (zero, one):
        qc.measure(qubit, 0)
    res = simulator.run([zero, one], shots=shots, seed_simulator=seed).result()
    return tuple(res.get_counts(i).get("0", 0) / shots for i in range(2))


def unconfuse(probabilities, confusions: list[tuple[float, float]]):
    """A distribution over ``k`` measured bits with each bit's readout error inverted (tensored), clipped to
    non-negative and renormalised.

    ``probabilities[i]`` is the probability of outcome ``i`` (bit ``j`` of ``i`` is classical bit ``j``);
    ``confusions[j]`` the ``(P(0|0), P(0|1))`` of the qubit read into bit ``j``. A bit whose two rows agree
    carries no information and is left as read.
    """
    import numpy as np

    k = len(confusions)
    p = np.asarray(probabilities, dtype=float).reshape((2,) * k)  # axis 0 is bit k-1
    for j, (p00, p01) in enumerate(confusions):
        if p00 == p01:
            continue
        inverse = np.linalg.inv(np.array([[p00, p01], [1.0 - p00, 1.0 - p01]]))
        p = np.moveaxis(np.tensordot(inverse, p, axes=([1], [k - 1 - j])), 0, k - 1 - j)
    p = np.clip(p.reshape(-1), 0.0, None)
    total = p.sum()
    return p / total if total > 0 else p


def duration(circuit, target) -> float:
    """Gate-time duration of a routed circuit (s): the critical path through the device's gate durations."""
    free = [0.0] * circuit.num_qubits
    for inst in circuit.data:
        qubits = tuple(circuit.find_bit(q).index for q in inst.qubits)
        name = inst.operation.name
        step = 0.0
        if name in target.operation_names and qubits in (target[name] or {}):
            props = target[name][qubits]
            step = props.duration or 0.0 if props is not None else 0.0
        start = max(free[q] for q in qubits) if qubits else 0.0
        for q in qubits:
            free[q] = start + step
    return max(free, default=0.0)


@lru_cache(maxsize=64)
def region_target(name: str, physical: tuple[int, ...], scale: float):
    """Device ``name`` restricted to ``physical`` qubits (renumbered 0..k-1): their gates, couplers, durations
    and errors, every error multiplied by ``scale`` (at most :data:`MAX_SCALED_ERROR`) and T1, T2 divided by it.

    At ``scale`` 0 the errors are 0 and the coherence times kept: the target routes, it adds no noise.
    """
    from qiskit.transpiler import InstructionProperties, QubitProperties, Target

    full = load(name).target
    where = {q: i for i, q in enumerate(physical)}
    qubit_properties = [
        QubitProperties(
            t1=_scaled_time(full.qubit_properties[q].t1, scale),
            t2=_scaled_time(full.qubit_properties[q].t2, scale),
            frequency=full.qubit_properties[q].frequency,
        )
        for q in physical
    ]
    small = Target(num_qubits=len(physical), dt=full.dt, qubit_properties=qubit_properties)
    for op_name in full.operation_names:
        props = full[op_name]
        if props is None or op_name in CONTROL_FLOW or op_name == "delay":
            continue
        kept = {}
        for qargs, prop in props.items():
            if qargs is None or not all(q in where for q in qargs):
                continue
            error = None if prop is None or prop.error is None else min(prop.error * scale, MAX_SCALED_ERROR)
            kept[tuple(where[q] for q in qargs)] = InstructionProperties(
                duration=None if prop is None else prop.duration, error=error
            )
        if kept:
            small.add_instruction(full.operation_from_name(op_name), kept, name=op_name)
    return small


#: Instructions of a device's target that are not gates (control flow): left out of a region.
CONTROL_FLOW = ("for_loop", "if_else", "switch_case", "while_loop")


@lru_cache(maxsize=64)
def _noise_model(name: str, physical: tuple[int, ...], scale: float):
    """Aer noise model of ``physical`` qubits of device ``name`` (renumbered), built as Aer's
    ``NoiseModel.from_backend`` builds it (gate errors with thermal relaxation, readout errors), scaled."""
    from qiskit_aer.noise import NoiseModel
    from qiskit_aer.noise.device.models import (
        basic_device_gate_errors,
        basic_device_readout_errors,
    )

    small = region_target(name, physical, scale)
    model = NoiseModel(basis_gates=[op for op in small.operation_names if op not in ("measure", "reset")])
    for qubits, error in basic_device_readout_errors(target=small):
        model.add_readout_error(error, qubits)
    for op_name, qubits, error in basic_device_gate_errors(target=small):
        model.add_quantum_error(error, op_name, qubits)
    return model


@lru_cache(maxsize=64)
def noise_errors(name: str, physical: tuple[int, ...], scale: float) -> tuple[dict, dict]:
    """The errors of the noise model :meth:`Device.noise_model` builds, one by one: ``(operation name, qubits) ->
    QuantumError`` after each gate, and ``qubit -> (P(read 0 | 0), P(read 0 | 1))``; both empty at ``scale`` 0."""
    from qiskit_aer.noise.device.models import (
        basic_device_gate_errors,
        basic_device_readout_errors,
    )

    if scale == 0:
        return {}, {}
    small = region_target(name, physical, scale)
    gates: dict = {}
    for op_name, qubits, error in basic_device_gate_errors(target=small):
        key = (op_name, tuple(qubits))
        # NoiseModel.add_quantum_error composes a second error on the same gate after the first.
        gates[key] = gates[key].compose(error) if key in gates else error
    readout = {}
    for qubits, error in basic_device_readout_errors(target=small):
        (qubit,) = qubits
        readout[qubit] = (float(error.probabilities[0][0]), float(error.probabilities[1][0]))
    return gates, readout


def _scaled_time(t: float | None, scale: float) -> float | None:
    """T1 or T2 divided by the noise scale (coherence shrinks as noise grows); kept as is at scale 0."""
    if t is None or not math.isfinite(t) or scale == 0:
        return t
    return t / scale


__all__ = [
    "DEFAULT_DEVICE",
    "DEVICES",
    "MITIGATIONS",
    "ZNE_FACTORS",
    "Device",
    "RoutedCost",
    "calibration_date",
    "check_mitigation",
    "check_options",
    "confusion",
    "duration",
    "fold",
    "load",
    "measured_qubits",
    "noise_errors",
    "on_chip",
    "region_target",
    "richardson",
    "two_qubit_count",
    "unconfuse",
]
