"""The in-loop page's figure: position error against simulated time, a panel per results file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.report._plotting import pyplot, save_figure


def plot_in_loop(files: list[tuple[str, pd.DataFrame, dict]], out: str | os.PathLike) -> Path:
    """Position error against simulated time, one panel per file: a line per run (solver, seed, fidelity)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(files), figsize=(5.2 * len(files), 4.6), squeeze=False)
    for ax, (name, steps, meta) in zip(axes[0], files):
        levels = sorted(steps["fidelity"].dropna().unique(), reverse=True)
        for k, ((solver, fidelity), part) in enumerate(steps.groupby(["solver", "fidelity"], dropna=False, sort=True)):
            colour = f"C{levels.index(fidelity) % 10}" if fidelity == fidelity else f"C{k % 10}"
            label = f"F = {fidelity:g}" if fidelity == fidelity else solver
            for i, (_, run) in enumerate(part.groupby("seed")):
                ax.plot(
                    run["time"],
                    np.maximum(run["position_error"], 1e-18),
                    color=colour,
                    lw=1,
                    label=label if i == 0 else None,
                )
        ax.axhline(meta["options"]["position_tol"], color="k", ls="--", lw=0.8, label="tolerance")
        ax.set(yscale="log", xlabel="simulated time (s)", title=name, ylim=(1e-17, None))
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False, ncol=3)
    axes[0][0].set_ylabel("largest position error against the exact run (m)")
    fig.tight_layout()
    return save_figure(fig, out)
