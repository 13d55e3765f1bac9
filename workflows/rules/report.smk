rule leaderboard:
    input:
        solver_results(config),
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


rule loss_figure:
    input:
        loss_figure_inputs(config),
    output:
        "results/figures/loss_curves.png",
    params:
        solvers=" ".join(config["loss_figure"]["solvers"]),
        n_qubits=" ".join(str(n) for n in config["loss_figure"]["n_qubits"]),
    log:
        "logs/loss_figure.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench loss-figure {input} --solvers {params.solvers} --n-qubits {params.n_qubits}"
        " --out {output} > {log} 2>&1"
