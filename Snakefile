# qlsbench workflow: `snakemake --cores N` runs workflows/config/default.yaml.
# Rules only wire files to `qlsbench` commands; all logic lives in the package.

from snakemake.utils import min_version, validate

from qlsbench.workflow import all_datasets, options_json, simulate_args, solver_specs

min_version("9.0")


configfile: "workflows/config/default.yaml"


validate(config, "workflows/config/schema.yaml")

SOLVERS = list(solver_specs(config))
DATASETS = all_datasets(config)


include: "workflows/rules/ising.smk"
include: "workflows/rules/simulate.smk"
include: "workflows/rules/solve.smk"
include: "workflows/rules/report.smk"


rule all:
    input:
        "results/leaderboard.md",
        "results/leaderboard.csv",
