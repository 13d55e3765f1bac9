"""The first round's bad-input cases: command-line arguments, workflow configs, dataset and results files."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bad_input import config_maker, text_maker


def _rewrite(src: Path, dst: Path, *, metadata=None, drop=None) -> Path:
    """A copy of a Parquet file with other file metadata or a column dropped."""
    table = pq.read_table(src)
    if drop:
        table = table.drop_columns([drop])
    if metadata is not None:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    pq.write_table(table, dst)
    return dst


def _tampered(tmp: Path, data: Path) -> Path:
    """A dataset whose first right-hand side was changed after its id was computed."""
    table = pq.read_table(data)
    b = table.column("b").to_pylist()
    b[0] = [v + 1.0 for v in b[0]]
    i = table.schema.get_field_index("b")
    dst = tmp / "tampered.parquet"
    pq.write_table(table.set_column(i, table.schema.field(i), pa.array(b, table.schema.field(i).type)), dst)
    return dst


def _results_v0(tmp: Path, data: Path) -> Path:
    """A results file of the dense LU solver on ``data`` that claims results schema version 0."""
    from qlsbench.bench import SolverSpec, run_solver

    scratch = tmp / "scratch"
    scratch.mkdir()
    run_solver(SolverSpec("lu"), data, scratch / "lu.parquet", progress=False)
    path = _rewrite(scratch / "lu.parquet", tmp / "r0.parquet", metadata={b"qlsbench.results_schema_version": b"0"})
    (scratch / "lu.parquet").unlink()
    scratch.rmdir()
    return path


def _empty_folder(tmp: Path, data: Path) -> Path:
    (tmp / "empty").mkdir()
    return tmp / "empty"


_CONFIG_CHANGES = {
    "cfg_unknown": lambda c: c.update(solverz=[]),
    "cfg_option": lambda c: c["solvers"][0].update(option={}),
    "cfg_runtime": lambda c: c.update(resources={"solve": {"runtime": -5}}),
    "cfg_figure": lambda c: c["loss_figures"][0].update(solvers=["vqls-globl"]),
    "cfg_pattern": lambda c: c["solvers"][0].update(datasets=["isng/*"]),
    "cfg_penalty": lambda c: c["penalty"][0]["params"].update(n=1),
    "cfg_restitution": lambda c: c["cd_lagrange"][0].update(restitution=2),
    "cfg_trajectory": lambda c: c["trajectories"][1]["params"].update(angle=3),
}


MAKERS = {
    "corrupt": text_maker("corrupt.parquet", "PAR1 this is not parquet"),
    "empty": _empty_folder,
    "notes": text_maker("notes.yaml", "solvers: [unclosed\n"),
    "v0": lambda tmp, data: _rewrite(data, tmp / "v0.parquet", metadata={b"qlsbench.schema_version": b"0"}),
    "nocol": lambda tmp, data: _rewrite(data, tmp / "nocol.parquet", drop="x_ref"),
    "tampered": _tampered,
    "results_v0": _results_v0,
    **{key: config_maker(change) for key, change in _CONFIG_CHANGES.items()},
}

CASES = {
    # ---- command line: arguments and options
    "unparsable number": (
        ["ising", "--n", "two", "--out", "{tmp}/x.parquet"],
        "argument --n: must be a whole number from 1 to 20, got 'two'",
    ),
    "unknown command": (["solvee"], "invalid choice: 'solvee'"),
    "kappa not above 1": (
        ["ising", "--n", "3", "--kappa", "1", "--out", "{tmp}/x.parquet"],
        "argument --kappa: must be a finite number in (1, 1e+12], got '1'",
    ),
    "zero qubits": (
        ["ising", "--n", "0", "--out", "{tmp}/x.parquet"],
        "argument --n: must be a whole number from 1 to 20, got '0'",
    ),
    "no spheres": (["simulate", "--n-spheres", "0", "--steps", "5", "--out", "{tmp}/x"], "argument --n-spheres"),
    "negative friction": (["simulate", "--n-spheres", "4", "--mu", "-1", "--steps", "5", "--out", "{tmp}/x"], "mu"),
    "simulation with nothing to export": (
        ["simulate", "--n-spheres", "3", "--steps", "2", "--out", "{tmp}/x", "--quiet"],
        "no Newton subsystem to export",
    ),
    "DEM-C option on a penalty scene": (
        ["simulate", "--scene", "incline-block", "--packing", "0.3", "--out", "{tmp}/x"],
        "--packing only applies to the dem_c, cd_lagrange families, not to --scene incline-block (family penalty)",
    ),
    "penalty scene parameter out of range": (
        ["simulate", "--scene", "incline-block", "--param", "angle=95", "--out", "{tmp}/x"],
        "incline angle must be in [0, 90) degrees, got 95",
    ),
    "penalty scene parameter it does not take": (
        ["simulate", "--scene", "cloth-sphere", "--param", "angle=3", "--out", "{tmp}/x"],
        "unexpected keyword argument 'angle'",
    ),
    "restitution without the CD-Lagrange integrator": (
        ["simulate", "--restitution", "0.5", "--steps", "5", "--out", "{tmp}/x"],
        "--restitution only applies to the cd_lagrange family, not to --scene sedimentation (family dem_c)",
    ),
    "restitution above 1": (
        ["simulate", "--integrator", "cd_lagrange", "--restitution", "1.5", "--steps", "5", "--out", "{tmp}/x"],
        "argument --restitution: must be a finite number in [0, 1], got '1.5'",
    ),
    "CD-Lagrange integrator on a penalty scene": (
        ["simulate", "--scene", "incline-block", "--integrator", "cd_lagrange", "--out", "{tmp}/x"],
        "--integrator cd_lagrange does not apply to --scene incline-block",
    ),
    "trajectory scene parameter it does not take": (
        ["trajectory", "--scene", "pendulum", "--steps", "5", "--param", "e=0.5", "--out", "{tmp}/x.parquet"],
        "params: pendulum takes no e (it takes",
    ),
    "unknown solver": (
        ["solve", "--solver", "nope", "--dataset", "{data}", "--out", "{tmp}/x.parquet"],
        "unknown solver 'nope'",
    ),
    "unknown solver option": (
        ["solve", "--solver", "cg", "--option", "tol=1", "--dataset", "{data}", "--out", "{tmp}/x.parquet"],
        "unknown option(s) 'tol'",
    ),
    "options not JSON": (
        ["solve", "--solver", "cg", "--options", "{{rtol: 1}}", "--dataset", "{data}", "--out", "{tmp}/x.parquet"],
        "--options is not valid JSON",
    ),
    "non-positive time limit": (
        ["solve", "--solver", "cg", "--time-limit", "0", "--dataset", "{data}", "--out", "{tmp}/x.parquet"],
        "argument --time-limit: must be a finite number in (0, 1e+07], got '0'",
    ),
    "module that does not import": (
        ["compare", "--solver", "no_such_module_x:Solver", "--work", "{tmp}/w"],
        "cannot import module 'no_such_module_x'",
    ),
    "class the module lacks": (
        ["compare", "--solver", "json:NoSolver", "--work", "{tmp}/w"],
        "module 'json' has no attribute 'NoSolver'",
    ),
    "negative truncation tolerance": (
        ["pauli", "{data}", "--tol", "-1", "--out", "{tmp}/x.parquet"],
        "argument --tol: must be a finite number in [0, 1e+12], got '-1'",
    ),
    "fidelity bar above 1": (
        ["leaderboard", "{results_v0}", "--fidelity", "2", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "argument --fidelity: must be a finite number in (0, 1], got '2'",
    ),
    # ---- workflow configs
    "unknown config key": (
        ["check-config", "{cfg_unknown}"],
        "the config: Additional properties are not allowed ('solverz' was unexpected)",
    ),
    "misspelt solver key": (
        ["check-config", "{cfg_option}"],
        "solvers[0]: Additional properties are not allowed ('option' was unexpected)",
    ),
    "negative runtime": (
        ["check-config", "{cfg_runtime}"],
        "resources.solve.runtime: -5 is less than the minimum of 1",
    ),
    "figure of an unconfigured solver": (
        ["check-config", "{cfg_figure}"],
        "loss_figures.loss_curves.solvers ['vqls-globl'] are not configured",
    ),
    "dataset pattern matching nothing": (
        ["check-config", "{cfg_pattern}"],
        "solver 'lu': datasets ['isng/*'] match none",
    ),
    "penalty run with a bad parameter": (
        ["check-config", "{cfg_penalty}"],
        "penalty[0]: incline-block: n (particles per edge) must be an integer from 2 to 64",
    ),
    "CD-Lagrange run with restitution above 1": (
        ["check-config", "{cfg_restitution}"],
        "cd_lagrange[0].restitution: 2 is greater than the maximum of 1",
    ),
    "trajectory with a parameter its scene lacks": (
        ["check-config", "{cfg_trajectory}"],
        "trajectories[1]: params: bouncing-ball takes no angle",
    ),
    "config that is not YAML": (["check-config", "{notes}"], "notes.yaml: not a readable YAML file"),
    # ---- datasets and results files
    "missing dataset": (
        ["solve", "--solver", "cg", "--dataset", "{tmp}/missing", "--out", "{tmp}/x.parquet"],
        "missing: no such file",
    ),
    "empty dataset folder": (["info", "{empty}"], "empty"),
    "not Parquet": (["info", "{corrupt}"], "corrupt.parquet: not a readable Parquet file"),
    "other dataset schema version": (["info", "{v0}"], "v0.parquet: schema version 0"),
    "dataset missing a column": (
        ["solve", "--solver", "cg", "--dataset", "{nocol}", "--out", "{tmp}/x.parquet"],
        "nocol.parquet: missing column 'x_ref'",
    ),
    "row altered after writing": (
        ["solve", "--solver", "lu", "--dataset", "{tampered}", "--out", "{tmp}/x.parquet"],
        "does not match its data",
    ),
    "results of another schema": (
        ["leaderboard", "{results_v0}", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "r0.parquet: results schema version 0, this qlsbench reads 2 and 3",
    ),
    "results file that is not Parquet": (
        ["leaderboard", "{corrupt}", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "corrupt.parquet: not a readable results file",
    ),
    "results file that does not exist": (
        ["leaderboard", "{tmp}/none.parquet", "--md", "{tmp}/x.md", "--csv", "{tmp}/x.csv"],
        "none.parquet: no such file (expected a results file)",
    ),
    "config that does not exist": (["check-config", "{tmp}/none.yaml"], "none.yaml: no such file"),
}
