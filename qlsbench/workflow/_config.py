"""The Snakefile's first steps: read the config files strictly, check the config as a whole (schema, then
cross-references and every job's own check), and run every job from the workflow's source."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from qlsbench.errors import ConfigError
from qlsbench.workflow._datasets import dataset_runs, pauli_figure_datasets
from qlsbench.workflow._figures import leaderboard_args, loss_figure_inputs, loss_figures
from qlsbench.workflow._in_loop import in_loop_runs
from qlsbench.workflow._resources import check_runtimes
from qlsbench.workflow._solvers import check_solvers, solver_datasets, solver_specs


def _schema_error_line(error) -> str:
    """A jsonschema error as one line: where in the config, then what is wrong."""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"{where or 'the config'}: {error.message}"


def use_workflow_source(basedir: str | os.PathLike) -> None:
    """Put the workflow's own source first on ``PYTHONPATH``, for every job's ``python -m qlsbench``.

    Jobs then run the checkout that launched them, whatever else the job's environment has installed (a
    conda environment of the dependencies, a container image, another qlsbench).
    """
    paths = [str(basedir), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(basedir)]]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)


def check_config_files(paths) -> None:
    """Read each config file strictly: Snakemake keeps the last of two equal keys, we refuse them.

    Raises
    ------
    ConfigError
        One line naming the file and the line of the repeated key.
    """
    from qlsbench.yaml_files import load_yaml

    for path in paths:
        load_yaml(path, "workflow config")


def check_config(config: dict[str, Any], schema: str | os.PathLike) -> None:
    """Check a workflow config against its schema and against itself.

    The schema catches unknown keys and bad values; the rest needs the
    config as a whole: solver labels unique and path-safe, each solver's
    dataset patterns matching a dataset, loss figures naming configured
    solvers that run on their dataset, checkpoints of configured simulations,
    each in-loop run checked as ``qlsbench in-loop`` checks it. The jobs'
    command lines are checked above this layer, by their commands' parsers
    (:func:`qlsbench.cli.config_check.check_workflow_config`, which calls this).

    Raises
    ------
    ConfigError
        One line naming the key at fault.
    """
    import jsonschema
    import yaml

    validator = jsonschema.Draft202012Validator(yaml.safe_load(Path(schema).read_text()))
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ConfigError(_schema_error_line(errors[0]))
    dataset_runs(config)
    pauli_figure_datasets(config)
    check_solvers(config)
    for label in solver_specs(config):
        solver_datasets(config, label)
    check_runtimes(config)
    for name in loss_figures(config):
        loss_figure_inputs(config, name)
    leaderboard_args(config)  # the leaderboard rule's words, read through the command's options record
    in_loop_runs(config)
