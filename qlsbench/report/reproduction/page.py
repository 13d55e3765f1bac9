"""The reproduction page put together: :func:`render` writes ``docs/reproduction.md`` and its figures from a
shipped-results folder, and :data:`FIGURE` makes it ``qlsbench figure reproduction``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from qlsbench.data import atomic_write_text
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report import _reproduction_controls as controls
from qlsbench.report._base import Figure
from qlsbench.report._staging import staged
from qlsbench.report.reproduction.prose import prose
from qlsbench.report.reproduction.reading import load_shipped
from qlsbench.report.reproduction.sections import (
    budget_section,
    fig2_section,
    fig3_section,
    fig4_section,
    fig5_section,
    header,
    truncation_section,
    verdict_table,
    wall_time_section,
)


def render(
    folder: str | os.PathLike,
    out: str | os.PathLike,
    figures: str | os.PathLike | None = None,
    *,
    controls_folder: str | os.PathLike | None = None,
    draw: bool = True,
) -> Path:
    """Write the reproduction page (and its figures) from a shipped-results folder.

    Parameters
    ----------
    folder : path
        Shipped results (:mod:`qlsbench.bench._shipped`), verified against their manifest first.
    out : path
        The Markdown page.
    figures : path, optional
        Folder of the figures (default ``figures/`` beside ``out``); the page links them relatively.
    controls_folder : path, optional
        Shipped controls (null solvers, more seeds, sensitivity sweeps) merged into ``folder``'s results
        (:func:`~qlsbench.report._reproduction_controls.with_controls`), verified against their own manifest.
    draw : bool
        Draw the figures; ``False`` writes the same page text only (what a test compares).
    """
    shipped = load_shipped(folder)
    if controls_folder is not None:
        shipped = controls.with_controls(shipped, load_shipped(controls_folder))
    out = Path(out)
    figures = Path(figures) if figures is not None else out.parent / "figures"
    rel = os.path.relpath(figures, out.parent).replace(os.sep, "/")
    if not draw:  # the sections skip their drawing: same text, no figures
        return atomic_write_text(out, _page(shipped, None, rel))
    with staged(figures) as drawn:  # moved into figures/ only once every figure is drawn
        page = _page(shipped, drawn, rel)
    return atomic_write_text(out, page)


def _page(shipped, figures: Path | None, rel: str) -> str:
    """The page's text, drawing its figures into ``figures`` (none when ``None``); ``rel`` is how it links them."""
    fig2, fig2_verdicts = fig2_section(shipped, figures, rel)
    fig4, fig4_verdict = fig4_section(shipped, figures, rel)
    fig3, fig3_verdict = fig3_section(shipped, figures, rel)
    fig5, fig5_verdict = fig5_section(shipped, figures, rel)
    page = "\n".join(
        [
            header(shipped),
            prose("choices"),
            verdict_table(fig2_verdicts, fig3_verdict, fig4_verdict, fig5_verdict),
            prose("determinism"),
            fig2,
            budget_section(shipped, figures, rel),
            fig3,
            fig4,
            fig5,
            truncation_section(shipped, figures, rel),
            wall_time_section(shipped),
        ]
    )
    return page.rstrip("\n") + "\n"


@dataclass(frozen=True)
class ReproductionOptions(Options):
    figures: str | None = option(
        None, "folder of the page's figures (default: figures/ beside the page)", path="folder"
    )
    controls: str | None = option(
        None,
        "shipped controls folder merged in: null solvers, more seeds, sensitivity sweeps (docs/reproduction-controls)",
        path="folder",
    )


def _draw(inputs: list[str], out: Path, options: ReproductionOptions) -> Path:
    for folder in (inputs[0], options.controls):
        if folder is not None and not Path(folder).is_dir():
            raise InputError(f"{folder}: not a folder of shipped results (`qlsbench ship` writes one)")
    return render(inputs[0], out, options.figures, controls_folder=options.controls)


FIGURE = Figure(
    "reproduction",
    "docs/reproduction.md: De et al.'s claims beside the shipped paper run, with verdicts over seeds",
    "a shipped-results folder (`qlsbench ship`)",
    _draw,
    ReproductionOptions,
    formats=(".md",),
    single_input=True,
)


__all__ = ["FIGURE", "ReproductionOptions", "render"]
