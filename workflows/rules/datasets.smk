# One rule per dataset family (qlsbench.families.FAMILIES): each runs the family's command with the options
# its config entry gives (family_args), so the family's options record supplies every default.


rule ising_dataset:
    output:
        "datasets/ising/{label}/part-0000.parquet",
    params:
        args=lambda wc: family_args(config, "ising", wc.label),
    threads: rule_threads(config, "ising_dataset")
    resources:
        **rule_resources(config, "ising_dataset"),
    log:
        "logs/ising/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench ising {params.args} --out {output} --quiet > {log} 2>&1"


rule simulate:
    output:
        dataset="datasets/dem_c/{label}/part-0000.parquet",
        snapshots="results/snapshots/{label}.parquet",
    params:
        args=lambda wc: family_args(config, "dem_c", wc.label),
        folder=lambda wc, output: os.path.dirname(output.dataset),
    # Simulations start first: a long one (paper.yaml's 320,000 steps) heads the workflow's longest chain
    # (simulation -> checkpoints -> solves), while the solves of other datasets can fill the other cores.
    priority: 10
    threads: rule_threads(config, "simulate")
    resources:
        **rule_resources(config, "simulate"),
    log:
        "logs/simulate/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench simulate {params.args} --out {params.folder}"
        " --snapshots {output.snapshots} --quiet > {log} 2>&1"


rule checkpoints:
    input:
        "datasets/dem_c/{label}/part-0000.parquet",
    output:
        "datasets/dem_c_checkpoints/{label}/part-0000.parquet",
    params:
        args=lambda wc: family_args(config, "dem_c_checkpoints", wc.label, exclude=("dataset",)),
        folder=lambda wc, output: os.path.dirname(output[0]),
    threads: rule_threads(config, "checkpoints")
    resources:
        **rule_resources(config, "checkpoints"),
    log:
        "logs/checkpoints/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench checkpoints {input} {params.args} --out {params.folder} --quiet > {log} 2>&1"


rule simulate_penalty:
    output:
        "datasets/penalty/{label}/part-0000.parquet",
    params:
        args=lambda wc: family_args(config, "penalty", wc.label),
        folder=lambda wc, output: os.path.dirname(output[0]),
    threads: rule_threads(config, "simulate_penalty")
    resources:
        **rule_resources(config, "simulate_penalty"),
    log:
        "logs/simulate_penalty/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench simulate {params.args} --out {params.folder} --quiet > {log} 2>&1"


rule simulate_cd_lagrange:
    output:
        "datasets/cd_lagrange/{label}/part-0000.parquet",
    params:
        args=lambda wc: family_args(config, "cd_lagrange", wc.label),
        folder=lambda wc, output: os.path.dirname(output[0]),
    threads: rule_threads(config, "simulate_cd_lagrange")
    resources:
        **rule_resources(config, "simulate_cd_lagrange"),
    log:
        "logs/simulate_cd_lagrange/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench simulate {params.args} --out {params.folder} --quiet > {log} 2>&1"


rule pinned_dataset:
    output:
        "datasets/pinned/{label}/part-0000.parquet",
    params:
        args=lambda wc: family_args(config, "pinned", wc.label),
        folder=lambda wc, output: os.path.dirname(output[0]),
    threads: rule_threads(config, "pinned_dataset")
    resources:
        **rule_resources(config, "pinned_dataset"),
    log:
        "logs/pinned/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench pinned {params.args} --out {params.folder} --quiet > {log} 2>&1"


rule trajectory:
    output:
        "datasets/trajectories/{label}.parquet",
    wildcard_constraints:
        label="[^/]+",
    params:
        args=lambda wc: family_args(config, "trajectories", wc.label),
    threads: rule_threads(config, "trajectory")
    resources:
        **rule_resources(config, "trajectory"),
    log:
        "logs/trajectory/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench trajectory {params.args} --out {output} --quiet > {log} 2>&1"
