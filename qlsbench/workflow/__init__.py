"""Helpers that check a workflow config and turn it into file names, solver specs and resources.

The Snakefile calls these so its rules hold no logic of their own. One module per job, each importing only those
before it: _datasets (the families' sections, dataset names, the family rules' words), _solvers (solver specs,
their datasets, settings, shards and results), _resources (per-rule resources, solve runtimes), _in_loop (the
``in_loop:`` runs), _schema (the config schema, its generated sections), _figures (the figure rules, the config as
the figure records see it), _config (reading and checking the config as a whole). This face re-exports the names
the Snakefile, ``workflows/rules/*.smk``, the command line and the tests import.
"""

from __future__ import annotations

from qlsbench.workflow._config import check_config, check_config_files, use_workflow_source
from qlsbench.workflow._datasets import (
    all_datasets,
    dataset_families,
    dataset_runs,
    family_args,
    family_labels,
    family_out,
    family_rule_args,
    family_rule_inputs,
    family_rule_out,
    family_rule_outputs,
    local_dataset_rules,
    pauli_figure_datasets,
    trajectory_outputs,
)
from qlsbench.workflow._figures import (
    FigureRule,
    WorkflowConfig,
    checkpoint_tables,
    figure_local_rules,
    figure_rules,
    figure_targets,
    leaderboard_args,
    loss_figure_inputs,
    loss_figures,
)
from qlsbench.workflow._in_loop import IN_LOOP_KEYS, in_loop_args, in_loop_outputs, in_loop_runs
from qlsbench.workflow._resources import (
    DEFAULT_RESOURCES,
    SOLVE_OVERHEAD_MINUTES,
    check_runtimes,
    dataset_system_count,
    default_resources,
    rule_resources,
    rule_threads,
    solve_runtime,
    solver_resource,
)
from qlsbench.workflow._schema import (
    IN_LOOP_BEGIN,
    IN_LOOP_END,
    SCHEMA,
    in_loop_properties,
    schema_text,
    workflow_schema,
)
from qlsbench.workflow._solvers import (
    check_solvers,
    noisy_results,
    options_json,
    shard_files,
    solver_datasets,
    solver_label_pattern,
    solver_max_qubits,
    solver_results,
    solver_run_setting,
    solver_shards,
    solver_specs,
    variational_solvers,
)

__all__ = [
    "DEFAULT_RESOURCES",
    "IN_LOOP_BEGIN",
    "IN_LOOP_END",
    "IN_LOOP_KEYS",
    "SCHEMA",
    "SOLVE_OVERHEAD_MINUTES",
    "FigureRule",
    "WorkflowConfig",
    "all_datasets",
    "check_config",
    "check_config_files",
    "check_runtimes",
    "check_solvers",
    "checkpoint_tables",
    "dataset_families",
    "dataset_runs",
    "dataset_system_count",
    "default_resources",
    "family_args",
    "family_labels",
    "family_out",
    "family_rule_args",
    "family_rule_inputs",
    "family_rule_out",
    "family_rule_outputs",
    "figure_local_rules",
    "figure_rules",
    "figure_targets",
    "in_loop_args",
    "in_loop_outputs",
    "in_loop_properties",
    "in_loop_runs",
    "leaderboard_args",
    "local_dataset_rules",
    "loss_figure_inputs",
    "loss_figures",
    "noisy_results",
    "options_json",
    "pauli_figure_datasets",
    "rule_resources",
    "rule_threads",
    "schema_text",
    "shard_files",
    "solve_runtime",
    "solver_datasets",
    "solver_label_pattern",
    "solver_max_qubits",
    "solver_resource",
    "solver_results",
    "solver_run_setting",
    "solver_shards",
    "solver_specs",
    "trajectory_outputs",
    "use_workflow_source",
    "variational_solvers",
    "workflow_schema",
]
