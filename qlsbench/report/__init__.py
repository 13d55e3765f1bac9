"""The report: every figure and table drawn from datasets and results files, listed in one table, :data:`FIGURES`.

``qlsbench figure NAME INPUT... --out PATH...`` draws any of them; the
workflow makes a rule of each figure's :class:`Job`
and asks for the outputs the config wants, and ``snakemake --report``
gathers what they draw. One table writer (:mod:`~qlsbench.report._tables`)
serves every page.

A new figure is a draw function, its options record and its ``Job`` in one
module here, and one line in :data:`FIGURES` (docs/development.md, "Adding a
figure"); another package registers one under the entry point group
``qlsbench.figures`` instead (:func:`figures`).

The names below are the package's public surface: the figure records, the
board's and leaderboard's page writers, the figures' drawing functions and the
plotting helpers. The modules behind them (``_board_pages``, ``_loss_curves``,
...) are internal and may move; :mod:`~qlsbench.report.in_loop_page` and
:mod:`~qlsbench.report.reproduction` are public packages of their own.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from qlsbench.report import (
    _advantage_page,
    _budget_curves,
    _checkpoint_table,
    _estimates_page,
    _leaderboard_page,
    _leaderboard_plots,
    _loss_curves,
    _noisy_page,
    _pauli_figures,
    _physics_figures,
    _qsvt_page,
    _resource_figures,
    in_loop_page,
    reproduction,
)
from qlsbench.report._base import Figure, Job
from qlsbench.report._board_pages import (
    SUMMARY_BEGIN,
    SUMMARY_END,
    TRACKS_FILE,
    board_results,
    board_summary,
    publish,
    read_tracks,
    render_board,
    self_submission_pages,
    write_tracks,
)
from qlsbench.report._budget_curves import plot_budget_curves
from qlsbench.report._checkpoint_table import checkpoint_systems, checkpoint_table, read_checkpoint_results
from qlsbench.report._leaderboard_columns import OVERLAP_NOTE, display_table
from qlsbench.report._leaderboard_page import (
    LeaderboardOptions,
    blocks_markdown,
    control_sentence,
    render_markdown,
    write_leaderboard,
    write_page,
)
from qlsbench.report._leaderboard_plots import profile
from qlsbench.report._loss_curves import plot_loss_curves, smooth
from qlsbench.report._noisy_page import noisy_track_blocks
from qlsbench.report._pauli_figures import plot_truncation_errors, truncation_curves
from qlsbench.report._physics_figures import kappa_series, plot_kappa_time, plot_snapshots
from qlsbench.report._plotting import pyplot, save_figure
from qlsbench.report._resource_figures import estimate_summary
from qlsbench.report._solver_links import SOLVER_DOCS, github_anchor, solver_links
from qlsbench.report._styles import solver_styles
from qlsbench.report.in_loop_page import physics_track_blocks

#: Every figure and table of the report by name, in the order of the paper's figures, then the rest.
FIGURES: dict[str, Figure] = {
    figure.name: figure
    for figure in (
        _loss_curves.FIGURE,  # fig. 2 and fig. 4
        _physics_figures.SNAPSHOTS,  # fig. 3
        _checkpoint_table.FIGURE,  # fig. 4(b)
        _pauli_figures.TERM_COUNTS,  # fig. 5
        _pauli_figures.TRUNCATION,
        _resource_figures.FIGURE,
        _estimates_page.FIGURE,
        _advantage_page.FIGURE,
        _physics_figures.KAPPA_TIME,
        _budget_curves.FIGURE,
        _leaderboard_plots.PROFILES,
        _leaderboard_plots.SUCCESS_QUBITS,
        _leaderboard_plots.FIDELITY_KAPPA,
        _leaderboard_page.FIGURE,
        reproduction.FIGURE,
        in_loop_page.FIGURE,
        _noisy_page.FIGURE,
        _qsvt_page.FIGURE,
    )
}

#: The entry point group under which other packages register figures: ``name = "package.module:FIGURE"``, a
#: :class:`Figure` whose ``name`` is the entry point's.
ENTRY_POINT_GROUP = "qlsbench.figures"


def figures() -> dict[str, Figure]:
    """Every figure: :data:`FIGURES`, then those registered under :data:`ENTRY_POINT_GROUP` (each loaded here, when
    first asked for; a built-in name cannot be shadowed).

    Raises
    ------
    InputError
        Naming the entry point that does not load, or that is not a :class:`Figure` of its own name.
    """
    from qlsbench.errors import InputError

    found = dict(FIGURES)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        if ep.name in FIGURES:
            continue
        try:
            figure = ep.load()
        except Exception as exc:  # a broken plug-in names itself, not "unknown figure"
            raise InputError(f"figure plug-in {ep.name!r} ({ep.value}) failed to load: {exc}") from None
        if not isinstance(figure, Figure) or figure.name != ep.name:
            raise InputError(
                f"figure plug-in {ep.name!r} ({ep.value}) is not a qlsbench.report.Figure named {ep.name!r}"
            )
        found[ep.name] = figure
    return found


__all__ = [
    "ENTRY_POINT_GROUP",
    "FIGURES",
    "OVERLAP_NOTE",
    "SOLVER_DOCS",
    "SUMMARY_BEGIN",
    "SUMMARY_END",
    "TRACKS_FILE",
    "Figure",
    "Job",
    "LeaderboardOptions",
    "blocks_markdown",
    "board_results",
    "board_summary",
    "checkpoint_systems",
    "checkpoint_table",
    "control_sentence",
    "display_table",
    "estimate_summary",
    "figures",
    "github_anchor",
    "kappa_series",
    "noisy_track_blocks",
    "physics_track_blocks",
    "plot_budget_curves",
    "plot_kappa_time",
    "plot_loss_curves",
    "plot_snapshots",
    "plot_truncation_errors",
    "profile",
    "publish",
    "pyplot",
    "read_checkpoint_results",
    "read_tracks",
    "render_board",
    "self_submission_pages",
    "render_markdown",
    "save_figure",
    "smooth",
    "solver_links",
    "solver_styles",
    "truncation_curves",
    "write_leaderboard",
    "write_page",
    "write_tracks",
]
