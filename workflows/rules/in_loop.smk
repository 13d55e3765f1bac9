# Solvers inside the simulation loop (config `in_loop:`; none by default): one job per entry, then the page.


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


rule in_loop_page:
    input:
        expand("results/in-loop/{name}.parquet", name=list(in_loop_runs(config))),
    output:
        "results/in-loop.md",
    threads: rule_threads(config, "in_loop_page")
    resources:
        **rule_resources(config, "in_loop_page"),
    log:
        "logs/in_loop_page.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure in-loop {input} --out {output} > {log} 2>&1"

