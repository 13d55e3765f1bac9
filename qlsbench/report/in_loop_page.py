"""``docs/in-loop.md``: solvers inside the simulation loop, generated from in-loop results files (never typed).

``qlsbench figure in-loop FILE... --out docs/in-loop.md`` reads results of
``qlsbench in-loop`` and writes the page and its figure: for each oracle sweep,
the physics error at each target fidelity over its seeds and the family's
success bar; for each real solver, whether it carried the run, how far, and at
what cost.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.in_loop import WARM_STARTS, read_in_loop, success_bar
from qlsbench.bench.results import load_results
from qlsbench.bench.spread import Spread
from qlsbench.data import atomic_write_text
from qlsbench.options import cli_words
from qlsbench.report.base import page
from qlsbench.report.plotting import pyplot, save_figure
from qlsbench.report.tables import markdown_table

#: Seeds behind a variational number (issue 32); a run with fewer says why.
FULL_SEEDS = 5


def _setting(options: dict) -> str:
    """One line naming the simulation of a results file."""
    scene = options.get("scene") or ("incline-block" if options["family"] == "penalty" else "sedimentation")
    parts = [options["family"], scene, f"{options['steps']} steps"]
    if options["family"] != "penalty":
        restitution = f", e = {options['restitution']:g}" if options["family"] == "cd_lagrange" else ""
        parts.insert(2, f"{options['n_spheres']} spheres, mu = {options['mu']:g}{restitution}")
    if options.get("params"):
        parts.append(", ".join(f"{k}={v}" for k, v in sorted(options["params"].items())))
    cap = options.get("newton_max_iter")
    parts.append(f"Newton capped at {cap}" if cap else "Newton to convergence")
    if options["family"] != "penalty":  # penalty Newton has no LCP fallbacks
        parts.append(f"fallbacks {options.get('fallbacks', 'on')}")
    return "; ".join(parts)


def command(name: str, meta: dict) -> str:
    """The ``qlsbench in-loop`` command that wrote a results file, from the options and runs it records."""
    from qlsbench.bench.in_loop import InLoopOptions

    options = InLoopOptions(**meta["options"])
    runs = meta["runs"]
    first = runs[0]
    words = ["qlsbench in-loop", *cli_words(InLoopOptions, options.changed()), "--solver", first["solver_name"]]
    fidelities = sorted({r["fidelity"] for r in runs if r["fidelity"] == r["fidelity"]}, reverse=True)
    fixed = {k: v for k, v in first["solver_options"].items() if not (fidelities and k == "fidelity")}
    words += [f"--option {k}={v}" for k, v in sorted(fixed.items())]
    if fidelities:
        words += ["--fidelity", *(f"{f:g}" for f in fidelities)]
    seeds = len({r["seed"] for r in runs})
    if seeds > 1:
        words += ["--seeds", str(seeds)]
    return " ".join(words + ["--out", f"docs/in-loop/{name}.parquet"])


def oracle_table(runs: list[dict], tol: float) -> pd.DataFrame:
    """Per target fidelity: seeds, how many stayed within ``tol``, and the spreads of error and cost."""
    rows = []
    for level in sorted({r["fidelity"] for r in runs}, reverse=True):
        at = [r for r in runs if r["fidelity"] == level]
        within = sum(r["stayed_within"] for r in at)
        left = [r["divergence_step"] for r in at if r["divergence_step"] is not None]
        rows.append({"fidelity": f"{level:g}", "seeds": len(at), f"stayed within {tol:g} m": f"{within} of {len(at)}",
                     "largest position error (m)": Spread.of([r["position_error_max"] for r in at]).text(".2e"),
                     "first step past it": f"{min(left)}" if left else "—",
                     "linear solves": Spread.of([r["linear_solves"] for r in at]).text(".0f")})
    return pd.DataFrame(rows)


def solver_table(runs: list[dict]) -> pd.DataFrame:
    """One row per real-solver run: outcome, distance carried, physics errors and cost."""
    rows = []
    for r in runs:
        resources = r.get("resources") or {}
        rows.append({"solver": r["solver"], "seed": r["seed"], "status": r["status"],
                     "steps": f"{r['steps_run']} of {r['steps']}",
                     "left the tolerance": "never" if r["divergence_step"] is None else f"step {r['divergence_step']}",
                     "largest position error (m)": f"{r['position_error_max']:.2e}",
                     "largest overlap (m)": "—" if r["penetration_max"] != r["penetration_max"]
                     else f"{r['penetration_max']:.1e}",
                     "fallback steps": r["fallback_steps"], "linear solves": r["linear_solves"],
                     "solver iterations": r.get("solver_iterations", "—"),
                     "warm starts": r.get("warm_starts", 0) if r.get("warm_start", "off") != "off" else "off",
                     "largest system (qubits)": r.get("max_qubits", "—"),
                     "solver seconds": f"{r['solver_seconds']:.1f}",
                     "circuit executions": f"{int(resources['circuit_executions']):,}"
                     if "circuit_executions" in resources else "—"})
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
            rows.append({"solver": runs[0]["solver"], "simulation": setting, "warm start": mode,
                         "runs": len(runs),
                         "stayed within": f"{sum(r['stayed_within'] for r in runs)} of {len(runs)}",
                         "ended on the budget": f"{sum(r['status'] == 'budget' for r in runs)} of {len(runs)}",
                         "solver iterations": Spread.of([r.get("solver_iterations", np.nan) for r in runs]).text(".0f"),
                         "linear solves": Spread.of([r["linear_solves"] for r in runs]).text(".0f"),
                         "solver seconds": Spread.of([r["solver_seconds"] for r in runs]).text(".1f"),
                         "solves started warm": "—" if mode == "off" else
                         f"{sum(r.get('warm_starts', 0) for r in runs)} of {sum(r['linear_solves'] for r in runs)}"})
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
    for (_, options), part in results.groupby(["solver_name", "solver_options"], sort=True):
        if set(part["mode"]) != {"plain", "sequence"}:
            continue
        for mode in ("plain", "sequence"):
            rows_ = part[part["mode"] == mode]
            per_seed = rows_.groupby("repeat")
            converged = per_seed["status"].agg(lambda st: float((st == "converged").mean()))
            rows.append({"solver": rows_["solver"].iloc[0], "dataset": rows_["dataset"].iloc[0], "mode": mode,
                         "systems": rows_["system_id"].nunique(), "seeds": rows_["repeat"].nunique(),
                         "converged (share)": Spread.of(converged).text(".2f"),
                         "iterations per solve": Spread.of(per_seed["iterations"].mean()).text(".1f"),
                         "seconds per pass": Spread.of(per_seed["wall_time"].sum()).text(".1f"),
                         "solves started warm": "—" if mode == "plain" else
                         f"{int((rows_['started'] == 'previous').sum())} of {len(rows_)}"})
    return pd.DataFrame(rows)


def _dataset_words(path: Path) -> str:
    """What made a shipped dataset, from its own metadata (or that it is not shipped beside the results)."""
    from qlsbench.data import dataset_metadata

    where = f"`datasets/{path.name}` beside the results files"
    if not path.exists():
        return f"not shipped (expected in {where})"
    m = dataset_metadata(path)
    every = "every step" if m.get("every") == 1 else f"every {m.get('every', '?')}th step"
    return (f"shipped in {where}; {m.get('scene', '?')}, {m.get('n_spheres', '?')} spheres, "
            f"mu = {m.get('mu', '?')}, {m.get('steps', '?')} steps of h = {m.get('h', '?')} s, seed "
            f"{m.get('seed', '?')}, the Newton systems of {every} ({m.get('exported', '?')} systems; "
            "`qlsbench simulate` with these options rebuilds it)")


def warm_section(files: list[tuple[str, pd.DataFrame, dict]], results: pd.DataFrame,
                 folder: Path = Path("docs/in-loop/datasets")) -> list[str]:
    """The page's warm-start section: the loop's runs and the sequence mode's passes, cold against warm.

    ``folder`` holds the sequence study's datasets, each under its results' dataset name.
    """
    loop, seq = warm_loop_table(files), sequence_table(results)
    if loop.empty and seq.empty:
        return []
    text = ["## Warm starts", "",
            "Consecutive Newton systems of one run are close, so a solver may start from the previous solve: "
            "a Krylov method from its solution (x0), VQLS from its angles, VNLS from its network weights "
            "(`--warm-start on` in the loop; `qlsbench solve --sequence` over a dataset's systems in the order the "
            "simulation met them). `--warm-start converged` hands on only the state of the last solve that "
            "converged: a variational solve that failed can leave its parameters where the next, nearby "
            "system's solve fails again. A start that does not fit (another qubit count) is refused and the solve "
            "starts cold; the counts below say how many solves did start warm. Spreads are median [IQR] over "
            "seeds. VNLS runs here stop once the read-out is within rtol (`stop_every`), so a better start can "
            "show as fewer iterations; VQLS (L-BFGS-B) stops at its cost tolerance. A run that used up its "
            "solver-iteration budget (`--iteration-budget`) ended there, unfinished: its counts are where it "
            "stopped, so they bound the whole run's from below.", ""]
    if not loop.empty:
        text += ["**In the loop** (same simulation, cold against warm):", "", markdown_table(loop), ""]
    if not seq.empty:
        text += ["**Sequence mode** (a dataset's systems in simulation order, each solve from the previous one, "
                 "against the same systems solved one by one; the shipped results files leave out the solution vectors "
                 "and loss histories):", "", markdown_table(seq), ""]
        text += [f"- `{name}`: {_dataset_words(folder / name)}" for name in sorted(seq["dataset"].unique())] + [""]
    return text


def physics_track(files: list[tuple[str, pd.DataFrame, dict]]) -> pd.DataFrame:
    """Per real solver and family: the runs it carried within the tolerance, and the longest of them.

    A run is carried when it completed every step and never left the position tolerance. The longest is by
    simulated time (the steps' own clock), its setting named.
    """
    best: dict[tuple, dict] = {}
    for name, steps, meta in files:
        family = meta["options"]["family"]
        for run in meta["runs"]:
            if run["fidelity"] == run["fidelity"]:
                continue
            key = (run["solver_name"], family)
            entry = best.setdefault(key, {"solver": run["solver_name"], "family": family, "tried": 0, "carried": 0,
                                          "longest": None, "qubits": 0})
            entry["tried"] += 1
            entry["qubits"] = max(entry["qubits"], run.get("max_qubits") or 0)
            if not run["stayed_within"]:
                continue
            entry["carried"] += 1
            mine = steps[(steps["solver"] == run["solver"]) & (steps["seed"] == run["seed"])]
            seconds = float(mine["time"].max()) if len(mine) else 0.0
            if entry["longest"] is None or seconds > entry["longest"][0]:
                entry["longest"] = (seconds, run, meta, name)
    rows = []
    for (solver, family), e in sorted(best.items()):
        longest = e["longest"]
        rows.append({"solver": solver, "family": family, "runs carried": f"{e['carried']} of {e['tried']}",
                     "longest carried (simulated s)": "none" if longest is None else f"{longest[0]:.3g}",
                     "its steps": "—" if longest is None else longest[1]["steps_run"],
                     "its simulation": "—" if longest is None else _setting(longest[2]["options"]),
                     "its linear solves": "—" if longest is None else longest[1]["linear_solves"],
                     "largest system met (qubits)": e["qubits"] or "—",
                     "file": "—" if longest is None else f"docs/in-loop/{longest[3]}.parquet"})
    return pd.DataFrame(rows)


def success_bars(files: list[tuple[str, pd.DataFrame, dict]], board_bar: float = 0.99) -> pd.DataFrame:
    """Each oracle sweep's physics-based success bar beside the board's fidelity bar."""
    rows = []
    for name, _, meta in files:
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
        rows.append({"family": meta["options"]["family"], "simulation": _setting(meta["options"]),
                     "physics bar (fidelity)": _bar_text(oracle), "against the board's bar": compare,
                     "tolerance (m)": f"{meta['options']['position_tol']:g}",
                     "seeds per level": len({r["seed"] for r in oracle})})
    return pd.DataFrame(rows)


def physics_track_blocks(paths: list[str], board_bar: float = 0.99) -> list[tuple[str, object]]:
    """The leaderboard page's physics track, as ``write_leaderboard`` extra blocks, from in-loop results files."""
    loops, _ = _split(paths)
    if not loops:
        return [("h2", "Physics track"), ("p", "No in-loop results were given (`qlsbench board publish --in-loop`).")]
    files = [(Path(p).stem, *read_in_loop(p)) for p in loops]
    return [("h2", "Physics track: solvers inside the simulation loop"),
            ("p", "The tracks above judge each solver on isolated Newton systems against a fidelity bar "
                  f"({board_bar:g}). Here a solver solves every Newton system of a simulation (`qlsbench in-loop`) "
                  "beside the exact run from the same state; a run is carried when it completes every step and "
                  "no body ever strays past the position tolerance from the exact run. The table gives, per "
                  "solver and family, how many runs it carried and the longest (docs/in-loop.md has every run)."),
            ("table", physics_track(files)),
            ("p", "Physics bars: the controlled-error oracle returns the exact solution perturbed to a target "
                  "fidelity; a family's bar is the lowest fidelity at which every seed carried the run (and every "
                  "higher level did). Where it is looser than the board's bar, a solver failing the board can "
                  "still carry that simulation; where stricter, passing the board is not enough."),
            ("table", success_bars(files, board_bar))]


def plot_in_loop(files: list[tuple[str, pd.DataFrame, dict]], out: str | os.PathLike) -> Path:
    """Position error against simulated time, one panel per file: a line per run (solver, seed, fidelity)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(files), figsize=(5.2 * len(files), 4.6), squeeze=False)
    for ax, (name, steps, meta) in zip(axes[0], files):
        levels = sorted(steps["fidelity"].dropna().unique(), reverse=True)
        for k, ((solver, fidelity), part) in enumerate(steps.groupby(["solver", "fidelity"], dropna=False, sort=True)):
            colour = f"C{levels.index(fidelity) % 10}" if fidelity == fidelity else f"C{k % 10}"
            label = f"F = {fidelity:g}" if fidelity == fidelity else solver
            for i, (_, run) in enumerate(part.groupby("seed")):
                ax.plot(run["time"], np.maximum(run["position_error"], 1e-18), color=colour, lw=1,
                        label=label if i == 0 else None)
        ax.axhline(meta["options"]["position_tol"], color="k", ls="--", lw=0.8, label="tolerance")
        ax.set(yscale="log", xlabel="simulated time (s)", title=name, ylim=(1e-17, None))
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False, ncol=3)
    axes[0][0].set_ylabel("largest position error against the exact run (m)")
    fig.tight_layout()
    return save_figure(fig, out)


HEADER = """# Solvers in the simulation loop

Every other number of qlsbench is a fidelity on one isolated Newton system, judged against a bar (0.99) that
nothing ties to the physics. Here a solver solves *every* Newton system of a simulation (`qlsbench in-loop`,
`docs/solvers.md`), beside a run from the same state that steps alike but solves the Newton systems by the
stepper's own linear algebra (SuperLU for spheres, GMRES for penalty), and the question is whether the
trajectory survives. Both runs take min-map Newton first on every step (frictional steps included: the
Gauss-Seidel of dataset v2 would leave the solver nothing to solve), with the same Newton cap and fallbacks. **This page is generated** from the results files in `docs/in-loop/` by
`qlsbench figure in-loop docs/in-loop/*.parquet --out docs/in-loop.md`; `tests/test_in_loop_page.py` fails when
they disagree.

Two ways of running Newton answer two questions. *To convergence* (the stepper's own test, up to 100
iterations, fallbacks on): an inexact direction is corrected by the next iteration, so the trajectory survives
and the price is Newton iterations (linear solves). *Under a budget* (Newton capped at a few iterations,
fallbacks off): what a solver's accuracy does to the physics. The oracle (`docs/solvers.md`) returns the exact
solution perturbed to a target fidelity, so a sweep maps accuracy to physics error; the **success bar** of a
family is the lowest fidelity at which every seed stayed within the position tolerance for the whole run (and
every higher level did). Norm and sign of each answer come from the classical projection α = (b·Ax)/‖Ax‖²;
on a device that projection needs Hadamard or swap tests not counted here.
"""


def _bar_text(oracle: list[dict]) -> str:
    """The success bar in words: a fidelity, at most the lowest level tried, or none."""
    bar = success_bar(oracle)
    if bar is None:
        return "none: even the highest level tried left the tolerance"
    if bar == min(r["fidelity"] for r in oracle):
        return f"fidelity {bar:g} or lower (every level tried stayed within the tolerance)"
    return f"fidelity {bar:g}"


def vnls_verdict(runs: list[dict]) -> str:
    """The abstract's claim that VNLS "accurately simulates the dynamics", judged on the VNLS runs in the loop."""
    if not runs:
        return "not run"
    carried = [r for r in runs if r["status"] == "completed" and r["divergence_step"] is None]
    sizes = [r["max_qubits"] for r in runs if r.get("max_qubits")]
    largest = f", systems of at most {max(sizes)} qubits" if sizes else ""
    if len(carried) == len(runs):
        return (f"holds on {len(runs)} run(s): {_finished(runs)}, never past the tolerance (largest error "
                f"{max(r['position_error_max'] for r in runs):.1e} m{largest})")
    failed = [r for r in runs if r not in carried]
    why = "; ".join(f"{r['name']}: {r['status']}" + (f", past the tolerance at step {r['divergence_step']}"
                                                      if r["divergence_step"] is not None else "")
                    for r in failed)
    return f"not shown: {len(failed)} of {len(runs)} run(s) did not carry the simulation ({why})"


def _finished(runs: list[dict]) -> str:
    """Every step finished, and how many of them the stepper's fallback finished rather than Newton on the
    solver's directions: a trajectory carried by Lemke is not the solver's doing."""
    fallback = sum(int(r.get("fallback_steps") or 0) for r in runs)
    if not fallback:
        return "every step solved by Newton on the solver's directions"
    steps = sum(int(r["steps_run"]) for r in runs)
    return (f"every step finished, {fallback} of {steps} with the stepper's fallback (spheres: Lemke or the proximal "
            "method finished the step; penalty: Newton took a gradient step) where the solver's directions did not "
            "carry Newton")


def verdicts(files: list[tuple[str, pd.DataFrame, dict]]) -> str:
    """The page's summary: each oracle sweep's success bar, and the verdict on the abstract's VNLS claim."""
    rows, vnls = [], []
    for name, _, meta in files:
        runs = meta["runs"]
        oracle = [r for r in runs if r["fidelity"] == r["fidelity"]]
        if oracle:
            rows.append([name, _setting(meta["options"]), _bar_text(oracle)])
        vnls += [{**r, "name": name} for r in runs if r["solver_name"] == "vnls"]
    table = markdown_table(pd.DataFrame(rows, columns=["sweep", "simulation", "success bar (fidelity)"])) if rows \
        else "*No oracle sweep shipped.*"
    return "\n".join(["## Verdicts", "", table, "",
                      "The abstract's claim that VNLS \"accurately simulates the dynamics\" (judged with VNLS on exact "
                      f"expectation values, its best case): **{vnls_verdict(vnls)}**.", ""])


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the in-loop page (and its figure) from in-loop results files."""
    out = Path(out)
    figures = Path(figures) if figures is not None else out.parent / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(figures, out.parent).replace(os.sep, "/")
    loops, solves = _split(inputs)
    files = [(Path(p).stem, *read_in_loop(p)) for p in loops]
    plot_in_loop(files, figures / "in_loop.png")
    results = load_results(solves) if solves else pd.DataFrame()
    text = [HEADER, verdicts(files), f"![position error against time]({rel}/in_loop.png)", "",
            *warm_section(files, results, _datasets_folder(solves))]
    for name, steps, meta in files:
        runs, tol = meta["runs"], meta["options"]["position_tol"]
        text += [f"## {name}", "", f"*{_setting(meta['options'])}; tolerance {tol:g} m.*", "", "```",
                 command(name, meta), "```", ""]
        oracle = [r for r in runs if r["fidelity"] == r["fidelity"]]
        others = [r for r in runs if r["fidelity"] != r["fidelity"]]
        if oracle:
            text += [markdown_table(oracle_table(oracle, tol)), "", f"**Success bar**: {_bar_text(oracle)}.", ""]
        if others:
            text += [markdown_table(solver_table(others)), ""]
            text += [seeds_line(others), ""] if _too_few_seeds(others) else []
            text += [f"- `{r['solver']}` seed {r['seed']}: {r['message']}" for r in others if r["message"]]
            text += [""]
    return atomic_write_text(out, "\n".join(text).rstrip("\n") + "\n")


def _too_few_seeds(runs: list[dict]) -> bool:
    """Whether a variational solver's runs hold fewer than :data:`FULL_SEEDS` seeds."""
    from qlsbench.solvers.registry import is_variational

    return is_variational(runs[0]["solver_name"]) and len({r["seed"] for r in runs}) < FULL_SEEDS


def seeds_line(runs: list[dict]) -> str:
    """Why a variational solver's run has fewer than :data:`FULL_SEEDS` seeds, with what one run cost here."""
    seconds = Spread.of([r["solver_seconds"] for r in runs])
    n = len({r["seed"] for r in runs})
    return (f"**{n} of {FULL_SEEDS} seeds**: one run took {seconds.low:.0f}-{seconds.high:.0f} s of solver time "
            f"here (median {seconds.median:.0f} s). A variational run takes fewer than {FULL_SEEDS} seeds only "
            "where one run costs over an hour; its entry in `workflows/config/paper.yaml` says so (`fewer_seeds`).")


def _datasets_folder(solves: list[str]) -> Path:
    """Where the sequence study's datasets are shipped: ``datasets/`` beside its results files."""
    return (Path(solves[0]).parent if solves else Path("docs/in-loop")) / "datasets"


def _split(inputs: list[str]) -> tuple[list[str], list[str]]:
    """In-loop results files and solve results files (the sequence study), each sorted; others are refused."""
    import pyarrow.parquet as pq

    from qlsbench.bench.in_loop import IN_LOOP_META_KEY
    from qlsbench.bench.results import RESULTS_VERSION_KEY
    from qlsbench.errors import InputError

    loops, solves = [], []
    for path in sorted(inputs):
        try:
            keys = set((pq.read_schema(path).metadata or {}).keys())
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not a Parquet file ({exc})") from None
        if IN_LOOP_META_KEY in keys:
            loops.append(path)
        elif RESULTS_VERSION_KEY in keys:
            solves.append(path)
        else:
            raise InputError(f"{path}: neither an in-loop results file (`qlsbench in-loop`) nor a solve results file "
                             "(`qlsbench solve`)")
    return loops, solves


FIGURE = page("in-loop", "docs/in-loop.md: solvers inside the simulation loop, oracle sweeps and success bars",
              "in-loop results .parquet files (`qlsbench in-loop`), and solve results of the sequence study", render)
