rule leaderboard:
    input:
        results=solver_results(config),
        estimates=expand("results/resources/{dataset}.parquet", dataset=DATASETS),
    output:
        md="results/leaderboard.md",
        csv="results/leaderboard.csv",
        html=report("results/leaderboard.html", caption="../report/leaderboard.rst", category="Leaderboard"),
        # the page's downloads (its rows and systems as CSV and Parquet), written beside it
        data=directory("results/leaderboard-data"),
    params:
        tolerances=leaderboard_args(config),
        # a configuration without datasets of linear systems has no estimates to add (and an empty list would not parse)
        estimates=lambda wildcards, input: f"--estimates {' '.join(input.estimates)}" if input.estimates else "",
    threads: rule_threads(config, "leaderboard")
    resources:
        **rule_resources(config, "leaderboard"),
    log:
        "logs/leaderboard.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench leaderboard {input.results} --md {output.md} --csv {output.csv} --html {output.html}"
        " {params.estimates}"
        " {params.tolerances} > {log} 2>&1"


rule loss_figure:
    input:
        lambda wc: loss_figure_inputs(config, wc.figure),
    output:
        report("results/figures/{figure}.png", caption="../report/loss_curves.rst", category="Loss curves (fig. 2, fig. 4)"),
    wildcard_constraints:
        figure="|".join(re.escape(name) for name in loss_figures(config)) or "(?!)",
    params:
        solvers=lambda wc: " ".join(loss_figures(config)[wc.figure]["solvers"]),
        n_qubits=lambda wc: " ".join(["--n-qubits"] + [str(n) for n in loss_figures(config)[wc.figure]["n_qubits"]])
        if loss_figures(config)[wc.figure].get("n_qubits")
        else "",
    threads: rule_threads(config, "loss_figure")
    resources:
        **rule_resources(config, "loss_figure"),
    log:
        "logs/loss_figure/{figure}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure loss-curves {input} --solvers {params.solvers} {params.n_qubits} --out {output} > {log} 2>&1"


rule leaderboard_figure:
    input:
        solver_results(config),
    output:
        report("results/figures/{figure}.png", caption="../report/leaderboard_plots.rst", category="Leaderboard"),
    wildcard_constraints:
        figure="|".join(re.escape(name) for name in leaderboard_figures(config)),
    threads: rule_threads(config, "leaderboard_figure")
    resources:
        **rule_resources(config, "leaderboard_figure"),
    log:
        "logs/leaderboard_figure/{figure}.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure {wildcards.figure} {input} --out {output} > {log} 2>&1"
