"""Transforms that put a linear system into the form quantum solvers need."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.problems._spectra import spectral_norm
from qlsbench.problems._system import LinearSystem


def next_power_of_two(n: int) -> int:
    """Smallest power of two ``>= n`` (``n >= 1``)."""
    return 1 << max(0, int(n) - 1).bit_length()


def pad_to_power_of_two(system: LinearSystem, min_qubits: int = 0) -> LinearSystem:
    """Pad to the next power of two without changing the solution.

    The padded block of ``A`` is the identity and the padded entries of ``b``
    are zero, so the padded unknowns are zero and the original unknowns solve
    the original system.

    Parameters
    ----------
    system : LinearSystem
        System of any dimension.
    min_qubits : int
        Pad to at least ``2**min_qubits`` (a 1x1 system is 0 qubits, which
        no quantum solver can take).

    Returns
    -------
    LinearSystem
        System of dimension ``2**n_qubits``; ``meta`` gains ``n_orig`` and
        ``n_qubits``.
    """
    n = system.dim
    N = max(next_power_of_two(n), 1 << min_qubits)
    meta = dict(system.meta)
    meta.setdefault("n_orig", n)
    meta["n_qubits"] = N.bit_length() - 1
    if N == n:
        return LinearSystem(system.A, system.b, meta, system.x_ref)
    pad = N - n
    A = sp.block_diag([system.A, sp.identity(pad, dtype=system.A.dtype)], format="csr")
    b = np.concatenate([system.b, np.zeros(pad, dtype=system.b.dtype)])
    x_ref = None if system.x_ref is None else np.concatenate([system.x_ref, np.zeros(pad, system.x_ref.dtype)])
    return LinearSystem(A, b, meta, x_ref)


def normalize(system: LinearSystem) -> LinearSystem:
    """Scale ``A`` to unit spectral norm and ``b`` to unit Euclidean norm.

    The factors are kept in ``meta`` (``scale_A = ||A||_2``, ``scale_b =
    ||b||_2``) so the original solution is ``x * scale_b / scale_A``; see
    :func:`recover_solution`.

    Raises
    ------
    InputError
        If ``A`` or ``b`` is zero.
    """
    sA = spectral_norm(system.A)
    sb = float(np.linalg.norm(system.b))
    if sA == 0.0:
        raise InputError("A is the zero matrix and cannot be normalised")
    if sb == 0.0:
        raise InputError("b is the zero vector and cannot be normalised")
    meta = dict(system.meta)
    # Compose with earlier scalings so recovery always refers to the raw system.
    meta["scale_A"] = float(meta.get("scale_A", 1.0)) * sA
    meta["scale_b"] = float(meta.get("scale_b", 1.0)) * sb
    x_ref = None if system.x_ref is None else system.x_ref * (sA / sb)
    return LinearSystem(system.A / sA, system.b / sb, meta, x_ref)


def pad_and_normalize(system: LinearSystem, min_qubits: int = 0) -> LinearSystem:
    """Normalise, then pad to the next power of two.

    Normalising first matters: the identity padding then sits inside the
    spectrum ``[sigma_min, 1]``, so the padded matrix keeps ``||A||_2 = 1`` and
    the original condition number. Padding first would, for a matrix with
    ``||A||_2 < 1``, let the padded ones set the norm and inflate the
    condition number after scaling.

    Parameters
    ----------
    system : LinearSystem
        Any non-singular square system.
    min_qubits : int
        See :func:`pad_to_power_of_two`.

    Returns
    -------
    LinearSystem
        ``2**n`` dimensional, ``||A||_2 = 1``, ``||b||_2 = 1``; ``meta`` holds
        ``n_orig``, ``n_qubits``, ``scale_A`` and ``scale_b``.
    """
    return pad_to_power_of_two(normalize(system), min_qubits)


def recover_solution(system: LinearSystem, x: np.ndarray) -> np.ndarray:
    """Map a solution of a padded, normalised system back to the original one.

    Parameters
    ----------
    system : LinearSystem
        Output of :func:`pad_and_normalize`.
    x : numpy.ndarray
        Solution of ``system``.

    Returns
    -------
    numpy.ndarray
        Solution of the system before padding and scaling.
    """
    n = int(system.meta.get("n_orig", system.dim))
    scale = float(system.meta.get("scale_b", 1.0)) / float(system.meta.get("scale_A", 1.0))
    return np.asarray(x)[:n] * scale
