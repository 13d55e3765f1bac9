"""The numbers of README.md's "Beside ours": PennyLane's QSVT row against qlsbench's own ``qsvt-eps1e-2``, per system.

Run from the repository root in qlsbench's environment (not the peer's)::

    python contrib/pennylane_qsvt/beside_ours.py            # print the section
    python contrib/pennylane_qsvt/beside_ours.py --write    # and put it into README.md between its markers

Both solvers are deterministic (every repeat gives the same solution), so "differ" is a fidelity difference above
:data:`TOLERANCE` or another status. Each solution is checked against a dense solve (``numpy.linalg.solve``) and
against what its polynomial predicts: the same Childs-Kothari-Somma polynomial (qlsbench's
``cks_polynomial``, which the peer reimplements) at the row's own ``kappa_eff`` and degree, applied to the
singular values of ``A^T / alpha`` classically. A polynomial within ``delta`` of ``1/x`` on every singular value
puts the solution within relative error ``delta`` of the exact one, so the fidelity is at least ``1 - delta^2``
(``delta``: the row's ``polynomial_error``, plus the peer's angle error, in ``error_bound``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.polynomial import chebyshev

from qlsbench.bench.board.folder import SHIPPED
from qlsbench.bench.board.submissions import read_submission
from qlsbench.data import iter_systems
from qlsbench.solvers.qsvt.polynomial import cks_polynomial

OURS = "qsvt-eps1e-2"
PEER = Path("qlsbench/pinned/submissions/pennylane-qsvt-eps1e-2.parquet")
README = Path(__file__).with_name("README.md")
MARKERS = ("<!-- beside-ours: start (beside_ours.py --write) -->", "<!-- beside-ours: end -->")
#: Fidelities of two deterministic rows that differ by more than this differ.
TOLERANCE = 1e-6
EPSILON = 0.01


def per_system(rows: pd.DataFrame, time_factor: float = 1.0) -> pd.DataFrame:
    """One line per system: status, median fidelity and residual, their spread over repeats, median seconds, and the
    first repeat's resources and message."""
    out = {}
    for system_id, group in rows.groupby("system_id"):
        fid = group["fidelity"].astype(float)
        out[system_id] = {"status": "/".join(sorted(set(group["status"].astype(str)))),
                          "fidelity": fid.median(),
                          "spread": float(fid.max() - fid.min()) if fid.notna().any() else 0.0,
                          "residual": group["rel_residual"].astype(float).median(),
                          "seconds": float(group["wall_time"].median()) * time_factor,
                          "resources": json.loads(group["resources"].iloc[0] or "{}"),
                          "message": str(group["message"].iloc[0])}
    return pd.DataFrame.from_dict(out, orient="index")


def predicted(A: np.ndarray, b: np.ndarray, x: np.ndarray, resources: dict) -> float | None:
    """Fidelity with the dense solution ``x`` of the row's own polynomial applied exactly to ``A^T / alpha``."""
    if "degree" not in resources or "kappa_eff" not in resources or "alpha" not in resources:
        return None
    coefficients = cks_polynomial(resources["kappa_eff"], EPSILON, int(resources["degree"]))["coefficients"]
    W, s, Vh = np.linalg.svd(A.T / resources["alpha"])
    y = W @ (chebyshev.chebval(s, coefficients) * (Vh @ b))
    return fidelity(y, x)


def fidelity(y: np.ndarray, x: np.ndarray) -> float:
    return float(abs(np.vdot(y, x)) ** 2 / (np.vdot(y, y).real * np.vdot(x, x).real))


def short(value, fmt: str = ".3g") -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else format(value, fmt)


def degree(resources: dict) -> str:
    """``degree (kappa_eff)``, blank when the solve stopped before it had them."""
    if "degree" not in resources:
        return ""
    return f"{resources['degree']} ({short(resources.get('kappa_eff'))})"


#: Below this a number is rounding, whose digits differ between BLAS kernels and thread counts: shown as a bound,
#: so the section reads the same on every machine.
ROUNDING = 1e-13


def tiny(value: float) -> str:
    """``value`` to two digits, or ``< 1e-13`` where it is rounding."""
    return f"< {ROUNDING:.0e}" if value < ROUNDING else f"{value:.1e}"


def infidelity(value) -> str:
    """``1 - F`` (the fidelities are all within 1e-4 of 1)."""
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else tiny(max(1.0 - value, 0.0))


def section() -> str:
    published = pd.read_parquet(SHIPPED.results_path)
    peer_rows, meta = read_submission(PEER)
    ours = per_system(published[published["solver"] == OURS])
    peer = per_system(peer_rows, float(meta["time_factor"]))
    systems = {s.system_id: s for p in SHIPPED.pinned_files().values() for s in iter_systems(p)}
    names = {e["system_id"]: e["name"] for e in SHIPPED.manifest()["systems"]}
    order = sorted(names, key=lambda i: (systems[i].dim, names[i]))

    lines, differ, both, peer_only, ours_only, neither = [], [], 0, [], [], 0
    lines += ["| system | qubits | ours: status | ours: 1-F | ours: degree (kappa_eff) | ours: s | PennyLane: status "
              "| PennyLane: 1-F | PennyLane: degree (kappa_eff) | PennyLane: s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for system_id in order:
        o, p = ours.loc[system_id], peer.loc[system_id]
        ro, rp = o["resources"], p["resources"]
        lines.append(f"| {names[system_id]} | {systems[system_id].meta.get('n_qubits')} | {o['status']} | "
                     f"{infidelity(o['fidelity'])} | {degree(ro)} | "
                     f"{short(o['seconds'], '.1f')} | {p['status']} | {infidelity(p['fidelity'])} | "
                     f"{degree(rp)} | {short(p['seconds'], '.1f')} |")
        solved = (o["status"] == "converged", p["status"] == "converged")
        if all(solved):
            both += 1
        elif solved[1]:
            peer_only.append(system_id)
        elif solved[0]:
            ours_only.append(system_id)
        else:
            neither += 1
        if o["status"] != p["status"] or abs(o["fidelity"] - p["fidelity"]) > TOLERANCE:
            differ.append(system_id)
    spread = max(ours["spread"].max(), peer["spread"].max())

    checks = ["| system | ours: 1-F | its polynomial predicts | bound | PennyLane: 1-F | its polynomial predicts | "
              "bound | differ | closer to the dense solve |", "|---|---|---|---|---|---|---|---|---|"]
    gaps = {"ours": 0.0, "PennyLane": 0.0}
    paired = [i for i in order if ours.loc[i, "status"] == peer.loc[i, "status"] == "converged"]
    largest = max(abs(ours.loc[i, "fidelity"] - peer.loc[i, "fidelity"]) for i in paired)
    alphas = {who: [frame.loc[i, "resources"]["alpha"] for i in paired] for who, frame in (("ours", ours),
                                                                                             ("PennyLane", peer))}
    ratios = [ours.loc[i, "resources"]["degree"] / peer.loc[i, "resources"]["degree"] for i in paired]
    for system_id in order:
        o, p = ours.loc[system_id], peer.loc[system_id]
        if "converged" not in (o["status"], p["status"]):
            continue
        system = systems[system_id]
        A, b = system.A.toarray(), np.asarray(system.b)
        x = np.linalg.solve(A, b)
        po = predicted(A, b, x, o["resources"]) if o["status"] == "converged" else None
        pp = predicted(A, b, x, p["resources"]) if p["status"] == "converged" else None
        for who, row, guess in (("ours", o, po), ("PennyLane", p, pp)):
            if guess is not None:
                gaps[who] = max(gaps[who], abs(row["fidelity"] - guess))
        bo = o["resources"].get("polynomial_error") if po is not None else None
        bp = p["resources"].get("error_bound") if pp is not None else None
        if po is not None and pp is not None:
            gap = p["fidelity"] - o["fidelity"]
            closer = ("same to 1e-14" if abs(gap) <= 1e-14
                      else "PennyLane" if gap > 0 else "ours")
        else:
            closer = "only PennyLane's solves" if pp is not None else "only ours solves"
        checks.append(f"| {names[system_id]} | {infidelity(o['fidelity'])} | {infidelity(po)} | "
                      f"{short(None if bo is None else bo**2, '.1e')} | {infidelity(p['fidelity'])} | "
                      f"{infidelity(pp)} | {short(None if bp is None else bp**2, '.1e')} | "
                      f"{'yes' if system_id in differ else 'no'} | {closer} |")

    def listed(ids):
        return ", ".join(names[i] for i in ids) or "none"

    head = [f"Systems: {len(order)}. Both solve (converged) {both}; only PennyLane's {len(peer_only)} "
            f"({listed(peer_only)}); only ours {len(ours_only)} ({listed(ours_only)}); neither {neither}. The largest "
            f"fidelity spread over a row's three repeats is {spread:.1e} (both deterministic), so rows differ when "
            f"their fidelities differ by more than {TOLERANCE:g} or their statuses differ: {len(differ)} systems.",
            "", "Per system (1-F: one minus the median fidelity; s: median seconds per solve, PennyLane's scaled by "
            f"its submission's time factor {float(meta['time_factor']):.3g} as the board ranks it):", "", *lines, "",
            "Every system at least one of the two solves: each row's 1-F (its fidelity with the dense solution), "
            "the 1-F its own polynomial predicts (the row's kappa_eff, degree and alpha, applied exactly to the "
            "singular values of "
            "A^T / alpha, no circuit), and the polynomial's bound (1-F <= delta^2, delta its largest error against 1/x "
            "on [1/kappa_eff, 1]):", "", *checks, "",
            f"The largest difference between a row's fidelity and its polynomial's prediction: ours "
            f"{tiny(gaps['ours'])}, PennyLane's {tiny(gaps['PennyLane'])}. On the {len(paired)} systems both solve the "
            f"fidelities differ by at most {tiny(largest)}; alpha is {min(alphas['ours']):.3g} to "
            f"{max(alphas['ours']):.3g} for ours (the Pauli coefficients' 1-norm) and {min(alphas['PennyLane']):.3g} "
            f"to {max(alphas['PennyLane']):.3g} for PennyLane's BlockEncode, and our degree is {min(ratios):.2f} to "
            f"{max(ratios):.2f} times PennyLane's."]
    return "\n".join(head) + "\n"


def main(argv: list[str]) -> None:
    text = section()
    print(text)
    if "--write" in argv:
        readme = README.read_text()
        start, end = readme.index(MARKERS[0]) + len(MARKERS[0]), readme.index(MARKERS[1])
        README.write_text(readme[:start] + "\n" + text + readme[end:])


if __name__ == "__main__":
    main(sys.argv[1:])
