rule simulate:
    output:
        dataset="datasets/dem_c/{label}/part-0000.parquet",
        snapshots="results/snapshots/{label}.parquet",
    params:
        args=lambda wc: simulate_args(config, wc.label),
        snapshots=lambda wc: snapshot_count(config, wc.label),
    threads: rule_threads(config, "simulate")
    resources:
        **rule_resources(config, "simulate"),
    log:
        "logs/simulate/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench simulate {params.args} --out datasets/dem_c/{wildcards.label}"
        " --snapshots {output.snapshots} --snapshot-count {params.snapshots} > {log} 2>&1"


rule checkpoints:
    input:
        "datasets/dem_c/{label}/part-0000.parquet",
    output:
        "datasets/dem_c_checkpoints/{label}/part-0000.parquet",
    params:
        n=lambda wc: checkpoint_count(config, wc.label),
    threads: rule_threads(config, "checkpoints")
    resources:
        **rule_resources(config, "checkpoints"),
    log:
        "logs/checkpoints/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench checkpoints datasets/dem_c/{wildcards.label} --count {params.n}"
        " --out datasets/dem_c_checkpoints/{wildcards.label} > {log} 2>&1"


rule simulate_penalty:
    output:
        "datasets/penalty/{label}/part-0000.parquet",
    params:
        args=lambda wc: penalty_args(config, wc.label),
    threads: rule_threads(config, "simulate_penalty")
    resources:
        **rule_resources(config, "simulate_penalty"),
    log:
        "logs/simulate_penalty/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench simulate {params.args} --out datasets/penalty/{wildcards.label} --quiet > {log} 2>&1"


rule simulate_cd_lagrange:
    output:
        "datasets/cd_lagrange/{label}/part-0000.parquet",
    params:
        args=lambda wc: cd_lagrange_args(config, wc.label),
    threads: rule_threads(config, "simulate_cd_lagrange")
    resources:
        **rule_resources(config, "simulate_cd_lagrange"),
    log:
        "logs/simulate_cd_lagrange/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench simulate {params.args} --out datasets/cd_lagrange/{wildcards.label} --quiet > {log} 2>&1"


rule trajectory:
    output:
        "datasets/trajectories/{name}.parquet",
    wildcard_constraints:
        name="[^/]+",
    params:
        args=lambda wc: trajectory_args(config, wc.name),
    threads: rule_threads(config, "trajectory")
    resources:
        **rule_resources(config, "trajectory"),
    log:
        "logs/trajectory/{name}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench trajectory {params.args} --out {output} > {log} 2>&1"
