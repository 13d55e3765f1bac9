# The advantage map (results/advantage.md): one job per size of each growth axis (`qlsbench advantage`), writing
# that system as a dataset and its row of each table; Snakemake's own bookkeeping makes the sweep resumable (a
# finished size is a file) and spreads the sizes over cores or cluster jobs. The page is the figure record's rule
# (workflows/rules/figures.smk); it reads every size's tables.


rule advantage_size:
    output:
        multiext(f"{ADVANTAGE}/{{axis}}/size-{{size}}/{{axis}}", ".systems.parquet", ".classical.parquet", ".quantum.parquet"),
        "datasets/advantage/{axis}/size-{size}.parquet",
    wildcard_constraints:
        size=r"\d{6}",
    params:
        models=advantage_args(config),
        tables=lambda wildcards, output: os.path.dirname(output[0]),
        datasets=lambda wildcards, output: os.path.dirname(os.path.dirname(output[3])),
    threads: rule_threads(config, "advantage_size")
    resources:
        **rule_resources(config, "advantage_size"),
    log:
        "logs/advantage/{axis}/size-{size}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench --threads {threads} advantage --families {wildcards.axis} --sizes {wildcards.size}"
        " {params.models} --out {params.tables} --datasets {params.datasets} --quiet > {log} 2>&1"
