# qlsbench workflow: `snakemake --cores N` runs workflows/config/default.yaml.
# Rules only wire files to `qlsbench` commands; all logic lives in the package.

import os
import re

from snakemake.utils import min_version, validate

from qlsbench.cli.config_check import check_workflow_config
from qlsbench.workflow import (
    ADVANTAGE,
    advantage_args,
    advantage_families,
    all_datasets,
    check_config_files,
    dataset_families,
    family_rule_args,
    family_rule_inputs,
    family_rule_out,
    family_rule_outputs,
    figure_rules,
    figure_targets,
    in_loop_outputs,
    in_loop_args,
    in_loop_name_pattern,
    in_loop_resource,
    in_loop_shard_files,
    noisy_results,
    in_loop_runs,
    leaderboard_args,
    local_dataset_rules,
    options_json,
    rule_resources,
    rule_threads,
    shard_files,
    solver_label_pattern,
    solver_shards,
    solve_runtime,
    solver_max_qubits,
    solver_resource,
    solver_run_setting,
    solver_results,
    solver_specs,
    trajectory_outputs,
    use_workflow_source,
    workflow_schema,
)

min_version("9.0")


configfile: "workflows/config/default.yaml"


# With --software-deployment-method apptainer, jobs run in this image (workflows/envs/Containerfile builds it).
container: config.get("container", "docker://qlsbench:0.1")


# `snakemake --report report.html` (after a run) gathers the outputs marked report(...) into one page.
report: "workflows/report/workflow.rst"


# Our check first: one line naming the key at fault, cross-references included, and every check the jobs would
# make (`qlsbench check-config` runs the same). Then Snakemake's, which fills in the schema's defaults.
# Snakemake's reader keeps the last of two equal keys; ours refuses them.
# The schema's family sections are generated from the families' options records, plug-in families included
# (workflow_schema: the committed file, or the generated text when a plug-in adds a section).
check_config_files(workflow.configfiles)
SCHEMA = workflow_schema(os.path.join(workflow.basedir, "workflows/config/schema.yaml"))
check_workflow_config(config, SCHEMA)
validate(config, SCHEMA)

# Every rule runs `python -m qlsbench` from this workflow's own source: the same code whether jobs run in the
# environment that launched Snakemake, a conda environment of the pinned dependencies
# (workflows/envs/qlsbench.yaml) or a container built from workflows/envs/Containerfile. Cluster jobs run this
# Snakefile again before their command, so they set the same path.
use_workflow_source(workflow.basedir)

# Seconds of work or less: run where Snakemake runs, not as cluster jobs. The dataset rules' come from their
# families' records (local_dataset_rules) and the figure rules' from theirs (Job.local, in
# workflows/rules/figures.smk), so each says it once.
workflow.localrules(*local_dataset_rules())


localrules:
    all,
    merge_solve,
    leaderboard,


SOLVERS = list(solver_specs(config))
DATASETS = all_datasets(config)


# `results/{solver}/...` must not swallow `results/pauli/...`: solvers are the configured labels only.
wildcard_constraints:
    solver="|".join(re.escape(label) for label in SOLVERS),
    axis="|".join(re.escape(axis) for axis in advantage_families(config)) or "(?!)",


include: "workflows/rules/datasets.smk"
include: "workflows/rules/solve.smk"
include: "workflows/rules/report.smk"
include: "workflows/rules/pauli.smk"
include: "workflows/rules/figures.smk"
include: "workflows/rules/in_loop.smk"
include: "workflows/rules/advantage.smk"


rule all:
    input:
        "results/leaderboard.md",
        "results/leaderboard.csv",
        expand("results/pauli/{dataset}.parquet", dataset=DATASETS),
        expand("results/lcu/{dataset}.parquet", dataset=DATASETS),
        # every figure and table the config asks for, from the figure records (qlsbench.report.Job)
        figure_targets(config),
        trajectory_outputs(config),
        in_loop_outputs(config),
