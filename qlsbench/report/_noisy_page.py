"""``docs/noisy.md``: the circuit solvers on a device's calibrated noise, generated from results files (never typed).

``qlsbench figure noisy FILE... --out docs/noisy.md`` reads solve results of
the ``device`` backends (:mod:`qlsbench.solvers.devices`) and of the null
solvers run on the same systems (:mod:`qlsbench.solvers.nulls`), and writes,
per solver, qubit count and condition (the ideal machine with the same routing,
``noise_scale=0``; the device's noise; each error mitigation), the fidelity
over seeds beside ``b``'s, the first cost evaluation's and the gain, its
separation from every control (:func:`verdict`), the routed circuit's depth,
two-qubit gates and the time per solve; the controls are rows of their own;
and a volumetric figure in the style of QED-C's application benchmarks:
fidelity against qubits and routed depth, one panel per solver and condition.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench._budget import first_fidelity
from qlsbench.bench._results import load_results
from qlsbench.bench.spread import SEPARATION_LEVEL, Separation, Spread, bimodal, separation
from qlsbench.data import atomic_write_text
from qlsbench.report._base import Job, page
from qlsbench.report._floors import normalised, with_floors
from qlsbench.report._plotting import pyplot, save_figure
from qlsbench.report._staging import staged
from qlsbench.report._tables import markdown_table
from qlsbench.solvers.registry import CONTROLS, is_control

#: The condition of a null solver's row: it runs no circuit, so ideal, noisy and mitigated do not apply to it.
CONTROL = "control"

#: What each null solver (:data:`~qlsbench.solvers.registry.CONTROLS`) stands for, in a verdict's words.
CONTROL_WORDS = {"null-b": "returning b", "null-random": "a random vector"}

#: The variational track's bar: a solve counts as solved at this fidelity or above.
FIDELITY_BAR = 0.99


def condition_of(noise_scale: float, mitigation: str) -> str:
    """``ideal`` (noise scale 0), ``noisy`` (no mitigation) or ``mitigated (<mitigation>)``: each mitigation is
    its own condition, never pooled with another."""
    return "ideal" if noise_scale == 0 else "noisy" if mitigation == "none" else f"mitigated ({mitigation})"


def conditions(rows: pd.DataFrame) -> list[str]:
    """The device conditions present in ``rows``: ideal and noisy always, then each mitigation run, in that
    order (the controls' rows are not a device condition)."""
    return ["ideal", "noisy", *sorted(c for c in set(rows["condition"]) if c.startswith("mitigated"))]


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


def control_rows(results: pd.DataFrame, systems) -> pd.DataFrame:
    """Rows of the null solvers (:func:`~qlsbench.solvers.registry.is_control`) on ``systems`` (ids), condition
    :data:`CONTROL`: a control solved elsewhere says nothing of these systems."""
    rows = results[results["solver_name"].map(is_control) & results["system_id"].isin(set(systems))].copy()
    return rows.assign(condition=CONTROL, mitigation="none")


def page_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The page's rows: the device solves and the controls on their systems.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of results files (:func:`~qlsbench.bench._results.load_results`).

    Returns
    -------
    pandas.DataFrame
        :func:`device_rows` and :func:`control_rows` on their systems, each with ``b_fidelity`` and ``floor``
        (:func:`~qlsbench.report._floors.with_floors`) and ``first_fidelity``
        (:func:`~qlsbench.bench._budget.first_fidelity`).
    """
    device = device_rows(results)
    rows = pd.concat([device, control_rows(results, device["system_id"])], ignore_index=True)
    return with_floors(rows.assign(first_fidelity=first_fidelity(rows)))


def _sizes(ns) -> str:
    """``2, 3, 4``: qubit counts in order."""
    return ", ".join(str(int(n)) for n in sorted(ns))


def _with_extra_floor(part: pd.DataFrame, words: str, values: np.ndarray) -> tuple[str, np.ndarray]:
    """``null-b``'s control, or the solver's read-out of pure noise (``part["floor"]``, HHL's signs come from the
    ideal statevector) where that scores more: the larger of the two, as one value since it is deterministic."""
    floor = part["floor"].max()
    if len(values) and floor > np.nanmax(values) + 1e-12:
        return f"{part['solver_name'].iloc[0]}'s read-out of pure noise ({floor:.4f})", np.array([floor])
    return words, values


def control_values(part: pd.DataFrame, nulls: pd.DataFrame) -> list[tuple[str, np.ndarray]]:
    """Each control of a size's rows ``part``, in words, with its fidelities on ``part``'s systems (``nulls``:
    the controls' rows): ``null-b``'s (or the noise read-out, :func:`_with_extra_floor`) and ``null-random``'s.
    A control not run there has no values, so nothing can be separated from it."""
    here = nulls[nulls["system_id"].isin(set(part["system_id"]))]
    out = []
    for name in CONTROLS:
        words, values = CONTROL_WORDS.get(name, name), here.loc[here["solver_name"] == name, "fidelity"]
        values = values.to_numpy(dtype=float)
        out.append(_with_extra_floor(part, words, values) if name == "null-b" else (words, values))
    return out


@dataclass(frozen=True)
class Verdict:
    """A size's fidelities over seeds set against every control (:func:`verdict`).

    Attributes
    ----------
    separations : tuple of Separation
        One per control, by the one rule (:func:`~qlsbench.bench.spread.separation`).
    """

    separations: tuple[Separation, ...]

    @property
    def separated(self) -> bool:
        """Separated from every control: only then does the size count as solved."""
        return bool(self.separations) and all(s.separated for s in self.separations)

    def failed(self) -> list[str]:
        """The controls it is not separated from, in words."""
        return [s.control for s in self.separations if not s.separated]

    def controls(self) -> str:
        """The controls, in words: ``returning b and a random vector``."""
        return " and ".join(s.control for s in self.separations)

    def text(self) -> str:
        """Each control's separation, with its rank test (:meth:`Separation.text`)."""
        return "; ".join(s.text() for s in self.separations)


def verdict(part: pd.DataFrame, nulls: pd.DataFrame) -> Verdict:
    """Whether a size's fidelities over seeds are separated from each control's.

    Parameters
    ----------
    part : pandas.DataFrame
        Rows of one solver, family, size and condition (:func:`page_rows`), one per seed.
    nulls : pandas.DataFrame
        The controls' rows (condition :data:`CONTROL`).

    Returns
    -------
    Verdict
        One :class:`~qlsbench.bench.spread.Separation` per control (:func:`control_values`).
    """
    return Verdict(tuple(separation(part["fidelity"], values, words) for words, values in control_values(part, nulls)))


def _null_b_median(part: pd.DataFrame, nulls: pd.DataFrame) -> float:
    """``null-b``'s median fidelity on ``part``'s systems: ``b``'s fidelity, read from its results; NaN if not run."""
    here = nulls[(nulls["solver_name"] == "null-b") & nulls["system_id"].isin(set(part["system_id"]))]
    return float(here["fidelity"].median()) if len(here) else float("nan")


def _bar_cell(medians: dict, b_medians: dict, bar: float) -> str:
    """The largest size whose median reaches ``bar``, saying where ``null-b`` reaches it too (a metric the null
    meets carries no verdict) or was not run."""
    met = sorted(n for n, m in medians.items() if m >= bar)
    if not met:
        return "none"
    notes = []
    free = [n for n in met if b_medians[n] >= bar]
    unknown = [n for n in met if np.isnan(b_medians[n])]
    if free:
        notes.append(f"null-b meets {bar:g} at {_sizes(free)} too: no verdict there")
    if unknown:
        notes.append(f"no null-b run at {_sizes(unknown)}")
    return f"{met[-1]}" + (f" ({'; '.join(notes)})" if notes else "")


def _separation_cell(verdicts: dict) -> str:
    """The largest size separated from every control, naming them, then each control a size was not separated
    from, with those sizes."""
    good = [n for n, v in verdicts.items() if v.separated]
    head = f"{max(good)} (separated from {verdicts[max(good)].controls()})" if good else "none"
    misses: dict[str, list] = {}
    for n, v in sorted(verdicts.items()):
        for control in v.failed():
            misses.setdefault(control, []).append(n)
    if not misses:
        return head
    return f"{head}; not separated from " + "; from ".join(f"{c} at {_sizes(ns)}" for c, ns in misses.items())


def _solver_order(name: str) -> tuple:
    """The controls first (in :data:`CONTROLS` order: the rows to beat), then the solvers by name."""
    return (0, CONTROLS.index(name), "") if is_control(name) else (1, 0, name)


def _sorted(table: pd.DataFrame, rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """``table`` by solver (:func:`_solver_order`), then ``by``, conditions in reading order."""
    order = {c: i for i, c in enumerate([CONTROL, *conditions(rows)])}

    def key(s: pd.Series) -> pd.Series:
        if s.name == "solver":
            return s.map(_solver_order)
        return s.map(order) if s.name == "condition" else s

    return table.sort_values(["solver", *by], key=key, ignore_index=True) if len(table) else table


def largest_solved(rows: pd.DataFrame, bar: float = FIDELITY_BAR) -> pd.DataFrame:
    """The largest system solved per solver, family and condition (the controls too, by the same rules).

    Parameters
    ----------
    rows : pandas.DataFrame
        :func:`page_rows`.
    bar : float
        The fidelity bar.

    Returns
    -------
    pandas.DataFrame
        ``solver``, ``family``, ``condition``; the most qubits at which the median fidelity over seeds reaches
        ``bar``, marked where ``null-b`` reaches it too (:func:`_bar_cell`); the most at which the fidelities are
        separated from every control (:func:`verdict`), naming the controls and those a size failed
        (:func:`_separation_cell`); ``qubits tried``.
    """
    nulls = rows[rows["condition"] == CONTROL]
    bar_column = f"largest system at fidelity >= {bar:g} (qubits)"
    out = []
    for (solver, family, condition), part in rows.groupby(["solver_name", "family", "condition"], sort=True):
        sizes = {int(n): p for n, p in part.groupby("n_qubits")}
        out.append(
            {
                "solver": solver,
                "family": family,
                "condition": condition,
                bar_column: _bar_cell(
                    {n: p["fidelity"].median() for n, p in sizes.items()},
                    {n: _null_b_median(p, nulls) for n, p in sizes.items()},
                    bar,
                ),
                "largest system separated from every control (qubits)": _separation_cell(
                    {n: verdict(p, nulls) for n, p in sizes.items()}
                ),
                "qubits tried": _sizes(sizes),
            }
        )
    return _sorted(pd.DataFrame(out), rows, ["family", "condition"])


def _per_seed(part: pd.DataFrame) -> str:
    """The fidelities in seed order (a dash for a solve that returned nothing)."""
    ordered = part.sort_values(["system_id", "repeat"])["fidelity"]
    return ", ".join("—" if f != f else f"{f:.3f}" for f in ordered)


def _fidelity_text(values: pd.Series) -> str:
    """Median [IQR] over seeds, named bimodal where the seeds fall in two clusters (the median describes neither)."""
    return Spread.of(values).text(".3f") + (", bimodal" if bimodal(values) else "")


def _size_row(part: pd.DataFrame, nulls: pd.DataFrame) -> dict:
    """One table row: a solver's fidelities on one family, size and condition, beside ``b``'s, the first cost
    evaluation's and the gain, the verdict against the controls and the routed cost."""
    b = _null_b_median(part, nulls)
    return {
        "systems": part["system_id"].nunique(),
        "fidelity": _fidelity_text(part["fidelity"]),
        "per seed": _per_seed(part),
        "b's fidelity": "—" if np.isnan(b) else f"{b:.4f}",
        "first evaluation": Spread.of(part["first_fidelity"]).text(".3f"),
        "gain": Spread.of(part["fidelity"] - part["first_fidelity"]).text("+.3f"),
        "against the controls": verdict(part, nulls).text(),
        "routed depth": _whole(part["routed_depth"].max()),
        "two-qubit gates": _whole(part["two_qubit_gates"].max()),
        "seconds per solve": Spread.of(part["wall_time"]).text(".0f"),
        "device seconds per solve": Spread.of(part["device_seconds"]).text(".1f"),
    }


def noisy_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The per-size table: one row per solver, family, qubit count and condition, never pooling families or
    mitigations (the controls one row per family and size).

    Parameters
    ----------
    rows : pandas.DataFrame
        :func:`page_rows`.

    Returns
    -------
    pandas.DataFrame
        Fidelity median [IQR] (named bimodal where it is) and per seed, ``b``'s fidelity (``null-b``'s), the
        first evaluation's fidelity and the gain, the separation from each control, the routed cost and the
        time (:func:`_size_row`).
    """
    nulls = rows[rows["condition"] == CONTROL]
    out = [
        {"solver": solver, "family": family, "qubits": int(n), "condition": condition, **_size_row(part, nulls)}
        for (solver, family, n, condition), part in rows.groupby(["solver_name", "family", "n_qubits", "condition"])
    ]
    return _sorted(pd.DataFrame(out), rows, ["family", "qubits", "condition"])


def _whole(value) -> object:
    """An integer for the table, or a dash where the solver did not count it (HHL above 3 system qubits, the
    controls, which run no circuit)."""
    return "—" if value is None or value != value else int(value)


def _medians_text(part: pd.DataFrame, fmt: str) -> str:
    """``0.9524 at 2, 0.9972 at 3 qubits``: a control's median per size."""
    medians = part.groupby("n_qubits")["fidelity"].median()
    return ", ".join(f"{f:{fmt}} at {int(n)}" for n, f in medians.items()) + " qubits"


def _commands(nulls: pd.DataFrame) -> str:
    """The commands that wrote the controls' results files, from their rows (dataset, seeds)."""
    parts = []
    for name, part in nulls.groupby("solver_name", sort=False):
        dataset, seed = part["dataset"].iloc[0], int(part["seed"].min() - part["repeat"].min())
        parts.append(
            f"`qlsbench solve --solver {name} --dataset docs/noisy/systems/{dataset}.parquet --out "
            f"docs/noisy/{name}.parquet --repeats {part['repeat'].nunique()} --seed {seed}`"
        )
    return " and ".join(parts)


def controls_sentence(rows: pd.DataFrame, bar: float = FIDELITY_BAR) -> str:
    """What the controls are and score on the systems of ``rows`` (:func:`page_rows`), per family, the rule a
    solver must pass against them, and from which size ``null-b`` meets ``bar`` by itself."""
    nulls = rows[rows["condition"] == CONTROL]
    if nulls.empty:
        return (
            "No null solver was run on these systems, so no size can be separated from a control and none "
            "counts as solved (`qlsbench solve --solver null-b ...` on the same systems)."
        )
    scores = []
    for family, part in nulls.groupby("family", sort=True):
        b, random = part[part["solver_name"] == "null-b"], part[part["solver_name"] == "null-random"]
        free = b.groupby("n_qubits")["fidelity"].median().loc[lambda f: f >= bar]
        where = (
            f"it meets the {bar:g} bar from {int(free.index.min())} qubits up"
            if len(free)
            else f"below the {bar:g} bar at every size here"
        )
        scores.append(
            f"on the {family} systems `b` scores {_medians_text(b, '.4f')} ({where}), a random vector "
            f"{_medians_text(random, '.3f')} (median)"
        )
    return (
        "**Controls.** Every verdict here is a comparison with a control run on the same pinned systems: "
        "`null-b` returns `b` (norm and sign by the least-squares read-out every variational solver uses), "
        "`null-random` a seeded random unit vector read out the same way, and for HHL its read-out of pure "
        "noise (every magnitude equal, with the solution's own signs: `floor_of`), a control too. The nulls "
        "run no circuit, so ideal, noisy and mitigated do not apply to them: each is one row per system family "
        f"and size, condition *{CONTROL}*; they ran as {_commands(nulls)}, where that dataset holds the pinned "
        "systems (`qlsbench pinned`) the device solves ran on. A size counts as solved only where the "
        "solver's fidelities over seeds are separated from every control by the one rule "
        "(`qlsbench.bench.spread.separation`): the interquartile range lies above the control's and a "
        f"one-sided Mann-Whitney test gives p < {SEPARATION_LEVEL:g}. The controls are `null-b`'s fidelities "
        "(for HHL the larger of those and its noise read-out, one value: both are deterministic) and "
        f"`null-random`'s. What they score: {'; '.join(scores)}. A metric a null meets is "
        "shown but carries no verdict: the bar column says where `null-b` meets the bar too."
    )


def seeds_sentence(rows: pd.DataFrame) -> str:
    """How many seeds each cell has, what *first evaluation* and *gain* are, and which outcomes are bimodal
    (:func:`~qlsbench.bench.spread.bimodal`: their median and IQR describe neither cluster)."""
    found = [
        f"{solver} {family} {int(n)} qubits {condition} ({_per_seed(part)})"
        for (solver, family, n, condition), part in rows.groupby(
            ["solver_name", "family", "n_qubits", "condition"], sort=True
        )
        if bimodal(part["fidelity"])
    ]
    seeds = rows.groupby(["solver_name", "system_id", "condition"])["fidelity"].count()
    named = (
        "Bimodal outcomes (two clusters over seeds, `qlsbench.bench.spread.bimodal`; their median and IQR "
        f"describe neither cluster): {'; '.join(found)}."
        if found
        else "No outcome here is bimodal."
    )
    return (
        f"Each cell is over {_sizes(set(seeds))} seeds (per seed in the *per seed* column, in seed order). "
        "*First evaluation* is the fidelity at the first cost evaluation (`progress_fidelity[0]`: the "
        "starting angles' read-out) and *gain* the final fidelity minus it, per seed; a dash where the results "
        f"hold no read-outs (HHL, the controls). {named}"
    )


def _cells(part: pd.DataFrame, nulls: pd.DataFrame) -> pd.DataFrame:
    """One figure cell per family and size of one panel's rows: the median routed depth (the transpiler's seed
    follows the solve's), the median fidelity, the floor, and whether it is separated from every control. A solve
    whose routed depth was not counted has no place on the figure."""
    cells = []
    for (family, n), here in part.dropna(subset=["routed_depth"]).groupby(["family", "n_qubits"], sort=True):
        cells.append(
            {
                "family": family,
                "n_qubits": n,
                "routed_depth": here["routed_depth"].median(),
                "fidelity": here["fidelity"].median(),
                "floor": here["floor"].max(),
                "separated": verdict(here, nulls).separated,
            }
        )
    cells = pd.DataFrame(cells, columns=["family", "n_qubits", "routed_depth", "fidelity", "floor", "separated"])
    return cells.assign(normalised=normalised(cells["fidelity"], cells["floor"]))


def plot_volumetric(rows: pd.DataFrame, out: str | os.PathLike) -> Path:
    """Fidelity against qubits and routed depth: a panel per solver and condition, each cell a square coloured
    by the median fidelity over seeds normalised to its floor (:func:`normalised`), labelled with the median
    itself (QED-C's volumetric style, which normalises to the uniform distribution the same way), ringed thick
    where the size is separated from every control (:func:`verdict`). The controls run no circuit, so they have no
    routed depth and no cell: their fidelity is the floor the colours are normalised to."""
    from matplotlib.ticker import MaxNLocator

    plt = pyplot()
    nulls, device = rows[rows["condition"] == CONTROL], rows[rows["condition"] != CONTROL]
    solvers, panels = sorted(device["solver_name"].unique()), conditions(device)
    fig, axes = plt.subplots(
        len(panels),
        len(solvers),
        figsize=(4.2 * len(solvers), 3.2 * len(panels)),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    cmap = plt.get_cmap("RdYlGn")
    families = sorted(device["family"].unique())
    markers = dict(zip(families, "sodD^v"))
    # Families of one size stand side by side, never on top of each other.
    shifts = {f: 0.3 * (k - (len(families) - 1) / 2) / max(1, len(families) - 1) for k, f in enumerate(families)}
    for j, solver in enumerate(solvers):
        for i, condition in enumerate(panels):
            ax = axes[i][j]
            cells = _cells(device[(device["solver_name"] == solver) & (device["condition"] == condition)], nulls)
            cells["x"] = [n + shifts[f] for n, f in zip(cells["n_qubits"], cells["family"])]
            if cells.empty:
                ax.text(0.5, 0.5, "not run", transform=ax.transAxes, ha="center", va="center", color="0.4")
            for family, group in cells.groupby("family", sort=True):
                ax.scatter(
                    group["x"],
                    group["routed_depth"],
                    c=group["normalised"],
                    cmap=cmap,
                    vmin=0,
                    vmax=1,
                    marker=markers[family],
                    s=300,
                    edgecolors="k",
                    linewidths=np.where(group["separated"], 2.4, 0.5),
                )
            for _, c in cells.iterrows():
                dark = not 0.25 < c["normalised"] < 0.8  # the colour map's ends are dark: white text there
                ax.annotate(
                    f"{c['fidelity']:.2f}",
                    (c["x"], c["routed_depth"]),
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if dark else "black",
                )
            ax.set(yscale="log", title=f"{solver}: {condition}")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.margins(x=0.2, y=0.25)
            if i == len(panels) - 1:
                ax.set_xlabel("qubits (system)")
            if j == 0:
                ax.set_ylabel("routed depth")
    _legend(fig, families, markers, cmap)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, out)


def _legend(fig, families: list[str], markers: dict, cmap) -> None:
    """The figure's legend: a marker per family, the colour scale's ends and middle, and the ring widths."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], marker=markers[f], linestyle="", color="0.6", markeredgecolor="k", label=f) for f in families
    ]
    handles += [
        Line2D([], [], marker="o", linestyle="", color=cmap(v), markeredgecolor="k", label=label)
        for v, label in ((0.0, "at or below the floor"), (0.5, "halfway from floor to 1"), (1.0, "fidelity 1"))
    ]
    handles += [
        Line2D(
            [],
            [],
            marker="o",
            linestyle="",
            color="0.9",
            markeredgecolor="k",
            markeredgewidth=w,
            markersize=10,
            label=label,
        )
        for w, label in ((2.4, "separated from every control"), (0.5, "not separated"))
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)


def _devices_sentence(rows: pd.DataFrame) -> str:
    """Which device snapshots the rows ran on, with their calibration dates and noise scales."""
    from qlsbench.solvers.devices import DEVICES

    parts = []
    rows = rows[rows["condition"] != CONTROL]
    for (device, date), part in rows.groupby(["device", "calibration_date"], sort=True):
        scales = ", ".join(f"{s:g}" for s in sorted(part["noise_scale"].unique()))
        parts.append(
            f"`{device}` ({DEVICES.get(device, ('', '?'))[1]}; calibration snapshot of {date[:10]}; "
            f"noise scales {scales})"
        )
    return "; ".join(parts)


HEADER = """# The circuit solvers on a device's noise

Every other quantum number of qlsbench is noiseless. Here the circuit solvers run on the standard stand-in for a
device: the calibration snapshot of an IBM backend that ships with `qiskit-ibm-runtime` (offline), its coupling
map, basis gates, gate durations and errors, T1/T2 and readout errors, as an Aer noise model on the region of the
chip the transpiler lays the circuits out on (`docs/solvers.md`, *Devices*). *Ideal* is the same routed circuits
without noise (`noise_scale=0`), *noisy* the device (`noise_scale=1`), *mitigated* the device with the named error
mitigation (`readout`: each measured qubit's confusion matrix inverted; `zne`: zero-noise extrapolation by gate
folding; each mitigation its own condition, never pooled). The systems are pinned ones (`qlsbench pinned`): the
Ising-inspired `ising-k10-n*` and frictional DEM-C ones, each family its own row; the null solvers `null-b` and
`null-random` ran on the same systems, as controls. Fidelities are median [IQR] over seeds. HHL's read-out takes
the amplitudes' signs from the ideal statevector (a device would need tomography for them) and only their
magnitudes from the noisy shots, so its noisy fidelity is an upper bound, loose where the solution's magnitudes
are nearly uniform: its read-out of pure noise, a control below, says how loose. **This page is generated** from
the results files in `docs/noisy/` by `qlsbench figure noisy docs/noisy/*.parquet --out docs/noisy.md`;
`tests/test_noisy_page.py` fails when they disagree.
"""


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the noisy page (and its volumetric figure) from solve results files: the device solves and the
    controls run on their systems."""
    out = Path(out)
    figures = Path(figures) if figures is not None else out.parent / "figures"
    rel = os.path.relpath(figures, out.parent).replace(os.sep, "/")
    rows = page_rows(load_results(sorted(inputs)))
    if not (rows["condition"] != CONTROL).any():
        from qlsbench.errors import InputError

        raise InputError(f"none of {', '.join(map(str, inputs))} holds a solve on a device backend")
    with staged(figures) as drawn:  # moved into figures/ only once drawn whole
        plot_volumetric(rows, drawn / "noisy_volumetric.png")
    text = [
        HEADER,
        f"Devices: {_devices_sentence(rows)}.",
        "",
        controls_sentence(rows),
        "",
        "## Largest system solved",
        "",
        markdown_table(largest_solved(rows)),
        "",
        "## Per solver, size and condition",
        "",
        seeds_sentence(rows),
        "",
        markdown_table(noisy_table(rows)),
        "",
        f"![fidelity against qubits and routed depth]({rel}/noisy_volumetric.png)",
        "",
        "Each cell is one family and size: its routed depth, its median fidelity written in it, its colour that "
        "median normalised to the floor, (F - floor) / (1 - floor), the floor being `b`'s fidelity (for HHL the "
        "larger of that and its read-out of pure noise) (red: no better than not solving; green: the "
        "solution), as QED-C normalises to the uniform distribution; a thick ring where the size is separated "
        "from every control by the rule above. The controls run no circuit, so they have no routed depth and "
        "no cell here: their fidelities are in the tables.",
        "",
    ]
    return atomic_write_text(out, "\n".join(text).rstrip("\n") + "\n")


def noisy_track_blocks(paths: list[str]) -> list[tuple[str, object]]:
    """The leaderboard page's noisy track, as ``write_leaderboard`` extra blocks, from device results files and
    the controls' results on their systems."""
    rows = page_rows(load_results(sorted(paths))) if paths else pd.DataFrame({"condition": []})
    if not (rows["condition"] != CONTROL).any():
        return [("h2", "Noisy track"), ("p", "No device results were given (`qlsbench board publish --noisy`).")]
    return [
        ("h2", "Noisy track: the circuit solvers on a device's calibrated noise"),
        (
            "p",
            f"Devices: {_devices_sentence(rows)}. Ideal: the same routed circuits without noise; noisy: the "
            "device's noise; mitigated: the named mitigation (readout inversion, zero-noise extrapolation). "
            "Fidelity median "
            f"[IQR] over seeds; docs/noisy.md has the figure. {controls_sentence(rows)}",
        ),
        ("table", largest_solved(rows)),
        ("p", seeds_sentence(rows)),
        ("table", noisy_table(rows)),
    ]


FIGURE = page(
    "noisy",
    "docs/noisy.md: the circuit solvers on a device's calibrated noise, ideal against noisy "
    "against mitigated, and the volumetric figure",
    "solve results of device backends",
    render,
    # the workflow's page of its solver entries on a device backend, when it has any
    job=Job(
        "noisy_page",
        "results/noisy.md",
        targets=lambda config: ["results/noisy.md"] if config.noisy_results() else [],
        inputs=lambda config, wc: config.noisy_results(),
        log="logs/noisy_page.log",
    ),
    board_track="noisy",
)
