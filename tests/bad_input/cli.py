"""Bad values of numeric options, outputs that would overwrite inputs or cannot be written, configs with a key
given twice: each refused before any work, in one line naming the option, path or key."""

from __future__ import annotations

import shutil
from pathlib import Path

from bad_input import Case, text_maker


def _link(tmp: Path, data: Path) -> Path:
    """The dataset again under another spelling: a symlink to it."""
    link = tmp / "same.parquet"
    link.symlink_to(data)
    return link


def _dataset_folder(tmp: Path, data: Path) -> Path:
    """A dataset folder holding one part file."""
    folder = tmp / "dsfolder"
    folder.mkdir()
    shutil.copy(data, folder / "part-0000.parquet")
    return folder


MAKERS = {
    "link": _link,
    "dsfolder": _dataset_folder,
    "twice": text_maker("twice.yaml", "run:\n  seed: 1\nsolvers: []\nrun:\n  seed: 2\n"),
    "cfg_solver_typo": text_maker("solver_typo.yaml", "solvers:\n  - name: gmress\n"),
    "cfg_option_type": text_maker("option_type.yaml", "solvers:\n  - name: gmres\n    options: {restart: two}\n"),
    "cfg_option_key": text_maker("option_key.yaml", "solvers:\n  - name: cg\n    options: {tol: 1.0e-8}\n"),
    "twice_nested": text_maker("twice_nested.yaml", "solvers:\n  - name: lu\n    label: a\n    name: cg\n"),
}

_OUT = ["--out", "{tmp}/x.parquet"]
_SOLVE = ["solve", "--solver", "lu", "--dataset", "{data}"]
_SIM = ["simulate", "--steps", "5", "--quiet", "--out", "{tmp}/sim"]

CASES = {
    # ---- numbers out of their bounds: argparse names the option before any work
    "ising qubits with no size bound": (
        ["ising", "--n", "40", *_OUT],
        "argument --n: must be a whole number from 1 to 20",
    ),
    "ising coupling not finite": (["ising", "--n", "2", "--J", "inf", *_OUT], "argument --J"),
    "ising kappa NaN": (["ising", "--n", "2", "--kappa", "nan", *_OUT], "argument --kappa"),
    "every zero": ([*_SIM, "--every", "0"], "argument --every: must be a whole number from 1 to 1000000000, got '0'"),
    "negative seed": (
        [*_SIM, "--seed", "-1"],
        "argument --seed: must be a whole number from 0 to 9223372036854775807, got '-1'",
    ),
    "spheres beyond any placement": ([*_SIM, "--n-spheres", "100000000"], "argument --n-spheres"),
    "kappa cap NaN": ([*_SIM, "--kappa-cap", "nan"], "argument --kappa-cap"),
    "kappa cap negative": ([*_SIM, "--kappa-cap", "-5"], "argument --kappa-cap"),
    "max systems zero": ([*_SIM, "--max-systems", "0"], "argument --max-systems"),
    "time step zero": ([*_SIM, "--h", "0"], "argument --h"),
    "time step NaN": ([*_SIM, "--h", "nan"], "argument --h"),
    "packing above what random placement reaches": ([*_SIM, "--packing", "0.7"], "argument --packing"),
    "zero steps": ([*_SIM, "--steps", "0"], "argument --steps"),
    "negative regularisation": ([*_SIM, "--regularization", "-1e-8"], "argument --regularization"),
    "zero snapshots": ([*_SIM, "--snapshot-count", "0"], "argument --snapshot-count"),
    "two friction directions": ([*_SIM, "--friction-directions", "2"], "argument --friction-directions"),
    "friction not a number": ([*_SIM, "--mu", "lots"], "argument --mu"),
    "trajectory noise NaN": (
        ["trajectory", "--scene", "pendulum", "--steps", "5", "--sigma", "nan", *_OUT],
        "argument --sigma",
    ),
    "trajectory negative seed": (
        ["trajectory", "--scene", "pendulum", "--steps", "5", "--seed", "-3", *_OUT],
        "argument --seed",
    ),
    "infinite time limit": ([*_SOLVE, *_OUT, "--time-limit", "inf"], "argument --time-limit"),
    "zero repeats": ([*_SOLVE, *_OUT, "--repeats", "0"], "argument --repeats"),
    "a million repeats": ([*_SOLVE, *_OUT, "--repeats", "1000000"], "argument --repeats"),
    "solve with a negative seed": ([*_SOLVE, *_OUT, "--seed", "-1"], "argument --seed"),
    "zero max qubits": ([*_SOLVE, *_OUT, "--max-qubits", "0"], "argument --max-qubits"),
    "residual bar zero": (
        ["leaderboard", "{data}", "--residual", "0", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "argument --residual",
    ),
    "time shift NaN": (
        ["leaderboard", "{data}", "--shift", "nan", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "argument --shift",
    ),
    "compare with a negative time limit": (
        ["compare", "--solver", "lu", "--time-limit", "-1", "--work", "{tmp}/w"],
        "argument --time-limit",
    ),
    "zero checkpoints": (["checkpoints", "{data}", "--count", "0", "--out", "{tmp}/c"], "argument --count"),
    "zero figure columns": (
        ["figure", "snapshots", "{data}", "--columns", "0", "--out", "{tmp}/x.png"],
        "argument --columns",
    ),
    "zero threads": (["--threads", "0", "info", "{data}"], "argument --threads"),
    # ---- outputs: never over an input, however spelt; unwritable ones found before the work
    "solve over its own dataset": ([*_SOLVE, "--out", "{data}"], "is an input of this command"),
    "solve over its dataset through a symlink": ([*_SOLVE, "--out", "{link}"], "is an input of this command"),
    "solve into the dataset folder": (
        ["solve", "--solver", "lu", "--dataset", "{dsfolder}", "--out", "{dsfolder}/r.parquet"],
        "lies inside the input folder",
    ),
    "solve output is a folder": ([*_SOLVE, "--out", "{tmp}"], "is a folder; name a file"),
    "solve output below a file": ([*_SOLVE, "--out", "{data}/r.parquet"], "is a file, not a folder"),
    "solve output in a read-only place": ([*_SOLVE, "--out", "/proc/qlsbench-r.parquet"], "cannot write in /proc"),
    "pauli study over its dataset": (["pauli", "{data}", "--out", "{data}"], "--out"),
    "simulate into an existing file": (["simulate", "--steps", "5", "--out", "{data}"], "is a file; name a folder"),
    "snapshots into a folder": ([*_SIM, "--snapshots", "{tmp}"], "--snapshots"),
    "ising into a folder": (["ising", "--n", "2", "--out", "{tmp}"], "is a folder; name a file"),
    "leaderboard csv over a results file": (
        ["leaderboard", "{data}", "--md", "{tmp}/x.md", "--csv", "{data}"],
        "--csv",
    ),
    "figure over its input": (["figure", "pauli-terms", "{data}", "--out", "{data}"], "is an input of this command"),
    "checkpoint table over its results": (["figure", "checkpoint-table", "{data}", "--out", "{data}"], "--out"),
    "checkpoints into a folder holding the dataset": (
        ["checkpoints", "{dsfolder}/part-0000.parquet", "--out", "{dsfolder}"],
        "holds the input",
    ),
    "trajectory below a file": (
        ["trajectory", "--scene", "pendulum", "--steps", "5", "--out", "{data}/t.parquet"],
        "is a file, not a folder",
    ),
    "compare work folder is a file": (["compare", "--solver", "lu", "--work", "{data}"], "--work"),
    "board pages into a file": (["board", "publish", "--results", "{tmp}/r", "--pages", "{data}"], "--pages"),
    "kappa figure over a dataset": (
        ["figure", "kappa-time", "{data}", "--out", "{data}"],
        "is an input of this command",
    ),
    # ---- the solver list and the board's actions
    "options of a misspelt solver": (["solvers", "gmress"], "unknown solver 'gmress'; available: "),
    "board add without its submission": (["board", "add"], "the following arguments are required: submission"),
    "board pin given a submission": (["board", "pin", "{data}"], "error: unrecognized arguments: "),
    # ---- configs: a key given twice replaces the first silently in plain YAML readers
    "config with two run blocks": Case(["check-config", "{twice}"], "line 4: key 'run' given twice"),
    "config naming a solver with a typo": Case(
        ["check-config", "{cfg_solver_typo}"], "solvers[0]: unknown solver 'gmress'"
    ),
    "config giving an option of the wrong type": Case(
        ["check-config", "{cfg_option_type}"], "option 'restart' must be int, got str 'two'"
    ),
    "config giving an option the solver lacks": Case(["check-config", "{cfg_option_key}"], "unknown option(s) 'tol'"),
    "solver entry naming two solvers": Case(["check-config", "{twice_nested}"], "line 4: key 'name' given twice"),
}
