"""Reading in-loop results and judging their runs: each run's setting, whether it is a control, its overhead
over the reference run, its load under the protocol's bounds and whether it carries the simulation; how a
setting's controls make it a test; a configuration's separation from them; an oracle sweep's success bar."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.in_loop import FALLBACK_BOUND, success_bar
from qlsbench.bench.ranking import LOW_ACCURACY

#: The in-loop verdict protocol (issues 50, 64), accuracy and cost judged apart. A run *carries the simulation* (its
#: accuracy) when it completes every step, never strays past the position tolerance and the stepper's fallback
#: finishes at most FALLBACK_BOUND of its steps: 5 % is one step in twenty, below the 20-50 % of penalty steps and
#: half the 16-sphere steps the oracle at fidelity 0 leaves to the fallback. Its *cost* is its linear solves over
#: those of the exact reference run beside it, reported as a number with its spread; a claim about cost is set
#: against a bound read from the shipped runs, never chosen: what the oracle's directions at the success fidelity
#: (:data:`SUCCESS_FIDELITY`) cost in the same simulation (:func:`cost_bounds`). FALLBACK_BOUND is the loop's own
#: (:data:`qlsbench.bench.in_loop.FALLBACK_BOUND`): a run that asks to stop once decided stops by it.


#: The success fidelity whose oracle cost calibrates a cost claim: the board's bar (its variational track's).
SUCCESS_FIDELITY = LOW_ACCURACY.fidelity


#: The controls of a verdict in the loop, in words: the null solvers and the oracle at fidelity 0.
CONTROL_WORDS = {"null-b": "returning b", "null-random": "a random vector", "oracle-f0": "the oracle at fidelity 0"}


#: The paper's scale (fig. 4): this many spheres, VNLS sampled (not on exact values). A short window of it, and
#: the one-core minutes such a run may take here before it is left untested with its measured cost.
PAPER_SPHERES = 100


PAPER_WINDOW = {"steps": 20, "seeds": 3, "minutes": 40}


def _setting(options: dict) -> str:
    """One line naming the simulation of a results file."""
    scene = options.get("scene") or ("incline-block" if options["family"] == "penalty" else "sedimentation")
    start = options.get("start_step") or 0  # a window: the steps before it are the reference's
    parts = [options["family"], scene, f"{options['steps']} steps" + (f" from step {start}" if start else "")]
    if options["family"] != "penalty":
        restitution = f", e = {options['restitution']:g}" if options["family"] == "cd_lagrange" else ""
        parts.insert(2, f"{options['n_spheres']} spheres, mu = {options['mu']:g}{restitution}")
    if options.get("params"):
        parts.append(", ".join(f"{k}={v}" for k, v in sorted(options["params"].items())))
    if options.get("h"):
        parts.append(f"h = {options['h']:g} s")
    cap = options.get("newton_max_iter")
    parts.append(f"Newton capped at {cap}" if cap else "Newton to convergence")
    if options.get("newton_start", "previous") == "zero":
        parts.append("Newton from zero")
    if options["family"] != "penalty":  # penalty Newton has no LCP fallbacks
        parts.append(f"fallbacks {options.get('fallbacks', 'on')}")
    return "; ".join(parts)


def _bar_text(oracle: list[dict]) -> str:
    """The success bar in words: a fidelity, at most the lowest level tried, or none."""
    bar = success_bar(oracle)
    if bar is None:
        return "none: even the highest level tried left the tolerance"
    if bar == min(r["fidelity"] for r in oracle):
        return f"fidelity {bar:g} or lower (every level tried stayed within the tolerance)"
    return f"fidelity {bar:g}"


def _run_steps(steps: pd.DataFrame, run: dict) -> pd.DataFrame:
    """The per-step rows of one run of a results file (its solver label, seed and oracle level)."""
    mine = (steps["solver"] == run["solver"]) & (steps["seed"] == run["seed"])
    level = run["fidelity"]
    return steps[mine & (steps["fidelity"].isna() if level != level else steps["fidelity"] == level)]


def control_name(run: dict) -> str | None:
    """Which control a run is (a key of :data:`CONTROL_WORDS`), or ``None`` for a solver."""
    from qlsbench.solvers.registry import is_control

    if is_control(run["solver_name"]):
        return run["solver_name"]
    level = run["solver_options"].get("fidelity")
    if run["solver_name"] == "oracle" and run["fidelity"] != run["fidelity"] and level is not None and level == 0:
        return "oracle-f0"
    return None


def judged_runs(name: str, steps: pd.DataFrame, meta: dict) -> list[dict]:
    """A results file's runs with what the verdict protocol reads from them.

    Added to each run's summary: ``name`` (the file), ``setting`` (the simulation and tolerance), ``control``
    (:func:`control_name`), ``paper_scale``, ``first_solve_step`` (steps before its first Newton system), the
    Newton iterations of both runs, the reference's linear solves (``ref_counted``
    False where the file predates their count: the reference's Newton iterations stand in, one solve each),
    ``overhead`` and ``newton_overhead`` (linear solves and Newton iterations over the reference's),
    ``fallback_share``, ``load`` (:func:`load`) and ``carries``.
    """
    tol = meta["options"]["position_tol"]
    out = []
    for run in meta["runs"]:
        mine = _run_steps(steps, run)
        counted = run.get("linear_solves_ref") is not None
        r = {
            **run,
            "name": name,
            "setting": (_setting(meta["options"]), tol),
            "control": control_name(run),
            "newton_iterations": run.get("newton_iterations", int(mine["newton_iterations"].sum())),
            "newton_iterations_ref": run.get("newton_iterations_ref", int(mine["newton_iterations_ref"].sum())),
            "ref_counted": counted,
            "paper_scale": _paper_scale(run, meta["options"]),
        }
        solving = mine.loc[mine["linear_solves"] > 0, "step"]
        r["first_solve_step"] = int(solving.iloc[0]) if len(solving) else r["steps_run"]
        r["linear_solves_ref"] = run["linear_solves_ref"] if counted else r["newton_iterations_ref"]
        r["overhead"] = _ratio(r["linear_solves"], r["linear_solves_ref"])
        r["newton_overhead"] = _ratio(r["newton_iterations"], r["newton_iterations_ref"])
        r["fallback_share"] = r["fallback_steps"] / r["steps_run"] if r["steps_run"] else float("nan")
        r["load"] = load(r, tol)
        r["carries"] = r["load"] <= 1.0
        out.append(r)
    return out


def cost_bounds(judged: list[dict], fidelity: float = SUCCESS_FIDELITY) -> dict[tuple, float]:
    """Per setting, the median linear-solve overhead of the oracle's runs at ``fidelity`` in it: what directions of
    that fidelity cost there, the bound a solver's cost is set against (absent where no oracle ran at it)."""
    at: dict[tuple, list[float]] = {}
    for r in judged:
        if r["solver_name"] == "oracle" and r["fidelity"] == fidelity and r["status"] == "completed":
            at.setdefault(r["setting"], []).append(r["overhead"])
    return {setting: float(np.median(costs)) for setting, costs in at.items()}


def _paper_scale(run: dict, options: dict) -> bool:
    """Whether a run is VNLS sampled as in the paper on the paper's pile (:data:`PAPER_SPHERES`)."""
    return (
        run["solver_name"] == "vnls"
        and not run["solver_options"].get("exact")
        and options["family"] == "dem_c"
        and options.get("n_spheres", 0) >= PAPER_SPHERES
    )


def _ratio(mine: float, reference: float) -> float:
    """``mine / reference``; 1 when neither run solved anything, inf when only the candidate did."""
    if reference:
        return float(mine) / float(reference)
    return 1.0 if not mine else float("inf")


def load(run: dict, tol: float) -> float:
    """How much of the protocol's accuracy room a run used: the larger of its position error over ``tol`` and its
    fallback share over :data:`FALLBACK_BOUND`; a run that did not complete every step has used all of it (inf).
    It carries the simulation when the load is at most 1. Cost is not in it (:func:`cost_bounds`)."""
    if run["status"] != "completed" or run["steps_run"] < run["steps"]:
        return float("inf")
    return max(run["position_error_max"] / tol, run["fallback_share"] / FALLBACK_BOUND)


def why_not(run: dict) -> str:
    """The protocol's part a run failed, in words (empty when it carries)."""
    if run["carries"]:
        return ""
    if run["status"] != "completed" or run["steps_run"] < run["steps"]:
        return f"{run['status']} after {run['steps_run']} of {run['steps']} steps"
    parts = []
    if run["divergence_step"] is not None:
        parts.append(f"past the tolerance at step {run['divergence_step']}")
    if run["fallback_share"] > FALLBACK_BOUND:
        parts.append(f"fallback on {run['fallback_share']:.0%} of steps")
    return ", ".join(parts)


def within_cost(run: dict, bound: float) -> bool:
    """Whether ``run`` completed every step at most ``bound`` times the reference's linear solves."""
    return run["status"] == "completed" and run["steps_run"] >= run["steps"] and run["overhead"] <= bound


def cost_status(controls: list[dict], bound: float | None) -> str:
    """``test`` when every control run of a setting costs more than ``bound``; ``not a test`` when one is within
    it; ``no bound`` where no oracle calibrates one; ``no control`` without any control."""
    if not controls:
        return "no control"
    if bound is None:
        return "no bound"
    return "not a test" if any(within_cost(c, bound) for c in controls) else "test"


def setting_status(controls: list[dict]) -> str:
    """``test`` when every control run of a setting fails the protocol; ``not a test`` when one carries the
    simulation (its systems are too easy: an answer that does not solve passes); ``no control`` without any."""
    if not controls:
        return "no control"
    return "not a test" if any(c["carries"] for c in controls) else "test"


def separations(runs: list[dict], controls: list[dict], measure: str = "load") -> list:
    """The runs' ``measure`` (``load``: accuracy; ``overhead``: cost) over seeds against each control's
    (:func:`~qlsbench.bench.spread.separation`, lower is better), one :class:`~qlsbench.bench.spread.Separation`
    per control present, in :data:`CONTROL_WORDS` order."""
    from qlsbench.bench.spread import separation

    def loads(rs):  # a run that did not finish ranks last, not as an undefined number
        return np.minimum([r[measure] if r["status"] == "completed" else np.inf for r in rs], np.finfo(float).max)

    from qlsbench.solvers.registry import BUILTINS, is_variational

    # A classical solver gives the same run at every seed: its one run stands for each of the control's seeds.
    deterministic = bool(runs) and runs[0]["solver_name"] in BUILTINS and not is_variational(runs[0]["solver_name"])
    out = []
    for key, words in CONTROL_WORDS.items():
        theirs = [c for c in controls if c["control"] == key]
        if theirs:
            out.append(
                separation(
                    loads(runs), loads(theirs), control=words, higher_is_better=False, deterministic=deterministic
                )
            )
    return out


def _groups(judged: list[dict]) -> dict[tuple, dict]:
    """Real-solver runs (oracle sweeps aside) per setting and configuration (file and solver label), beside the
    control runs of the same setting."""
    groups: dict[tuple, dict] = {}
    for r in judged:
        if r["fidelity"] == r["fidelity"] or r["control"] or r["paper_scale"]:
            continue  # oracle sweeps map accuracy, controls are the yardstick, the paper's scale has its own line
        groups.setdefault((r["setting"], r["name"], r["solver"]), {"runs": [], "controls": []})["runs"].append(r)
    for g_key, group in groups.items():
        group["controls"] = [c for c in judged if c["control"] and c["setting"] == g_key[0]]
    return groups


def _split(inputs: list[str]) -> tuple[list[str], list[str]]:
    """In-loop results files and solve results files (the sequence study), each sorted; others are refused."""
    import pyarrow.parquet as pq

    from qlsbench.bench._results import RESULTS_VERSION_KEY
    from qlsbench.bench.in_loop import IN_LOOP_META_KEY
    from qlsbench.errors import InputError

    loops, solves = [], []
    for path in sorted(inputs):
        if not Path(path).exists():
            raise InputError(f"{path}: no such file (expected an in-loop or solve results file)")
        try:
            keys = set((pq.read_schema(path).metadata or {}).keys())
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not a Parquet file ({exc})") from None
        if IN_LOOP_META_KEY in keys:
            loops.append(path)
        elif RESULTS_VERSION_KEY in keys:
            solves.append(path)
        else:
            raise InputError(
                f"{path}: neither an in-loop results file (`qlsbench in-loop`) nor a solve results file "
                "(`qlsbench solve`)"
            )
    return loops, solves
