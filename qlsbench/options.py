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

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

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


#: Annotations (as written: records use ``from __future__ import annotations``) whose values are checked by type
#: here; numbers are checked by their bounds, which check the type too.
_TEXT, _FLAG = ("str", "str | None"), ("bool",)


def check_type(f: dataclasses.Field, value: Any, name: str) -> None:
    """One line when a text or true/false option holds something else (a list, a number, text for a flag); a
    path option is the spec's to check (text or a path object)."""
    spec = f.metadata.get(SPEC)
    if spec is not None and spec.path is not None:
        return
    annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
    if annotation in _FLAG and not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, got {value!r}")
    if annotation in _TEXT and not (isinstance(value, str) or (value is None and annotation.endswith("None"))):
        raise InputError(f"{name} must be text, got {value!r}")


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
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
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
    def from_mapping(cls, values: dict[str, Any], where: str = "") -> Options:
        """Options from a mapping (a config entry), naming ``where`` and the key on a bad one."""
        specs = cls.specs()
        unknown = sorted(set(values) - set(specs))
        prefix = f"{where}: " if where else ""
        if unknown:
            raise InputError(f"{prefix}unknown option(s) {', '.join(unknown)}; this family takes "
                             f"{', '.join(specs)}")
        try:
            return cls(**values)
        except TypeError as exc:  # a required field missing
            raise InputError(f"{prefix}{exc}") from None
        except InputError as exc:
            raise InputError(f"{prefix}{exc}") from None

    def changed(self) -> dict[str, Any]:
        """The fields whose value differs from the default (what a config entry needs to say)."""
        return {name: getattr(self, name) for name, (_, default) in self.specs().items()
                if getattr(self, name) != default}


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
