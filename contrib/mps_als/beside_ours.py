"""The MPS peer's rows beside our variational solvers' published rows: per qubit band, median fidelity, success
and parameter counts (README.md, section "Beside ours").

Run from the repository root in qlsbench's own environment (not the peer's)::

    python contrib/mps_als/beside_ours.py            # print the tables
    python contrib/mps_als/beside_ours.py --write    # and put them in README.md between the markers

It reads the published board (qlsbench/pinned/results.parquet: the vqls-* and vnls-* rows) and the peer's
submissions (qlsbench/pinned/submissions/mps-als-D*.parquet), and judges every row as the board does on its
variational track (qlsbench.bench.ranking.LOW_ACCURACY: a returned solution with fidelity >= 0.99 and relative
residual <= 1e-2) and on its exact track (status converged, residual <= 1e-6); fidelity is 0 for a solve that
returned nothing, as on the board.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.board.submissions import read_submission
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, mark_success, qubit_band
from qlsbench.data import pinned_files
from qlsbench.data import iter_systems

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "qlsbench" / "pinned" / "results.parquet"
SUBMISSIONS = ROOT / "qlsbench" / "pinned" / "submissions"
README = Path(__file__).with_name("README.md")
MARKERS = ("<!-- beside-ours -->", "<!-- /beside-ours -->")
BANDS = ["1-4", "5-6", "7-8", "9-10"]
BOND_DIMS = (2, 4, 8, 16)


def rows() -> pd.DataFrame:
    """Our variational rows and the peer's, each judged on both tracks, with its qubit band."""
    ours = pd.read_parquet(PUBLISHED)
    ours = ours[ours["solver"].str.match(r"^(vqls|vnls)-")]
    peer = [read_submission(path)[0] for path in sorted(SUBMISSIONS.glob("mps-als-D*.parquet"))]
    frame = pd.concat([ours, *peer], ignore_index=True)
    low = mark_success(frame, LOW_ACCURACY)
    exact = mark_success(frame, Tolerances())
    return low.assign(exact=exact["success"], band=frame["n_qubits"].map(qubit_band))


def _order(labels) -> list[str]:
    """MPS by bond dimension, then ours by name."""
    mps = sorted((s for s in labels if s.startswith("mps-als-D")), key=lambda s: int(s.rsplit("D", 1)[1]))
    return mps + sorted(s for s in labels if not s.startswith("mps-als-D"))


def _params(values: pd.Series) -> str:
    lo, hi = int(values.min()), int(values.max())
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def tables(frame: pd.DataFrame) -> str:
    """Markdown: one table of median fidelity / variational success (exact success) per band, one of parameters."""
    order = _order(frame["solver"].unique())
    g = frame.groupby(["solver", "band"])
    cell = g.apply(lambda d: f"{d['fidelity_or_zero'].median():.3f} / {d['success'].mean():.2f} "
                             f"({d['exact'].mean():.2f})", include_groups=False).unstack()
    count = frame.groupby(["solver"]).size()
    systems = frame.drop_duplicates("system_id").groupby("band").size()
    head = ("| solver | " + " | ".join(f"{b} qubits ({systems.get(b, 0)} systems)" for b in BANDS)
            + " | all: success (exact) | rows |")
    lines = [head, "|" + " --- |" * (len(BANDS) + 3)]
    for s in order:
        d = frame[frame["solver"] == s]
        lines.append(f"| {s} | " + " | ".join(cell.loc[s].get(b, "") for b in BANDS)
                     + f" | {d['success'].mean():.2f} ({d['exact'].mean():.2f}) | {count[s]} |")
    qubits = sorted(frame["n_qubits"].dropna().astype(int).unique())
    params = frame.dropna(subset=["parameters"]).groupby(["solver", "n_qubits"])["parameters"].apply(_params).unstack()
    plines = ["| solver | " + " | ".join(str(q) for q in qubits) + " |", "|" + " --- |" * (len(qubits) + 1)]
    for s in order:
        got = params.loc[s] if s in params.index else pd.Series(dtype=object)
        plines.append(f"| {s} | " + " | ".join("-" if pd.isna(got.get(q)) else got[q] for q in qubits) + " |")
    return ("Median fidelity / success on the variational track (success on the exact track), per qubit band, "
            "over all systems and seeds:\n\n" + "\n".join(lines)
            + "\n\nParameters per qubit count (entries of the MPS's site tensors; our solvers' `parameters` column; a "
              "range where systems of one size differ; - where no row of that size recorded it):\n\n"
            + "\n".join(plines) + "\n")


def truncated_fidelity(x: np.ndarray, D: int) -> float:
    """Fidelity with ``x`` of its MPS of bond dimension ``D`` by successive truncated SVDs (TT-SVD, site 0 the most
    significant bit): how well an MPS of that size can hold the solution at all (TT-SVD is within a factor
    sqrt(n - 1) in norm of the best such MPS)."""
    n = int(round(np.log2(x.size)))
    rest, cores, rank = x.reshape(1, -1), [], 1
    for _ in range(n - 1):
        u, s, vh = np.linalg.svd(rest.reshape(rank * 2, -1), full_matrices=False)
        k = min(D, s.size)
        cores.append(u[:, :k].reshape(rank, 2, k))
        rest, rank = s[:k, None] * vh[:k], k
    y = rest.reshape(rank, 2)
    for core in reversed(cores):
        y = np.tensordot(core, y, axes=(2, 0)).reshape(core.shape[0], -1)
    y = y.reshape(-1)
    return float(abs(np.vdot(y, x)) ** 2 / (np.vdot(y, y).real * np.vdot(x, x).real))


def reachable(frame: pd.DataFrame) -> str:
    """Markdown: per band and bond dimension, the share of systems whose solution an MPS of that bond dimension
    holds at fidelity >= 0.99 (TT-SVD of x_ref), beside the share of the peer's solves that reached it."""
    systems = {s.system_id: s for path in pinned_files().values() for s in iter_systems(path)}
    bands = {sid: qubit_band(s.meta.get("n_qubits")) for sid, s in systems.items()}
    held = pd.DataFrame([{"system_id": sid, "band": bands[sid], "D": D,
                          "held": truncated_fidelity(s.x_ref, D) >= LOW_ACCURACY.fidelity}
                         for sid, s in systems.items() for D in BOND_DIMS])
    lines = ["| D | " + " | ".join(f"{b} qubits: held / reached" for b in BANDS) + " |",
             "|" + " --- |" * (len(BANDS) + 1)]
    for D in BOND_DIMS:
        mine = frame[frame["solver"] == f"mps-als-D{D}"]
        cells = []
        for b in BANDS:
            h = held[(held["D"] == D) & (held["band"] == b)]["held"]
            r = mine[mine["band"] == b]["fidelity_or_zero"] >= LOW_ACCURACY.fidelity
            cells.append(f"{h.mean():.2f} / {r.mean():.2f}" if len(r) else f"{h.mean():.2f} / -")
        lines.append(f"| {D} | " + " | ".join(cells) + " |")
    return ("Whether the solution fits the MPS at all: the share of systems whose reference solution, truncated to "
            f"bond dimension D by successive SVDs, keeps fidelity >= {LOW_ACCURACY.fidelity} (held), beside the share "
            "of the sweeps' solves (all seeds) that reached that fidelity (reached):\n\n" + "\n".join(lines) + "\n")


def real_parameters(frame: pd.DataFrame) -> pd.Series:
    """Each row's parameters counted in real numbers: a VNLS model with complex parameters (its ``parameters``
    column counts complex entries) has twice as many; the MPS's site tensors and VQLS's angles are real."""
    import json

    from qlsbench.solvers.vnls.models import MODELS

    def factor(row) -> int:
        if not str(row["solver"]).startswith("vnls"):
            return 1
        model = json.loads(row.get("solver_options") or "{}").get("model", "crbm")
        return 2 if MODELS[model].complex_parameters else 1

    return frame["parameters"] * frame.apply(factor, axis=1)


def matched(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variational solver of ours and system: its success share over seeds beside that of the largest MPS with
    at most as many real parameters on the same system; ``mps`` is empty where even ``D`` = 2 is larger."""
    frame = frame.assign(real=real_parameters(frame))
    per = frame.groupby(["solver", "system_id"]).agg(success=("success", "mean"), real=("real", "median"))
    per = per.reset_index()
    mps = per[per["solver"].str.startswith("mps-als-D")].assign(D=lambda d: d["solver"].str.rsplit("D", n=1).str[1])
    out = []
    for _, row in per[~per["solver"].str.startswith("mps-als-D")].iterrows():
        if pd.isna(row["real"]):
            continue
        fits = mps[(mps["system_id"] == row["system_id"]) & (mps["real"] <= row["real"])]
        best = fits.loc[fits["D"].astype(int).idxmax()] if len(fits) else None
        out.append(
            {
                "solver": row["solver"],
                "system_id": row["system_id"],
                "ours": row["success"],
                "mps": None if best is None else best["success"],
                "D": None if best is None else int(best["D"]),
            }
        )
    return pd.DataFrame(out)


def matched_sentences(frame: pd.DataFrame) -> str:
    """Markdown: per solver of ours, on how many systems an MPS of at most as many real parameters exists, and
    there how often the MPS succeeds more, as often or less often (success share over seeds, the variational
    track); the comparison sentence is these counts, never typed."""
    pairs = matched(frame)
    lines = ["| solver | systems | matched (an MPS no larger) | MPS better | equal | MPS worse | nothing to match |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for solver in sorted(pairs["solver"].unique()):
        mine = pairs[pairs["solver"] == solver]
        hit = mine.dropna(subset=["mps"])
        better = int((hit["mps"] > hit["ours"]).sum())
        worse = int((hit["mps"] < hit["ours"]).sum())
        lines.append(f"| {solver} | {len(mine)} | {len(hit)} | {better} | {len(hit) - better - worse} | {worse} | "
                     f"{len(mine) - len(hit)} |")
    totals = pairs.dropna(subset=["mps"])
    return ("Matched pairs at equal or fewer real parameters (a complex parameter counts as two real ones): per "
            "system, each of our solvers beside the largest MPS with no more real parameters on the same system, "
            "by success share over seeds on the variational track. Where even the smallest MPS (`D` = 2) is "
            "larger, nothing is compared. Over all solvers, "
            f"{len(totals)} of {len(pairs)} (solver, system) pairs can be matched; there the MPS succeeds more "
            f"often on {int((totals['mps'] > totals['ours']).sum())}, as often on "
            f"{int((totals['mps'] == totals['ours']).sum())} and less often on "
            f"{int((totals['mps'] < totals['ours']).sum())}.\n\n" + "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the tables in README.md between the markers")
    args = parser.parse_args()
    frame = rows()
    text = tables(frame) + "\n" + matched_sentences(frame) + "\n" + reachable(frame)
    print(text)
    if args.write:
        readme = README.read_text()
        pattern = re.compile(re.escape(MARKERS[0]) + ".*?" + re.escape(MARKERS[1]), re.S)
        if not pattern.search(readme):
            raise SystemExit(f"{README}: no {MARKERS[0]} ... {MARKERS[1]} section")
        README.write_text(pattern.sub(lambda _: f"{MARKERS[0]}\n{text}{MARKERS[1]}", readme))


if __name__ == "__main__":
    main()
