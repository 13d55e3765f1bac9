rule simulate:
    output:
        "datasets/dem_c/{label}/part-0000.parquet",
    params:
        args=lambda wc: simulate_args(config, wc.label),
    log:
        "logs/simulate/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench simulate {params.args} --out datasets/dem_c/{wildcards.label} > {log} 2>&1"
