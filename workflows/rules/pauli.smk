from qlsbench.pauli import LCU_TOLS


rule pauli:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/pauli/{family}/{scene}.parquet",
    params:
        tols=" ".join(str(t) for t in config["pauli"]["tols"]),
        reorder="--reorder" if config["pauli"].get("reorder", False) else "",
    threads: rule_threads(config, "pauli")
    resources:
        **rule_resources(config, "pauli"),
    log:
        "logs/pauli/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench --threads {threads} pauli {input}"
        " --tol {params.tols} {params.reorder} --out {output} --quiet > {log} 2>&1"


# The quantum form of every system (HamLib-style): term counts at 0 / 1e-6 / 1e-3, the LCU 1-norm, every term.
rule lcu:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/lcu/{family}/{scene}.parquet",
    params:
        terms="--terms" if config["pauli"].get("lcu_terms", True) else "",
    threads: rule_threads(config, "lcu")
    resources:
        **rule_resources(config, "lcu"),
    log:
        "logs/lcu/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench --threads {threads} lcu {input} {params.terms} --out {output} --quiet > {log} 2>&1"


# What a fault-tolerant solver would cost on each system (no simulation): block encoding, QSVT and discrete-adiabatic
# query counts from the LCU form, at the truncation tolerances of the LCU table (qlsbench.pauli._estimates).
rule resources:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/resources/{family}/{scene}.parquet",
    threads: rule_threads(config, "resources")
    resources:
        **rule_resources(config, "resources"),
    log:
        "logs/resources/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench --threads {threads} resources {input} --out {output} --quiet > {log} 2>&1"


rule truncation:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/truncation/{family}/{scene}.parquet",
    params:
        tols=" ".join(str(t) for t in config.get("truncation", {}).get("tols", LCU_TOLS)),
    threads: rule_threads(config, "truncation")
    resources:
        **rule_resources(config, "truncation"),
    log:
        "logs/truncation/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench --threads {threads} pauli {input}"
        " --tol {params.tols} --out {output} --quiet > {log} 2>&1"
