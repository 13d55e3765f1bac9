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
