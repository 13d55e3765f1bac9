"""The physics track: ``in-loop`` runs a simulation with a solver solving its Newton systems."""

from __future__ import annotations

from qlsbench.checks import Real, Whole
from qlsbench.cli.base import Command
from qlsbench.cli.options import (
    MAX_JOBS,
    MAX_REPEATS,
    add_options,
    add_solver_arguments,
    given_options,
    solver_spec,
)
from qlsbench.errors import InputError
from qlsbench.text import plural


def cmd_in_loop(args) -> None:
    from qlsbench.bench.in_loop import InLoopOptions, add_seeds, success_bar, sweep, write_in_loop

    if args.first_seed >= args.seeds:
        raise InputError(f"--first-seed {args.first_seed} leaves no seed below --seeds {args.seeds}")
    if args.first_seed and args.add_seeds:
        raise InputError("--first-seed runs a shard of seeds; --add-seeds raises a whole run: give one of them")
    options = InLoopOptions.from_mapping(given_options(args, InLoopOptions))
    if args.add_seeds:
        steps, summaries = add_seeds(
            args.out,
            options,
            solver_spec(args),
            seeds=args.seeds,
            fidelities=args.fidelity or (),
            progress=not args.quiet,
            jobs=args.jobs,
        )
    else:
        steps, summaries = sweep(
            options,
            solver_spec(args),
            seeds=args.seeds,
            first_seed=args.first_seed,
            fidelities=args.fidelity or (),
            progress=not args.quiet,
            out=args.out,
            jobs=args.jobs,
        )
        write_in_loop(args.out, steps, summaries, options)
    for s in summaries:
        level = f" fidelity {s['fidelity']:g}" if s["fidelity"] == s["fidelity"] else ""
        left = "never" if s["divergence_step"] is None else f"step {s['divergence_step']}"
        print(
            f"{s['solver']}{level} seed {s['seed']}: {s['status']} after {s['steps_run']} of "
            f"{plural(s['steps'], 'step')}, left {options.position_tol:g} m: {left}, largest position error "
            f"{s['position_error_max']:.2e} m, {plural(s['linear_solves'], 'solve')}, "
            f"{plural(s['fallback_steps'], 'fallback step')}, {s['seconds_per_step']:.3g} s/step"
            + (f" ({s['message']})" if s["message"] else "")
        )
    if args.fidelity:
        bar = success_bar(summaries)
        print(f"success bar: fidelity {bar:g}" if bar is not None else "success bar: none of the levels stayed within")
    print(f"-> {args.out}")


def _arguments_in_loop(s) -> None:
    from qlsbench.bench.in_loop import InLoopOptions

    add_solver_arguments(s)
    add_options(s, [InLoopOptions])
    s.add_argument("--seeds", type=Whole(1, MAX_REPEATS).parse, default=1, help="runs with seeds 0..k-1")
    s.add_argument(
        "--first-seed",
        type=Whole(0, MAX_REPEATS).parse,
        default=0,
        help="run seeds j..k-1 of --seeds k only: a shard of the run, joined by `qlsbench in-loop-merge`",
    )
    s.add_argument(
        "--fidelity",
        type=Real(0.0, 1.0).parse,
        nargs="+",
        help="with --solver oracle: sweep these target fidelities (each over --seeds seeds)",
    )
    s.add_argument(
        "--out",
        required=True,
        help="results .parquet file (one row per run and step); each run "
        "checkpoints beside it, so the same command run again resumes a killed run",
    )
    s.add_argument(
        "--add-seeds",
        action="store_true",
        help="raise the finished run in --out to --seeds seeds, keeping its runs (written after each "
        "new seed, so an interrupted raise resumes when run again)",
    )
    s.add_argument(
        "--jobs",
        type=Whole(1, MAX_JOBS).parse,
        default=1,
        help="runs side by side, one process each (each capped at its share of the cores, or at "
        "qlsbench --threads); the results are the same as one run after another",
    )
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_in_loop, writes=[("out", "--out", "file")])


def cmd_in_loop_merge(args) -> None:
    from qlsbench.bench.in_loop import merge_in_loop

    _, runs = merge_in_loop(args.shards, args.out)
    print(f"{plural(len(runs), 'run')} of {plural(len(args.shards), 'shard')} -> {args.out}")


def _arguments_in_loop_merge(s) -> None:
    s.add_argument("shards", nargs="+", help="in-loop results files of one run's seed shards (--first-seed)")
    s.add_argument("--out", required=True, help="the joined results file")
    s.set_defaults(func=cmd_in_loop_merge, writes=[("out", "--out", "file")])


#: This module's commands, in the order ``qlsbench --help`` lists them.
COMMANDS = (
    Command(
        "in-loop",
        "run a simulation with a solver solving its Newton systems, beside the exact run from the "
        "same state; per-step physics errors",
        _arguments_in_loop,
    ),
    Command(
        "in-loop-merge",
        "join the in-loop results files of one run's seed shards (in-loop --first-seed), in the order one run "
        "writes them",
        _arguments_in_loop_merge,
    ),
)

__all__ = ["COMMANDS"]
