"""Options records: frozen dataclasses whose fields say their default, their bounds and their spelling.

A dataset family's options (:mod:`qlsbench.families`) and a figure's
(:mod:`qlsbench.report`) are such records. Each field carries its default
(written once, there), its bounds (:class:`~qlsbench.checks.Whole`,
:class:`~qlsbench.checks.Real`, or a set of choices) and how the command line
spells it. The same record is checked whether it comes from Python, from a
workflow config or from ``qlsbench <command> --flag value``, and the command
line is built from it (:mod:`qlsbench.cli.options`), so a new option is one
field.
"""

from __future__ import annotations

import builtins
import dataclasses
import numbers
import os
import re
import sys
import types
import typing
from dataclasses import dataclass
from typing import Any, Self

from qlsbench.checks import Real, Whole
from qlsbench.errors import InputError

#: ``metadata`` key of a dataclass field that holds its :class:`OptionSpec`.
SPEC = "qlsbench.option"


@dataclass(frozen=True)
class OptionSpec:
    """How one option is checked and spelt on the command line.

    Attributes
    ----------
    help : str
        One line for ``--help``.
    bounds : Whole, Real or None
        Checks a value (and parses command-line text) against its bounds.
    choices : tuple of str, optional
        The allowed values of a text option.
    flag : str, optional
        Command-line spelling (default ``--`` and the field name with ``-``).
    many : bool
        A list of values (``nargs="+"``).
    pairs : bool
        A mapping given as repeated ``KEY=VALUE`` (values read as YAML scalars).
    positional : bool
        A positional argument instead of a flag.
    path : str, optional
        ``"file"``, ``"folder"`` or ``"any"`` for an output path; ``"read"`` for an input path.
    cli : bool
        Whether the command line offers it at all.
    nullable : bool
        ``None`` is a value (the field's meaning of "not given").
    backends : tuple of str, optional
        The values of the record's ``backend`` field for which the option
        means anything; a value other than its default with another backend
        is refused (:func:`check_record`), never silently ignored.
    config : bool, optional
        Whether a workflow config entry may give it (its schema lists it:
        :mod:`qlsbench.families.config_schema`); default: when the command
        line takes it and it names no output (a job's outputs are its rule's).
    """

    help: str = ""
    bounds: Whole | Real | None = None
    choices: tuple[str, ...] | None = None
    flag: str | None = None
    many: bool = False
    pairs: bool = False
    positional: bool = False
    path: str | None = None
    cli: bool = True
    nullable: bool = False
    backends: tuple[str, ...] | None = None
    config: bool | None = None

    @property
    def in_config(self) -> bool:
        """Whether a workflow config entry may give it (:attr:`config`, or its default)."""
        if self.config is not None:
            return self.config
        return self.cli and self.path not in ("file", "folder", "any")

    def check(self, value: Any, name: str) -> Any:
        """The value in its canonical type (tuple for many, dict for pairs), or :class:`InputError`."""
        if value is None and self.nullable:
            return None
        if self.many:
            values = value if isinstance(value, (list, tuple)) else [value]
            if not values:
                raise InputError(f"{name} needs at least one value")
            return tuple(self._one(v, name) for v in values)
        if self.pairs:
            if not isinstance(value, dict):
                raise InputError(f"{name} must be a mapping of names to values, got {value!r}")
            return {str(k): value[k] for k in sorted(value)}
        return self._one(value, name)

    def _one(self, value: Any, name: str) -> Any:
        if self.bounds is not None:
            return self.bounds.check(value, name)
        if self.choices is not None and value not in self.choices:
            raise InputError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}")
        if self.path is not None:
            if not isinstance(value, (str, os.PathLike)):
                raise InputError(f"{name} must be a path, got {value!r}")
            return value
        return value

    def spelling(self, name: str) -> str:
        return self.flag or "--" + name.replace("_", "-")


def option(default: Any = dataclasses.MISSING, help: str = "", **spec: Any) -> Any:
    """A dataclass field of an options record: its default, and its :class:`OptionSpec` as keywords."""
    spec.setdefault("nullable", default is None)
    meta = {SPEC: OptionSpec(help=help, **spec)}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


#: Types an option is checked against by its annotation; any other annotation (a class of a plug-in's own, ``Any``,
#: ``Callable``) is left to whoever takes the value, which may well convert it.
CHECKED_TYPES = (bool, int, float, complex, str, list, tuple, dict, type(None))


def annotation_types(annotation: Any) -> tuple[type, ...] | None:
    """The checked types an annotation admits; ``None`` when it admits something that is not checked.

    A string annotation (a record under ``from __future__ import annotations``) is read as Python over the
    builtins; one naming anything else is not checked.
    """
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, {"__builtins__": builtins})  # noqa: S307 - a field's own annotation
        except Exception:  # a name the builtins do not hold (Any, a class of the record's module)
            return None
    if annotation is None or annotation is type(None):
        return (type(None),)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [annotation_types(a) for a in typing.get_args(annotation)]
        return None if any(p is None for p in parts) else tuple(t for p in parts if p is not None for t in p)
    if origin in (list, tuple, dict):  # list[float]: the container is checked, not its items
        return (origin,)
    return (annotation,) if annotation in CHECKED_TYPES else None


def value_types(annotation: Any, default: Any, empty: Any = dataclasses.MISSING) -> tuple[type, ...] | None:
    """Types an option accepts: its annotation's, else its default's (``empty``: none given); ``None``: anything.

    The default itself is always a valid value, so a ``None`` default admits ``None``.
    """
    if annotation is empty:
        if default is empty or default is None or type(default) not in CHECKED_TYPES:
            return None  # nothing says what it takes: whoever takes it decides
        allowed: tuple[type, ...] | None = (type(default),)
    else:
        allowed = annotation_types(annotation)
    if allowed is not None and default is None and type(None) not in allowed:
        allowed += (type(None),)
    return allowed


def is_a(value: Any, kind: type) -> bool:
    """Whether ``value`` passes for ``kind``: a float option takes an int, no number takes a bool."""
    numpy = sys.modules.get("numpy")  # a numpy bool exists only once numpy is imported: never imported here
    is_bool = isinstance(value, bool) or (numpy is not None and isinstance(value, numpy.bool_))
    if kind is bool:
        return is_bool
    if kind is int:
        return isinstance(value, numbers.Integral) and not is_bool
    if kind is float:
        return isinstance(value, numbers.Real) and not is_bool
    if kind is complex:
        return isinstance(value, numbers.Number) and not is_bool
    if kind is type(None):
        return value is None
    return isinstance(value, kind)


def check_value_type(value: Any, allowed: tuple[type, ...] | None, name: str) -> None:
    """One :class:`InputError` line when ``value`` is none of the ``allowed`` types (``None``: anything goes):
    ``{name} must be int or None, got str 'two'``, with a hint for a number YAML read as text."""
    if allowed is None or any(is_a(value, kind) for kind in allowed):
        return
    wanted = " or ".join("None" if t is type(None) else t.__name__ for t in dict.fromkeys(allowed))
    raise InputError(f"{name} must be {wanted}, got {type(value).__name__} {_shown(value)}{_yaml_hint(value, allowed)}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _yaml_hint(value: Any, allowed: tuple[type, ...]) -> str:
    """Why a number may have arrived as text: YAML 1.1 reads ``1e-8`` (no dot) as a string."""
    if float in allowed and isinstance(value, str) and re.fullmatch(r"[+-]?\d+[eE][+-]?\d+", value.strip()):
        return f" (YAML reads {value} as text; write {value.lower().replace('e', '.0e', 1)})"
    return ""


def check_type(f: dataclasses.Field, value: Any, name: str) -> None:
    """One line when an option's value is not of its field's annotated type (:func:`check_value_type`).

    Bounds check a number's type with its value, and a list, a mapping or a path is the spec's to read
    (:meth:`OptionSpec.check`); every other field is checked by its annotation here.
    """
    spec = f.metadata.get(SPEC)
    if spec is not None and (spec.bounds is not None or spec.many or spec.pairs or spec.path is not None):
        return
    default = f.default if f.default is not dataclasses.MISSING else dataclasses.MISSING
    check_value_type(value, value_types(f.type, default), name)


def check_record(record: Any, who: str) -> None:
    """Check, in place, every field of the dataclass ``record`` that has an option spec: its bounds or choices
    (:meth:`OptionSpec.check`), and a ``bool`` field's type; one :class:`InputError` line naming ``who`` and the
    field. The one path by which a solver's options record is checked before any work starts."""
    for f in dataclasses.fields(record):
        spec = f.metadata.get(SPEC)
        if spec is None:
            continue
        name, value = f"{who}: {f.name}", getattr(record, f.name)
        check_type(f, value, name)
        if spec.choices is not None and value not in spec.choices and not (value is None and spec.nullable):
            raise InputError(f"{who}: unknown {f.name} {value!r}; use one of {', '.join(spec.choices)}")
        object.__setattr__(record, f.name, spec.check(value, name))
    _check_backends(record, who)


def _check_backends(record: Any, who: str) -> None:
    """One line for an option given a value (other than its default) on a backend it does not apply to."""
    backend = getattr(record, "backend", None)
    for f in dataclasses.fields(record):
        spec = f.metadata.get(SPEC)
        if spec is None or spec.backends is None or backend in spec.backends:
            continue
        default: Any = f.default  # MISSING for a required option: any value it was given counts as given
        if default is dataclasses.MISSING and callable(f.default_factory):  # MISSING is not callable
            default = f.default_factory()
        if getattr(record, f.name) != default:
            where = " or ".join(repr(b) for b in spec.backends)
            raise InputError(f"{who}: {f.name} applies to backend {where} only, not backend={backend!r}")


@dataclass(frozen=True)
class Options:
    """Base of every family's options: each field checked (and brought to its type) on construction.

    Subclasses add checks that need several fields in :meth:`check`.
    """

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            spec = f.metadata.get(SPEC)
            if spec is not None:
                check_type(f, getattr(self, f.name), f.name)
                object.__setattr__(self, f.name, spec.check(getattr(self, f.name), f.name))
        self.check()

    def check(self) -> None:
        """Checks across fields; raise :class:`InputError` naming them."""

    @classmethod
    def specs(cls) -> dict[str, tuple[OptionSpec, Any]]:
        """``{field: (spec, default)}`` in declaration order (default ``MISSING`` where required)."""
        out = {}
        for f in dataclasses.fields(cls):
            if SPEC in f.metadata:
                default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
                out[f.name] = (f.metadata[SPEC], default)
        return out

    @classmethod
    def from_mapping(cls, values: dict[str, Any], where: str = "") -> Self:
        """Options from a mapping (a config entry), naming ``where`` and the key on a bad one."""
        specs = cls.specs()
        unknown = sorted(set(values) - set(specs))
        prefix = f"{where}: " if where else ""
        if unknown:
            raise InputError(f"{prefix}unknown option(s) {', '.join(unknown)}; this family takes {', '.join(specs)}")
        try:
            return cls(**values)
        except TypeError as exc:  # a required field missing
            raise InputError(f"{prefix}{exc}") from None
        except InputError as exc:
            raise InputError(f"{prefix}{exc}") from None

    def changed(self) -> dict[str, Any]:
        """The fields whose value differs from the default (what a config entry needs to say)."""
        return {
            name: getattr(self, name) for name, (_, default) in self.specs().items() if getattr(self, name) != default
        }


def cli_words(record: type[Options], values: dict[str, Any]) -> list[str]:
    """The command-line words that give ``values`` to ``record`` (``--every 20``, ``--param angle=30``, a positional).

    The inverse of parsing: a workflow rule passes a config entry this way,
    and only what the entry says, so the record supplies every default.
    """
    words = []
    for key, (spec, _) in record.specs().items():
        if key not in values or not spec.cli or values[key] is None:
            continue
        value = values[key]
        if spec.positional:
            words.append(str(value))
        elif spec.pairs:
            words += [f"{spec.spelling(key)} {k}={v}" for k, v in sorted(value.items())]
        elif spec.many:
            words.append(f"{spec.spelling(key)} " + " ".join(str(v) for v in value))
        else:
            words.append(f"{spec.spelling(key)} {value}")
    return words
