"""The report's rules: the figure rules made from the figure records, the config as those records ask about it, its
loss figures and checkpoint tables, and the leaderboard rule's words."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from qlsbench.errors import ConfigError, QlsbenchError
from qlsbench.options import cli_words
from qlsbench.workflow._datasets import all_datasets, family_labels, pauli_figure_datasets
from qlsbench.workflow._in_loop import in_loop_runs
from qlsbench.workflow._solvers import noisy_results, solver_datasets, solver_results, solver_specs, variational_solvers


def leaderboard_args(config: dict[str, Any]) -> str:
    """The accuracy settings of the config's ``leaderboard:`` section as ``qlsbench leaderboard`` options."""
    from qlsbench.report._leaderboard_page import LeaderboardOptions

    section = config.get("leaderboard") or {}
    try:
        LeaderboardOptions.from_mapping(section, "leaderboard")
    except QlsbenchError as exc:
        raise ConfigError(str(exc)) from None
    return " ".join(cli_words(LeaderboardOptions, section))


def loss_figures(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Loss-curve figures by name (a list in the config, so a --configfile replaces it whole)."""
    figures: dict[str, dict[str, Any]] = {}
    for i, fig in enumerate(config.get("loss_figures", [])):
        if fig["name"] in figures:
            raise ConfigError(f"loss_figures[{i}]: name {fig['name']!r} used twice")
        figures[fig["name"]] = fig
    return figures


def loss_figure_inputs(config: dict[str, Any], name: str) -> list[str]:
    """Results files loss figure ``name`` reads: its solvers on its dataset."""
    fig = loss_figures(config)[name]
    missing = [s for s in fig["solvers"] if s not in solver_specs(config)]
    if missing:
        raise ConfigError(f"loss_figures.{name}.solvers {missing} are not configured solver labels")
    absent = [s for s in fig["solvers"] if fig["dataset"] not in solver_datasets(config, s)]
    if absent:
        raise ConfigError(f"loss_figures.{name}: solver(s) {absent} do not run on {fig['dataset']!r}")
    return [f"results/{label}/{fig['dataset']}.parquet" for label in fig["solvers"]]


#: Where the advantage rules write each size's tables (``<ADVANTAGE>/<axis>/size-<size>/``).
ADVANTAGE = "results/advantage"


def advantage_families(config: dict[str, Any]) -> list[str]:
    """The growth axes the config's ``advantage:`` section sweeps: its ``families``, every axis when it names
    none, and none without the section."""
    section = config.get("advantage")
    if section is None:
        return []
    if "families" in section:
        return list(section["families"])
    from qlsbench.bench.advantage import AXES

    return list(AXES)


def advantage_sizes(config: dict[str, Any]) -> dict[str, list[int]]:
    """Each swept axis' sizes: its ``small`` or ``full`` ones as the section's ``sweep`` says."""
    from qlsbench.bench.advantage import AXES

    sweep = (config.get("advantage") or {}).get("sweep", "small")
    return {family: list(getattr(AXES[family], sweep)) for family in advantage_families(config) if family in AXES}


def advantage_tables(config: dict[str, Any]) -> list[str]:
    """The advantage page's inputs: every swept size's three tables (rule ``advantage_size``)."""
    from qlsbench.bench.advantage import TABLES

    return [
        f"{ADVANTAGE}/{family}/size-{size:06d}/{family}.{table}.parquet"
        for family, sizes in advantage_sizes(config).items()
        for size in sizes
        for table in TABLES
    ]


def advantage_args(config: dict[str, Any]) -> str:
    """The sweep's hardware models from the ``advantage:`` section, as ``qlsbench advantage`` words."""
    models = (config.get("advantage") or {}).get("models")
    return shlex.join(["--models", *models]) if models else ""


def checkpoint_tables(config: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Fig. 4's kappa tables: for each loss figure drawn on a checkpoint dataset, one per solver in it.

    Keyed by ``<solver>-checkpoints-<scene>`` (``results/tables/<key>.html``).
    """
    tables = {}
    for fig in loss_figures(config).values():
        family, _, scene = fig["dataset"].partition("/")
        if family == "dem_c_checkpoints":
            for solver in fig["solvers"]:
                tables[f"{solver}-checkpoints-{scene}"] = {"solver": solver, "scene": scene}
    return tables


class WorkflowConfig:
    """A workflow config as the figure records ask about it (:class:`~qlsbench.report._base.Job`): its datasets,
    solvers, loss figures, in-loop runs... by name, each read by this module's one reading of it."""

    def __init__(self, config: dict[str, Any]):
        self.config = config

    def labels(self, family: str) -> list[str]:
        """Dataset labels of one family (:func:`family_labels`)."""
        return family_labels(self.config, family)

    def datasets(self) -> list[str]:
        """Every linear-system dataset (:func:`all_datasets`)."""
        return all_datasets(self.config)

    def pauli_figure_datasets(self) -> list[str]:
        """The datasets fig. 5 and the truncation curves draw (:func:`pauli_figure_datasets`)."""
        return pauli_figure_datasets(self.config)

    def solver_results(self) -> list[str]:
        """Every results file of the configured solvers (:func:`solver_results`)."""
        return solver_results(self.config)

    def variational_solvers(self) -> list[str]:
        """Labels of the variational solvers (:func:`variational_solvers`)."""
        return variational_solvers(self.config)

    def loss_figures(self) -> dict[str, dict[str, Any]]:
        """The config's loss figures by name (:func:`loss_figures`)."""
        return loss_figures(self.config)

    def loss_figure_inputs(self, name: str) -> list[str]:
        """Results files loss figure ``name`` reads (:func:`loss_figure_inputs`)."""
        return loss_figure_inputs(self.config, name)

    def checkpoint_tables(self) -> dict[str, dict[str, str]]:
        """Fig. 4's kappa tables by key (:func:`checkpoint_tables`)."""
        return checkpoint_tables(self.config)

    def advantage_tables(self) -> list[str]:
        """The advantage page's inputs (:func:`advantage_tables`)."""
        return advantage_tables(self.config)

    def in_loop_names(self) -> list[str]:
        """Names of the in-loop runs (:func:`in_loop_runs`)."""
        return list(in_loop_runs(self.config))

    def noisy_results(self) -> list[str]:
        """Results files of the solver entries on a device backend (:func:`noisy_results`)."""
        return noisy_results(self.config)


@dataclass(frozen=True)
class FigureRule:
    """One figure rule of the workflow, made from the :class:`~qlsbench.report._base.Job` of the figures drawn by it
    (``workflows/rules/figures.smk`` makes a Snakemake rule of each).

    Attributes
    ----------
    name : str
        The rule's name (:attr:`Job.rule`).
    figures : tuple of Figure
        The figures it draws: one, or several sharing the rule, told apart by the ``{figure}`` wildcard.
    """

    name: str
    figures: tuple

    @property
    def job(self):
        """The job the rule is made from (its figures share output, log, caption and place)."""
        return self.figures[0].job

    def figure(self, wildcards) -> Any:
        """The figure one output is of: the rule's one, or the one its ``{figure}`` wildcard names."""
        if len(self.figures) == 1:
            return self.figures[0]
        return next(f for f in self.figures if f.name == wildcards["figure"])

    def outputs(self, report: Any) -> tuple[list[Any], dict[str, Any]]:
        """The rule's outputs as (unnamed, named), the first passed through ``report`` (Snakemake's) with the
        job's caption (under ``workflows/report/``, from ``workflows/rules/``) and category, when it has one."""
        outputs: dict[str, Any] = self.job.outputs()
        first = next(iter(outputs))
        if self.job.caption:
            outputs[first] = report(
                outputs[first], caption=os.path.join("../report", self.job.caption), category=self.job.category
            )
        unnamed = [outputs.pop("")] if "" in outputs else []
        return unnamed, outputs

    def wildcard_constraints(self, config: dict[str, Any]) -> dict[str, str]:
        """The job's own constraints; for a shared rule, ``{figure}`` is one of its figures' names."""
        import re

        constraints = dict(self.job.wildcards(WorkflowConfig(config))) if self.job.wildcards else {}
        if len(self.figures) > 1:
            constraints["figure"] = "|".join(re.escape(f.name) for f in self.figures)
        return constraints

    def inputs(self, config: dict[str, Any], wildcards) -> list[str] | dict[str, Any]:
        """The input paths of one output."""
        return self.figure(wildcards).job.inputs(WorkflowConfig(config), wildcards)

    def command(self, config: dict[str, Any], wildcards, inputs, outputs) -> str:
        """What follows ``qlsbench figure``: the figure's name and its job's words, quoted for the shell."""
        figure = self.figure(wildcards)
        return shlex.join(
            [figure.name, *map(str, figure.job.words(WorkflowConfig(config), wildcards, inputs, outputs))]
        )


def figure_rules() -> list[FigureRule]:
    """The workflow's figure rules: the figures with a :class:`~qlsbench.report._base.Job`
    (:func:`qlsbench.report.figures`, plug-ins included), grouped by rule name.

    Raises
    ------
    ConfigError
        When figures sharing a rule name declare different outputs or logs.
    """
    from qlsbench.report import figures

    groups: dict[str, list] = {}
    for figure in figures().values():
        if figure.job is not None:
            groups.setdefault(figure.job.rule, []).append(figure)
    for name, members in groups.items():
        first = members[0].job
        odd = [f.name for f in members if (f.job.outputs(), f.job.log) != (first.outputs(), first.log)]
        if odd or (len(members) > 1 and "{figure}" not in str(first.output)):
            raise ConfigError(
                f"figure rule {name!r}: figures {[f.name for f in members]} share it but not one "
                "output and log told apart by {figure}"
            )
    return [FigureRule(name, tuple(members)) for name, members in groups.items()]


def figure_targets(config: dict[str, Any]) -> list[str]:
    """Every figure and table the config asks for (rule ``all``): each figure's :attr:`Job.targets`."""
    view = WorkflowConfig(config)
    return [path for rule in figure_rules() for figure in rule.figures for path in figure.job.targets(view)]


def figure_local_rules() -> list[str]:
    """The figure rules whose jobs run where Snakemake runs (:attr:`Job.local`)."""
    return [rule.name for rule in figure_rules() if rule.job.local]
