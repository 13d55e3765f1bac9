# The circuit solvers on a device's noise (solver entries with `backend: device`; none by default): the page.
rule noisy_page:
    input:
        noisy_results(config),
    output:
        "results/noisy.md",
    threads: rule_threads(config, "noisy_page")
    resources:
        **rule_resources(config, "noisy_page"),
    log:
        "logs/noisy_page.log",
    conda:
        "../envs/qlsbench.yaml"
    shell:
        "python -m qlsbench figure noisy {input} --out {output} > {log} 2>&1"
