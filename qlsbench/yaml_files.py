"""YAML files read strictly: a key given twice in one mapping is an error, not a silent replacement.

PyYAML (and Snakemake, which uses it) keeps the last of two equal keys, so a
second ``run:`` block in a workflow config silently replaced the first. Every
YAML file qlsbench reads (workflow configs, ``board.yaml``) goes through
:func:`load_yaml`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from qlsbench.errors import ConfigError


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:  # the keys written here; those merged in by << may be overridden
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=deep)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise ConfigError(f"line {line}: key {key!r} given twice in one mapping (first on line {seen[key]})")
        seen[key] = line
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(path: str | os.PathLike, what: str = "YAML file", error: type[Exception] = ConfigError) -> Any:
    """The content of a YAML file, or ``error`` with one line naming the file (and the line at fault).

    Parameters
    ----------
    path : path
        The file.
    what : str
        What it should be, for the message when it cannot be read.
    error : exception type
        Raised for every problem.
    """
    if not Path(path).exists():
        raise error(f"{path}: no such file (expected a {what})")
    try:
        return yaml.load(Path(path).read_text(), Loader=_StrictLoader)
    except ConfigError as exc:
        raise error(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise error(f"{path}: not a readable {what} ({' '.join(str(exc).split())})") from None
