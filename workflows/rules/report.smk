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
        lambda wc: loss_figure_inputs(config, wc.figure),
    output:
        "results/figures/{figure}.png",
    wildcard_constraints:
        figure="|".join(re.escape(name) for name in loss_figures(config)) or "(?!)",
    params:
        solvers=lambda wc: " ".join(loss_figures(config)[wc.figure]["solvers"]),
        n_qubits=lambda wc: " ".join(["--n-qubits"] + [str(n) for n in loss_figures(config)[wc.figure]["n_qubits"]])
        if loss_figures(config)[wc.figure].get("n_qubits")
        else "",
    log:
        "logs/loss_figure/{figure}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "qlsbench loss-figure {input} --solvers {params.solvers} {params.n_qubits} --out {output} > {log} 2>&1"
