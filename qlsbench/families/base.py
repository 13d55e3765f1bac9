"""What a dataset family is: an options record, a builder, a label, a report, its workflow rule and, for a
simulation, the world a solver can be put inside.

The table of families is :data:`qlsbench.families.FAMILIES`; the options
records are :class:`qlsbench.options.Options`. Everything the workflow, the
command line and ``qlsbench in-loop`` know of a family they read here: its
rule (:class:`Rule`: name, resources, local or not, inputs and outputs) is
generated from the record in ``workflows/rules/datasets.smk``, its config
section's schema from its options record (:mod:`qlsbench.families.config_schema`),
its in-loop world from :class:`LoopWorld`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from qlsbench.errors import InputError
from qlsbench.options import Options

#: What a Snakemake resource of a family's rule may be: memory in MB, wall time in minutes, threads.
RESOURCE_KEYS = ("mem_mb", "runtime", "threads")


@dataclass(frozen=True)
class Rule:
    """The workflow rule that builds a family's datasets, one job per configured dataset.

    ``workflows/rules/datasets.smk`` makes one rule per family from this record; the rule runs
    ``qlsbench <command>`` with the options its config entry gives, those below from its own files, and
    ``--out`` (the dataset file, or its folder, as the family's ``out_kind`` says).

    Attributes
    ----------
    name : str
        The rule's name (what ``resources:`` in a config, a cluster profile and ``--until`` call it).
    local : bool
        Seconds of work: it runs where Snakemake runs (``localrules``), not as a cluster job.
    resources : dict
        Its jobs' ``mem_mb``, ``runtime`` (minutes) and ``threads`` where they differ from the workflow's
        default (``DEFAULT_RESOURCES["default"]`` in :mod:`qlsbench.workflow`).
    layout : {"folder", "file"}
        The dataset is ``datasets/<family>/<label>/part-0000.parquet`` or ``datasets/<family>/<label>.parquet``.
    inputs : dict
        Option name to the file it reads, a pattern with ``{label}`` (the checkpoints read
        ``datasets/dem_c/{label}/part-0000.parquet``): the rule's inputs, passed as that option.
    outputs : dict
        Option name to a further file the job writes, a pattern with ``{label}`` (a DEM-C run's snapshots
        for fig. 3): the rule's outputs beside the dataset, passed as that option.
    priority : int
        Snakemake's priority of its jobs (long simulations start first: they head the longest chains).
    """

    name: str
    local: bool = False
    resources: dict[str, int] = field(default_factory=dict)
    layout: str = "folder"
    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    priority: int = 0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.resources) - set(RESOURCE_KEYS))
        if unknown:
            raise ValueError(
                f"rule {self.name}: unknown resources {', '.join(unknown)} (use {', '.join(RESOURCE_KEYS)})"
            )
        if self.layout not in ("folder", "file"):
            raise ValueError(f"rule {self.name}: layout must be folder or file, got {self.layout!r}")


class World(Protocol):
    """One in-loop simulation (:class:`LoopWorld`): built twice from the same options, the reference and the
    candidate step alike, only their linear solves differ."""

    def build(self) -> Any:
        """A fresh state of the scene (everything a step changes; a checkpoint pickles it)."""

    def advance(self, state: Any, k: int, linear: Callable | None, count: Any = None) -> Any:
        """Step ``state`` once (step ``k``), Newton's linear systems solved by ``linear(A, b, info) -> x``, or by
        the stepper's own linear algebra when ``None``; ``count.see(b)`` for each system the stepper solves
        itself. Returns the step's report (with ``time``)."""

    def measure(self, state: Any, report: Any) -> dict:
        """``positions``, ``velocities``, ``kinetic_energy``, ``penetration_max`` / ``_mean``,
        ``complementarity``, ``newton_iterations``, ``fallback`` and ``step_status`` after a step."""


@dataclass(frozen=True)
class LoopWorld:
    """How ``qlsbench in-loop`` puts a solver inside a family's simulation.

    The in-loop options are the loop's own (:class:`~qlsbench.bench.in_loop.options.LoopOptions`) and the
    scene's, taken from the family's options record: ``fields`` names them, so an option is declared once,
    with the family, and means the same thing in a dataset and in the loop.

    Attributes
    ----------
    fields : tuple of str
        The family's options the loop takes (``n_spheres``, ``mu``, ``seed``...).
    defaults : dict
        Their defaults in the loop where those differ from the dataset's (a short run of a small pile: the loop
        steps twice per step, and a solver may be slow).
    make : callable
        ``make(options) -> World``: ``options`` the in-loop record, holding the loop's options and ``fields``.
    check : callable, optional
        ``check(options)``: refuse, before any run, what would stop the world building (a scene's parameters).
    """

    fields: tuple[str, ...]
    make: Callable[[Any], World]
    defaults: dict[str, Any] = field(default_factory=dict)
    check: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class Family:
    """One dataset family: what it is, its options, how it is built, named and reported.

    Attributes
    ----------
    name : str
        The family: its folder under ``datasets/`` and the ``family`` of its systems.
    summary : str
        One line for the dataset card and ``--help``.
    options : type of Options
        Its options record.
    build : callable
        ``build(options, out, progress) -> dict``: writes the dataset at ``out``
        and returns its metadata, plus facts of the run that are not written
        (wall-clock rates) so files stay byte-identical.
    label : callable
        ``label(options) -> str``: the dataset's name inside the family folder
        (a folder, or a file stem where ``out_kind`` is ``"file"``).
    report : callable
        ``report(facts) -> list[str]``: what the command prints afterwards;
        lines starting ``warning:`` go to standard error.
    command : str
        The ``qlsbench`` command that builds it; several families may share one
        (``simulate``), told apart by ``scenes`` and ``integrator``. The command
        line lists its commands with their help without importing the families
        (:data:`qlsbench.families.COMMAND_HELP`, or ``command_help``).
    config_key : str
        The workflow config section whose entries are runs of this family.
    scenes : tuple of str
        Scene names it builds (``--scene``).
    integrator : str or None
        The ``--integrator`` value that selects it among the families taking
        the same scene; ``None`` where the command has no such choice.
    out_kind : str
        What ``--out`` names: ``"folder"`` (``part-0000.parquet`` inside), ``"file"`` or ``"any"``.
    systems : bool
        Whether it holds linear systems (the trajectories family does not).
    runs : callable, optional
        ``runs(section) -> list[dict]``: the config section as option mappings,
        one per dataset; default: the section is that list.
    rule : Rule
        The workflow rule that builds its datasets (default: ``<name>_dataset``, a cluster job; a rule without a
        name is given that one).
    command_help : str
        One line of help for ``command`` where no family before it in the table gives one (a plug-in's own
        command: ``qlsbench --help`` lists it; the built-in commands' lines are
        :data:`qlsbench.families.COMMAND_HELP`).
    section_schema : callable, optional
        ``section_schema(entry) -> dict``: the JSON schema of the config section, given the schema of one
        entry (its options record's, :func:`~qlsbench.families.config_schema.entry_schema`); for a section
        that is not a list of entries (``runs`` reads it another way). Default: a list of such entries.
    loop : LoopWorld, optional
        How a solver is put inside its simulation's Newton loop (``qlsbench in-loop --family``); ``None``
        where it has no loop (not a simulation).
    """

    name: str
    summary: str
    options: type[Options]
    build: Callable[[Any, Path, bool], dict]
    label: Callable[[Any], str]
    report: Callable[[dict], list[str]]
    command: str
    config_key: str
    scenes: tuple[str, ...] = ()
    integrator: str | None = None
    out_kind: str = "folder"
    systems: bool = True
    runs: Callable[[Any], list[dict]] | None = None
    rule: Rule = Rule("")
    command_help: str = ""
    section_schema: Callable[[dict], dict] | None = None
    loop: LoopWorld | None = None

    def __post_init__(self) -> None:
        if not self.rule.name:  # the default rule, named after the family
            object.__setattr__(self, "rule", replace(self.rule, name=f"{self.name}_dataset"))

    def dataset_path(self, label: str) -> str:
        """Where the workflow writes dataset ``label``: ``datasets/<name>/<label>/part-0000.parquet``, or
        ``datasets/<name>/<label>.parquet`` for a rule whose ``layout`` is ``"file"``."""
        if self.rule.layout == "file":
            return f"datasets/{self.name}/{label}.parquet"
        return f"datasets/{self.name}/{label}/part-0000.parquet"

    def configured(self, config: dict[str, Any]) -> dict[str, Options]:
        """This family's runs in a workflow config, as checked options keyed by dataset label.

        Raises
        ------
        InputError
            Naming the config entry (``simulate[1]``) and the option at fault,
            or two entries that would write the same dataset.
        """
        section = config.get(self.config_key)
        if not section:
            return {}
        entries: Sequence[dict] = self.runs(section) if self.runs else section
        out: dict[str, Options] = {}
        for i, entry in enumerate(entries):
            where = f"{self.config_key}[{i}]" if isinstance(section, list) else self.config_key
            options = self.options.from_mapping(dict(entry), where)
            try:
                label = self.label(options)  # building a label may build the scene, which checks its parameters
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            if label in out:
                raise InputError(f"{where}: a run for {label!r} is already configured")
            out[label] = options
        return out
