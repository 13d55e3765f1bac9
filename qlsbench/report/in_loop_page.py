"""``docs/in-loop.md``: solvers inside the simulation loop, generated from in-loop results files (never typed).

``qlsbench figure in-loop FILE... --out docs/in-loop.md`` reads results of
``qlsbench in-loop`` and writes the page and its figure: for each oracle sweep,
the physics error at each target fidelity over its seeds and the family's
success bar; for each real solver, whether it carried the run, how far, and at
what cost.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.in_loop import read_in_loop, success_bar
from qlsbench.bench.spread import Spread
from qlsbench.data import atomic_write_text
from qlsbench.options import Options, cli_words, option
from qlsbench.report.base import Figure
from qlsbench.report.plotting import pyplot, save_figure
from qlsbench.report.tables import markdown_table


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
                     "largest system (qubits)": r.get("max_qubits", "—"),
                     "solver seconds": f"{r['solver_seconds']:.1f}",
                     "circuit executions": f"{int(resources['circuit_executions']):,}"
                     if "circuit_executions" in resources else "—"})
    return pd.DataFrame(rows)


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
        return (f"holds on {len(runs)} run(s): every step solved, never past the tolerance (largest error "
                f"{max(r['position_error_max'] for r in runs):.1e} m{largest})")
    failed = [r for r in runs if r not in carried]
    why = "; ".join(f"{r['name']}: {r['status']}" + (f", past the tolerance at step {r['divergence_step']}"
                                                      if r["divergence_step"] is not None else "")
                    for r in failed)
    return f"not shown: {len(failed)} of {len(runs)} run(s) did not carry the simulation ({why})"


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
    files = [(Path(p).stem, *read_in_loop(p)) for p in sorted(inputs)]
    plot_in_loop(files, figures / "in_loop.png")
    text = [HEADER, verdicts(files), f"![position error against time]({rel}/in_loop.png)", ""]
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
            text += [f"- `{r['solver']}` seed {r['seed']}: {r['message']}" for r in others if r["message"]]
            text += [""]
    return atomic_write_text(out, "\n".join(text).rstrip("\n") + "\n")


@dataclass(frozen=True)
class InLoopPageOptions(Options):
    figures: str | None = option(None, "folder of the page's figure (default: figures/ beside the page)",
                                 path="folder")


def _draw(inputs: list[str], out: Path, options: InLoopPageOptions) -> Path:
    return render(inputs, out, options.figures)


FIGURE = Figure("in-loop", "docs/in-loop.md: solvers inside the simulation loop, oracle sweeps and success bars",
                "in-loop results .parquet files (`qlsbench in-loop`)", _draw, InLoopPageOptions, formats=(".md",))
