rule snapshot_figure:
    input:
        "results/snapshots/{label}.parquet",
    output:
        report("results/figures/snapshots_{label}.png", caption="../report/snapshots.rst", category="Physics (fig. 3)"),
    threads: rule_threads(config, "snapshot_figure")
    resources:
        **rule_resources(config, "snapshot_figure"),
    log:
        "logs/snapshot_figure/{label}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure snapshots {input} --out {output} > {log} 2>&1"


rule kappa_figure:
    input:
        expand("datasets/dem_c/{label}/part-0000.parquet", label=DEM_LABELS),
    output:
        report("results/figures/kappa_time.png", caption="../report/kappa_time.rst", category="Physics (fig. 3)"),
    threads: rule_threads(config, "kappa_figure")
    resources:
        **rule_resources(config, "kappa_figure"),
    log:
        "logs/kappa_figure.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure kappa-time {input} --out {output} > {log} 2>&1"


rule truncation:
    input:
        "datasets/{family}/{scene}/part-0000.parquet",
    output:
        "results/truncation/{family}/{scene}.parquet",
    params:
        tols=" ".join(str(t) for t in config.get("truncation", {}).get("tols", [0.0, 1e-6, 1e-3])),
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


rule truncation_figure:
    input:
        expand("results/truncation/{dataset}.parquet", dataset=PAULI_FIGURE_DATASETS),
    output:
        report("results/figures/truncation.png", caption="../report/truncation.rst", category="Pauli terms (fig. 5)"),
    threads: rule_threads(config, "truncation_figure")
    resources:
        **rule_resources(config, "truncation_figure"),
    log:
        "logs/truncation_figure.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure truncation {input} --out {output} > {log} 2>&1"


rule checkpoint_table:
    input:
        results="results/{solver}/dem_c_checkpoints/{scene}.parquet",
        dataset="datasets/dem_c_checkpoints/{scene}/part-0000.parquet",
    output:
        html=report("results/tables/{solver}-checkpoints-{scene}.html", caption="../report/checkpoint_table.rst",
                    category="Loss curves (fig. 2, fig. 4)"),
        md="results/tables/{solver}-checkpoints-{scene}.md",
    threads: rule_threads(config, "checkpoint_table")
    resources:
        **rule_resources(config, "checkpoint_table"),
    log:
        "logs/checkpoint_table/{solver}-{scene}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure checkpoint-table {input.results} --dataset {input.dataset} --out {output.html} {output.md}"
        " > {log} 2>&1"
