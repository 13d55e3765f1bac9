"""Figures of the DEM-C simulations themselves: sphere snapshots (fig. 3) and condition number over time.

Fig. 3 of De et al. shows the sedimenting spheres coloured by contact force;
here the snapshots written by ``qlsbench simulate --snapshots`` are drawn as a
side view. The condition-number figure follows the remark under fig. 4 that
the subsystems grow worse conditioned as the pile settles.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from qlsbench.checks import COUNT
from qlsbench.data import dataset_name, load_dataset
from qlsbench.data._snapshots import read_snapshots
from qlsbench.errors import DatasetError, InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure, Job
from qlsbench.report._plotting import pyplot, save_figure

# ---------------------------------------------------------------- fig. 3: snapshots


def _draw_spheres(ax, frame: pd.DataFrame, cmap, norm) -> None:
    """Spheres of one step as circles in the x-z plane, seen from y = -inf.

    Painter's order: the farthest (largest y) are drawn first, so nearer
    spheres cover them as they would in a picture.
    """
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Circle

    frame = frame.sort_values(["y", "sphere"], ascending=[False, True])
    circles = [Circle((x, z), r) for x, z, r in zip(frame["x"], frame["z"], frame["radius"])]
    patches = PatchCollection(circles, cmap=cmap, norm=norm, edgecolor="0.15", linewidth=0.5)
    patches.set_array(frame["impulse"].to_numpy())
    ax.add_collection(patches)


def _impulse_norm(impulse: np.ndarray):
    """Colour scale shared by all panels, from zero to the largest impulse.

    A square-root scale: one landing impact can be fifty times the load of
    a resting contact, and on a linear scale it would leave every resting
    contact the colour of zero.
    """
    from matplotlib.colors import PowerNorm

    top = float(np.max(impulse, initial=0.0))
    return PowerNorm(gamma=0.5, vmin=0.0, vmax=top if top > 0 else 1.0)


def _panel_limits(snapshots: pd.DataFrame, radius: float | None, centre) -> tuple:
    """x and z limits shared by all panels: the container with a small border, else the spheres of every step."""
    if radius is not None:
        extent = 1.06 * radius
        return (centre[0] - extent, centre[0] + extent), (centre[2] - extent, centre[2] + extent)
    r = snapshots["radius"].max()
    return ((snapshots["x"].min() - r, snapshots["x"].max() + r), (snapshots["z"].min() - r, snapshots["z"].max() + r))


def plot_snapshots(snapshots: pd.DataFrame, meta: dict, out: str | os.PathLike, *, columns: int = 4) -> Path:
    """Fig. 3 of De et al.: one side-view panel per snapshot, spheres coloured by contact impulse.

    Parameters
    ----------
    snapshots : pandas.DataFrame
        Rows of :func:`read_snapshots`.
    meta : dict
        Its settings; ``container_radius`` and ``container_center`` draw the container.
    out : path
        Output image.
    columns : int
        Panels per row.

    Returns
    -------
    pathlib.Path
        The written image.

    Raises
    ------
    InputError
        If there are no snapshots.
    """
    if snapshots.empty:
        raise InputError("no snapshots to draw")
    COUNT.check(columns, "columns")
    plt = pyplot()
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.patches import Circle

    steps = sorted(snapshots["step"].unique())
    ncols = min(columns, len(steps))
    nrows = -(-len(steps) // ncols)
    # Constrained layout keeps the square panels and the shared colour bar together without wide margins.
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(2.7 * ncols + 0.7, 2.9 * nrows + 0.4), squeeze=False, layout="constrained"
    )
    # Blue for no load, red for high, as in the paper's fig. 3.
    cmap, norm = matplotlib.colormaps["coolwarm"], _impulse_norm(snapshots["impulse"].to_numpy())
    radius, centre = meta.get("container_radius"), meta.get("container_center") or [0.0, 0.0, 0.0]
    limits = _panel_limits(snapshots, radius, centre)
    for ax, step in zip(axes.flat, steps):
        frame = snapshots[snapshots["step"] == step]
        if radius is not None:
            ax.add_patch(Circle((centre[0], centre[2]), radius, fill=False, color="0.35", lw=1.2))
        _draw_spheres(ax, frame, cmap, norm)
        ax.set(xlim=limits[0], ylim=limits[1], aspect="equal", title=f"t = {frame['time'].iloc[0]:.3f} s")
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(steps) :]:
        ax.set_visible(False)
    for ax in axes.flat:  # same limits everywhere: label the outer panels only
        if ax in axes[:, 0]:
            ax.set_ylabel("z (m)")
        else:
            ax.tick_params(labelleft=False)
        ax.set_xlabel("x (m)")
    label = meta.get("scene_label", meta.get("scene", ""))
    fig.suptitle(f"{label}: side view (x-z), spheres coloured by contact impulse", fontsize=10)
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=axes, shrink=0.9)
    bar.set_label("contact impulse in the step, Σ|γ_ν| (N s)", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    return save_figure(fig, out)


# ---------------------------------------------------------------- condition number over simulated time


def kappa_series(dataset: str | os.PathLike) -> pd.DataFrame:
    """``step``, ``time``, ``cond`` and ``n_qubits`` of every system of a DEM-C dataset.

    Raises
    ------
    DatasetError
        If the dataset is unreadable or lacks a column (named by
        :func:`qlsbench.data.load_dataset`), or its systems carry no step or
        simulated time (it is not a simulation's dataset).
    """
    df = load_dataset(dataset)
    if df["step"].isna().all():
        raise DatasetError(f"{dataset}: column 'step' is empty (not a simulation dataset)")
    times = df["meta_json"].map(lambda text: json.loads(text).get("time"))
    if times.isna().any():
        raise DatasetError(
            f"{dataset}: {int(times.isna().sum())} systems have no 'time' in column 'meta_json' "
            "(not a DEM-C simulation dataset)"
        )
    return pd.DataFrame(
        {
            "step": df["step"].astype("int64"),
            "time": times.astype(float),
            "cond": df["cond"].astype(float),
            "n_qubits": df["n_qubits"],
        }
    )


def _qubit_size(n_qubits: ArrayLike) -> np.ndarray:
    """Marker area growing with the qubit count (the matrix dimension doubles per qubit)."""
    return 12.0 * np.asarray(n_qubits, dtype=float) ** 1.5


def plot_kappa_time(datasets, out: str | os.PathLike) -> Path:
    """Condition number of every subsystem against simulated time, one series per dataset.

    Marker colour and shape tell the datasets apart; marker size is the
    qubit count. A line joins the median over each step's Newton iterations.
    Singular systems (``cond = inf``) cannot be drawn on a log axis; the
    legend counts them.

    Parameters
    ----------
    datasets : sequence of path
        DEM-C dataset files or folders.
    out : path
        Output image.

    Returns
    -------
    pathlib.Path
        The written image.
    """
    datasets = list(datasets)
    if not datasets:
        raise InputError("no datasets given")
    series = [(dataset_name(d), kappa_series(d)) for d in datasets]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    markers = "os^Dv<>p"
    for k, (name, df) in enumerate(series):
        finite = df[np.isfinite(df["cond"])]
        singular = len(df) - len(finite)
        note = f", {singular} singular not shown" if singular else ""
        ax.scatter(
            finite["time"],
            finite["cond"],
            s=_qubit_size(finite["n_qubits"].fillna(1)),
            color=f"C{k}",
            marker=markers[k % len(markers)],
            alpha=0.55,
            edgecolor="none",
            label=f"{name} ({len(finite)} systems{note})",
        )
        trend = finite.groupby("time")["cond"].median()
        ax.plot(trend.index, trend.to_numpy(), color=f"C{k}", lw=1.0, alpha=0.8)
    qubits = sorted({int(q) for _, df in series for q in df["n_qubits"].dropna().unique()})
    shown = qubits if len(qubits) <= 4 else [qubits[i] for i in np.linspace(0, len(qubits) - 1, 4).round().astype(int)]
    for q in dict.fromkeys(shown):  # size key: grey markers, no data
        ax.scatter(
            [],
            [],
            s=_qubit_size([q])[0],
            color="0.5",
            alpha=0.55,
            edgecolor="none",
            label=f"{q} qubit{'s' if q != 1 else ''}",
        )
    ax.set(
        yscale="log",
        xlabel="simulated time (s)",
        ylabel="condition number κ",
        title="Newton subsystems: condition number over simulated time",
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return save_figure(fig, out)


@dataclass(frozen=True)
class SnapshotOptions(Options):
    columns: int = option(4, "panels per row", bounds=COUNT)


def _draw_snapshots(inputs: list[str], out: Path, options: SnapshotOptions) -> Path:
    snapshots, meta = read_snapshots(inputs[0])
    return plot_snapshots(snapshots, meta, out, columns=options.columns)


def _draw_kappa_time(inputs: list[str], out: Path, options) -> Path:
    return plot_kappa_time(inputs, out)


SNAPSHOTS = Figure(
    "snapshots",
    "fig. 3: side views of the spheres coloured by contact impulse",
    "snapshot .parquet of `qlsbench simulate --snapshots`",
    _draw_snapshots,
    SnapshotOptions,
    single_input=True,
    job=Job(
        "snapshot_figure",
        "results/figures/snapshots_{label}.png",
        targets=lambda config: [f"results/figures/snapshots_{label}.png" for label in config.labels("dem_c")],
        inputs=lambda config, wc: [f"results/snapshots/{wc['label']}.parquet"],
        log="logs/snapshot_figure/{label}.log",
        caption="snapshots.rst",
        category="Physics (fig. 3)",
    ),
)
KAPPA_TIME = Figure(
    "kappa-time",
    "condition number of DEM-C subsystems against simulated time",
    "DEM-C dataset files or folders, one series each",
    _draw_kappa_time,
    job=Job(
        "kappa_figure",
        "results/figures/kappa_time.png",
        targets=lambda config: ["results/figures/kappa_time.png"] if config.labels("dem_c") else [],
        inputs=lambda config, wc: [f"datasets/dem_c/{label}/part-0000.parquet" for label in config.labels("dem_c")],
        log="logs/kappa_figure.log",
        caption="kappa_time.rst",
        category="Physics (fig. 3)",
    ),
)
