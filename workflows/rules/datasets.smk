# One rule per dataset family (qlsbench.families.FAMILIES, plug-ins included), made from its record: the rule's
# name, resources, inputs and outputs are the family's `rule` (qlsbench.families.base.Rule). Each job runs the
# family's command with the options its config entry gives (family_args), so the options record supplies every
# default; a new family needs nothing here.


for _family in dataset_families():

    rule:
        name:
            _family.rule.name
        input:
            **family_rule_inputs(_family),
        output:
            dataset=_family.dataset_path("{label}"),
            **family_rule_outputs(_family),
        wildcard_constraints:
            label="[^/]+",
        params:
            # the command as a parameter: a shell string is read when the job runs, after the loop has moved on
            command=_family.command,
            args=family_rule_args(config, _family),
            out=family_rule_out(_family),
        priority: _family.rule.priority
        threads: rule_threads(config, _family.rule.name)
        resources:
            **rule_resources(config, _family.rule.name),
        log:
            f"logs/{_family.rule.name}/{{label}}.log",
        conda:
            "../envs/qlsbench.yaml"
        shell:
            "python -m qlsbench {params.command} {params.args} --out {params.out} --quiet > {log} 2>&1"
