"""The README's overview figure: the spheres that give the systems (top), the board that ranks solvers on them.

``python docs/figures/overview.py`` (from the repository root) runs the default workflow's frictional
sedimentation (``workflows/config/default.yaml``'s ``sedimentation-n16-mu0.3``, with the options the workflow
gives it), draws its snapshots as ``qlsbench figure snapshots`` does, draws the pinned board's budget curves from
the published rows as ``qlsbench board render`` does (``leaderboard/budget_curves.png``: the board's colours and
markers, all systems and each qubit band) and sets the first above the second in ``docs/figures/overview.png``.
Everything it draws comes from the package and the shipped board, so a changed pinned set or board changes the
figure when this is run again.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "figures" / "overview.png"
#: The default workflow's frictional sedimentation, whose snapshots the figure shows.
SCENE = "sedimentation-n16-mu0.3"


def _qlsbench(*words: str) -> None:
    subprocess.run([sys.executable, "-m", "qlsbench", *words], check=True, cwd=REPO)


def snapshots(folder: Path) -> Path:
    """The scene simulated with the default workflow's options, its snapshots drawn, in ``folder``."""
    from qlsbench.workflow import family_args
    from qlsbench.yaml_files import load_yaml

    config = load_yaml(REPO / "workflows" / "config" / "default.yaml", "workflow config")
    args = family_args(config, "dem_c", SCENE).split()
    _qlsbench(
        "simulate", *args, "--out", str(folder / "dataset"), "--snapshots", str(folder / "snapshots.parquet"), "--quiet"
    )
    _qlsbench("figure", "snapshots", str(folder / "snapshots.parquet"), "--out", str(folder / "snapshots.png"))
    return folder / "snapshots.png"


def budget_curves(folder: Path) -> Path:
    """The pinned board's budget curves from its published rows (and published submissions)."""
    from qlsbench.bench.board import Board
    from qlsbench.bench.ranking import LOW_ACCURACY
    from qlsbench.report import board_results, plot_budget_curves

    return plot_budget_curves(board_results(Board()), folder / "budget_curves.png", tol=LOW_ACCURACY)


def compose(top: Path, bottom: Path, out: Path, width: float = 10.0) -> Path:
    """``top`` above ``bottom``, each at the figure's width, into ``out`` (written atomically)."""
    import matplotlib.image as mpimg

    from qlsbench.report import pyplot, save_figure

    images = [mpimg.imread(top), mpimg.imread(bottom)]
    heights = [width * image.shape[0] / image.shape[1] for image in images]
    plt = pyplot()
    fig, axes = plt.subplots(2, 1, figsize=(width, sum(heights)), gridspec_kw={"height_ratios": heights})
    for ax, image in zip(axes, images):
        ax.imshow(image, interpolation="antialiased")
        ax.axis("off")
    fig.subplots_adjust(left=0, right=1, top=1, bottom=0, hspace=0.02)
    return save_figure(fig, out)


def main() -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        return compose(snapshots(folder), budget_curves(folder), OUT)


if __name__ == "__main__":
    print(main())
