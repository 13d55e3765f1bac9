"""workflows/config/schema.yaml's family sections are generated from the families' options records, and its in-loop
entries' options from the in-loop record made from them."""

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
        "`qlsbench check-config --write-schema`"
    )


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


def test_the_committed_schema_is_what_the_records_give_in_loop_options_included():
    from qlsbench.workflow import schema_text as generated

    committed = (REPO / SCHEMA).read_text(encoding="utf-8")
    assert committed == generated(REPO / SCHEMA, plugins=False), (
        "workflows/config/schema.yaml differs from the options records: run `qlsbench check-config --write-schema`"
    )


def test_an_in_loop_entry_takes_its_hand_described_keys_and_every_in_loop_option():
    from qlsbench.bench.in_loop import InLoopOptions
    from qlsbench.workflow import IN_LOOP_KEYS

    entry = yaml.safe_load((REPO / SCHEMA).read_text())["properties"]["in_loop"]["items"]
    fields = [name for name, (spec, _) in InLoopOptions.specs().items() if spec.in_config]
    keys = list(entry["properties"])
    assert set(keys[: len(IN_LOOP_KEYS)]) == set(IN_LOOP_KEYS), "described by hand, before the generated options"
    assert keys[len(IN_LOOP_KEYS) :] == fields
    assert not set(IN_LOOP_KEYS) & set(fields), "a hand-described key would hide a field"


def test_in_loop_bounds_and_choices_come_from_the_records():
    from qlsbench.bench.in_loop import LOOP_FAMILIES, WARM_STARTS, InLoopOptions

    properties = yaml.safe_load((REPO / SCHEMA).read_text())["properties"]["in_loop"]["items"]["properties"]
    assert properties["family"]["enum"] == list(LOOP_FAMILIES)
    assert properties["warm_start"]["enum"] == list(WARM_STARTS)
    spec, default = InLoopOptions.specs()["position_tol"]
    assert properties["position_tol"]["exclusiveMinimum"] == spec.bounds.low
    assert f"(default {default:g})" in properties["position_tol"]["description"]
    assert properties["n_spheres"]["description"].endswith(f"(default {InLoopOptions().n_spheres})"), (
        "the loop's own default, not the dataset's"
    )


@pytest.mark.parametrize(
    ("entry", "refused"),
    [
        ({"family": "penalty", "scene": "incline-block", "steps": 4}, None),
        ({"scene": None, "newton_max_iter": None}, None),  # null: the record's "the family's own"
        ({"family": "ising"}, "'ising' is not one of"),  # a family without a loop
        ({"scene": "avalanche"}, "'avalanche' is not one of"),  # no loop family's scene (the record's choices)
        ({"warm_start": "maybe"}, "'maybe' is not one of"),
        ({"position_tol": 0}, "less than or equal to the minimum"),
        ({"shift": 1.0}, "'shift' was unexpected"),
    ],
)
def test_the_schema_reads_an_in_loop_entry_as_its_record_does(entry, refused):
    import jsonschema

    from qlsbench.bench.in_loop import InLoopOptions

    section = yaml.safe_load((REPO / SCHEMA).read_text())["properties"]["in_loop"]
    errors = [
        e.message
        for e in jsonschema.Draft202012Validator(section).iter_errors([{"name": "run", "solver": "lu", **entry}])
    ]
    if refused is None:
        assert errors == []
        InLoopOptions.from_mapping(entry)  # the record takes it too
    else:
        assert len(errors) == 1 and refused in errors[0], errors


def test_markers_are_required():
    with pytest.raises(ConfigError, match="schema.yaml: the lines"):
        schema_text("properties:\n  run: {}\n", families(plugins=False).values(), "schema.yaml")


def test_the_in_loop_markers_are_required(tmp_path):
    from qlsbench.workflow import IN_LOOP_BEGIN
    from qlsbench.workflow import schema_text as generated

    text = (REPO / SCHEMA).read_text(encoding="utf-8").replace(IN_LOOP_BEGIN + "\n", "")
    (tmp_path / "schema.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="schema.yaml: the lines .* around the in-loop options"):
        generated(tmp_path / "schema.yaml")


def test_old_in_loop_names_are_read_from_files_and_named_in_configs():
    from qlsbench.bench.in_loop import InLoopOptions, file_options

    old = {"family": "dem_c", "scene_seed": 3, "newton_start": "previous", "steps": 5}
    assert InLoopOptions(**file_options(old)) == InLoopOptions(family="dem_c", seed=3, steps=5)
    with pytest.raises(InputError, match="in_loop\\[0\\]: scene_seed is now called seed"):
        InLoopOptions.from_mapping({"scene_seed": 1}, "in_loop[0]")
