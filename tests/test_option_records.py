"""Every registered options record takes a good value or refuses a bad one in one line, at once.

A property over drawn values (hypothesis): text, NaN, infinities, zero, negatives, huge numbers, booleans,
``None`` and containers, given to one option at a time of every built-in solver (its record in
:mod:`qlsbench.solvers.options`) and of every dataset family (its record, filled from the default workflow's
entry) and of every figure. Building either succeeds or raises :class:`~qlsbench.errors.InputError` whose one line
names the
option; nothing else escapes, and nothing takes long (each build is checked before any work starts).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solver_setups import REQUIRED

from qlsbench.errors import InputError
from qlsbench.families import FAMILIES
from qlsbench.solvers import registry
from qlsbench.solvers.registry import BUILTINS
from qlsbench.workflow import dataset_runs

REPO = Path(__file__).resolve().parents[1]
DEFAULT = yaml.safe_load((REPO / "workflows" / "config" / "default.yaml").read_text())

VALUES = st.one_of(
    st.sampled_from(
        [
            math.nan,
            math.inf,
            -math.inf,
            0,
            0.0,
            -1,
            -2.5,
            10**12,
            1e300,
            -(10**12),
            True,
            False,
            None,
            "",
            "four",
            "1e-3",
            [],
            {},
            [1, 2],
        ]
    ),
    st.integers(min_value=-(10**15), max_value=10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
#: Each draw builds one record: milliseconds. A deadline far above that still catches a hang.
QUICK = settings(max_examples=25, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])

SOLVER_OPTIONS = [
    (name, f.name)
    for name, builtin in BUILTINS.items()
    if builtin.options is not None
    for f in dataclasses.fields(builtin.options)
]
FAMILY_OPTIONS = [
    (family.name, key)
    for family in FAMILIES.values()
    for key in family.options.specs()
    if any(f.name == family.name for f, _ in dataset_runs(DEFAULT).values())
]


@pytest.fixture(scope="module", autouse=True)
def imported():
    """Every solver built once with its defaults, so a draw's time is the check's, not an import's."""
    for name in BUILTINS:
        registry.get(name, **REQUIRED.get(name, {}))


@pytest.mark.parametrize("name, option", SOLVER_OPTIONS)
@QUICK
@given(value=VALUES)
def test_every_solver_option_takes_a_good_value_or_refuses_it_in_one_line(name, option, value):
    try:
        registry.get(name, **{**REQUIRED.get(name, {}), option: value})
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and option in text, text


def _entry(family_name: str) -> dict:
    """The default workflow's first entry of the family, as every field of its options record."""
    options = next(o for f, o in dataset_runs(DEFAULT).values() if f.name == family_name)
    return {key: getattr(options, key) for key in options.specs()}


@pytest.mark.parametrize("family, option", FAMILY_OPTIONS)
@QUICK
@given(value=VALUES)
def test_every_family_option_takes_a_good_value_or_refuses_it_in_one_line(family, option, value):
    record = FAMILIES[family].options
    try:
        record.from_mapping({**_entry(family), option: value}, f"{family}[0]")
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and text.startswith(f"{family}[0]: "), text


def _figure_options():
    from qlsbench.report import FIGURES

    out = []
    for figure in FIGURES.values():
        specs = figure.options.specs() if figure.options is not None else {}
        required = [key for key, (_, default) in specs.items() if default is dataclasses.MISSING]
        out += [(figure.name, key) for key in specs if not required]  # every field has a default to start from
    return out


@pytest.mark.parametrize("figure, option", _figure_options())
@QUICK
@given(value=VALUES)
def test_every_figure_option_takes_a_good_value_or_refuses_it_in_one_line(figure, option, value):
    from qlsbench.report import FIGURES

    try:
        FIGURES[figure].options.from_mapping({option: value}, figure)
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and text.startswith(f"{figure}: "), text


def test_the_records_choices_are_the_backends_that_exist():
    from qlsbench.solvers.hhl import BACKENDS as HHL
    from qlsbench.solvers.options import HHL_BACKENDS, VQLS_BACKENDS, VQLS_OPTIMIZERS
    from qlsbench.solvers.vqls.backends import BACKENDS as VQLS
    from qlsbench.solvers.vqls.optimizers import OPTIMIZERS

    assert set(HHL_BACKENDS) == set(HHL) and set(VQLS_BACKENDS) == set(VQLS)
    assert set(VQLS_OPTIMIZERS) == {"auto", *OPTIMIZERS}


def test_every_numeric_solver_option_is_bounded():
    """An option that is a number says its range in its record: no count or tolerance is left unchecked."""
    from qlsbench.options import SPEC

    loose = [
        f"{name}.{f.name}"
        for name, builtin in BUILTINS.items()
        if builtin.options is not None
        for f in dataclasses.fields(builtin.options)
        if str(f.type).split(" |")[0] in ("int", "float") and f.metadata[SPEC].bounds is None
    ]
    assert not loose, loose


def _scene_parameters():
    import inspect

    from qlsbench.physics.penalty.scenes import PENALTY_SCENES

    return [
        (scene, name)
        for scene, (builder, _) in PENALTY_SCENES.items()
        for name in inspect.signature(builder).parameters
    ]


@pytest.mark.parametrize("scene, parameter", _scene_parameters())
@settings(max_examples=15, deadline=20_000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES)
def test_every_penalty_scene_parameter_takes_a_good_value_or_refuses_it_in_one_line(scene, parameter, value):
    """A scene's parameters (`--param KEY=VALUE`, a config's params) are checked by its builder before any set-up:
    one line naming the parameter, or a scene built within the deadline (grids are capped at 64 per side)."""
    from qlsbench.physics.penalty import build_penalty_scene

    try:
        build_penalty_scene(scene, **{parameter: value})
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and parameter in text, text


def _cd_scene_parameters():
    import inspect

    from qlsbench.physics.cdlagrange import CD_SCENES

    return [(scene, name) for scene, builder in CD_SCENES.items() for name in inspect.signature(builder).parameters]


@pytest.mark.parametrize("scene, parameter", _cd_scene_parameters())
@QUICK
@given(value=VALUES)
def test_every_cd_lagrange_scene_parameter_takes_a_good_value_or_refuses_it_in_one_line(scene, parameter, value):
    """The trajectory scenes' parameters (`qlsbench trajectory --param`): checked before anything is built."""
    from qlsbench.physics.cdlagrange import run_scene

    try:
        run_scene(scene, 3, **{parameter: value})
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and parameter in text, text
