"""From a sweep's tables to the map: growth exponents with their intervals, and where (if anywhere) the estimated
quantum runtime falls below the measured classical one.

Each side's seconds are fitted as ``t = c N^p`` by least squares on ``log t`` against ``log N``; the exponent's 95 %
interval is Student's t on the fit's standard error (``scipy.stats.linregress``). The classical side is the best
method at each size (the fastest that reached the accuracy); the quantum side the cheapest encoding and solver
at each size, for each readout and hardware model. The crossover is where the two fitted lines meet:
``N* = (c_q / c_c)^(1 / (p_c - p_q))`` when the classical exponent is the larger, and none otherwise (the quantum
cost grows at least as fast, so no size favours it). Its band takes the classical exponent's interval ends; a
crossover past the largest size measured is an extrapolation and is said to be one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Fit:
    """``t = c N^p``: the exponent ``p`` with its 95 % interval, the prefactor ``c``, the sizes fitted and the
    centre of the fitted points (mean ``log N``, mean ``log t``), through which every line of the band passes."""

    p: float
    low: float
    high: float
    c: float
    points: int
    centre: tuple[float, float] = (math.nan, math.nan)

    def prefactor(self, p: float | None = None) -> float:
        """``c`` of the line of exponent ``p`` (the fit's own by default) through the points' centre."""
        if p is None or p == self.p:
            return self.c
        return math.exp(self.centre[1] - p * self.centre[0])

    def at(self, n: float, p: float | None = None) -> float:
        """The fitted seconds at ``n`` unknowns, on the line of exponent ``p`` through the centre when given."""
        return self.prefactor(p) * n ** (self.p if p is None else p)


def power_fit(N, seconds) -> Fit:
    """Least squares of ``log seconds`` on ``log N`` (module docstring); ``nan`` exponents below 2 points."""
    from scipy import stats

    x, y = np.log(np.asarray(N, dtype=float)), np.log(np.asarray(seconds, dtype=float))
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 2 or np.ptp(x) == 0:
        return Fit(math.nan, math.nan, math.nan, math.nan, int(len(x)))
    fit = stats.linregress(x, y)
    half = stats.t.ppf(0.975, len(x) - 2) * fit.stderr if len(x) > 2 else math.inf
    centre = (float(x.mean()), float(y.mean()))
    return Fit(
        float(fit.slope), float(fit.slope - half), float(fit.slope + half), float(np.exp(fit.intercept)), len(x), centre
    )


def crossover(classical: Fit, quantum: Fit, p: float | None = None) -> float:
    """Unknowns where the two fits meet, or ``inf`` when the classical exponent (``p`` if given) is not larger."""
    pc = classical.p if p is None else p
    if not (math.isfinite(pc) and math.isfinite(quantum.p)) or pc <= quantum.p:
        return math.inf
    # another exponent is another line through the classical points' centre, not through the same prefactor
    log_n = (math.log(quantum.c) - math.log(classical.prefactor(p))) / (pc - quantum.p)
    return math.exp(log_n) if log_n < 700 else math.inf  # past a double: no crossover any computer could reach


def best_classical(classical: pd.DataFrame) -> pd.DataFrame:
    """Per (family, size, epsilon): the fastest method that reached the accuracy."""
    reached = classical[classical["reached"].astype(bool)].reset_index(drop=True)  # idxmin needs unique labels
    idx = reached.groupby(["family", "size", "epsilon"])["seconds"].idxmin()
    return reached.loc[idx].sort_values(["family", "epsilon", "N"]).reset_index(drop=True)


def cheapest_quantum(quantum: pd.DataFrame) -> pd.DataFrame:
    """Per (family, size, epsilon, readout, model): the cheapest encoding and solver."""
    finite = quantum[np.isfinite(quantum["seconds"])].reset_index(drop=True)  # idxmin needs unique labels
    idx = finite.groupby(["family", "size", "epsilon", "readout", "model"])["seconds"].idxmin()
    return finite.loc[idx].sort_values(["family", "epsilon", "readout", "model", "N"]).reset_index(drop=True)


def crossover_table(family: str, classical: pd.DataFrame, quantum: pd.DataFrame) -> pd.DataFrame:
    """One row per (epsilon, readout, model): both fits, the crossover and its band over the classical interval."""
    best, cheap = best_classical(classical), cheapest_quantum(quantum)
    largest = int(best["N"].max()) if len(best) else 0
    rows = []
    for (epsilon, readout, model), q in cheap.groupby(["epsilon", "readout", "model"]):
        c = best[best["epsilon"] == epsilon]
        cf, qf = power_fit(c["N"], c["seconds"]), power_fit(q["N"], q["seconds"])
        at = crossover(cf, qf)
        band = sorted(crossover(cf, qf, p) for p in (cf.low, cf.high))
        rows.append(
            {
                "family": family,
                "epsilon": epsilon,
                "readout": readout,
                "model": model,
                "classical_p": cf.p,
                "classical_p_low": cf.low,
                "classical_p_high": cf.high,
                "quantum_p": qf.p,
                "quantum_p_low": qf.low,
                "quantum_p_high": qf.high,
                "crossover_N": at,
                "crossover_low": band[0],
                "crossover_high": band[1],
                "largest_N": largest,
                "extrapolated": bool(math.isfinite(at) and at > largest),
            }
        )
    return pd.DataFrame(rows)


#: The anchors' assumptions taken one at a time, cumulatively (Tu et al.: HHL against CG, queries at unit cost, no
#: data loading, no read-out): each step's label and what it changes.
ANCHOR_STEPS = (
    ("ours: cheapest estimate, one observable; best classical method measured", None),
    ("+ each query one logical Toffoli and b free (no data loading)", "unit queries"),
    ("+ no read-out: one solve", "one solve"),
    ("+ the opponent CG with Jacobi, not the best method (the anchors' CG)", "cg"),
)


def _anchor_seconds(quantum: pd.DataFrame, steps: set[str]) -> pd.Series:
    """Quantum seconds under the anchors' assumptions in ``steps``: the Resource Estimator's runtime per solve
    scales with the logical Toffolis (as past its limit), so a query at one Toffoli scales it by queries over
    Toffolis; one solve drops the read-out's repetitions."""
    per_solve = quantum["seconds_per_solve"]
    if "unit queries" in steps:
        per_solve = per_solve * quantum["queries"] / quantum["toffolis"]
    return per_solve if "one solve" in steps else per_solve * quantum["solves"]


def anchor_ablation(
    family: str, classical: pd.DataFrame, quantum: pd.DataFrame, epsilon: float, model: str
) -> pd.DataFrame:
    """The crossover of ``family`` as the anchors' assumptions replace ours one at a time (:data:`ANCHOR_STEPS`),
    at ``epsilon`` and hardware ``model``, one observable: both exponents and where the fits meet."""
    quantum = quantum[(quantum["readout"] == "observable") & (quantum["model"] == model)]
    quantum = quantum[np.isclose(quantum["epsilon"], epsilon)]
    classical = classical[np.isclose(classical["epsilon"], epsilon)]
    rows, taken = [], set()
    for label, step in ANCHOR_STEPS:
        taken |= {step} if step else set()
        cheap = cheapest_quantum(quantum.assign(seconds=_anchor_seconds(quantum, taken)))
        opponents = classical[classical["method"] == "cg-jacobi"] if "cg" in taken else classical
        best = best_classical(opponents)
        cf, qf = power_fit(best["N"], best["seconds"]), power_fit(cheap["N"], cheap["seconds"])
        rows.append(
            {
                "family": family,
                "assumptions": label,
                "classical_p": cf.p,
                "quantum_p": qf.p,
                "crossover_N": crossover(cf, qf),
                "quantum_seconds_at_largest": float(cheap["seconds"].iloc[-1]) if len(cheap) else math.nan,
                "classical_seconds_at_largest": float(best["seconds"].iloc[-1]) if len(best) else math.nan,
            }
        )
    return pd.DataFrame(rows)
