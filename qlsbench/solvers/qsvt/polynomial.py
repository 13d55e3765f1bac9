"""The odd polynomial that inverts, and its QSP phases.

The polynomial is Childs, Kothari and Somma's (SIAM J. Comput. 46, 1920
(2017), Lemmas 17-19): ``f_b(x) = (1 - (1 - x^2)^b) / x`` is within
``epsilon`` of ``1/x`` on ``[1/kappa, 1]`` for ``b = ceil(kappa^2
ln(kappa / epsilon))``; in the Chebyshev basis it is ``4 sum_{j>=0} (-1)^j
[sum_{i=j+1}^{b} C(2b, b+i) / 2^(2b)] T_{2j+1}(x)``, whose bracket is the tail
``P(X > b + j)`` of a binomial ``X ~ B(2b, 1/2)``, and truncating the sum at
``j0 = ceil(sqrt(b ln(4b / epsilon)))`` costs at most another ``epsilon``: the
degree ``2 j0 + 1`` of :func:`qlsbench.pauli._estimates.qsvt_degree`.

**The family by degree** (:func:`cks_polynomial`): a degree ``d = 2 j0 + 1``
below that takes the largest ``b`` whose ``j0`` formula still fits, i.e. the
same construction for a smaller ``kappa``; above it, ``b`` stays at its value
for ``kappa`` and only more terms are kept. The predicted degree is the
member built for ``kappa`` itself, and the smallest member whose simulated
solution meets a bar is the degree that bar needs.

QSP needs ``|p| <= 1`` on ``[-1, 1]``: ``f_b`` peaks near ``x ~ 1/sqrt(b)`` at
about ``0.64 sqrt(b)``, above ``kappa``, so ``p = (1 - MARGIN) f / max|f|``.
The phases are ``pyqsp``'s (``QuantumSignalProcessingPhases(...,
method="sym_qsp")``: Newton's method on the reduced phases of symmetric QSP,
Dong, Lin, Ni and Wang, arXiv:2307.12468), which give ``p`` as the imaginary
part of ``<0|U(x)|0>``; ``pi/4`` less at both ends gives it as the real part,
and the result is checked here by evaluating the QSP product the phases
define against ``p`` (:func:`qsp_response`).
"""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np

from qlsbench.errors import InputError

#: ``p`` is scaled to ``1 - MARGIN`` of its peak: symmetric QSP's Newton iteration converges for ``|p| < 1``.
MARGIN = 1e-2
#: Largest error of the phases' QSP product against ``p`` (at Chebyshev points) before they are refused.
PHASE_TOLERANCE = 1e-8


def cks_b(kappa: float, epsilon: float) -> int:
    """``b = ceil(kappa^2 ln(kappa / epsilon))``, at least 1."""
    return max(1, math.ceil(kappa**2 * math.log(kappa / epsilon)))


def cks_j0(b: int, epsilon: float) -> int:
    """``j0 = ceil(sqrt(b ln(4 b / epsilon)))``."""
    return math.ceil(math.sqrt(b * math.log(4 * b / epsilon)))


def family_b(degree: int, kappa: float, epsilon: float) -> int:
    """The ``b`` of the degree-``degree`` member (module docstring): the largest ``b <= cks_b(kappa, epsilon)``
    with ``cks_j0(b, epsilon) <= (degree - 1) / 2``; 1 when even ``b = 1`` does not fit."""
    j0, top = (degree - 1) // 2, cks_b(kappa, epsilon)
    if cks_j0(top, epsilon) <= j0:
        return top
    low, high = 1, top  # cks_j0 grows with b: bisect for the last b that fits
    while low < high:
        mid = (low + high + 1) // 2
        if cks_j0(mid, epsilon) <= j0:
            low = mid
        else:
            high = mid - 1
    return low


def cks_coefficients(b: int, j0: int) -> np.ndarray:
    """Chebyshev coefficients (``T_0`` first, length ``2 j0 + 2``) of ``f_b`` truncated at ``T_{2 j0 + 1}``."""
    from scipy.stats import binom

    j = np.arange(j0 + 1)
    coefficients = np.zeros(2 * j0 + 2)
    coefficients[2 * j + 1] = 4.0 * (-1.0) ** j * binom.sf(b + j, 2 * b, 0.5)
    return coefficients


def peak(coefficients: np.ndarray) -> float:
    """``max |p(x)|`` on ``[-1, 1]`` of an odd Chebyshev series: a fine grid in ``theta``, refined at its best point."""
    from numpy.polynomial import chebyshev
    from scipy.optimize import minimize_scalar

    degree = len(coefficients) - 1
    theta = np.linspace(0.0, np.pi / 2, 16 * degree + 17)
    values = np.abs(chebyshev.chebval(np.cos(theta), coefficients))
    k = int(np.argmax(values))
    step = theta[1] - theta[0]
    best = minimize_scalar(
        lambda t: -abs(chebyshev.chebval(np.cos(t), coefficients)),
        bounds=(max(0.0, theta[k] - step), min(np.pi / 2, theta[k] + step)),
        method="bounded",
    )
    return float(max(values[k], -best.fun))


def cks_polynomial(kappa: float, epsilon: float, degree: int | None = None) -> dict:
    """The member of the family of degree ``degree`` (default: :func:`~qlsbench.pauli._estimates.qsvt_degree`),
    scaled for QSP.

    Returns
    -------
    dict
        ``coefficients`` (Chebyshev, of ``p = scale f``), ``scale``, ``degree``, ``b``, ``j0``, and ``error``:
        ``max |f(x) - 1/x|`` on ``[1/kappa, 1]`` (on a grid), the polynomial's own error before scaling.
    """
    from qlsbench.pauli._estimates import qsvt_degree

    if degree is None:
        degree = qsvt_degree(kappa, epsilon)
    if degree < 1 or degree % 2 == 0:
        raise InputError(f"qsvt: the polynomial's degree must be a positive odd number, got {degree}")
    b = family_b(degree, kappa, epsilon)
    j0 = (degree - 1) // 2
    f = cks_coefficients(b, j0)
    scale = (1.0 - MARGIN) / peak(f)
    return {
        "coefficients": scale * f,
        "scale": scale,
        "degree": degree,
        "b": b,
        "j0": j0,
        "error": interval_error(f, kappa),
    }


def interval_error(coefficients: np.ndarray, kappa: float, points: int = 4001) -> float:
    """``max |f(x) - 1/x|`` over ``points`` Chebyshev-spaced points of ``[1/kappa, 1]``."""
    from numpy.polynomial import chebyshev

    lo = 1.0 / kappa
    x = lo + (1.0 - lo) * (1.0 - np.cos(np.linspace(0.0, np.pi, points))) / 2.0
    return float(np.max(np.abs(chebyshev.chebval(x, coefficients) - 1.0 / x)))


def qsp_phases(coefficients: np.ndarray) -> np.ndarray:
    """Symmetric-QSP phases ``phi_0..phi_d`` with ``Re <0|U(x)|0> = p(x)`` for the odd Chebyshev series ``p``,
    from ``pyqsp`` (its progress lines are swallowed), checked against ``p`` (:data:`PHASE_TOLERANCE`)."""
    from pyqsp.angle_sequence import QuantumSignalProcessingPhases

    with contextlib.redirect_stdout(io.StringIO()):
        full, _, _ = QuantumSignalProcessingPhases(
            np.asarray(coefficients, dtype=float), method="sym_qsp", chebyshev_basis=True
        )
    # pyqsp's symmetric-QSP phases (QSPPACK's convention) give p as Im <0|U(x)|0>; e^{-i pi/4 Z} at both ends
    # turns that into Re <0|U(x)|0>, the form the circuit's signal qubit reads (checked just below).
    phases = np.asarray(full, dtype=float).copy()
    phases[[0, -1]] -= np.pi / 4
    error = response_error(phases, coefficients)
    if not error <= PHASE_TOLERANCE:
        raise InputError(
            f"qsvt: pyqsp's phases reproduce the degree-{len(phases) - 1} polynomial only to "
            f"{error:.1e} (> {PHASE_TOLERANCE:g})"
        )
    return phases


def qsp_response(phases: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``<0| e^{i phi_0 Z} W(x) e^{i phi_1 Z} ... W(x) e^{i phi_d Z} |0>`` at each ``x`` (complex), by 2x2 products."""
    x = np.asarray(x, dtype=float)
    s = np.sqrt(np.clip(1.0 - x**2, 0.0, None))
    # The row vector <0| U, carried through the product from the left: (u0, u1).
    u0 = np.full(x.shape, np.exp(1j * phases[0]))
    u1 = np.zeros(x.shape, dtype=complex)
    for phi in phases[1:]:
        u0, u1 = u0 * x + u1 * 1j * s, u0 * 1j * s + u1 * x
        u0, u1 = u0 * np.exp(1j * phi), u1 * np.exp(-1j * phi)
    return u0


def response_error(phases: np.ndarray, coefficients: np.ndarray) -> float:
    """``max |Re <0|U(x)|0> - p(x)|`` at ``2 d + 2`` Chebyshev points of ``[-1, 1]``."""
    from numpy.polynomial import chebyshev

    degree = len(coefficients) - 1
    x = np.cos(np.pi * (np.arange(2 * degree + 2) + 0.5) / (2 * degree + 2))
    return float(np.max(np.abs(qsp_response(phases, x).real - chebyshev.chebval(x, coefficients))))


__all__ = [
    "MARGIN",
    "PHASE_TOLERANCE",
    "cks_b",
    "cks_coefficients",
    "cks_j0",
    "cks_polynomial",
    "family_b",
    "interval_error",
    "peak",
    "qsp_phases",
    "qsp_response",
    "response_error",
]
