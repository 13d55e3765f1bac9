"""The in-loop page's tables: oracle sweeps, real-solver runs, warm starts against cold ones, the physics track
per solver and family, success bars and the protocol's table of every configuration against its controls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qlsbench.bench.in_loop import WARM_STARTS, success_bar
from qlsbench.bench.spread import Spread
from qlsbench.report.in_loop_page._runs import (
    CONTROL_WORDS,
    _bar_text,
    _groups,
    _setting,
    cost_bounds,
    cost_status,
    judged_runs,
    separations,
    setting_status,
    why_not,
    within_cost,
)


def oracle_table(runs: list[dict], tol: float) -> pd.DataFrame:
    """Per target fidelity: seeds, how many stayed within ``tol``, and the spreads of error and cost.

    ``runs`` as :func:`judged_runs` gives them: the cost is the linear solves, also relative to the reference
    run's, and the share of steps the fallback finished.
    """
    rows = []
    for level in sorted({r["fidelity"] for r in runs}, reverse=True):
        at = [r for r in runs if r["fidelity"] == level]
        within = sum(r["stayed_within"] for r in at)
        left = [r["divergence_step"] for r in at if r["divergence_step"] is not None]
        rows.append(
            {
                "fidelity": f"{level:g}",
                "seeds": len(at),
                f"stayed within {tol:g} m": f"{within} of {len(at)}",
                "largest position error (m)": Spread.of([r["position_error_max"] for r in at]).text(".2e"),
                "first step past it": f"{min(left)}" if left else "—",
                "linear solves": Spread.of([r["linear_solves"] for r in at]).text(".0f"),
                "fallback share": Spread.of([r["fallback_share"] for r in at]).text(".3f"),
                "linear solves (× reference)": Spread.of([r["overhead"] for r in at]).text(".1f"),
            }
        )
    return pd.DataFrame(rows)


def solver_table(runs: list[dict]) -> pd.DataFrame:
    """One row per real-solver run (as :func:`judged_runs` gives them): outcome, distance carried, physics
    errors, cost (also relative to the reference run's) and whether it carries the simulation."""
    rows = []
    for r in runs:
        resources = r.get("resources") or {}
        rows.append(
            {
                "solver": r["solver"],
                "seed": r["seed"],
                "status": r["status"],
                "steps": f"{r['steps_run']} of {r['steps']}",
                "left the tolerance": "never" if r["divergence_step"] is None else f"step {r['divergence_step']}",
                "largest position error (m)": f"{r['position_error_max']:.2e}",
                "largest overlap (m)": "—"
                if r["penetration_max"] != r["penetration_max"]
                else f"{r['penetration_max']:.1e}",
                "fallback steps": f"{r['fallback_steps']} ({r['fallback_share']:.1%})",
                "linear solves": f"{r['linear_solves']} ({r['overhead']:.2f}×)",
                "Newton iterations": f"{r['newton_iterations']} ({r['newton_overhead']:.2f}×)",
                "carries the simulation": "yes" if r["carries"] else f"no: {why_not(r)}",
                "solver iterations": r.get("solver_iterations", "—"),
                "warm starts": r.get("warm_starts", 0) if r.get("warm_start", "off") != "off" else "off",
                "largest system (qubits)": r.get("max_qubits", "—"),
                "solver seconds": f"{r['solver_seconds']:.1f}",
                "circuit executions": f"{int(resources['circuit_executions']):,}"
                if "circuit_executions" in resources
                else "—",
            }
        )
    return pd.DataFrame(rows)


def _loop_key(meta: dict, run: dict) -> tuple:
    """What makes two loop runs comparable: the simulation and the solver with its options."""
    import json

    return (_setting(meta["options"]), run["solver_name"], json.dumps(run["solver_options"], sort_keys=True))


def warm_loop_table(files: list[tuple[str, pd.DataFrame, dict]]) -> pd.DataFrame:
    """Real-solver loop runs that exist both cold and warm: per mode, outcome and cost as spreads over seeds."""
    groups: dict[tuple, dict[str, list]] = {}
    for _, _, meta in files:
        for run in meta["runs"]:
            if run["fidelity"] == run["fidelity"]:
                continue  # the oracle has nothing to start from
            mode = meta["options"].get("warm_start", "off")
            groups.setdefault(_loop_key(meta, run), {}).setdefault(mode, []).append(run)
    rows = []
    for (setting, _, _), modes in sorted(groups.items()):
        if "off" not in modes or len(modes) < 2:
            continue
        for mode in [m for m in WARM_STARTS if m in modes]:
            runs = modes[mode]
            rows.append(
                {
                    "solver": runs[0]["solver"],
                    "simulation": setting,
                    "warm start": mode,
                    "runs": len(runs),
                    "stayed within": f"{sum(r['stayed_within'] for r in runs)} of {len(runs)}",
                    "ended on the budget": f"{sum(r['status'] == 'budget' for r in runs)} of {len(runs)}",
                    "solver iterations": Spread.of([r.get("solver_iterations", np.nan) for r in runs]).text(".0f"),
                    "linear solves": Spread.of([r["linear_solves"] for r in runs]).text(".0f"),
                    "solver seconds": Spread.of([r["solver_seconds"] for r in runs]).text(".1f"),
                    "solves started warm": "—"
                    if mode == "off"
                    else f"{sum(r.get('warm_starts', 0) for r in runs)} of {sum(r['linear_solves'] for r in runs)}",
                }
            )
    return pd.DataFrame(rows)


def sequence_table(results: pd.DataFrame) -> pd.DataFrame:
    """The same systems solved one by one (plain) and as a chain of warm starts (``solve --sequence``).

    A solver configuration (name and options) with rows of both kinds gets two rows; a label is a sequence when
    any of its rows records ``started_from``. Spreads are over seeds (repeats): each seed's whole pass.
    """
    import json

    if results.empty:
        return pd.DataFrame()
    results = results.assign(started=results["resources"].map(lambda r: json.loads(r or "{}").get("started_from")))
    seq_labels = set(results.loc[results["started"].notna(), "solver"])
    results = results.assign(mode=results["solver"].map(lambda lab: "sequence" if lab in seq_labels else "plain"))
    rows = []
    for (_, _options), part in results.groupby(["solver_name", "solver_options"], sort=True):
        if set(part["mode"]) != {"plain", "sequence"}:
            continue
        for mode in ("plain", "sequence"):
            rows_ = part[part["mode"] == mode]
            per_seed = rows_.groupby("repeat")
            converged = per_seed["status"].agg(lambda st: float((st == "converged").mean()))
            rows.append(
                {
                    "solver": rows_["solver"].iloc[0],
                    "dataset": rows_["dataset"].iloc[0],
                    "mode": mode,
                    "systems": rows_["system_id"].nunique(),
                    "seeds": rows_["repeat"].nunique(),
                    "converged (share)": Spread.of(converged).text(".2f"),
                    "iterations per solve": Spread.of(per_seed["iterations"].mean()).text(".1f"),
                    "seconds per pass": Spread.of(per_seed["wall_time"].sum()).text(".1f"),
                    "solves started warm": "—"
                    if mode == "plain"
                    else f"{int((rows_['started'] == 'previous').sum())} of {len(rows_)}",
                }
            )
    return pd.DataFrame(rows)


def physics_track(files: list[tuple[str, pd.DataFrame, dict]]) -> pd.DataFrame:
    """Per real solver (controls included) and family: the runs that carried the simulation, and the longest.

    A run carries the simulation under the page's protocol (:func:`load`): every step, within the position
    tolerance and the fallback within its bound (accuracy); its cost, the linear solves over the reference's, is
    a column of its own. The longest is by simulated time (the steps' own clock), its setting named. The oracle
    at fidelity 0 is a row of its own (``oracle[fidelity=0]``).
    """
    best: dict[tuple, dict] = {}
    for name, steps, meta in files:
        family = meta["options"]["family"]
        for run in judged_runs(name, steps, meta):
            if run["fidelity"] == run["fidelity"]:
                continue
            solver = "oracle[fidelity=0]" if run["control"] == "oracle-f0" else run["solver_name"]
            entry = best.setdefault(
                (solver, family),
                {"solver": solver, "family": family, "tried": 0, "carried": 0, "longest": None, "qubits": 0},
            )
            entry.setdefault("costs", []).append(run["overhead"])
            entry["tried"] += 1
            entry["qubits"] = max(entry["qubits"], run.get("max_qubits") or 0)
            if not run["carries"]:
                continue
            entry["carried"] += 1
            mine = steps[(steps["solver"] == run["solver"]) & (steps["seed"] == run["seed"])]
            seconds = float(mine["time"].max()) if len(mine) else 0.0
            if entry["longest"] is None or seconds > entry["longest"][0]:
                entry["longest"] = (seconds, run, meta, name)
    rows = []
    for (solver, family), e in sorted(best.items()):
        longest = e["longest"]
        rows.append(
            {
                "solver": solver,
                "family": family,
                "runs carried": f"{e['carried']} of {e['tried']}",
                "linear solves (× reference)": Spread.of(e["costs"]).text(".1f"),
                "longest carried (simulated s)": "none" if longest is None else f"{longest[0]:.3g}",
                "its steps": "—" if longest is None else longest[1]["steps_run"],
                "its simulation": "—" if longest is None else _setting(longest[2]["options"]),
                "its linear solves": "—" if longest is None else longest[1]["linear_solves"],
                "largest system met (qubits)": e["qubits"] or "—",
                "file": "—" if longest is None else f"docs/in-loop/{longest[3]}.parquet",
            }
        )
    return pd.DataFrame(rows)


def success_bars(files: list[tuple[str, pd.DataFrame, dict]], board_bar: float = 0.99) -> pd.DataFrame:
    """Each oracle sweep's physics-based success bar beside the board's fidelity bar."""
    rows = []
    for _name, _, meta in files:
        oracle = [r for r in meta["runs"] if r["fidelity"] == r["fidelity"]]
        if not oracle:
            continue
        bar = success_bar(oracle)
        if bar is None:
            compare = "stricter than any level tried"
        elif bar > board_bar:
            compare = f"stricter than {board_bar:g}"
        elif bar == board_bar:
            compare = f"the same as {board_bar:g}"
        else:
            compare = f"looser than {board_bar:g}"
        rows.append(
            {
                "family": meta["options"]["family"],
                "simulation": _setting(meta["options"]),
                "physics bar (fidelity)": _bar_text(oracle),
                "against the board's bar": compare,
                "tolerance (m)": f"{meta['options']['position_tol']:g}",
                "seeds per level": len({r["seed"] for r in oracle}),
            }
        )
    return pd.DataFrame(rows)


def protocol_table(judged: list[dict]) -> pd.DataFrame:
    """Per setting and configuration (controls included), accuracy and cost apart: whether the setting is a test
    of each, the runs carrying the simulation, the accuracy's quantities and the cost over seeds, the cost bound
    read from the oracle there and the runs within it, and each configuration's separation from the controls on
    each."""
    rows = []
    controls = [r for r in judged if r["control"]]
    bounds = cost_bounds(judged)
    configs = [(k, g["runs"]) for k, g in _groups(judged).items()]
    for key in sorted({c["setting"] for c in controls} | {k[0] for k, _ in configs}):
        mine = [c for c in controls if c["setting"] == key]
        by_control = [(c, [r for r in mine if r["control"] == c]) for c in CONTROL_WORDS]
        entries: list[tuple[str, list[dict], Any]] = [
            (f"control: {CONTROL_WORDS[c]}", rs, None) for c, rs in by_control if rs
        ]
        entries += [(runs[0]["solver"], runs, runs) for k, runs in configs if k[0] == key]
        accuracy, bound = setting_status(mine), bounds.get(key)
        cost = cost_status(mine, bound)
        for label, runs, judged_here in entries:
            rows.append(
                {
                    "simulation": key[0],
                    "accuracy: a test?": accuracy,
                    "solver": label,
                    "file": runs[0]["name"],
                    "runs carrying": f"{sum(r['carries'] for r in runs)} of {len(runs)}",
                    "fallback share": Spread.of([r["fallback_share"] for r in runs]).text(".3f"),
                    "largest position error (m)": f"{max(r['position_error_max'] for r in runs):.1e}",
                    "accuracy against the controls": _against_cell(
                        accuracy, None if judged_here is None else separations(judged_here, mine)
                    ),
                    "cost: linear solves (× reference)": Spread.of([r["overhead"] for r in runs]).text(".1f"),
                    "cost bound (oracle at the success fidelity)": "—" if bound is None else f"{bound:.2f}×",
                    "cost: a test?": cost,
                    "runs within it": "—"
                    if bound is None
                    else f"{sum(within_cost(r, bound) for r in runs)} of {len(runs)}",
                    "cost against the controls": _against_cell(
                        cost, None if judged_here is None else separations(judged_here, mine, "overhead")
                    ),
                }
            )
    return pd.DataFrame(rows)


def _against_cell(status: str, seps: list | None) -> str:
    """A configuration's separations from the controls, or why there are none to draw a verdict from."""
    if seps is None:
        return "—"
    if status != "test":
        words = {"not a test": "not a test", "no control": "no control ran", "no bound": "no oracle bound"}
        return f"no verdict: {words[status]}"
    return "; ".join(s.text() for s in seps)
