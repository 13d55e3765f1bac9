"""The workflow config's schema: the committed file, its generated sections, and the file a config is checked
against."""

from __future__ import annotations

import os
from pathlib import Path

from qlsbench.workflow._datasets import dataset_families

#: The workflow config's schema, as committed: hand-written but for its family sections (:func:`workflow_schema`).
SCHEMA = "workflows/config/schema.yaml"


def schema_text(path: str | os.PathLike = SCHEMA, plugins: bool = True) -> str:
    """The text of the config schema at ``path`` with its family sections generated from the families' options
    records (:mod:`qlsbench.families.config_schema`): with ``plugins``, every registered family's, else the
    built-in families' (what is committed)."""
    from qlsbench.families.config_schema import schema_text as spliced

    return spliced(Path(path).read_text(encoding="utf-8"), dataset_families(plugins), str(path))


def workflow_schema(path: str | os.PathLike = SCHEMA) -> str:
    """The schema file a config is validated against: ``path`` itself when its family sections are those of every
    registered family, else (a plug-in family is installed, or the file is stale) the generated text, written to
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
