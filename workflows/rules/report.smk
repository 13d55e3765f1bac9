rule leaderboard:
    input:
        expand("results/{solver}/{dataset}.parquet", solver=SOLVERS, dataset=DATASETS),
    output:
        md="results/leaderboard.md",
        csv="results/leaderboard.csv",
    params:
        fidelity=config["leaderboard"].get("fidelity", 0.99),
        residual=config["leaderboard"].get("residual", 1e-6),
        shift=config["leaderboard"].get("shift", 10),
    log:
        "logs/leaderboard.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench leaderboard {input} --md {output.md} --csv {output.csv}"
        " --fidelity {params.fidelity} --residual {params.residual} --shift {params.shift} > {log} 2>&1"
