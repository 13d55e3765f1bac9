rule solve:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/{solver}/{family}/{scene}.parquet",
    params:
        name=lambda wc: solver_specs(config)[wc.solver].name,
        options=lambda wc: options_json(config, wc.solver),
        repeats=lambda wc: solver_run_setting(config, wc.solver, "repeats", 1),
        seed=config["run"].get("seed", 0),
        time_limit=lambda wc: solver_run_setting(config, wc.solver, "time_limit", 60),
        max_qubits=lambda wc: solver_max_qubits(config, wc.solver),
    threads: lambda wc: solver_resource(config, wc.solver, "threads")
    resources:
        mem_mb=lambda wc: solver_resource(config, wc.solver, "mem_mb"),
        runtime=lambda wc: solver_resource(config, wc.solver, "runtime"),
    log:
        "logs/solve/{solver}/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench --threads {threads} solve --solver {params.name} --label {wildcards.solver:q} --options {params.options:q}"
        " --dataset datasets/{wildcards.family}/{wildcards.scene} --out {output}"
        " --repeats {params.repeats} --seed {params.seed} --time-limit {params.time_limit} {params.max_qubits}"
        " > {log} 2>&1"
