# A solver's work on one dataset is one job, or `shards` jobs (its config entry), each solving its share of the
# systems (largest first, dealt round-robin), merged into one results file in the order an unsharded run writes.

# The runner's command, shared by the whole and the sharded solve.
SOLVE = (
    "python -m qlsbench --threads {threads} solve --solver {params.name} --label {wildcards.solver:q}"
    " --options {params.options:q} --dataset {input} --out {output} {params.shard}"
    " --repeats {params.repeats} --seed {params.seed} --time-limit {params.time_limit} {params.max_qubits}"
    " > {log} 2>&1"
)


rule solve:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/{solver}/{family}/{scene}.parquet",
    wildcard_constraints:
        solver=solver_label_pattern(config, sharded=False),
    params:
        name=lambda wc: solver_specs(config)[wc.solver].name,
        options=lambda wc: options_json(config, wc.solver),
        repeats=lambda wc: solver_run_setting(config, wc.solver, "repeats"),
        seed=config["run"].get("seed", 0),
        time_limit=lambda wc: solver_run_setting(config, wc.solver, "time_limit"),
        max_qubits=lambda wc: solver_max_qubits(config, wc.solver),
        shard="",
    threads: lambda wc: solver_resource(config, wc.solver, "threads")
    resources:
        mem_mb=lambda wc: solver_resource(config, wc.solver, "mem_mb"),
        runtime=lambda wc, attempt: solve_runtime(config, wc.solver, f"{wc.family}/{wc.scene}", 1, attempt),
    log:
        "logs/solve/{solver}/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        SOLVE


rule solve_shard:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/shards/{solver}/{family}/{scene}/{shard}-of-{shards}.parquet",
    wildcard_constraints:
        solver=solver_label_pattern(config, sharded=True),
    params:
        name=lambda wc: solver_specs(config)[wc.solver].name,
        options=lambda wc: options_json(config, wc.solver),
        repeats=lambda wc: solver_run_setting(config, wc.solver, "repeats"),
        seed=config["run"].get("seed", 0),
        time_limit=lambda wc: solver_run_setting(config, wc.solver, "time_limit"),
        max_qubits=lambda wc: solver_max_qubits(config, wc.solver),
        shard=lambda wc: f"--shard {wc.shard}/{wc.shards}",
    threads: lambda wc: solver_resource(config, wc.solver, "threads")
    resources:
        mem_mb=lambda wc: solver_resource(config, wc.solver, "mem_mb"),
        runtime=lambda wc, attempt: solve_runtime(config, wc.solver, f"{wc.family}/{wc.scene}", int(wc.shards),
                                                  attempt),
    log:
        "logs/solve/{solver}/{family}/{scene}/{shard}-of-{shards}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        SOLVE


rule merge_solve:
    input:
        shards=lambda wc: shard_files(config, wc.solver, f"{wc.family}/{wc.scene}"),
        dataset="datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/{solver}/{family}/{scene}.parquet",
    wildcard_constraints:
        solver=solver_label_pattern(config, sharded=True),
    threads: rule_threads(config, "merge_solve")
    resources:
        **rule_resources(config, "merge_solve"),
    log:
        "logs/merge_solve/{solver}/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench merge {input.shards} --dataset {input.dataset} --out {output} > {log} 2>&1"
