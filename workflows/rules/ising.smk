rule ising_dataset:
    output:
        "datasets/ising/kappa{kappa}/part-0000.parquet",
    params:
        n=" ".join(map(str, config["ising"]["n_qubits"])),
        J=config["ising"].get("J", 0.1),
    threads: rule_threads(config, "ising_dataset")
    resources:
        **rule_resources(config, "ising_dataset"),
    log:
        "logs/ising/kappa{kappa}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench ising --kappa {wildcards.kappa} --n {params.n} --J {params.J} --out {output} > {log} 2>&1"
