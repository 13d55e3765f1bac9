"""The circuit solvers' circuits in OpenQASM 3, the format quantum compilers and benchmark suites read.

``hhl_qasm`` gives the HHL circuit of one system (:meth:`qlsbench.solvers.hhl.HHL.circuit`: state preparation,
phase estimation, inversion, uncomputation, every qubit measured) transpiled to CX and U gates (Qiskit level 1,
seed 0), the level at which every tool reads it: the dense controlled powers and the state preparation have no
QASM spelling of their own. ``qiskit.qasm3.loads`` reads it back to the same circuit (test).

``qsvt_qasm`` does the same for the QSVT circuit (:meth:`qlsbench.solvers.qsvt.QSVT.circuit`: ``|b>``, the
phase sequence around the LCU block encoding and its inverse, every qubit measured); its size grows as the
degree times the Pauli terms, so it is meant for small systems at a low degree.
"""

from __future__ import annotations

#: The gates a written circuit is expressed in.
BASIS = ("cx", "u")
#: Largest system (qubits) whose HHL circuit is written: the controlled powers are synthesised from dense
#: unitaries, which takes seconds at 3 system qubits and grows as 4^n.
MAX_QASM_QUBITS = 3
#: Largest system whose QSVT circuit is written: it holds degree x Pauli terms controlled strings (about 200 x 16
#: at 2 qubits and the benchmark's kappa ~ 10), so the text grows fast with the qubits.
MAX_QSVT_QASM_QUBITS = 2


def hhl_transpiled(system, clock: int = 4):
    """The HHL circuit of ``system`` with ``clock`` clock qubits, transpiled to :data:`BASIS`."""
    from qiskit import transpile

    from qlsbench.solvers import registry

    circuit = registry.get("hhl", clock=clock).circuit(system)
    return transpile(circuit, basis_gates=list(BASIS), optimization_level=1, seed_transpiler=0)


def hhl_qasm(system, clock: int = 4) -> str:
    """OpenQASM 3 text of :func:`hhl_transpiled`."""
    from qiskit import qasm3

    return qasm3.dumps(hhl_transpiled(system, clock))


def export_hhl_qasm(dataset, out, clock: int = 4) -> list:
    """``<name>.hhl.qasm`` in ``out`` for every system of ``dataset`` up to :data:`MAX_QASM_QUBITS` qubits (named
    as :func:`~qlsbench.data.matrix_market.export_matrix_market` names them); the paths written."""
    return _export(dataset, out, "hhl", MAX_QASM_QUBITS, lambda system: hhl_qasm(system, clock))


def export_qsvt_qasm(dataset, out, epsilon: float = 0.1) -> list:
    """``<name>.qsvt.qasm`` in ``out`` for every system of ``dataset`` up to :data:`MAX_QSVT_QASM_QUBITS` qubits,
    at the degree ``qsvt`` predicts for ``epsilon``; a system whose degree is over the solver's ``max_degree``
    is left out, as the solver declines it. The paths written."""
    from qlsbench.errors import InputError

    def text(system):
        try:
            return qsvt_qasm(system, epsilon)
        except InputError:  # degree over max_degree: no circuit the solver would run
            return None

    return _export(dataset, out, "qsvt", MAX_QSVT_QASM_QUBITS, text)


def _export(dataset, out, kind: str, max_qubits: int, text_of) -> list:
    """``<name>.<kind>.qasm`` for each distinct system of ``dataset`` up to ``max_qubits`` whose ``text_of`` is
    not None."""
    from pathlib import Path

    from qlsbench.data import atomic_write_text, iter_systems
    from qlsbench.data.matrix_market import system_names

    names, written, seen = system_names(), [], set()
    for system in iter_systems(dataset):
        if system.system_id in seen or system.dim > 2**max_qubits:
            continue
        seen.add(system.system_id)
        text = text_of(system)
        if text is not None:
            name = names.get(system.system_id, system.system_id)
            written.append(atomic_write_text(Path(out) / f"{name}.{kind}.qasm", text))
    return written


def qsvt_transpiled(system, epsilon: float = 0.1, degree: int | None = None):
    """The QSVT circuit of ``system`` (``qsvt`` with ``epsilon`` and ``degree``), transpiled to :data:`BASIS`."""
    from qiskit import transpile

    from qlsbench.solvers import registry

    circuit = registry.get("qsvt", epsilon=epsilon, degree=degree).circuit(system)
    return transpile(circuit, basis_gates=list(BASIS), optimization_level=1, seed_transpiler=0)


def qsvt_qasm(system, epsilon: float = 0.1, degree: int | None = None) -> str:
    """OpenQASM 3 text of :func:`qsvt_transpiled`."""
    from qiskit import qasm3

    return qasm3.dumps(qsvt_transpiled(system, epsilon, degree))


__all__ = ["BASIS", "MAX_QASM_QUBITS", "MAX_QSVT_QASM_QUBITS", "export_hhl_qasm", "export_qsvt_qasm", "hhl_qasm",
           "hhl_transpiled", "qsvt_qasm", "qsvt_transpiled"]
