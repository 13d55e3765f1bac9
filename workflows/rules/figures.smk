# Every figure and table of the report that the workflow draws: one rule per figure record's Job
# (qlsbench.report.Job; figures that share a rule name share one rule, told apart by {figure}), made here in a
# loop. The record says the outputs, inputs, command words, log, caption and whether the job runs locally; a new
# figure, or one another package registers (entry point group qlsbench.figures), needs no rule of its own.


for _figure_rule in figure_rules():
    # the first output marked for `snakemake --report` with the record's caption, when it has one
    _unnamed, _named = _figure_rule.outputs(report)

    rule:
        name:
            _figure_rule.name
        input:
            unpack(lambda wildcards, r=_figure_rule: r.inputs(config, wildcards)),
        output:
            *_unnamed,
            **_named,
        wildcard_constraints:
            **_figure_rule.wildcard_constraints(config),
        params:
            command=lambda wildcards, input, output, r=_figure_rule: r.command(config, wildcards, input, output),
        localrule: _figure_rule.job.local
        threads: rule_threads(config, _figure_rule.name)
        resources:
            **rule_resources(config, _figure_rule.name),
        log:
            _figure_rule.job.log,
        conda:
            "../envs/qlsbench.yaml"
        shell:
            "python -m qlsbench figure {params.command} > {log} 2>&1"
