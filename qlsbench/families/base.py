"""What a dataset family is: an options record, a builder, a label and a report.

The table of families is :data:`qlsbench.families.FAMILIES`; the options
records are :class:`qlsbench.options.Options`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlsbench.errors import InputError
from qlsbench.options import Options


@dataclass(frozen=True)
class Family:
    """One dataset family: what it is, its options, how it is built, named and reported.

    Attributes
    ----------
    name : str
        The family: its folder under ``datasets/`` and the ``family`` of its systems.
    summary : str
        One line for the dataset card and ``--help``.
    options : type of Options
        Its options record.
    build : callable
        ``build(options, out, progress) -> dict``: writes the dataset at ``out``
        and returns its metadata, plus facts of the run that are not written
        (wall-clock rates) so files stay byte-identical.
    label : callable
        ``label(options) -> str``: the dataset's name inside the family folder
        (a folder, or a file stem where ``out_kind`` is ``"file"``).
    report : callable
        ``report(facts) -> list[str]``: what the command prints afterwards;
        lines starting ``warning:`` go to standard error.
    command : str
        The ``qlsbench`` command that builds it; several families may share one
        (``simulate``), told apart by ``scenes`` and ``integrator``. The command
        line lists its commands with their help without importing the families
        (``DATASET_COMMANDS`` in :mod:`qlsbench.cli.datasets`).
    config_key : str
        The workflow config section whose entries are runs of this family.
    scenes : tuple of str
        Scene names it builds (``--scene``).
    integrator : str or None
        The ``--integrator`` value that selects it among the families taking
        the same scene; ``None`` where the command has no such choice.
    out_kind : str
        What ``--out`` names: ``"folder"`` (``part-0000.parquet`` inside), ``"file"`` or ``"any"``.
    systems : bool
        Whether it holds linear systems (the trajectories family does not).
    runs : callable, optional
        ``runs(section) -> list[dict]``: the config section as option mappings,
        one per dataset; default: the section is that list.
    """

    name: str
    summary: str
    options: type[Options]
    build: Callable[[Any, Path, bool], dict]
    label: Callable[[Any], str]
    report: Callable[[dict], list[str]]
    command: str
    config_key: str
    scenes: tuple[str, ...] = ()
    integrator: str | None = None
    out_kind: str = "folder"
    systems: bool = True
    runs: Callable[[Any], list[dict]] | None = None

    def configured(self, config: dict[str, Any]) -> dict[str, Options]:
        """This family's runs in a workflow config, as checked options keyed by dataset label.

        Raises
        ------
        InputError
            Naming the config entry (``simulate[1]``) and the option at fault,
            or two entries that would write the same dataset.
        """
        section = config.get(self.config_key)
        if not section:
            return {}
        entries: Sequence[dict] = self.runs(section) if self.runs else section
        out: dict[str, Options] = {}
        for i, entry in enumerate(entries):
            where = f"{self.config_key}[{i}]" if isinstance(section, list) else self.config_key
            options = self.options.from_mapping(dict(entry), where)
            try:
                label = self.label(options)  # building a label may build the scene, which checks its parameters
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            if label in out:
                raise InputError(f"{where}: a run for {label!r} is already configured")
            out[label] = options
        return out
