"""workflows/config/schema.yaml's family sections are generated from the families' options records."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from qlsbench.errors import ConfigError, InputError
from qlsbench.families import families
from qlsbench.families.config_schema import schema_text
from qlsbench.workflow import SCHEMA

REPO = Path(__file__).resolve().parents[1]


def test_the_committed_schema_is_what_the_records_give():
    committed = (REPO / SCHEMA).read_text(encoding="utf-8")
    assert committed == schema_text(committed, families(plugins=False).values()), (
        "workflows/config/schema.yaml's family sections differ from the options records: run "
        "`qlsbench check-config --write-schema`")


def test_every_family_section_lists_exactly_the_options_a_config_may_give():
    schema = yaml.safe_load((REPO / SCHEMA).read_text())
    for family in families(plugins=False).values():
        section = schema["properties"][family.config_key]
        entry = section["items"] if section["type"] == "array" else section
        given = {name for name, (spec, _) in family.options.specs().items() if spec.in_config}
        if family.runs is not None and section["type"] == "object":  # ising: kappas for kappa
            given = given - {"kappa"} | {"kappas"}
        assert set(entry["properties"]) == given, family.name
    assert "snapshots" not in schema["properties"]["simulate"]["items"]["properties"], "outputs are the rule's"


def test_bounds_and_choices_come_from_the_records():
    from qlsbench.families.spheres import SphereOptions

    schema = yaml.safe_load((REPO / SCHEMA).read_text())
    simulate = schema["properties"]["simulate"]["items"]["properties"]
    spec, default = SphereOptions.specs()["packing"]
    assert simulate["packing"]["exclusiveMaximum"] == spec.bounds.high
    assert f"(default {default:g})" in simulate["packing"]["description"]
    assert simulate["lcp_chain"]["enum"] == list(SphereOptions.specs()["lcp_chain"][0].choices)


def test_markers_are_required():
    with pytest.raises(ConfigError, match="schema.yaml: the lines"):
        schema_text("properties:\n  run: {}\n", families(plugins=False).values(), "schema.yaml")


def test_old_in_loop_names_are_read_from_files_and_named_in_configs():
    from qlsbench.bench.in_loop import InLoopOptions, file_options

    old = {"family": "dem_c", "scene_seed": 3, "newton_start": "previous", "steps": 5}
    assert InLoopOptions(**file_options(old)) == InLoopOptions(family="dem_c", seed=3, steps=5)
    with pytest.raises(InputError, match="in_loop\\[0\\]: scene_seed is now called seed"):
        InLoopOptions.from_mapping({"scene_seed": 1}, "in_loop[0]")
