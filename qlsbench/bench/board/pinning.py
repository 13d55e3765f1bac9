"""Pinning: build the board's fixed set of named systems from ``board.yaml``'s sources, with its manifest.

Each source is a dataset family (:data:`qlsbench.families.FAMILIES`) and its
runs, as in a workflow config; per qubit band, :func:`select_systems` keeps
the systems of lowest, median and highest kappa; with ``random_b``, each
system's ``b`` is replaced by a seeded random draw far from its solution
(:func:`random_rhs`). The set is written to the board's
``systems/<group>.parquet`` with a manifest of every system's content hash,
which :func:`qlsbench.data._pinned.pinned_files` checks on every read.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from qlsbench.bench.board.folder import SHIPPED, Board
from qlsbench.checks import FRACTION, SEED
from qlsbench.data import atomic_write_text, dataset_hash, iter_systems, write_systems
from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem, state_fidelity
from qlsbench.problems._spectra import reference_solution


def parse_band(band: str) -> tuple[int, int]:
    """``"5-6"`` as ``(5, 6)``."""
    try:
        lo, hi = (int(v) for v in band.split("-"))
    except ValueError:
        raise InputError(f"qubit band {band!r} is not of the form LO-HI") from None
    return lo, hi


def select_systems(systems: list, bands: list[str], per_band: int, min_qubits: int) -> list:
    """Per qubit band, ``per_band`` systems spread over the range of kappa (lowest, ..., highest).

    Ties in kappa are broken by system id, so the choice is deterministic.
    """
    chosen, seen = [], set()
    for band in bands:
        lo, hi = parse_band(band)
        lo = max(lo, min_qubits)
        pool = sorted(
            (s for s in systems if lo <= s.meta["n_qubits"] <= hi), key=lambda s: (s.meta["cond"], s.system_id)
        )
        fresh = []
        for s in pool:  # each system once: in the first band that takes it
            if s.system_id not in seen:
                seen.add(s.system_id)
                fresh.append(s)
        pool = fresh
        if not pool:
            continue
        picks = np.unique(np.linspace(0, len(pool) - 1, min(per_band, len(pool))).round().astype(int))
        chosen += [pool[i] for i in picks]
    return chosen


#: Draws :func:`random_rhs` makes before it gives up: at 6 qubits and kappa 10 one draw in about 6000 scores below
#: 0.5, at 7 qubits far fewer (the fidelity of a random ``b`` concentrates as the dimension grows).
MAX_DRAWS = 100_000


def random_rhs(system: LinearSystem, seed: int, below: float = 0.5, max_draws: int = MAX_DRAWS) -> LinearSystem:
    """``system`` with ``b`` a seeded random unit vector that scores below ``below`` when returned as the answer.

    Each draw is standard normal, normalised, from a generator seeded by
    ``(seed, n_qubits)``, so a size's ``b`` does not depend on which other
    sizes are pinned; draws are repeated until the fidelity of ``b`` with
    ``A^{-1} b`` (:func:`~qlsbench.problems.state_fidelity`, what null-b
    scores) is below ``below``. Where ``b`` is the uniform vector the Ising
    systems' solution is nearly ``b`` (fidelity above 0.99), and a bar at 0.99
    cannot tell a solver from returning ``b``; here it can. For an SPD matrix
    no ``b`` scores below ``4 kappa / (1 + kappa)^2`` (Kantorovich: 0.33 at
    kappa 10), so ``below`` must lie above that.

    Parameters
    ----------
    system : LinearSystem
        The system whose ``A`` is kept.
    seed : int
        The draw's seed.
    below : float
        The fidelity ``b`` must score below.
    max_draws : int
        Draws before giving up.

    Returns
    -------
    LinearSystem
        ``A`` as given, the drawn ``b`` and its reference solution, meta with ``b: random``, ``b_seed``,
        ``b_draws`` (how many draws it took) and ``b_fidelity``.

    Raises
    ------
    InputError
        When no draw of ``max_draws`` scores below ``below``.
    """
    SEED.check(seed, "random_b seed")
    FRACTION.check(below, "random_b below")
    n = int(system.meta["n_qubits"])
    rng = np.random.default_rng([int(seed), n])
    for draw in range(1, max_draws + 1):
        b = rng.standard_normal(system.dim)
        b[int(system.meta.get("n_orig", system.dim)) :] = 0.0  # a padded system's added unknowns stay zero
        b /= np.linalg.norm(b)
        x = reference_solution(system.A, b)  # the dataset writer's own reference solve: the stored x_ref
        fidelity = state_fidelity(b, x)
        if fidelity < below:
            meta = {**system.meta, "b": "random", "b_seed": int(seed), "b_draws": draw, "b_fidelity": float(fidelity)}
            return LinearSystem(system.A, b, meta, x)
    raise InputError(f"random_b: no draw of {max_draws} at {n} qubits scores below {below:g} (seed {seed})")


def _name(system) -> str:
    m = system.meta
    if m.get("family") == "ising":
        drawn = "-randb" if m.get("b") == "random" else ""  # the same A with another b is another system
        return f"ising{drawn}-k{m['cond']:g}-n{m['n_qubits']}"
    # Systems of the v2 contact-LCP chain record the phase that produced them; their names say v2, since the same
    # scene, step and iteration on the v1 chain is another system.
    chain = "-v2" if "phase" in m else ""
    return f"{m['scene']}{chain}-step{m['step']}-it{m['newton_iter']}-n{m['n_qubits']}"


#: Keys of a pinned-set source that are the board's, not the family's options.
_BOARD_KEYS = ("group", "bands", "random_b")


def source_family(key: str):
    """The family a ``sources`` key names: ``ising``, or ``ising/random-b`` for a second source of one family
    (a YAML mapping holds each key once)."""
    from qlsbench.families import FAMILIES

    return FAMILIES.get(key.split("/")[0])


def source_runs(config: dict[str, Any]):
    """Every run of ``board.yaml``'s sources: ``(family, index in its section, run, group)``.

    A run's ``group`` (default: the family) names its file in the pinned set.
    """
    for key, section in config["sources"].items():
        family = source_family(key)
        for i, run in enumerate(family.runs(section) if family.runs else section):
            yield family, i, run, run.get("group", family.name)


def source_options(family, i: int, run: dict[str, Any]):
    """A source run's checked family options (the board's own keys, group and bands, left out), named in an
    error as ``board.yaml sources.<family>[i]``."""
    return family.options.from_mapping(
        {k: v for k, v in run.items() if k not in _BOARD_KEYS}, f"board.yaml sources.{family.name}[{i}]"
    )


def _build_run(family, i: int, run: dict[str, Any], folder: Path, config: dict[str, Any], progress: bool) -> list:
    """Build one source run in ``folder`` and return its systems; with ``bands``, only the per-band picks of
    :func:`select_systems`; with ``random_b``, each with a drawn ``b`` (:func:`random_rhs`)."""
    options = source_options(family, i, run)
    # by group too: two sources of one family (ising and ising/random-b) have runs of the same index and label
    out = folder / run.get("group", family.name) / family.name / f"{i}-{family.label(options)}"
    out = out.with_suffix(".parquet") if family.out_kind == "file" else out
    family.build(options, out, progress)
    systems = list(iter_systems(out))
    if "bands" in run:
        systems = select_systems(systems, run["bands"], config["per_band"], config["min_qubits"])
    if "random_b" in run:
        draw = _random_b_options(run["random_b"], f"board.yaml sources.{family.name}[{i}].random_b")
        systems = [random_rhs(s, **draw) for s in systems]
    return systems


def _random_b_options(given, where: str) -> dict[str, Any]:
    """A source's ``random_b: {seed, below}`` as :func:`random_rhs`' keywords; one line naming ``where`` when not."""
    if not isinstance(given, dict) or "seed" not in given or set(given) - {"seed", "below"}:
        raise InputError(
            f"{where}: a mapping with a seed and optionally below (the fidelity b must score under), got {given!r}"
        )
    return {"seed": given["seed"], "below": given.get("below", 0.5)}


def source_groups(config: dict[str, Any]) -> list[str]:
    """The groups ``board.yaml``'s sources pin, in order."""
    return list(dict.fromkeys(group for *_, group in source_runs(config)))


def check_groups(asked: list[str] | None, known: list[str], refusal: str) -> None:
    """Refuse groups not in ``known``, in one line starting with ``refusal``."""
    missing = [g for g in asked or [] if g not in known]
    if missing:
        raise InputError(f"{refusal} group(s) {', '.join(missing)}; the groups are {', '.join(known)}")


def pin(board: Board = SHIPPED, progress: bool = True, groups: list[str] | None = None) -> dict[str, Any]:
    """Build the pinned set from ``board.yaml`` and write it with its manifest.

    Each source is a dataset family of :data:`qlsbench.families.FAMILIES`
    and its runs, as in a workflow config.

    Parameters
    ----------
    groups : list of str, optional
        Pin only these groups and keep every other group's file and manifest
        entries as they are (how a new group joins a published board without
        rebuilding, and so perhaps changing, the others). Default: all.

    Returns
    -------
    dict
        The manifest: version, per group its file's hash, and per system its
        name, group, id (content hash), qubits, kappa and symmetry.
    """
    from qlsbench.families import FAMILIES

    config = board.config
    where = board.folder / "board.yaml"
    unknown = sorted(key for key in config["sources"] if source_family(key) is None)
    if unknown:
        raise InputError(f"{where}: sources {unknown} are not dataset families ({', '.join(FAMILIES)})")
    declared = source_groups(config)
    check_groups(groups, declared, f"{where}: no source pins")
    only = None if groups is None else set(groups)
    built: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family, i, run, group in source_runs(config):
            if only is None or group in only:
                built.setdefault(group, []).extend(_build_run(family, i, run, Path(tmp), config, progress))
    kept = {"groups": {}, "systems": []} if only is None else board.manifest()
    entries = {g: [e for e in kept["systems"] if e["group"] == g] for g in kept["groups"] if g not in built}
    for group, systems in built.items():
        for s in systems:
            s.meta["pinned_name"] = _name(s)
        write_systems(systems, board.system_file(group), metadata={"pinned_version": config["version"]})
        entries[group] = [
            {
                "name": s.meta["pinned_name"],
                "group": group,
                "system_id": s.system_id,
                "family": s.meta["family"],
                "n_qubits": s.meta["n_qubits"],
                "cond": float(s.meta["cond"]),
                "symmetric": bool(s.meta.get("symmetric", True)),
            }
            for s in systems
        ]
    order = [g for g in declared if g in entries] + [g for g in entries if g not in declared]
    manifest = {
        "version": config["version"],
        "groups": {g: kept["groups"][g] if g not in built else dataset_hash(board.system_file(g)) for g in order},
        "systems": [e for g in order for e in entries[g]],
    }
    atomic_write_text(board.manifest_path, json.dumps(manifest, indent=1) + "\n")
    return manifest


def pinned_table(board: Board) -> pd.DataFrame:
    """The manifest as a table: name, group, qubits, kappa, symmetric, id."""
    table = pd.DataFrame(board.manifest()["systems"])
    return table[["name", "group", "n_qubits", "cond", "symmetric", "system_id"]]
