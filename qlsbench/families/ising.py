"""The ``ising`` family: Bravo-Prieto et al.'s Ising-inspired VQLS problems, spectrum exactly ``[1/kappa, 1]``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlsbench.checks import Real, Whole
from qlsbench.data import write_systems
from qlsbench.families.base import Family, Rule
from qlsbench.options import Options, option
from qlsbench.problems import ising_inspired
from qlsbench.problems._ising import MAX_QUBITS
from qlsbench.text import plural


@dataclass(frozen=True)
class IsingOptions(Options):
    """One Ising dataset: the same ``kappa`` and ``J`` at several qubit counts."""

    n_qubits: tuple[int, ...] = option(help="numbers of qubits", bounds=Whole(1, MAX_QUBITS), many=True, flag="--n")
    kappa: float = option(10.0, "condition number (> 1)", bounds=Real(1.0, 1e12, open_low=True))
    J: float = option(0.1, "ZZ coupling", bounds=Real(-1e3, 1e3))


def build(options: IsingOptions, out: Path, progress: bool = True) -> dict:
    """Write the systems of ``options`` to the Parquet file ``out``."""
    systems = [ising_inspired(n, kappa=options.kappa, J=options.J) for n in options.n_qubits]
    path = write_systems(systems, out)
    return {"systems": len(systems), "path": str(path), "kappa": options.kappa, "n_qubits": list(options.n_qubits)}


def label(options: IsingOptions) -> str:
    """``kappa10``: the Ising datasets are told apart by their condition number."""
    return f"kappa{options.kappa:g}"


def report(facts: dict) -> list[str]:
    return [
        (
            f"wrote {plural(facts['systems'], 'Ising system')} (kappa={facts['kappa']:g}, n={facts['n_qubits']}) "
            f"to {facts['path']}"
        )
    ]


def runs(section: dict[str, Any]) -> list[dict]:
    """The config's ``ising:`` section is one dataset per ``kappas`` entry."""
    shared = {k: v for k, v in section.items() if k not in ("kappas", "n_qubits")}
    return [{"n_qubits": section["n_qubits"], "kappa": k, **shared} for k in section["kappas"]]


def section_schema(entry: dict) -> dict:
    """The ``ising:`` section's schema: one entry's, with a list of condition numbers ``kappas`` for ``kappa``."""
    properties = dict(entry["properties"])
    kappa = properties.pop("kappa")
    properties["kappas"] = {
        "type": "array",
        "minItems": 1,
        "items": {k: v for k, v in kappa.items() if k != "description"},
        "description": "condition numbers, one dataset each",
    }
    return {**entry, "required": ["n_qubits", "kappas"], "properties": properties}


FAMILY = Family(
    name="ising",
    summary="Ising-inspired VQLS systems (Bravo-Prieto et al.), condition number exactly kappa",
    options=IsingOptions,
    build=build,
    label=label,
    report=report,
    command="ising",
    config_key="ising",
    out_kind="file",
    runs=runs,
    section_schema=section_schema,
    rule=Rule("ising_dataset", local=True),
)
