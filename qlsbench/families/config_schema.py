"""The workflow config's family sections as JSON schema, generated from the families' options records.

``workflows/config/schema.yaml`` is hand-written but for its family sections, which sit between two marker
lines and are written by ``qlsbench check-config --write-schema`` from the records: each option's type, bounds
(:class:`~qlsbench.checks.Whole`, :class:`~qlsbench.checks.Real`), choices and help, with its default in the
description. The default is not given as the schema's ``default``: Snakemake's ``validate`` would write it into
every entry, and a job is passed only what its entry says (:func:`qlsbench.workflow.family_args`), so the
record alone supplies defaults. The Snakefile validates against the same text made with every registered
family, plug-ins included (:func:`qlsbench.workflow.workflow_schema`), so a plug-in's section is accepted. The
in-loop entries' options are generated the same way, above this layer (:func:`qlsbench.workflow.in_loop_properties`:
the in-loop record is the bench's), with :func:`record_properties` and :func:`splice`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from qlsbench.checks import Real, Whole
from qlsbench.errors import ConfigError
from qlsbench.families.base import Family
from qlsbench.options import SPEC, Options, OptionSpec

#: The lines around the generated sections in ``workflows/config/schema.yaml``.
BEGIN = "  # -- dataset families: generated from their options records by `qlsbench check-config --write-schema`"
END = "  # -- end of the generated dataset families"
#: JSON types of the annotations the records use (as written: ``from __future__ import annotations``).
_TYPES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "dict": "object"}


def _json_type(annotation: str) -> tuple[str, str | None]:
    """``(type, item type)`` of an annotation: ``("array", "integer")`` for ``tuple[int, ...]``."""
    base = annotation.replace(" | None", "").strip()
    if base.startswith(("tuple[", "list[")):
        item = base[base.index("[") + 1 :].split(",")[0].rstrip("]").strip()
        return "array", _TYPES.get(item)
    return _TYPES.get(base, "string"), None


def _bounds(bounds: Whole | Real | None) -> dict[str, Any]:
    if isinstance(bounds, Whole):
        return {"minimum": bounds.low, **({"maximum": bounds.high} if bounds.high is not None else {})}
    if isinstance(bounds, Real):
        out: dict[str, Any] = {}
        if bounds.low != -math.inf:
            out["exclusiveMinimum" if bounds.open_low else "minimum"] = bounds.low
        if bounds.high != math.inf:
            out["exclusiveMaximum" if bounds.open_high else "maximum"] = bounds.high
        return out
    return {}


def _default_text(default: Any) -> str:
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, (tuple, list)):
        return ", ".join(_default_text(v) for v in default)
    return str(default)


def option_schema(spec: OptionSpec, default: Any, annotation: str) -> dict[str, Any]:
    """One option's schema: its type, bounds or choices, and its help (with the default) as description."""
    kind, item = _json_type(annotation)
    value: dict[str, Any] = {"type": item or "number"} if kind == "array" else {"type": kind}
    if spec.choices is not None:
        value["enum"] = list(spec.choices)
    value.update(_bounds(spec.bounds))
    if spec.many or kind == "array":
        out: dict[str, Any] = {"type": "array", "minItems": 1, "items": value}
    elif spec.pairs:
        out = {"type": "object"}
    else:
        out = value
    if spec.nullable and "type" in out and out["type"] != "object":
        out["type"] = [out["type"], "null"]
        if "enum" in out:  # null is a value of its own, which the choices alone would refuse
            out["enum"] = [*out["enum"], None]
    described = spec.help
    if default is not dataclasses.MISSING and default not in (None, {}, ()):
        described += f" (default {_default_text(default)})"
    if described:
        out["description"] = described
    return out


def record_properties(record: type[Options]) -> tuple[dict[str, Any], list[str]]:
    """The schema of every option of ``record`` a config may give (:attr:`OptionSpec.in_config`), by name, and the
    names of those without a default (required)."""
    properties, required = {}, []
    for f in dataclasses.fields(record):
        spec = f.metadata.get(SPEC)
        if spec is None or not spec.in_config:
            continue
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "str")
        properties[f.name] = option_schema(spec, default, annotation)
        if default is dataclasses.MISSING:
            required.append(f.name)
    return properties, required


def entry_schema(family: Family) -> dict[str, Any]:
    """The schema of one config entry of ``family``: every option a config may give (:attr:`OptionSpec.in_config`)."""
    properties, required = record_properties(family.options)
    return {
        "type": "object",
        "additionalProperties": False,
        **({"required": required} if required else {}),
        "properties": properties,
    }


def section_schema(family: Family) -> dict[str, Any]:
    """The schema of ``family``'s config section: a list of entries, or what its ``section_schema`` makes."""
    entry = entry_schema(family)
    if family.section_schema is not None:
        section = family.section_schema(entry)
    else:
        section = {"type": "array", "items": entry}
    return {"description": f"{family.summary} (family {family.name}; qlsbench {family.command})", **section}


def yaml_lines(mapping: dict[str, Any], indent: int) -> str:
    """``mapping`` as the schema file writes generated parts: YAML, its leaves in flow style, indented ``indent``."""
    import yaml

    text = yaml.safe_dump(mapping, sort_keys=False, default_flow_style=None, width=120, allow_unicode=True)
    return "".join(f"{' ' * indent}{line}\n" for line in text.splitlines())


def family_sections_text(families: Iterable[Family]) -> str:
    """The YAML lines of the family sections, indented as properties of the config's top level."""
    return yaml_lines({family.config_key: section_schema(family) for family in families}, 2)


def splice(committed: str, begin: str, end: str, lines: str, where: str, what: str) -> str:
    """``committed`` with the lines between the marker lines ``begin`` and ``end`` replaced by ``lines``.

    Raises
    ------
    ConfigError
        When ``committed`` lacks the marker lines, naming ``where`` and ``what`` they surround.
    """
    found = committed.splitlines(keepends=True)
    starts = [i for i, line in enumerate(found) if line.rstrip("\n") == begin]
    ends = [i for i, line in enumerate(found) if line.rstrip("\n") == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ConfigError(
            f"{where}: the lines {begin.strip()!r} and {end.strip()!r} must each appear once, in "
            f"that order, around {what}"
        )
    return "".join(found[: starts[0] + 1]) + lines + "".join(found[ends[0] :])


def schema_text(committed: str, families: Iterable[Family], where: str = "schema.yaml") -> str:
    """``committed`` (the schema file's text) with its family sections, between :data:`BEGIN` and :data:`END`,
    replaced by those generated from ``families``.

    Raises
    ------
    ConfigError
        When ``committed`` lacks the marker lines, naming ``where``.
    """
    return splice(committed, BEGIN, END, family_sections_text(families), where, "the family sections")


__all__ = [
    "BEGIN",
    "END",
    "entry_schema",
    "family_sections_text",
    "option_schema",
    "record_properties",
    "schema_text",
    "section_schema",
    "splice",
    "yaml_lines",
]
