"""What a figure (or table) of the report is: its inputs, its options record, its formats and how it is drawn.

The table of figures is :data:`qlsbench.report.FIGURES`; ``qlsbench figure
NAME INPUT... --out PATH...`` draws any of them, with the options its record
declares (:mod:`qlsbench.options`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qlsbench.errors import InputError
from qlsbench.options import Options, option


@dataclass(frozen=True)
class NoOptions(Options):
    """The options of a figure that has none."""


@dataclass(frozen=True)
class Figure:
    """One figure or table of the report.

    Attributes
    ----------
    name : str
        Its name on the command line (``qlsbench figure NAME``).
    summary : str
        One line: what it shows (and which figure of the paper it is).
    inputs : str
        What its input paths are, for ``--help``.
    draw : callable
        ``draw(inputs, out, options) -> Path``: reads the inputs and writes ``out``.
    options : type of Options
        Its options record.
    formats : tuple of str
        The file suffixes it writes (``out``'s suffix picks one).
    single_input : bool
        Whether it takes exactly one input path.
    """

    name: str
    summary: str
    inputs: str
    draw: Callable[[list[str], Path, Options], Path]
    options: type[Options] = NoOptions
    formats: tuple[str, ...] = (".png",)
    single_input: bool = False

    def __call__(self, inputs: list[str], out: str | Path, options: Options | None = None, **values) -> Path:
        """Draw into ``out`` (its suffix one of :attr:`formats`), options given as a record or as keywords."""
        out = Path(out)
        if out.suffix not in self.formats:
            raise InputError(f"{self.name} writes {' or '.join(self.formats)}, not {out.name!r}")
        if self.single_input and len(inputs) != 1:
            raise InputError(f"{self.name} takes one input ({self.inputs}), got {len(inputs)}")
        return self.draw(list(map(str, inputs)), out, options or self.options.from_mapping(values))


@dataclass(frozen=True)
class PageOptions(Options):
    """The options of a generated Markdown page: where its figures go."""

    figures: str | None = option(None, "folder of the page's figures (default: figures/ beside the page)",
                                 path="folder")


def page(name: str, summary: str, inputs: str, render: Callable[..., Path]) -> Figure:
    """A generated Markdown page as a report entry: ``render(inputs, out, figures)`` writes it and its figures."""
    return Figure(name, summary, inputs, lambda paths, out, options: render(paths, out, options.figures),
                  PageOptions, formats=(".md",))
