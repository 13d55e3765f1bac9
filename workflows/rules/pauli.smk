rule pauli:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/pauli/{family}/{scene}.parquet",
    params:
        tols=" ".join(str(t) for t in config["pauli"]["tols"]),
        reorder="--reorder" if config["pauli"].get("reorder", False) else "",
    log:
        "logs/pauli/{family}/{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench pauli datasets/{wildcards.family}/{wildcards.scene} --tol {params.tols} {params.reorder}"
        " --out {output} --quiet > {log} 2>&1"


rule pauli_figure:
    input:
        expand("results/pauli/{dataset}.parquet", dataset=PAULI_FIGURE_DATASETS),
    output:
        "results/figures/pauli_terms.png",
    log:
        "logs/pauli_figure.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench figure {input} --out {output} > {log} 2>&1"
