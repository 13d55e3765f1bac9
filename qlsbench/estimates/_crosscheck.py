"""The advantage map's loading costs beside Qualtran's count of the same bloqs.

Every data-loading cost the map charges is a table lookup (:func:`~qlsbench.estimates.lookup`) or a rotation by
phase-gradient addition; Qualtran has both as bloqs and counts them by walking their call graphs:

* a lookup's compute half is ``QROAMClean`` (select-swap QROM onto clean qubits, Berry et al. 2019 app. A), built
  with the same ``L`` items, ``bits`` bits and the block size ``k`` we chose; its erasure is that bloq's adjoint
  (measurement-based uncomputation) with our erasure's block size ``k'``;
* the rotation is ``AddIntoPhaseGrad`` of ``bits`` bits into a ``bits``-bit phase-gradient register.

The lookups checked are those the map makes for each system of its tables: the sparse-access oracles' index
(``N s`` items of ``ceil(log2 N)`` bits) and value (``N s`` items of :data:`~qlsbench.estimates.BITS` bits)
lookups, and the largest level of the state preparation of ``b`` (``N / 2`` angles) with its sign lookup (``N``
one-bit items). Toffolis are Toffoli-class gates (Qualtran's T count over 4, with 4 T per Toffoli, ``And`` and
``CSwap``: its ``CSwap`` arrives decomposed into T gates); qubits are the lookup's selection, output and junk
registers with every ancilla (Qualtran's ``QubitCount``), ours ``ceil(log2 L) + bits + ancillas``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import math

import pandas as pd

from qlsbench.errors import InputError
from qlsbench.estimates._loading import BITS, lookup

TOOL, EXTRA = "qualtran", "estimates"


def require_qualtran() -> str:
    """Qualtran's version, or one line naming the extra that brings it."""
    if importlib.util.find_spec(TOOL) is None:
        raise InputError(f"the loading cross-check needs Qualtran: pip install 'qlsbench[{EXTRA}]'")
    return importlib.metadata.version(TOOL)


def map_lookups(systems: pd.DataFrame) -> list[dict]:
    """The lookups the advantage map charges for each row of a sweep's systems table (module docstring)."""
    cases = []
    for row in systems.itertuples(index=False):
        n = max(1, math.ceil(math.log2(row.N)))
        slots = int(row.N) * int(row.s)
        for kind, items, bits in (
            ("sparse-access index", slots, n),
            ("sparse-access value", slots, BITS),
            ("state preparation angles", max(1, 2 ** (n - 1)), BITS),
            ("state preparation signs", 2**n, 1),
        ):
            cases.append(
                {
                    "family": row.family,
                    "size": int(row.size),
                    "N": int(row.N),
                    "lookup": kind,
                    "items": items,
                    "bits": bits,
                }
            )
    return cases


def _toffolis(bloq) -> float:
    from qualtran.resource_counting import QECGatesCost, get_cost_value

    gates = get_cost_value(bloq, QECGatesCost())
    return gates.total_t_count(ts_per_toffoli=4, ts_per_cswap=4, ts_per_and_bloq=4, ts_per_rotation=0) / 4


def _qubits(bloq) -> int:
    from qualtran.resource_counting import QubitCount, get_cost_value

    return int(get_cost_value(bloq, QubitCount()))


def lookup_row(items: int, bits: int) -> dict:
    """Our compute and erase Toffolis and qubits of one lookup beside Qualtran's, at our block sizes."""
    from qualtran.bloqs.data_loading.qroam_clean import QROAMClean

    ours = lookup(items, bits)
    compute = QROAMClean.build_from_bitsize((items,), (bits,), log_block_sizes=(int(math.log2(ours["k"])),))
    erase = QROAMClean.build_from_bitsize((items,), (bits,), log_block_sizes=(int(math.log2(ours["k_erase"])),))
    return {
        "k": ours["k"],
        "k_erase": ours["k_erase"],
        "ours_compute_toffolis": ours["compute_toffolis"],
        "tool_compute_toffolis": _toffolis(compute),
        "ours_erase_toffolis": ours["erase_toffolis"],
        "tool_erase_toffolis": _toffolis(erase.adjoint()),
        "ours_qubits": max(1, math.ceil(math.log2(items))) + bits + ours["ancillas"],
        "tool_qubits": _qubits(compute),
    }


def rotation_row(bits: int = BITS) -> dict:
    """Our Toffolis of one rotation by phase-gradient addition beside Qualtran's ``AddIntoPhaseGrad``."""
    from qualtran.bloqs.rotations.phase_gradient import AddIntoPhaseGrad

    return {
        "lookup": "phase-gradient rotation",
        "bits": bits,
        "ours_compute_toffolis": bits,
        "tool_compute_toffolis": _toffolis(AddIntoPhaseGrad(bits, bits)),
    }


def crosscheck_loading(systems: pd.DataFrame) -> pd.DataFrame:
    """Every lookup the map charges for ``systems`` (distinct ``items`` and ``bits`` counted once by the tool),
    and the rotation, ours beside Qualtran's; ``tool`` and ``tool_version`` name the tool."""
    version = require_qualtran()
    cases = map_lookups(systems)
    counted: dict[tuple[int, int], dict] = {}
    for case in cases:
        key = (case["items"], case["bits"])
        if key not in counted:
            counted[key] = lookup_row(*key)
    rows = [{**case, **counted[(case["items"], case["bits"])]} for case in cases] + [rotation_row()]
    return pd.DataFrame(rows).assign(tool=TOOL, tool_version=version)
