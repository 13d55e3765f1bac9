"""What truncating a Pauli expansion costs, and what reordering the basis saves.

The paper (De et al., sec. 4.3) counts terms after truncation; these studies
add what it leaves open: how far the truncated matrix and its solution move,
and how many terms a better basis order removes for free.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from qlsbench.errors import InputError
from qlsbench.pauli._decomposition import (
    LCU_TOLS,
    count_terms,
    decompose,
    max_terms,
    xor_patterns,
)
from qlsbench.problems import LinearSystem, state_fidelity

#: Largest qubit count for the dense solves of the truncation study.
DENSE_QUBITS = 11


#: The tolerances a truncation drops terms at: the term counts' own, less the exact one.
TRUNCATION_TOLS = tuple(t for t in LCU_TOLS if t > 0)


def truncation_study(system: LinearSystem, tols=TRUNCATION_TOLS) -> list[dict]:
    """Drop small Pauli terms and measure what changes.

    For each tolerance, absolute (``|c| > tol``) and relative (``|c| > tol *
    max |c|``): terms kept, the theoretical maximum, ``||A - A_tol||_2``, the
    solution error ``||A_tol^-1 b - A^-1 b|| / ||A^-1 b||`` and the fidelity
    of the truncated solution. A singular ``A_tol`` gives NaN errors.

    Raises
    ------
    InputError
        Above ``DENSE_QUBITS`` qubits (the errors need dense solves).
    """
    n = system.dim.bit_length() - 1
    if system.dim != 1 << n:
        raise InputError(f"system {system.system_id} has dimension {system.dim}; pad it first")
    if n > DENSE_QUBITS:
        raise InputError(f"truncation study needs dense solves; {n} qubits is above {DENSE_QUBITS}")
    A = system.A.toarray()
    d = decompose(system.A)
    x = np.linalg.solve(A, system.b)
    biggest = float(np.abs(d.coeffs).max(initial=0.0))
    rows = []
    for mode in ("absolute", "relative"):
        for tol in tols:
            threshold = tol * (biggest if mode == "relative" else 1.0)
            keep = np.abs(d.coeffs) > threshold
            dropped = d.subset(~keep).to_matrix() if (~keep).any() else np.zeros_like(A)
            A_tol = A - dropped
            try:
                x_tol = np.linalg.solve(A_tol, system.b)
                err = float(np.linalg.norm(x_tol - x) / np.linalg.norm(x))
                fid = state_fidelity(x_tol, x)
            except np.linalg.LinAlgError:
                err = fid = float("nan")
            rows.append(
                {
                    "system_id": system.system_id,
                    "n_qubits": n,
                    "mode": mode,
                    "tol": float(tol),
                    "terms_total": len(d),
                    "terms_kept": int(keep.sum()),
                    "terms_max": max_terms(n, bool(d.info["skipped_odd_y"])),
                    "matrix_error": float(np.linalg.norm(dropped, 2)),
                    "solution_error": err,
                    "fidelity": fid,
                }
            )
    return rows


def gray_code(n: int) -> np.ndarray:
    """``g(p) = p ^ (p >> 1)``: consecutive positions differ in exactly one bit."""
    p = np.arange(n)
    return p ^ (p >> 1)


def _permute(A: sp.spmatrix, perm: np.ndarray) -> sp.csr_matrix:
    """``P A P^T`` where new index ``perm[i]`` holds old index ``i``."""
    coo = sp.coo_matrix(A)
    return sp.csr_matrix((coo.data, (perm[coo.row], perm[coo.col])), shape=A.shape)


def _greedy_swaps(A: sp.spmatrix, perm: np.ndarray, budget: int, rng: np.random.Generator) -> np.ndarray:
    """Swap two labels at a time, keeping swaps that do not increase ``K``."""
    best = perm.copy()
    best_k = xor_patterns(_permute(A, best))
    for _ in range(budget):
        a, b = rng.integers(0, len(perm), size=2)
        trial = best.copy()
        trial[[a, b]] = trial[[b, a]]
        k = xor_patterns(_permute(A, trial))
        if k <= best_k:
            best, best_k = trial, k
    return best


def orderings(A: sp.spmatrix, *, budget: int = 300, seed: int = 0) -> dict[str, np.ndarray]:
    """Candidate symmetric permutations (``perm[old] = new``).

    ``identity``; ``rcm`` (reverse Cuthill-McKee, small bandwidth); ``rcm-gray``
    (RCM positions relabelled by the Gray code, so neighbours along the band
    differ in one bit and produce few XOR patterns); ``greedy``: the best of
    those improved by label swaps that never increase ``K``.
    """
    A = sp.csr_matrix(A)
    N = A.shape[0]
    order = reverse_cuthill_mckee(sp.csr_matrix(abs(A) + abs(A).T), symmetric_mode=True)
    rcm = np.empty(N, dtype=np.int64)
    rcm[order] = np.arange(N)
    found = {"identity": np.arange(N), "rcm": rcm, "rcm-gray": gray_code(N)[rcm]}
    start = min(found.values(), key=lambda p: xor_patterns(_permute(A, p)))
    found["greedy"] = _greedy_swaps(A, start, budget, np.random.default_rng(seed))
    return found


def reordering_study(system: LinearSystem, tols=LCU_TOLS, *, budget: int = 300) -> list[dict]:
    """Term counts of ``P A P^T`` for each ordering of :func:`orderings`.

    The permuted system ``(P A P^T) (P x) = P b`` has the same solution up to
    the permutation, so any reduction is free for VQLS.
    """
    rows = []
    for name, perm in orderings(system.A, budget=budget).items():
        B = _permute(system.A, perm)
        counts = count_terms(B, tols)
        rows.append(
            {
                "system_id": system.system_id,
                "ordering": name,
                "patterns": xor_patterns(B),
                **{f"terms_tol_{t:g}": c for t, c in counts.items()},
            }
        )
    return rows
