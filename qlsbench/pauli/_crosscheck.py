"""Our block-encoding counts beside an independent tool's, Qualtran's, for the same Pauli terms.

:func:`qlsbench.pauli._estimates.block_encoding` counts the LCU block encoding of ``A = sum_j c_j P_j`` (``L``
terms on ``n`` qubits, ``a = ceil(log2 L)`` selection qubits) by formula. Here Qualtran (Google's library of
fault-tolerant subroutines, "bloqs"; ``pip install 'qlsbench[estimates]'``) builds the same parts from the same
terms and counts them by walking their call graphs (``get_cost_value(bloq, QECGatesCost())`` and
``QubitCount()``):

* SELECT: ``ApplyLthBloq`` over the ``L`` Pauli strings, Qualtran's unary-iteration SELECT (Babbush et al.,
  Phys. Rev. X 8, 041015 (2018), fig. 7), whose call graph Qualtran counts in closed form; controlled (the
  construction whose ``L - 1`` Toffolis our formula quotes) and uncontrolled (the one inside the block
  encoding). ``SelectPauliLCU``, Qualtran's SELECT for Pauli strings, is the same unary iteration but is counted
  by decomposing it term by term through Cirq (milliseconds a term); it is built for the qubit counts, which
  need that decomposition, and its Toffolis are kept beside ``ApplyLthBloq``'s, on terms up to
  :data:`QUBIT_TERMS`.
* PREPARE: ``StatePreparationAliasSampling`` (Babbush et al. 2018, sec. III D), the PREPARE that Qualtran's
  ``LCUBlockEncoding`` takes, keeping each ``|c_j|`` to ``PRECISION * max |c|``; and
  ``StatePreparationViaRotations`` (Low, Kliuchnikov and Schaeffer, arXiv:1812.00954), a binary tree of
  rotations like ours, whose angles it loads by QROM and applies by addition into a phase-gradient register
  of :data:`PHASE_BITS` bits (angles to ``2 pi / 2^PHASE_BITS``, below ``PRECISION``).
* The block encoding: ``LCUBlockEncoding(select, prepare)``, that is ``PREPARE^dag SELECT PREPARE``.

Counts, per part: ``toffolis``, Qualtran's Toffoli-class gates (``Toffoli``, ``And``, ``CSwap``); ``t_gates``,
4 per Toffoli-class gate plus bare T gates (an ``And`` costs 4 T and its uncompute is a measurement);
``rotations``, its arbitrary-angle rotations (not converted to T: that depends on the synthesis); ``qubits``, its
peak qubit count with every ancilla and junk register. The phases of the ``c_j`` (``+-1, +-i`` for a real
``A``) are left off the strings: a phase is a Clifford on the control and changes none of these counts
(``SelectPauliLCU`` itself applies only real signs).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import math

import numpy as np

from qlsbench.errors import InputError
from qlsbench.pauli._decomposition import PauliDecomposition
from qlsbench.pauli._estimates import block_encoding

#: The independent tool, its install extra, and the one line shown when it is missing.
TOOL, EXTRA = "qualtran", "estimates"
MISSING = f"the resource cross-check needs Qualtran: pip install 'qlsbench[{EXTRA}]'"

#: How finely PREPARE keeps the weights: alias sampling to ``PRECISION * max |c|`` per weight (the
#: 1e-6 truncation of ``qlsbench resources``), the rotation tree's angles to below ``PRECISION``.
PRECISION = 1e-6
PHASE_BITS = math.ceil(math.log2(2 * math.pi / PRECISION))

#: Up to this many terms ``SelectPauliLCU`` is decomposed for the qubit counts (about 4 ms a term here; the
#: pinned set's 15 larger truncations hold 1.3 million terms).
QUBIT_TERMS = 4096

#: The parts compared and what each count is.
PARTS = ("select", "select_uncontrolled", "prepare", "rotation_tree", "block_encoding")
QUANTITIES = ("qubits", "toffolis", "t_gates", "rotations")


def require_tool() -> str:
    """Qualtran's installed version; :class:`~qlsbench.errors.InputError` (one line, the extra) when missing."""
    if importlib.util.find_spec(TOOL) is None:
        raise InputError(MISSING)
    return importlib.metadata.version(TOOL)


def ours(n_qubits: int, terms: int) -> dict[str, int]:
    """Our counts per part (:func:`~qlsbench.pauli._estimates.block_encoding`), as ``ours_<part>_<quantity>``.

    SELECT's qubits are the system, selection and unary iteration's ``a - 1`` work qubits; PREPARE (the
    rotation tree) acts on the ``a`` selection qubits alone, with ``2^a - 1`` rotations and no Toffoli;
    the block encoding is PREPARE, SELECT and PREPARE's inverse: SELECT's qubits and Toffolis, twice the
    rotations.
    """
    be = block_encoding(n_qubits, terms)
    width = be["qubits"] + be["work_qubits"]
    counts = {
        "select": (width, be["select_toffolis"], be["select_t_gates"], 0),
        "prepare": (be["select_qubits"], 0, 0, be["prepare_rotations"]),
        "block_encoding": (width, be["select_toffolis"], be["select_t_gates"], 2 * be["prepare_rotations"]),
    }
    return {f"ours_{part}_{q}": int(v) for part, values in counts.items() for q, v in zip(QUANTITIES, values)}


def _without_pauli_strings(bloq):
    """Qualtran generalizer: drop the (controlled) Pauli strings SELECT applies.

    They are Cliffords on qubits the SELECT already has (no ancilla, no Toffoli), so only Clifford counts
    change; costing each of ``L`` distinct strings would decompose each through Cirq.
    """
    import cirq
    from qualtran import Controlled
    from qualtran.cirq_interop import CirqGateAsBloq

    inner = bloq.subbloq if isinstance(bloq, Controlled) else bloq
    return None if isinstance(inner, CirqGateAsBloq) and isinstance(inner.gate, cirq.DensePauliString) else bloq


def generalizer():
    """The generalizers every count here is taken with: split/join bookkeeping and the Pauli strings dropped."""
    from qualtran.resource_counting.generalizers import ignore_split_join

    return [ignore_split_join, _without_pauli_strings]


def gate_counts(bloq, cache: dict | None = None) -> dict[str, int]:
    """``toffolis``, ``t_gates`` and ``rotations`` of a bloq, from Qualtran's ``QECGatesCost``."""
    from qualtran.resource_counting import QECGatesCost, get_cost_value

    gates = get_cost_value(bloq, QECGatesCost(), costs_cache=cache, generalizer=generalizer())
    return {
        "toffolis": int(gates.toffoli + gates.and_bloq + gates.cswap),
        "t_gates": int(gates.total_t_count(ts_per_toffoli=4, ts_per_cswap=4, ts_per_and_bloq=4, ts_per_rotation=0)),
        "rotations": int(gates.rotation),
    }


def qubit_count(bloq, cache: dict | None = None) -> int:
    """Peak qubits of a bloq, ancillas and junk included: Qualtran's ``QubitCount``."""
    from qualtran.resource_counting import QubitCount, get_cost_value

    return int(get_cost_value(bloq, QubitCount(), costs_cache=cache, generalizer=generalizer()))


def pauli_strings(terms: PauliDecomposition) -> list:
    """The terms' Pauli strings as Cirq ``DensePauliString`` (Cirq puts qubit 0 first, Qiskit's labels last)."""
    import cirq

    return [cirq.DensePauliString(label[::-1]) for label in terms.labels()]


def tool_bloqs(terms: PauliDecomposition) -> dict:
    """Qualtran's bloqs for the terms: SELECT controlled and not, both PREPAREs, the block encoding.

    Raises
    ------
    InputError
        Qualtran missing (one line), or fewer than two terms (its SELECT bloqs need two).
    """
    require_tool()
    if len(terms) < 2:
        raise InputError(f"Qualtran's SELECT bloqs need at least two terms, got {len(terms)}")
    from qualtran.bloqs.block_encoding import LCUBlockEncoding
    from qualtran.bloqs.multiplexers.apply_lth_bloq import ApplyLthBloq
    from qualtran.bloqs.state_preparation import (
        StatePreparationAliasSampling,
        StatePreparationViaRotations,
    )
    from qualtran.cirq_interop import CirqGateAsBloq

    ops = np.empty(len(terms), dtype=object)
    ops[:] = [CirqGateAsBloq(p) for p in pauli_strings(terms)]
    weights = np.abs(terms.coeffs)
    prepare = StatePreparationAliasSampling.from_probabilities(weights.tolist(), precision=PRECISION * weights.max())
    a = (len(terms) - 1).bit_length()
    amplitudes = np.zeros(1 << a)
    amplitudes[: len(terms)] = np.sqrt(weights / weights.sum())
    select = ApplyLthBloq(ops)
    return {
        "select": ApplyLthBloq(ops, control_val=1),
        "select_uncontrolled": select,
        "prepare": prepare,
        "rotation_tree": StatePreparationViaRotations(state_coefficients=tuple(amplitudes), phase_bitsize=PHASE_BITS),
        "block_encoding": LCUBlockEncoding(select=select, prepare=prepare),
    }


def rotation_tree_angles(tree) -> dict[str, int]:
    """Angles the rotation tree loads, read from its call graph: ``amplitude`` (layer ``i`` is addressed by the
    ``i`` qubits above it: ``2^i`` angles) and ``phase`` (addressed by all ``a`` qubits)."""
    from qualtran.bloqs.state_preparation.state_preparation_via_rotation import (
        PRGAViaPhaseGradient,
    )
    from qualtran.resource_counting import get_bloq_callee_counts

    out = {"amplitude": 0, "phase": 0}
    for callee, n in get_bloq_callee_counts(tree):
        if isinstance(callee, PRGAViaPhaseGradient):
            layer = "phase" if callee.selection_bitsize == tree.state_bitsize else "amplitude"
            out[layer] += int(n) * len(callee.rom_values)
    return out


#: Alias sampling's steps by the class of its callee (Babbush et al. 2018, fig. 11).
ALIAS_STEPS = {"PrepareUniformSuperposition": "uniform", "QROM": "qrom", "LessThanEqual": "compare", "CSwap": "swap"}


def alias_steps(prepare) -> dict[str, int]:
    """Toffolis of each step of alias sampling, from its call graph: the uniform superposition over ``L``, the
    QROM of the ``alt`` and ``keep`` values, the ``mu``-bit comparison and the controlled swap."""
    from qualtran.resource_counting import get_bloq_callee_counts

    out = dict.fromkeys(ALIAS_STEPS.values(), 0)
    for callee, n in get_bloq_callee_counts(prepare):
        step = ALIAS_STEPS.get(type(callee).__name__)
        if step is not None:
            out[step] += int(n) * gate_counts(callee)["toffolis"]
    return out


def select_pauli_lcu(terms: PauliDecomposition, control_val: int | None):
    """Qualtran's ``SelectPauliLCU`` over the terms' strings, decomposed (once: both counts read the same)."""
    from qualtran.bloqs.multiplexers.select_pauli_lcu import SelectPauliLCU

    bloq = SelectPauliLCU((len(terms) - 1).bit_length(), terms.n_qubits, pauli_strings(terms), control_val=control_val)
    return bloq, bloq.decompose_bloq()


def tool_counts(terms: PauliDecomposition, *, qubit_terms: int = QUBIT_TERMS) -> dict[str, float]:
    """Qualtran's counts of every part, as ``tool_<part>_<quantity>`` (NaN where not counted).

    SELECT's and the block encoding's qubits are counted up to ``qubit_terms`` terms (they decompose
    ``SelectPauliLCU``), with ``SelectPauliLCU``'s Toffolis (``tool_<select part>_pauli_lcu_toffolis``, equal to
    ``ApplyLthBloq``'s); also the rotation tree's ``amplitude`` and ``phase`` angles, alias sampling's ``mu`` and
    the Toffolis of its steps (:func:`alias_steps`).
    """
    bloqs = tool_bloqs(terms)
    gates_cache: dict = {}  # the block encoding's SELECT is the uncontrolled one: counted once
    out: dict[str, float] = {}
    for part, bloq in bloqs.items():
        out.update({f"tool_{part}_{q}": v for q, v in gate_counts(bloq, gates_cache).items()})
        out[f"tool_{part}_qubits"] = np.nan
    for part in ("prepare", "rotation_tree"):
        out[f"tool_{part}_qubits"] = qubit_count(bloqs[part])
    angles = rotation_tree_angles(bloqs["rotation_tree"])
    out.update(
        tool_rotation_tree_angles=angles["amplitude"],
        tool_rotation_tree_phase_angles=angles["phase"],
        tool_prepare_mu=int(bloqs["prepare"].mu),
    )
    out.update({f"tool_prepare_{step}_toffolis": v for step, v in alias_steps(bloqs["prepare"]).items()})
    for part in ("select", "select_uncontrolled"):
        out[f"tool_{part}_pauli_lcu_toffolis"] = np.nan
    if len(terms) > qubit_terms:
        return out
    qubits_cache: dict = {}
    for part, control_val in (("select", 1), ("select_uncontrolled", None)):
        bloq, cbloq = select_pauli_lcu(terms, control_val)
        out[f"tool_{part}_pauli_lcu_toffolis"] = gate_counts(cbloq)["toffolis"]
        # QubitCount of a bloq is that of its decomposition: cached, the block encoding below reuses it.
        qubits_cache[bloq] = out[f"tool_{part}_qubits"] = qubit_count(cbloq)
    from qualtran.bloqs.block_encoding import LCUBlockEncoding

    whole = LCUBlockEncoding(select=bloq, prepare=bloqs["prepare"])
    out["tool_block_encoding_qubits"] = qubit_count(whole, qubits_cache)
    return out


__all__ = [
    "ALIAS_STEPS",
    "EXTRA",
    "MISSING",
    "PARTS",
    "PHASE_BITS",
    "PRECISION",
    "QUANTITIES",
    "QUBIT_TERMS",
    "TOOL",
    "alias_steps",
    "gate_counts",
    "generalizer",
    "ours",
    "pauli_strings",
    "qubit_count",
    "require_tool",
    "rotation_tree_angles",
    "select_pauli_lcu",
    "tool_bloqs",
    "tool_counts",
]
