"""The options of a run with a solver in the loop: the loop's own, and the scene's, taken from the families.

A family that can run a solver inside its loop says which of its options the loop takes
(:class:`~qlsbench.families.base.LoopWorld`); :data:`InLoopOptions` is made from those fields of the families'
options records (help, bounds and choices as the family declares them; the loop's shorter defaults) and from
:class:`LoopOptions`, so a scene option is declared once, with its family. A field the chosen family does not
take must keep its default.

Results files written before the scene options came from the families name two of them otherwise:
``scene_seed`` (now the spheres' ``seed``) and ``newton_start: previous`` (now ``warm``); :func:`file_options`
reads them, and a config or mapping that still says ``scene_seed`` is refused with the new name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qlsbench.checks import COUNT, POSITIVE, TIME_LIMIT, Whole
from qlsbench.errors import InputError
from qlsbench.options import SPEC, Options, OptionSpec, option

#: Share of a run's steps the stepper's fallback may finish while the run still carries the simulation (the in-loop
#: verdict protocol, issues 50 and 64): 5 % is one step in twenty, below the 20-50 % of penalty steps and half the
#: 16-sphere steps the oracle at fidelity 0 leaves to the fallback.
FALLBACK_BOUND = 0.05
#: ``warm_start`` values.
WARM_STARTS = ("off", "on", "converged")
#: Option names of results files and configs from before the scene options came from the families: old to new.
RENAMED = {"scene_seed": "seed"}
#: Values of results files from then: option to ``{old: new}``.
RENAMED_VALUES = {"newton_start": {"previous": "warm"}}


@dataclass(frozen=True)
class LoopOptions(Options):
    """What the loop itself takes, whatever the simulation: Newton's cap, the fallbacks, the tolerance and the
    solver's limits."""

    newton_max_iter: int | None = option(
        None,
        "Newton iteration cap per step (default: the stepper's, 100 for "
        "spheres, 50 for penalty): a small cap asks how far a solver's "
        "directions carry a step, not only whether Newton converges in the end",
        bounds=COUNT,
    )
    fallbacks: str = option(
        "on",
        "on: the stepper's LCP fallbacks (Lemke, the proximal method) finish a step "
        "Newton leaves unconverged; off: the step keeps Newton's last iterate, so a capped "
        "Newton shows what the solver's directions alone give",
        choices=("on", "off"),
    )
    position_tol: float = option(
        1e-3, "position error (m) beyond which the run has left the reference", bounds=POSITIVE
    )
    time_limit: float | None = option(None, "seconds one linear solve may take", bounds=TIME_LIMIT)
    warm_start: str = option(
        "off",
        "on: each solve starts from the previous one's state (Krylov: its solution as "
        "x0; VQLS: its angles; VNLS: its network weights) where the solver can and the "
        "state fits; converged: from the last solve that converged, so a failed solve's "
        "state is not handed on",
        choices=WARM_STARTS,
    )
    start_step: int = option(
        0,
        "exact steps the simulation takes before the solver comes in: both runs start from the "
        "reference's state after them, the run's steps follow (fig. 4's systems come thousands of "
        "steps into the sedimentation)",
        bounds=Whole(0, 10**7),
    )
    stop_when_decided: str = option(
        "off",
        "on: end a run once it can no longer carry the simulation (its fallback steps past the protocol's "
        "share of its steps, or past the position tolerance): its accuracy verdict is decided, and the rest "
        "would cost hours where each step runs Newton to its cap; off: run every step",
        choices=("on", "off"),
    )
    iteration_budget: int | None = option(
        None,
        "solver iterations (SR steps, optimiser iterations) the run's solves "
        "may use in all; past it the run ends with status budget. Counted, not "
        "timed, so a run ends at the same step on any machine",
        bounds=COUNT,
    )


def loop_families(plugins: bool = True) -> dict[str, Any]:
    """The families a solver can be put inside (those with a ``loop``), in table order; with ``plugins``, those
    registered by other packages too (:func:`qlsbench.families.families`)."""
    from qlsbench.families import families

    return {name: family for name, family in families(plugins).items() if family.loop is not None}


def _scene_fields(loops: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The scene options of every loop family, each once (in order of first appearance), from its family's record:
    the first family's spec with every taker's choices joined, the loop's default, nullable where that is None.

    Each is ``(name, annotation, field)`` as :func:`dataclasses.make_dataclass` takes it."""
    found: dict[str, tuple[Any, OptionSpec, Any]] = {}  # name: (annotation, spec, the loop's default)
    for family in loops.values():
        fields = {f.name: f for f in dataclasses.fields(family.options)}
        for name in family.loop.fields:
            if name not in fields or SPEC not in fields[name].metadata:
                raise ValueError(
                    f"family {family.name}: its loop takes {name!r}, not an option of {family.options.__name__}"
                )
            spec, default = family.options.specs()[name]
            default = family.loop.defaults.get(name, default)
            if name not in found:
                found[name] = (fields[name].type, spec, default)
                continue
            annotation, first, held = found[name]
            if held != default:
                raise ValueError(
                    f"family {family.name}: its loop's default of {name} is {default!r}, another "
                    f"family's is {held!r}: one option has one default"
                )
            if first.choices is not None and spec.choices is not None:
                first = dataclasses.replace(first, choices=tuple(dict.fromkeys((*first.choices, *spec.choices))))
            found[name] = (annotation, first, held)
    out = []
    for name, (annotation, spec, default) in found.items():
        if default is None:
            spec = dataclasses.replace(spec, nullable=True)
            annotation = annotation if str(annotation).endswith("None") else f"{annotation} | None"
        meta = {SPEC: spec}
        value = (
            dataclasses.field(default_factory=_copies(default), metadata=meta)
            if isinstance(default, (dict, list))
            else dataclasses.field(default=default, metadata=meta)
        )
        out.append((name, annotation, value))
    return out


def _copies(default: dict | list) -> Callable[[], dict | list]:
    """A default factory giving each record its own copy of ``default`` (a mutable default is never shared)."""
    return lambda: type(default)(default)


def _check(self) -> None:
    """A scene option the chosen family's loop does not take keeps its default."""
    loops = loop_families()
    taken = set(loops[self.family].loop.fields)
    defaults = {name: default for name, (_, default) in type(self).specs().items()}
    own = {f.name for f in dataclasses.fields(LoopOptions)} | {"family"}
    foreign = [
        name for name in defaults if name not in own and name not in taken and getattr(self, name) != defaults[name]
    ]
    if foreign:
        specs = type(self).specs()
        flags = ", ".join(specs[name][0].spelling(name) for name in foreign)
        takes = ", ".join(specs[name][0].spelling(name) for name in loops[self.family].loop.fields)
        raise InputError(f"{flags}: not an option of the {self.family} loop (it takes {takes})")


def _from_mapping(cls: type[Options], values: dict[str, Any], where: str = "") -> Options:
    """:meth:`Options.from_mapping`, refusing the options' old names (:data:`RENAMED`) with the new ones."""
    renamed = sorted(set(values) & set(RENAMED))
    if renamed:
        prefix = f"{where}: " if where else ""
        raise InputError(
            f"{prefix}{', '.join(renamed)} is now called "
            f"{', '.join(RENAMED[k] for k in renamed)} (the family's own option)"
        )
    return Options.__dict__["from_mapping"].__func__(cls, values, where)  # the base's, with this class as cls


def _make(plugins: bool = True) -> type[Options]:
    """:data:`InLoopOptions`: ``family``, the loop families' scene options, then :class:`LoopOptions`'s; with
    ``plugins``, the loop families other packages register too."""
    loops = loop_families(plugins)
    if not loops:
        raise ValueError("no dataset family has a loop")
    names = ", ".join(loops)
    family = ("family", "str", option(next(iter(loops)), f"simulation family: {names}", choices=tuple(loops)))
    own = [(f.name, f.type, f) for f in dataclasses.fields(LoopOptions)]
    record = dataclasses.make_dataclass(
        "InLoopOptions",
        [family, *_scene_fields(loops), *own],
        bases=(Options,),
        frozen=True,
        namespace={
            "check": _check,
            "from_mapping": classmethod(_from_mapping),
            "__doc__": "A simulation to run with a solver in its loop, and what counts as leaving the "
            "reference trajectory: the loop's options (:class:`LoopOptions`) and the scene's, "
            "from the families (the module's docstring).",
        },
    )
    record.__module__ = __name__
    return record


if TYPE_CHECKING:

    class InLoopOptions(LoopOptions):
        """What a type checker knows of the record :func:`_make` makes: the loop's options, and the family and
        steps every loop family's scene has (its other scene options depend on the families installed)."""

        family: str
        steps: int
else:
    #: The in-loop options record, made from the families' (:func:`_make`) once, when this module is first imported.
    InLoopOptions = _make()
#: Simulation families a solver can be put inside.
LOOP_FAMILIES = tuple(loop_families())


def in_loop_options(plugins: bool = True) -> type[Options]:
    """The in-loop options record: :data:`InLoopOptions` (every loop family's scene options, plug-ins included),
    or without ``plugins`` one made from the built-in families alone (what the committed config schema gives)."""
    return InLoopOptions if plugins else _make(plugins=False)


def file_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options a results file records, under today's names (:data:`RENAMED`, :data:`RENAMED_VALUES`)."""
    out = {RENAMED.get(k, k): v for k, v in options.items()}
    for key, values in RENAMED_VALUES.items():
        if out.get(key) in values:
            out[key] = values[out[key]]
    return out


__all__ = [
    "InLoopOptions",
    "LOOP_FAMILIES",
    "LoopOptions",
    "RENAMED",
    "WARM_STARTS",
    "file_options",
    "in_loop_options",
    "loop_families",
]
