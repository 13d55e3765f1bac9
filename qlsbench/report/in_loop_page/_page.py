"""The pages: ``docs/in-loop.md`` assembled from its sections (the command behind each results file, the warm-start
section, the seeds note) and the leaderboard page's physics-track blocks; the page as a report entry."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from qlsbench.bench._results import load_results
from qlsbench.bench.in_loop import read_in_loop
from qlsbench.bench.spread import Spread
from qlsbench.data import atomic_write_text
from qlsbench.options import cli_words
from qlsbench.report._base import Job, page
from qlsbench.report._staging import staged
from qlsbench.report._tables import markdown_table
from qlsbench.report.in_loop_page._figures import plot_in_loop
from qlsbench.report.in_loop_page._runs import (
    FALLBACK_BOUND,
    _bar_text,
    _setting,
    _split,
    control_name,
    judged_runs,
)
from qlsbench.report.in_loop_page._tables import (
    oracle_table,
    physics_track,
    sequence_table,
    solver_table,
    success_bars,
    warm_loop_table,
)
from qlsbench.report.in_loop_page._verdicts import verdicts

#: Seeds behind a variational number (issue 32); a run with fewer says why.
FULL_SEEDS = 5


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


def _dataset_words(path: Path) -> str:
    """What made a shipped dataset, from its own metadata (or that it is not shipped beside the results)."""
    from qlsbench.data import dataset_metadata

    where = f"`datasets/{path.name}` beside the results files"
    if not path.exists():
        return f"not shipped (expected in {where})"
    m = dataset_metadata(path)
    every = "every step" if m.get("every") == 1 else f"every {m.get('every', '?')}th step"
    return (
        f"shipped in {where}; {m.get('scene', '?')}, {m.get('n_spheres', '?')} spheres, "
        f"mu = {m.get('mu', '?')}, {m.get('steps', '?')} steps of h = {m.get('h', '?')} s, seed "
        f"{m.get('seed', '?')}, the Newton systems of {every} ({m.get('exported', '?')} systems; "
        "`qlsbench simulate` with these options rebuilds it)"
    )


def warm_section(
    files: list[tuple[str, pd.DataFrame, dict]], results: pd.DataFrame, folder: Path = Path("docs/in-loop/datasets")
) -> list[str]:
    """The page's warm-start section: the loop's runs and the sequence mode's passes, cold against warm.

    ``folder`` holds the sequence study's datasets, each under its results' dataset name.
    """
    loop, seq = warm_loop_table(files), sequence_table(results)
    if loop.empty and seq.empty:
        return []
    text = [
        "## Warm starts",
        "",
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
        "stopped, so they bound the whole run's from below.",
        "",
    ]
    if not loop.empty:
        text += ["**In the loop** (same simulation, cold against warm):", "", markdown_table(loop), ""]
    if not seq.empty:
        text += [
            "**Sequence mode** (a dataset's systems in simulation order, each solve from the previous one, "
            "against the same systems solved one by one; the shipped results files leave out the solution vectors "
            "and loss histories):",
            "",
            markdown_table(seq),
            "",
        ]
        text += [f"- `{name}`: {_dataset_words(folder / name)}" for name in sorted(seq["dataset"].unique())] + [""]
    return text


def physics_track_blocks(paths: list[str], board_bar: float = 0.99) -> list[tuple[str, object]]:
    """The leaderboard page's physics track, as ``write_leaderboard`` extra blocks, from in-loop results files."""
    loops, _ = _split(paths)
    if not loops:
        return [("h2", "Physics track"), ("p", "No in-loop results were given (`qlsbench board publish --in-loop`).")]
    files = [(Path(p).stem, *read_in_loop(p)) for p in loops]
    return [
        ("h2", "Physics track: solvers inside the simulation loop"),
        (
            "p",
            "The tracks above judge each solver on isolated Newton systems against a fidelity bar "
            f"({board_bar:g}). Here a solver solves every Newton system of a simulation (`qlsbench in-loop`) "
            "beside the exact run from the same state; a run carries the simulation when it completes every "
            "step, no body ever strays past the position tolerance from the exact run and the stepper's "
            f"fallback finishes at most {FALLBACK_BOUND:.0%} of the steps: its accuracy. Its cost (linear solves "
            "against the exact run's) is a column of its own, never part of carrying. The controls (returning b, "
            "a random vector, the oracle at fidelity 0) are rows too: where one carries a simulation, that "
            "simulation tests nothing. The table gives, per solver and family, how many runs carried the "
            "simulation, their cost, and the longest (docs/in-loop.md has every run and the verdicts).",
        ),
        ("table", physics_track(files)),
        (
            "p",
            "Physics bars: the controlled-error oracle returns the exact solution perturbed to a target "
            "fidelity; a family's bar is the lowest fidelity at which every seed carried the run (and every "
            "higher level did). Where it is looser than the board's bar, a solver failing the board can "
            "still carry that simulation; where stricter, passing the board is not enough.",
        ),
        ("table", success_bars(files, board_bar)),
    ]


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


def render(inputs: list[str], out: str | os.PathLike, figures: str | os.PathLike | None = None) -> Path:
    """Write the in-loop page (and its figure) from in-loop results files."""
    out = Path(out)
    figures = Path(figures) if figures is not None else out.parent / "figures"
    rel = os.path.relpath(figures, out.parent).replace(os.sep, "/")
    loops, solves = _split(inputs)
    files = [(Path(p).stem, *read_in_loop(p)) for p in loops]
    results = load_results(solves) if solves else pd.DataFrame()
    with staged(figures) as drawn:  # moved into figures/ only once drawn whole
        # the controls' runs are in the tables; a panel each would only widen the figure
        plot_in_loop([f for f in files if not all(control_name(r) for r in f[2]["runs"])], drawn / "in_loop.png")
    text = [
        HEADER,
        verdicts(files),
        f"![position error against time]({rel}/in_loop.png)",
        "",
        *warm_section(files, results, _datasets_folder(solves)),
    ]
    for name, steps, meta in files:
        runs, tol = judged_runs(name, steps, meta), meta["options"]["position_tol"]
        text += [
            f"## {name}",
            "",
            f"*{_setting(meta['options'])}; tolerance {tol:g} m.*",
            "",
            "```",
            command(name, meta),
            "```",
            "",
        ]
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

    return bool(is_variational(runs[0]["solver_name"])) and len({r["seed"] for r in runs}) < FULL_SEEDS


def seeds_line(runs: list[dict]) -> str:
    """Why a variational solver's run has fewer than :data:`FULL_SEEDS` seeds, with what one run cost here."""
    seconds = Spread.of([r["solver_seconds"] for r in runs])
    n = len({r["seed"] for r in runs})
    return (
        f"**{n} of {FULL_SEEDS} seeds**: one run took {seconds.low:.0f}-{seconds.high:.0f} s of solver time "
        f"here (median {seconds.median:.0f} s). A variational run takes fewer than {FULL_SEEDS} seeds only "
        "where one run costs over an hour; its entry in `workflows/config/paper.yaml` says so (`fewer_seeds`)."
    )


def _datasets_folder(solves: list[str]) -> Path:
    """Where the sequence study's datasets are shipped: ``datasets/`` beside its results files."""
    return (Path(solves[0]).parent if solves else Path("docs/in-loop")) / "datasets"


FIGURE = page(
    "in-loop",
    "docs/in-loop.md: solvers inside the simulation loop, oracle sweeps and success bars",
    "in-loop results .parquet files (`qlsbench in-loop`), and solve results of the sequence study",
    render,
    # the workflow's page of its in-loop runs (config `in_loop:`), when it has any
    job=Job(
        "in_loop_page",
        "results/in-loop.md",
        targets=lambda config: ["results/in-loop.md"] if config.in_loop_names() else [],
        inputs=lambda config, wc: [f"results/in-loop/{name}.parquet" for name in config.in_loop_names()],
        log="logs/in_loop_page.log",
    ),
    board_track="physics",
)
