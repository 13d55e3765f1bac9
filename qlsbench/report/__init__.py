"""The report: every figure and table drawn from datasets and results files, listed in one table, :data:`FIGURES`.

``qlsbench figure NAME INPUT... --out PATH...`` draws any of them; the
workflow makes a rule of each figure's :class:`~qlsbench.report._base.Job`
and asks for the outputs the config wants, and ``snakemake --report``
gathers what they draw. One table writer (:mod:`~qlsbench.report._tables`)
serves every page.

A new figure is a draw function, its options record and its ``Job`` in one
module here, and one line in :data:`FIGURES` (docs/development.md, "Adding a
figure"); another package registers one under the entry point group
``qlsbench.figures`` instead (:func:`figures`).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from qlsbench.report import (
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


__all__ = ["ENTRY_POINT_GROUP", "FIGURES", "Figure", "Job", "figures"]
