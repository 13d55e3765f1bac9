"""What a figure (or table) of the report is: its inputs, its options record, its formats, how it is drawn, and how
the workflow draws it.

The table of figures is :func:`qlsbench.report.figures` (the built-in
:data:`qlsbench.report.FIGURES` and the ``qlsbench.figures`` entry points);
``qlsbench figure NAME INPUT... --out PATH...`` draws any of them, with the
options its record declares (:mod:`qlsbench.options`). A figure with a
:class:`Job` is drawn by the workflow: its rule, its targets in rule ``all``
and its place in ``snakemake --report`` all come from that record
(:mod:`qlsbench.workflow`, ``workflows/rules/figures.smk``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the workflow layer sits above the report: its config view is only passed in
    from qlsbench.workflow import WorkflowConfig

from qlsbench.errors import InputError
from qlsbench.options import Options, option


@dataclass(frozen=True)
class NoOptions(Options):
    """The options of a figure that has none."""


def inputs_then_out(config: WorkflowConfig, wildcards: Mapping[str, str], inputs, outputs) -> list[str]:
    """The usual words of a figure job: its input paths, then ``--out`` and its output paths."""
    return [*map(str, inputs), "--out", *map(str, outputs)]


@dataclass(frozen=True)
class Job:
    """How the workflow draws a figure: one Snakemake rule, made from this record (``workflows/rules/figures.smk``).

    Each callable is given the workflow's config as a :class:`~qlsbench.workflow.WorkflowConfig` (its datasets,
    solvers, loss figures... by name), and, per output, the wildcards Snakemake matched in :attr:`output`.

    Attributes
    ----------
    rule : str
        The rule's name: its key under the config's ``resources``, the name in Snakemake's log. Figures that share
        a rule (the leaderboard's plots) share :attr:`output` and :attr:`log`, whose ``{figure}`` is their name.
    output : str or mapping of str to str
        The output path pattern (Snakemake wildcards in braces); several named ones for a figure that writes
        several files, the first of them the one the report shows.
    targets : callable
        ``targets(config) -> list of str``: the outputs this config asks for (rule ``all``); none when the config
        has nothing to draw.
    inputs : callable
        ``inputs(config, wildcards) -> list of str or dict``: the input paths of one output (named ones as a dict).
    log : str
        The log path pattern (the same wildcards as :attr:`output`).
    words : callable
        ``words(config, wildcards, inputs, outputs) -> list of str``: what follows ``qlsbench figure NAME``
        (default: the inputs, ``--out`` and the outputs: :func:`inputs_then_out`).
    caption : str, optional
        Its caption for ``snakemake --report``: a file under ``workflows/report/`` (or an absolute path); no
        caption: not in the report.
    category : str
        Its heading in the report.
    local : bool
        Whether its jobs run where Snakemake runs (seconds of work: not worth a cluster job).
    wildcards : callable, optional
        ``wildcards(config) -> dict``: a regular expression per wildcard of :attr:`output`, when the pattern
        alone could match another rule's files.
    """

    rule: str
    output: str | Mapping[str, str]
    targets: Callable[[WorkflowConfig], list[str]]
    inputs: Callable[[WorkflowConfig, Mapping[str, str]], list[str] | dict[str, Any]]
    log: str
    words: Callable[..., list[str]] = inputs_then_out
    caption: str | None = None
    category: str = ""
    local: bool = True
    wildcards: Callable[[WorkflowConfig], dict[str, str]] | None = None

    def outputs(self) -> dict[str, str]:
        """:attr:`output` as named patterns (one unnamed pattern is named ``""``)."""
        return {"": self.output} if isinstance(self.output, str) else dict(self.output)


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
    job : Job, optional
        How the workflow draws it; ``None`` for a figure drawn by hand (a docs page from shipped results).
    board_track : str, optional
        The leaderboard track (``physics``, ``noisy``) that reads the same results files. The board's pages keep
        their own copy of a track, so a page drawn from new files leaves the board behind until ``qlsbench board
        render``; ``qlsbench figure`` says so after drawing it.
    """

    name: str
    summary: str
    inputs: str
    # Each figure's draw takes its own options record (a subclass of Options), so the record type is Any here.
    draw: Callable[[list[str], Path, Any], Path]
    options: type[Options] = NoOptions
    formats: tuple[str, ...] = (".png",)
    single_input: bool = False
    job: Job | None = None
    board_track: str | None = None

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

    figures: str | None = option(
        None, "folder of the page's figures (default: figures/ beside the page)", path="folder"
    )


def page(
    name: str,
    summary: str,
    inputs: str,
    render: Callable[..., Path],
    job: Job | None = None,
    board_track: str | None = None,
) -> Figure:
    """A generated Markdown page as a report entry: ``render(inputs, out, figures)`` writes it and its figures."""
    return Figure(
        name,
        summary,
        inputs,
        lambda paths, out, options: render(paths, out, options.figures),
        PageOptions,
        formats=(".md",),
        job=job,
        board_track=board_track,
    )
