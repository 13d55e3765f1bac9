"""The workflow config's schema: the committed file, its generated sections, and the file a config is checked
against."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from qlsbench.workflow._datasets import dataset_families

#: The workflow config's schema, as committed: hand-written but for its family sections and its in-loop entries'
#: options (:func:`schema_text`).
SCHEMA = "workflows/config/schema.yaml"
#: The lines around the generated options of an ``in_loop:`` entry in :data:`SCHEMA` (the entry's other keys,
#: :data:`~qlsbench.workflow.IN_LOOP_KEYS`, are described by hand above them).
IN_LOOP_BEGIN = "        # -- in-loop options: generated from InLoopOptions by `qlsbench check-config --write-schema`"
IN_LOOP_END = "        # -- end of the generated in-loop options"


def schema_text(path: str | os.PathLike = SCHEMA, plugins: bool = True) -> str:
    """The text of the config schema at ``path`` with its family sections generated from the families' options
    records (:mod:`qlsbench.families.config_schema`) and its in-loop entries' options from the in-loop options
    record (:func:`in_loop_properties`): with ``plugins``, every registered family's, else the built-in families'
    (what is committed)."""
    from qlsbench.families.config_schema import schema_text as spliced
    from qlsbench.families.config_schema import splice, yaml_lines

    text = spliced(Path(path).read_text(encoding="utf-8"), dataset_families(plugins), str(path))
    return splice(
        text, IN_LOOP_BEGIN, IN_LOOP_END, yaml_lines(in_loop_properties(plugins), 8), str(path), "the in-loop options"
    )


def in_loop_properties(plugins: bool = True) -> dict[str, Any]:
    """The schema of each option of an ``in_loop:`` entry that is a field of the in-loop options record
    (:func:`~qlsbench.bench.in_loop.options.in_loop_options`: the loop families' scene options, with
    ``plugins`` those of plug-in families too, and the loop's own), each with its type, bounds, choices and help."""
    from qlsbench.bench.in_loop.options import in_loop_options
    from qlsbench.families.config_schema import record_properties

    return record_properties(in_loop_options(plugins))[0]


def workflow_schema(path: str | os.PathLike = SCHEMA) -> str:
    """The schema file a config is validated against: ``path`` itself when its generated sections are those of
    every registered family, else (a plug-in family is installed, or the file is stale) the generated text, written to
    ``.snakemake/qlsbench/schema.yaml``, whose path is returned (absolute, as Snakemake's ``validate`` wants)."""
    text = schema_text(path)
    if Path(path).read_text(encoding="utf-8") == text:
        return str(Path(path).resolve())
    out = Path(".snakemake") / "qlsbench" / "schema.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        from qlsbench.data import atomic_write_text

        atomic_write_text(out, text)
    return str(out.resolve())
