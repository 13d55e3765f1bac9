"""One colour and one marker per solver, the same in every figure and on the web page.

Ten default matplotlib colours cycled over a board of twenty solvers gave two
solvers one colour. :data:`PALETTE` has 30 colours (Kelly's 20 colours of
maximum contrast, black and nine more); a solver's colour is its place in the
sorted labels, so up to 30 solvers never share one. Markers cycle over
:data:`MARKERS` (11, coprime to 30), so the (colour, marker) pair stays
unique up to 330 solvers.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Kelly's colours of maximum contrast (white left out), then black and nine more from Glasbey's set.
PALETTE: tuple[str, ...] = (
    "#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#882d17", "#e68fac", "#848482", "#8db600", "#f3c300",
    "#a1caf1", "#604e97", "#f99379", "#2b3d26", "#dcd300", "#b3446c", "#654522", "#e25822", "#c2b280", "#f6a600",
    "#222222", "#00b7c7", "#5a0050", "#7b8cff", "#00ff87", "#9e0073", "#3f8f8f", "#ff5cd1", "#6b6b00", "#0a2f8f",
)

#: Marker shapes: matplotlib's code for each, and the page draws the same shape in SVG.
MARKERS: tuple[tuple[str, str], ...] = (
    ("circle", "o"), ("square", "s"), ("triangle-up", "^"), ("diamond", "D"), ("triangle-down", "v"),
    ("plus", "P"), ("cross", "X"), ("star", "*"), ("hexagon", "h"), ("triangle-left", "<"), ("triangle-right", ">"),
)


@dataclass(frozen=True)
class Style:
    """How one solver is drawn: ``color`` (hex), ``marker`` (the page's name) and ``mpl_marker`` (matplotlib's)."""

    color: str
    marker: str
    mpl_marker: str


def solver_styles(labels) -> dict[str, Style]:
    """Each label's :class:`Style`, by its place among the sorted distinct labels."""
    return {label: Style(PALETTE[i % len(PALETTE)], *MARKERS[i % len(MARKERS)])
            for i, label in enumerate(sorted(set(labels)))}
