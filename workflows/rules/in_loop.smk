# Solvers inside the simulation loop (config `in_loop:`; none by default): one job per entry (their page is the
# in-loop figure's: figures.smk).


rule in_loop:
    output:
        "results/in-loop/{name}.parquet",
    params:
        args=lambda wc: in_loop_args(config, wc.name),
    threads: rule_threads(config, "in_loop")
    resources:
        **rule_resources(config, "in_loop"),
    log:
        "logs/in_loop/{name}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench in-loop {params.args} --out {output} --quiet > {log} 2>&1"
