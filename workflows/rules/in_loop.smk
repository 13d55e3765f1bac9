# Solvers inside the simulation loop (config `in_loop:`; none by default): one job per entry, or `shards` jobs (its
# entry), each running a contiguous range of its seeds, joined by `qlsbench in-loop-merge` in the order one job
# writes them (their page is the in-loop figure's: figures.smk).


rule in_loop:
    output:
        "results/in-loop/{name}.parquet",
    wildcard_constraints:
        name=in_loop_name_pattern(config, sharded=False),
    params:
        args=lambda wc: in_loop_args(config, wc.name),
    threads: lambda wc: in_loop_resource(config, wc.name, "threads")
    resources:
        mem_mb=lambda wc: in_loop_resource(config, wc.name, "mem_mb"),
        runtime=lambda wc: in_loop_resource(config, wc.name, "runtime"),
    log:
        "logs/in_loop/{name}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench in-loop {params.args} --out {output} --quiet > {log} 2>&1"


rule in_loop_shard:
    output:
        "results/in-loop/shards/{name}/{shard}-of-{shards}.parquet",
    wildcard_constraints:
        name=in_loop_name_pattern(config, sharded=True),
    params:
        args=lambda wc: in_loop_args(config, wc.name, shard=(int(wc.shard), int(wc.shards))),
    threads: lambda wc: in_loop_resource(config, wc.name, "threads")
    resources:
        mem_mb=lambda wc: in_loop_resource(config, wc.name, "mem_mb"),
        runtime=lambda wc: in_loop_resource(config, wc.name, "runtime"),
    log:
        "logs/in_loop/{name}/{shard}-of-{shards}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench in-loop {params.args} --out {output} --quiet > {log} 2>&1"


rule merge_in_loop:
    input:
        lambda wc: in_loop_shard_files(config, wc.name),
    output:
        "results/in-loop/{name}.parquet",
    wildcard_constraints:
        name=in_loop_name_pattern(config, sharded=True),
    threads: 1
    log:
        "logs/merge_in_loop/{name}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench in-loop-merge {input} --out {output} > {log} 2>&1"
