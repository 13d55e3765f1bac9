"""Logical counts to physical qubits and seconds: Microsoft's Resource Estimator, run locally from ``qdk``.

The estimator (``qdk.estimator.LogicalCounts``; Beverland et al., arXiv:2211.07629) takes a program's logical
qubits, T gates, rotations, CCZ (Toffoli) gates and measurements and lays them out on a surface or Floquet code
under a named qubit model, choosing code distance and T factories for an error budget. One solve is estimated;
a readout's repetitions multiply its runtime (the estimator's runtime is a 64-bit count of nanoseconds, which
``N / epsilon^2`` repetitions of a long solve overflow).

A solve longer than :data:`LONGEST` Toffolis or rotations is past what the estimator answers: its nanosecond
count wraps around 2^64 near 1e15 Toffolis (seen here: 1e16 Toffolis came back faster than 1e15), and 1e17
rotations kept it searching for minutes. Such a solve is estimated at :data:`LONGEST` (its Toffolis and
rotations scaled down together) and its runtime scaled back up linearly, with ``extrapolated`` set. This favours
the quantum side: a longer program needs a larger code distance, so its per-gate time, and its qubits, only grow.
"""

from __future__ import annotations

import math
import os
import warnings

from qlsbench.errors import InputError

#: The hardware models: a name of ours, the estimator's qubit model and its error-correction scheme.
HARDWARE_MODELS = {
    "superconducting-1e-3": ("qubit_gate_ns_e3", "surface_code"),
    "superconducting-1e-4": ("qubit_gate_ns_e4", "surface_code"),
    "majorana-1e-4": ("qubit_maj_ns_e4", "floquet_code"),
}
#: The total error the estimator may spend on one solve (logical errors, T distillation, rotation synthesis).
ERROR_BUDGET = 1e-2
#: The longest solve handed to the estimator whole (Toffolis or rotations); longer ones are scaled (docstring).
LONGEST = 1e12


def estimator_available() -> str | None:
    """``None`` when the estimator imports, else the sentence saying how to install it.

    The package reports usage to Microsoft unless told not to; a benchmark run has no business doing so, so its
    variable is set to ``none`` here unless the user set it.
    """
    os.environ.setdefault("QDK_PYTHON_TELEMETRY", "none")
    try:
        import qdk.estimator  # noqa: F401
    except ImportError:
        return "the Resource Estimator is not installed (pip install 'qlsbench[advantage]', which brings qdk)"
    return None


def physical(counts: dict[str, float], models: list[str] | None = None) -> dict[str, dict[str, float | bool]]:
    """Physical qubits and runtime in seconds of one solve under each hardware model.

    Parameters
    ----------
    counts : dict
        Logical ``qubits``, ``toffolis`` and ``rotations`` of one solve (:func:`~qlsbench.estimates.one_solve`).
    models : list of str, optional
        Names of :data:`HARDWARE_MODELS`; all by default.

    Returns
    -------
    dict
        Per model: ``physical_qubits``, ``runtime_s``, ``code_distance`` and ``extrapolated`` (the solve was
        longer than :data:`LONGEST`: estimated there, its runtime scaled up linearly).
    """
    models = list(HARDWARE_MODELS) if models is None else models
    unknown = [m for m in models if m not in HARDWARE_MODELS]
    if unknown:
        raise InputError(f"hardware model {unknown[0]!r} is unknown; known: {', '.join(HARDWARE_MODELS)}")
    missing = estimator_available()
    if missing:
        raise InputError(missing)
    from qdk.estimator import EstimatorParams, LogicalCounts

    toffolis, rotations = float(counts["toffolis"]), float(counts["rotations"])
    scale = max(1.0, max(toffolis, rotations) / LONGEST)
    toffolis, rotations = math.ceil(toffolis / scale), math.ceil(rotations / scale)
    logical = LogicalCounts(
        {
            "numQubits": int(counts["qubits"]),
            "cczCount": toffolis,
            "rotationCount": rotations,
            "rotationDepth": rotations,  # serial: no claim that the rotations run side by side
            "measurementCount": int(counts["qubits"]),  # the final read of every qubit
        }
    )
    with warnings.catch_warnings():  # the estimator warns that a newer interface (qdk.qre) is coming
        warnings.simplefilter("ignore", DeprecationWarning)
        params = EstimatorParams(num_items=len(models))
        params.error_budget = ERROR_BUDGET
        for item, model in zip(params.items, models):
            qubit, scheme = HARDWARE_MODELS[model]
            item.qubit_params.name = qubit
            item.qec_scheme.name = scheme
        result = logical.estimate(params)
    out = {}
    for i, model in enumerate(models):
        row = result[i] if len(models) > 1 else result
        out[model] = {
            "physical_qubits": float(row["physicalCounts"]["physicalQubits"]),
            "runtime_s": float(row["physicalCounts"]["runtime"]) * 1e-9 * scale,
            "code_distance": float(row["logicalQubit"]["codeDistance"]),
            "extrapolated": scale > 1.0,
        }
    return out
