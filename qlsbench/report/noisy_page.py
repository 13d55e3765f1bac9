"""``docs/noisy.md``: the circuit solvers on a device's calibrated noise, generated from results files (never typed).

``qlsbench figure noisy FILE... --out docs/noisy.md`` reads solve results of
the ``device`` backends (:mod:`qlsbench.solvers.devices`) and writes, per solver
and qubit count, the fidelity over seeds on the ideal machine with the same
routing (``noise_scale=0``), on the device's noise, and with error mitigation,
beside the routed circuit's depth, two-qubit gates and the time per solve; and a
volumetric figure in the style of QED-C's application benchmarks: fidelity
against qubits and routed depth, one panel per solver and condition.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.results import load_results
from qlsbench.bench.spread import Spread
from qlsbench.data import atomic_write_text
from qlsbench.report.base import page
from qlsbench.report.floors import normalised, with_floors
from qlsbench.report.plotting import pyplot, save_figure
from qlsbench.report.tables import markdown_table

#: Conditions in the order a reader compares them.
def condition_of(noise_scale: float, mitigation: str) -> str:
    """``ideal`` (noise scale 0), ``noisy`` (no mitigation) or ``mitigated (<mitigation>)``: each mitigation is
    its own condition, never pooled with another."""
    return "ideal" if noise_scale == 0 else "noisy" if mitigation == "none" else f"mitigated ({mitigation})"


def conditions(rows: pd.DataFrame) -> list[str]:
    """The conditions present in ``rows``: ideal and noisy always, then each mitigation run, in that order."""
    return ["ideal", "noisy", *sorted(c for c in set(rows["condition"]) if c.startswith("mitigated"))]
#: The variational track's bar: a solve counts as solved at this fidelity or above.
FIDELITY_BAR = 0.99


def device_rows(results: pd.DataFrame) -> pd.DataFrame:
    """Rows of solves run on a device backend, with ``device``, ``calibration_date``, ``noise_scale``,
    ``mitigation`` and ``condition`` (:func:`condition_of`)."""
    meta = results["resources"].map(lambda r: json.loads(r or "{}"))
    on_device = meta.map(lambda m: "noise_scale" in m)
    rows = results[on_device].copy()
    meta = meta[on_device]
    rows["device"] = meta.map(lambda m: m.get("device"))
    rows["calibration_date"] = meta.map(lambda m: m.get("calibration_date"))
    rows["noise_scale"] = meta.map(lambda m: float(m.get("noise_scale", np.nan)))
    rows["mitigation"] = meta.map(lambda m: m.get("mitigation", "none"))
    rows["condition"] = [condition_of(s, mit) for s, mit in zip(rows["noise_scale"], rows["mitigation"])]
    return rows


def _floor_text(floors: pd.Series) -> str:
    """One floor, or the range where a size holds several systems; a dash where no system is pinned."""
    floors = floors.dropna()
    if floors.empty:
        return "—"
    low, high = floors.min(), floors.max()
    return f"{low:.4f}" if np.isclose(low, high, rtol=0, atol=5e-5) else f"{low:.4f}-{high:.4f}"


def noisy_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per solver, family, qubit count and mitigation: fidelity median [IQR] over seeds ideal, noisy and
    mitigated, beside the floor, routed cost and time (a size run under two mitigations has a row for each, the
    same ideal and noisy). Families are never pooled: an Ising and a DEM-C system of one size are two rows."""
    out = []
    for (solver, family, n), part in rows.groupby(["solver_name", "family", "n_qubits"], sort=True):
        entry = {"solver": solver, "family": family, "qubits": int(n), "systems": part["system_id"].nunique(),
                 "floor": _floor_text(part.drop_duplicates("system_id")["floor"])}
        for condition in ("ideal", "noisy"):
            here = part[part["condition"] == condition]
            entry[f"{condition} fidelity"] = Spread.of(here["fidelity"]).text(".3f") if len(here) else "—"
        noisy = part[part["condition"] == "noisy"]
        entry["routed depth"] = _whole(part["routed_depth"].max())
        entry["two-qubit gates"] = _whole(part["two_qubit_gates"].max())
        entry["seconds per noisy solve"] = Spread.of(noisy["wall_time"]).text(".0f") if len(noisy) else "—"
        # Gate time on the device of a solve without mitigation (the ideal run's circuits are the same).
        plain = part[~part["condition"].str.startswith("mitigated")]
        entry["device seconds per solve"] = Spread.of(plain["device_seconds"]).text(".1f")
        mitigations = sorted(set(part.loc[part["condition"].str.startswith("mitigated"), "mitigation"]))
        for mitigation in mitigations or [None]:
            mitigated = part[part["mitigation"] == mitigation] if mitigation else part.iloc[:0]
            out.append({**entry, "mitigation": mitigation or "—",
                        "mitigated fidelity": Spread.of(mitigated["fidelity"]).text(".3f") if mitigation else "—",
                        "seconds per mitigated solve": Spread.of(mitigated["wall_time"]).text(".0f")
                        if mitigation else "—"})
    columns = ["solver", "family", "qubits", "systems", "floor", "ideal fidelity", "noisy fidelity",
               "mitigated fidelity", "mitigation", "routed depth", "two-qubit gates", "seconds per noisy solve",
               "seconds per mitigated solve", "device seconds per solve"]
    return pd.DataFrame(out, columns=columns)


def _whole(value) -> object:
    """An integer for the table, or a dash where the solver did not count it (HHL above 3 system qubits)."""
    return "—" if value is None or value != value else int(value)


def largest_solved(rows: pd.DataFrame, bar: float = FIDELITY_BAR) -> pd.DataFrame:
    """Per solver, family and condition: the most qubits at which the median fidelity over seeds reaches
    ``bar``, and the most at which the whole interquartile range lies above the size's floor (``rows["floor"]``,
    :func:`with_floors`: what not solving scores), so a median that beats the floor by less than the seeds'
    spread does not count. A size without a known floor cannot show it beat one."""
    out = []
    for (solver, family, condition), part in rows.groupby(["solver_name", "family", "condition"], sort=True):
        sizes = part.groupby("n_qubits").agg(median=("fidelity", "median"),
                                             q25=("fidelity", lambda f: Spread.of(f).q25), floor=("floor", "max"))
        out.append({"solver": solver, "family": family, "condition": condition,
                    f"largest system at fidelity >= {bar:g} (qubits)": _most(sizes[sizes["median"] >= bar]),
                    "largest system above its floor (qubits)": _most(sizes[sizes["q25"] > sizes["floor"]]),
                    "qubits tried": ", ".join(str(int(n)) for n in sizes.index)})
    order = {c: i for i, c in enumerate(conditions(rows))}
    return pd.DataFrame(out).sort_values(["solver", "family", "condition"], key=lambda s: s.map(order) if s.name ==
                                         "condition" else s, ignore_index=True) if out else pd.DataFrame()


def _most(sizes: pd.DataFrame) -> object:
    """The largest qubit count in ``sizes``' index, or ``none``."""
    return int(sizes.index.max()) if len(sizes) else "none"


def floor_sentence(rows: pd.DataFrame, bar: float = FIDELITY_BAR) -> str:
    """What the floors are on the systems of ``rows``, per family, and from which size they pass ``bar`` by
    themselves."""
    systems = rows.drop_duplicates("system_id").dropna(subset=["b_fidelity"])
    if systems.empty:
        return "No system here is pinned, so no floor is known."
    parts = []
    for family, part in systems.groupby("family", sort=True):
        rhs = part.groupby("n_qubits")["b_fidelity"].min()
        sizes = ", ".join(f"{f:.4f} at {int(n)}" for n, f in rhs.items())
        free = rhs[rhs >= bar]
        verdict = (f"the {bar:g} bar is met without solving from {int(free.index.min())} qubits up" if len(free)
                   else f"below the {bar:g} bar at every size here")
        parts.append(f"on the {family} systems {sizes} qubits ({verdict})")
    return ("The *floor* is the fidelity scored without solving: `b` itself returned as the answer, and for HHL "
            "the larger of that and the most its read-out of pure noise scores (every magnitude equal, with the "
            "solution's own signs). Only a fidelity whose interquartile range over seeds lies above the floor says "
            f"a solver learned something. `b`'s own fidelity with the solution is {'; '.join(parts)}.")


def plot_volumetric(rows: pd.DataFrame, out: str | os.PathLike) -> Path:
    """Fidelity against qubits and routed depth: a panel per solver and condition, each cell a square coloured
    by the median fidelity over seeds normalised to its floor (:func:`normalised`), labelled with the median
    itself (QED-C's volumetric style, which normalises to the uniform distribution the same way)."""
    from matplotlib.ticker import MaxNLocator

    plt = pyplot()
    solvers, panels = sorted(rows["solver_name"].unique()), conditions(rows)
    fig, axes = plt.subplots(len(panels), len(solvers), figsize=(4.2 * len(solvers), 3.2 * len(panels)),
                             squeeze=False, sharex=True, sharey=True)
    cmap = plt.get_cmap("RdYlGn")
    families = sorted(rows["family"].unique())
    markers = dict(zip(families, "sodD^v"))
    # Families of one size stand side by side, never on top of each other.
    shifts = {f: 0.3 * (k - (len(families) - 1) / 2) / max(1, len(families) - 1) for k, f in enumerate(families)}
    for j, solver in enumerate(solvers):
        for i, condition in enumerate(panels):
            ax = axes[i][j]
            part = rows[(rows["solver_name"] == solver) & (rows["condition"] == condition)]
            # One cell per family and size: the median routed depth (the transpiler's seed follows the solve's),
            # fidelity and the floor. A solve whose routed depth was not counted has no place on this plot.
            cells = part.dropna(subset=["routed_depth"]).groupby(["family", "n_qubits"])
            cells = cells.agg(routed_depth=("routed_depth", "median"), fidelity=("fidelity", "median"),
                              floor=("floor", "max")).reset_index()
            cells["normalised"] = normalised(cells["fidelity"], cells["floor"])
            cells["x"] = [n + shifts[f] for n, f in zip(cells["n_qubits"], cells["family"])]
            if cells.empty:
                ax.text(0.5, 0.5, "not run", transform=ax.transAxes, ha="center", va="center", color="0.4")
            for family, group in cells.groupby("family", sort=True):
                ax.scatter(group["x"], group["routed_depth"], c=group["normalised"], cmap=cmap, vmin=0, vmax=1,
                           marker=markers[family], s=300, edgecolors="k", linewidths=0.5)
            for _, c in cells.iterrows():
                dark = not 0.25 < c["normalised"] < 0.8  # the colour map's ends are dark: white text there
                ax.annotate(f"{c['fidelity']:.2f}", (c["x"], c["routed_depth"]), ha="center", va="center",
                            fontsize=6.5, color="white" if dark else "black")
            ax.set(yscale="log", title=f"{solver}: {condition}")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.margins(x=0.2, y=0.25)
            if i == len(panels) - 1:
                ax.set_xlabel("qubits (system)")
            if j == 0:
                ax.set_ylabel("routed depth")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker=markers[f], linestyle="", color="0.6", markeredgecolor="k", label=f)
               for f in families]
    handles += [Line2D([], [], marker="o", linestyle="", color=cmap(v), markeredgecolor="k", label=label)
                for v, label in ((0.0, "at or below the floor"), (0.5, "halfway from floor to 1"), (1.0, "fidelity 1"))]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, out)


def _devices_sentence(rows: pd.DataFrame) -> str:
    """Which device snapshots the rows ran on, with their calibration dates and noise scales."""
    from qlsbench.solvers.devices import DEVICES

    parts = []
    for (device, date), part in rows.groupby(["device", "calibration_date"], sort=True):
        scales = ", ".join(f"{s:g}" for s in sorted(part["noise_scale"].unique()))
        parts.append(f"`{device}` ({DEVICES.get(device, ('', '?'))[1]}; calibration snapshot of {date[:10]}; "
                     f"noise scales {scales})")
    return "; ".join(parts)


HEADER = """# The circuit solvers on a device's noise

Every other quantum number of qlsbench is noiseless. Here the circuit solvers run on the standard stand-in for a
device: the calibration snapshot of an IBM backend that ships with `qiskit-ibm-runtime` (offline), its coupling
map, basis gates, gate durations and errors, T1/T2 and readout errors, as an Aer noise model on the region of the
chip the transpiler lays the circuits out on (`docs/solvers.md`, *Devices*). *Ideal* is the same routed circuits
without noise (`noise_scale=0`), *noisy* the device (`noise_scale=1`), *mitigated* the device with the named
error mitigation (`readout`: each measured qubit's confusion matrix inverted; `zne`: zero-noise extrapolation by
gate folding; each mitigation its own condition, never pooled). The systems are pinned ones (`qlsbench pinned`):
the Ising-inspired `ising-k10-n*` and frictional DEM-C ones, each family its own row. Fidelities are median [IQR]
over seeds. HHL's read-out takes the amplitudes' signs from the ideal statevector (a device would need tomography
for them) and only their magnitudes from the noisy shots, so its noisy fidelity is an upper bound, loose where
the solution's magnitudes are nearly uniform: its floor below says how loose. **This page is
generated** from the results files in `docs/noisy/` by `qlsbench figure noisy docs/noisy/*.parquet --out
docs/noisy.md`; `tests/test_noisy_page.py` fails when they disagree.
"""


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the noisy page (and its volumetric figure) from solve results files."""
    out = Path(out)
    figures = Path(figures) if figures is not None else out.parent / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(figures, out.parent).replace(os.sep, "/")
    rows = device_rows(load_results(sorted(inputs)))
    if rows.empty:
        from qlsbench.errors import InputError

        raise InputError(f"none of {', '.join(map(str, inputs))} holds a solve on a device backend")
    rows = with_floors(rows)
    plot_volumetric(rows, figures / "noisy_volumetric.png")
    text = [HEADER, f"Devices: {_devices_sentence(rows)}.", "", floor_sentence(rows), "",
            "## Largest system solved", "",
            markdown_table(largest_solved(rows)), "", "## Per solver and size", "", markdown_table(noisy_table(rows)),
            "", f"![fidelity against qubits and routed depth]({rel}/noisy_volumetric.png)", "",
            "Each cell is one family and size: its routed depth, its median fidelity written in it, its colour that "
            "median normalised to the floor, (F - floor) / (1 - floor) (red: no better than not solving; green: "
            "the solution), as QED-C normalises to the uniform distribution.", ""]
    return atomic_write_text(out, "\n".join(text).rstrip("\n") + "\n")


def noisy_track_blocks(paths: list[str]) -> list[tuple[str, object]]:
    """The leaderboard page's noisy track, as ``write_leaderboard`` extra blocks, from device results files."""
    rows = device_rows(load_results(sorted(paths))) if paths else pd.DataFrame()
    if rows.empty:
        return [("h2", "Noisy track"), ("p", "No device results were given (`qlsbench board publish --noisy`).")]
    rows = with_floors(rows)
    return [("h2", "Noisy track: the circuit solvers on a device's calibrated noise"),
            ("p", f"Devices: {_devices_sentence(rows)}. Ideal: the same routed circuits without noise; noisy: the "
                  "device's noise; mitigated: the named mitigation (readout inversion, zero-noise extrapolation). "
                  "Fidelity median "
                  f"[IQR] over seeds; docs/noisy.md has the figure. {floor_sentence(rows)}"),
            ("table", largest_solved(rows)), ("table", noisy_table(rows))]


FIGURE = page("noisy", "docs/noisy.md: the circuit solvers on a device's calibrated noise, ideal against noisy "
              "against mitigated, and the volumetric figure", "solve results of device backends", render)
