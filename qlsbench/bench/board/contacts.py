"""The pinned DEM-C systems' contact problems in FCLIB (``qlsbench export --format fclib``).

A pinned DEM-C system is one Newton subsystem of one time step; the step's contact problem, the LCP Newton
solved, is not in the pinned file. :func:`export_contact_problems` runs each of ``board.yaml``'s DEM-C sources
again up to its last pinned step (:func:`qlsbench.families.spheres.rerun_steps`) and writes, per pinned system,
its step's problem in FCLIB's global form (``<name>.fclib.hdf5``, laid out as FCLIB's own writer lays it out,
with the step's solution and warm start; :func:`qlsbench.families.spheres.write_step_fclib`), and ``fclib.json``:
the machine it ran on, and per system its group, step, contacts and friction, and whether the run gave the pinned
system back (the same content hash, as on the machine that pinned the set) or how far its matrix is from it
(another CPU or BLAS kernel moves the last bits, and a long run can amplify them).

The repository ships one such export in ``docs/fclib/``; the dataset card's sentence on which groups came back
is :func:`reproduction_summary` of its ``fclib.json``, rewritten by the export itself when it writes there.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from qlsbench.bench.board.folder import SHIPPED, Board
from qlsbench.bench.board.pinning import source_options, source_runs
from qlsbench.errors import InputError
from qlsbench.text import plural


def export_contact_problems(dataset, out, board: Board = SHIPPED, progress: bool = False) -> list[Path]:
    """``<name>.fclib.hdf5`` in ``out`` for every DEM-C system of ``dataset`` (the pinned set, or part of it), and
    ``fclib.json`` beside them; the problem files written. When ``out`` is the repository's ``docs/fclib``, the
    dataset card's sentence between :data:`SUMMARY_BEGIN` and :data:`SUMMARY_END` is rewritten from it.

    Raises
    ------
    InputError
        If ``dataset`` holds no DEM-C system, or one that ``board``'s manifest does not pin (its run is unknown).
    """
    from qlsbench.data import atomic_write_text, iter_systems

    systems = [s for s in iter_systems(dataset) if s.meta.get("family") == "dem_c"]
    # By name: one system can sit in two groups (the same bytes on the v1 and v2 chains), each file naming it.
    pinned = {e["name"]: e for e in board.manifest()["systems"]}
    if not systems:
        raise InputError(
            f"{dataset}: no DEM-C system; FCLIB problems are written for the pinned set's DEM-C "
            "systems (a simulation of your own writes its steps with `qlsbench simulate --fclib`)"
        )
    unknown = sorted(
        {s.system_id for s in systems if pinned.get(s.meta.get("pinned_name"), {}).get("system_id") != s.system_id}
    )
    if unknown:
        raise InputError(
            f"{dataset}: {plural(len(unknown), 'DEM-C system')} not in the pinned set (e.g. "
            f"{unknown[0]}): FCLIB problems are rebuilt from board.yaml's sources, which only the "
            "pinned systems name; `qlsbench simulate --fclib` writes a run of your own"
        )
    out = Path(out)
    written: list[Path] = []
    report: dict[str, dict] = {}
    for run, options, label in _dem_c_runs(board):
        mine = {
            s.meta["pinned_name"]: s
            for s in systems
            if pinned[s.meta["pinned_name"]]["group"] == run["group"] and s.meta.get("scene") == label
        }
        if mine:
            written += _write_run(options, label, run["group"], list(mine.values()), out, report, progress)
    summary = {"machine": _machine(), "systems": dict(sorted(report.items()))}
    atomic_write_text(out / "fclib.json", json.dumps(summary, indent=1) + "\n")
    card = _repository_card(out)
    if card is not None:  # the shipped export: the card's sentence follows it, never typed
        atomic_write_text(
            card, with_reproduction_summary(card.read_text(encoding="utf-8"), reproduction_summary(summary))
        )
    return written


def _dem_c_runs(board: Board):
    """``(run, options, label)`` of every DEM-C source of ``board.yaml``."""
    for family, i, run, group in source_runs(board.config):
        if family.name == "dem_c":
            options = source_options(family, i, run)
            yield {**run, "group": group}, options, family.label(options)


def _write_run(options, label: str, group: str, systems: list, out: Path, report: dict, progress: bool) -> list[Path]:
    """Run one source to its last pinned step, writing each pinned system's step problem once the step is solved
    (with its solution and warm start); fill ``report``."""
    from qlsbench.families.spheres import rerun_steps, write_step_fclib

    at_step = defaultdict(list)
    for system in systems:
        at_step[int(system.meta["step"])].append(system)
    written = []

    def sink(step: int, problem):
        def solved(solution) -> None:
            for system in at_step[step]:
                name = system.meta["pinned_name"]
                title = (
                    f"qlsbench pinned {name}: {label} step {step} (mu {problem.mu:g}, {plural(problem.nc, 'contact')})"
                )
                about = (
                    f"Time step {step} of the run of board.yaml's source {label} (group {group}, "
                    f"{options.lcp_chain} contact-LCP chain); the pinned system {name} is Newton iteration "
                    f"{int(system.meta['newton_iter'])} of this step's solve."
                )
                written.append(write_step_fclib(out / f"{name}.fclib.hdf5", problem, solution, title, about))
                report[name] = {
                    "file": f"{name}.fclib.hdf5",
                    "group": group,
                    "lcp_chain": options.lcp_chain,
                    "scene": label,
                    "step": step,
                    "newton_iter": int(system.meta["newton_iter"]),
                    "contacts": int(problem.nc),
                    "mu": float(problem.mu),
                }

        return solved

    rebuilt = {_key(s): s for s in rerun_steps(options, at_step, sink, label=label, progress=progress)}
    for system in systems:
        again = rebuilt.get(_key(system))
        report[system.meta["pinned_name"]].update(_agreement(system, again))
    return written


def _key(system) -> tuple:
    """Where a system sits in its run: step, Newton iteration, and (v2 chain) the phase that captured it."""
    return int(system.meta["step"]), int(system.meta["newton_iter"]), system.meta.get("phase", "")


def _agreement(pinned, again) -> dict:
    """Whether the rerun's system at the same step and Newton iteration is the pinned one."""
    if again is None:
        return {"reproduced": False, "matrix_rel_diff": None}
    if again.system_id == pinned.system_id:
        return {"reproduced": True, "matrix_rel_diff": 0.0}
    if again.A.shape != pinned.A.shape:
        return {"reproduced": False, "matrix_rel_diff": None}
    diff = abs(again.A - pinned.A).max() / max(abs(pinned.A).max(), np.finfo(float).tiny)
    return {"reproduced": False, "matrix_rel_diff": float(diff)}


def _machine() -> dict[str, str]:
    """The CPU and BLAS kernel of this run: what decides whether a rerun gives the pinned bytes back."""
    from qlsbench.bench._environment import blas_pools, machine_info

    # NumPy and SciPy each load their own OpenBLAS; the kernel each picked is what moves last bits.
    blas = sorted(
        {
            f"{pool.get('internal_api', 'blas')} ({pool.get('architecture') or 'unknown'} kernel)"
            for pool in blas_pools()
        }
    )
    return {"cpu": machine_info()["cpu"], "blas": ", ".join(blas) or "unknown"}


#: The lines of the dataset card between which :func:`reproduction_summary` of the shipped export stands.
SUMMARY_BEGIN = "<!-- fclib reproduction: written by qlsbench export --format fclib --out docs/fclib, do not edit -->"
SUMMARY_END = "<!-- end of fclib reproduction -->"

#: Where a rerun's matrix counts as the pinned one but for its last bits (relative to the largest entry).
LAST_BITS = 1e-9


def reproduction_summary(summary: dict) -> str:
    """The card's sentences on an export's ``fclib.json``: per group how many systems the rerun gave back bit
    for bit, how far the others are, and on what machine; Markdown wrapped within 116 columns."""
    import textwrap

    systems = list(summary["systems"].values())
    counts = []
    for group in sorted({e["group"] for e in systems}):
        members = [e for e in systems if e["group"] == group]
        chains = "/".join(sorted({e["lcp_chain"] for e in members}))
        counts.append(f"`{group}` ({chains} chain) {sum(e['reproduced'] for e in members)} of {len(members)}")
    machine = summary["machine"]
    text = (
        f"In the shipped export (`docs/fclib/`, its `fclib.json` written on {machine['cpu']}, BLAS "
        f"{machine['blas']}), the rerun gave the pinned system back bit for bit in {_listed(counts)}. "
        f"{_others([e for e in systems if not e['reproduced']])} These counts are that machine's: another CPU "
        "or BLAS kernel moves the last bits and a long run can amplify them, so an export elsewhere can give "
        "other groups back; its `fclib.json` says which."
    )
    return "\n".join(textwrap.wrap(text, 116, break_long_words=False, break_on_hyphens=False))


def _others(others: list[dict]) -> str:
    """The sentence on the systems the rerun did not give back."""
    if not others:
        return "Every file is the pinned system's step."
    diffs = [e["matrix_rel_diff"] for e in others if e["matrix_rel_diff"] is not None]
    close = sum(d <= LAST_BITS for d in diffs)
    far = len(others) - close
    worst = f" (by up to {max(diffs):.2f} times its largest entry)" if far and diffs else ""
    one = len(others) == 1
    return (
        f"The other {plural(len(others), 'file')} {'is a step' if one else 'are steps'} of that machine's own "
        f"run (`reproduced: false`): {close} with the pinned matrix to within {LAST_BITS:g} of its largest entry "
        f"(the last bits), {far} further apart{worst}, where the run took another way."
    )


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def with_reproduction_summary(text: str, summary: str) -> str:
    """``text`` with the lines between its fclib markers replaced by ``summary``."""
    head, rest = text.split(SUMMARY_BEGIN, 1)
    _, tail = rest.split(SUMMARY_END, 1)
    return f"{head}{SUMMARY_BEGIN}\n{summary}\n{SUMMARY_END}{tail}"


def _repository_card(out: Path) -> Path | None:
    """The dataset card when ``out`` is the repository's ``docs/fclib`` (the shipped export) and the card carries
    the markers; ``None`` for an export anywhere else."""
    out = out.resolve()
    root = out.parents[1] if len(out.parents) > 1 else out
    card = root / "datasets" / "README.md"
    if out != root / "docs" / "fclib" or not card.is_file():
        return None
    return card if SUMMARY_BEGIN in card.read_text(encoding="utf-8") else None


__all__ = [
    "SUMMARY_BEGIN",
    "SUMMARY_END",
    "export_contact_problems",
    "reproduction_summary",
    "with_reproduction_summary",
]
