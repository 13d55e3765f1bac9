"""Loading classical data into a fault-tolerant circuit: table lookups (QROAM) and a generic state ``|b>``.

Table lookup (QROAM, Low, Kliuchnikov and Schaeffer, arXiv:1812.00954; the clean-ancilla counts of Berry,
Gidney, Motta, McClean and Babbush, Quantum 3, 208 (2019), app. A and C): reading item ``i`` of ``L`` items of
``bits`` bits into a register, with the items split into ``k`` columns (``k`` a power of two), costs
``ceil(L / k) + bits (k - 1)`` Toffoli gates and ``bits (k - 1)`` extra clean qubits; erasing it again by
measurement costs ``ceil(L / k') + k'`` Toffolis with its own ``k'``. Both ``k`` are chosen to minimise the
Toffolis, so a lookup costs about ``2 sqrt(L bits) + 2 sqrt(L)``: the square root of the data, never less,
which is what dense data costs a quantum computer.

A generic state (Low, Kliuchnikov and Schaeffer, sec. 4; the standard binary tree of Grover and Rudolph,
arXiv:quant-ph/0208112): amplitudes ``b_i`` of ``N = 2^n`` entries are prepared one qubit at a time; level ``j``
looks up one of ``2^j`` rotation angles of ``bits`` bits and applies it by adding into a phase-gradient register
(``bits`` Toffolis, Gidney, Quantum 2, 74 (2018)), then erases the lookup. Signs take one more lookup of ``N``
one-bit items.
"""

from __future__ import annotations

import math

from qlsbench.checks import whole_number

#: Bits of a looked-up number (an angle, a matrix entry): 2^-20 ~ 1e-6 of rounding per rotation.
BITS = 20


def _powers_of_two(limit: int) -> range:
    return range(max(1, math.ceil(math.log2(max(limit, 1)))) + 1)


def lookup(items: int, bits: int = BITS) -> dict[str, int]:
    """Toffolis and extra qubits of reading one of ``items`` values of ``bits`` bits, and erasing it (QROAM).

    Returns
    -------
    dict
        ``toffolis`` (compute and erase), ``ancillas`` (the clean qubits beyond the output register), the
        chosen ``k`` of the compute half, and each half apart: ``compute_toffolis``, ``erase_toffolis`` and the
        erasure's ``k_erase``.
    """
    items = whole_number(items, "lookup: items", low=1)
    bits = whole_number(bits, "lookup: bits", low=1)
    compute = min((math.ceil(items / 2**e) + bits * (2**e - 1), 2**e) for e in _powers_of_two(items))
    erase = min((math.ceil(items / 2**e) + 2**e, 2**e) for e in _powers_of_two(items))
    return {
        "toffolis": compute[0] + erase[0],
        "ancillas": bits * (compute[1] - 1),
        "k": compute[1],
        "compute_toffolis": compute[0],
        "erase_toffolis": erase[0],
        "k_erase": erase[1],
    }


def state_preparation(dim: int, bits: int = BITS) -> dict[str, int]:
    """Toffolis and qubits of preparing a generic real state of ``dim`` amplitudes (module docstring)."""
    dim = whole_number(dim, "state preparation: dim", low=1)
    n = max(1, math.ceil(math.log2(dim)))
    toffolis, ancillas = 0, 0
    for level in range(n):
        table = lookup(2**level, bits)
        toffolis += table["toffolis"] + bits  # the lookup, then the rotation by phase-gradient addition
        ancillas = max(ancillas, table["ancillas"])
    signs = lookup(2**n, 1)
    return {
        "toffolis": toffolis + signs["toffolis"],
        "qubits": n,
        "ancillas": bits + max(ancillas, signs["ancillas"]) + bits,  # angle register, lookup work, phase gradient
    }
