"""The `qlsbench` command end to end (its bad-input cases are in test_bad_input.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys

import pandas as pd
import pytest

from qlsbench.cli import build_parser, main


def test_ising_solve_leaderboard_info(tmp_path, capsys):
    data = tmp_path / "datasets" / "ising" / "kappa100" / "part-0000.parquet"
    assert main(["ising", "--n", "2", "3", "4", "--kappa", "100", "--out", str(data)]) == 0
    assert main(["info", str(data.parent)]) == 0
    out = capsys.readouterr().out
    assert "systems   3" in out and "kappa100" in out
    res = tmp_path / "results" / "gmres.parquet"
    assert (
        main(
            [
                "solve",
                "--solver",
                "gmres",
                "--option",
                "restart=4",
                "--option",
                "rtol=1e-11",
                "--dataset",
                str(data.parent),
                "--out",
                str(res),
                "--quiet",
            ]
        )
        == 0
    )
    df = pd.read_parquet(res)
    assert (df["status"] == "converged").all() and df["solver"].iloc[0] == "gmres[restart=4,rtol=1e-11]"
    assert main(["leaderboard", str(res), "--md", str(tmp_path / "lb.md"), "--csv", str(tmp_path / "lb.csv")]) == 0
    assert "gmres" in (tmp_path / "lb.md").read_text()


def test_console_script_lists_plugins(plugin_path):
    out = subprocess.run(
        [sys.executable, "-m", "qlsbench.cli", "solvers"], capture_output=True, text=True, check=True
    ).stdout
    names = [line.split()[0] for line in out.splitlines()]
    assert {"lu", "splu", "cg", "minres", "gmres", "bicgstab", "normal-cg", "crash"} <= set(names)
    assert "Conjugate gradients" in out


def test_output_piped_into_a_reader_that_stops_early_is_not_an_error(ising_dataset):
    """``qlsbench info ... | head -1``: the closed pipe ends the command quietly, with no traceback."""
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE)
    writer = subprocess.run(
        [sys.executable, "-m", "qlsbench.cli", "info", str(ising_dataset)],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    reader.stdin.close()
    reader.wait(timeout=30)
    assert "Traceback" not in writer.stderr and writer.returncode == 0, writer.stderr


# ---------------------------------------------------------------- answering at once

#: Modules the command line must not import to list its commands or the solvers: each costs from 0.1 s
#: (numpy) to seconds (Qiskit, NetKet with JAX), and none is needed to print help.
HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "qiskit",
    "qiskit_aer",
    "netket",
    "jax",
    "numba",
    "matplotlib",
    "snakemake",
)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["solvers"],
        ["solvers", "hhl"],
        ["solvers", "vqls-local"],
        ["solve", "--help"],
        ["board", "add", "--help"],
    ],
)
def test_help_and_the_solver_list_import_no_heavy_module(argv):
    """The property the 0.5 s budget of ``qlsbench --help`` rests on, checked by what is imported, not by a clock."""
    script = (
        "import contextlib, io, json, sys\n"
        "from qlsbench.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    code, imported = json.loads(run.stdout)
    assert code == 0 and imported == [], imported


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command and sub-command of ``parser`` as its path of names (``("board", "add")``), depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _subcommands(sub, (*path, name))


def test_every_command_and_subcommand_has_a_help_of_its_own(capsys):
    paths = [path for path, _ in _subcommands(build_parser())]
    assert ("board", "add") in paths and ("figure", "loss-curves") in paths and ("solvers",) in paths
    seen = set()
    for path in paths:
        assert main([*path, "--help"]) == 0, path
        out = capsys.readouterr().out
        assert out.startswith(f"usage: qlsbench {' '.join(path)} "), out.splitlines()[0]
        assert out not in seen, f"qlsbench {' '.join(path)} --help repeats another command's help"
        seen.add(out)


def test_help_lines_are_each_commands_own():
    """``qlsbench --help`` lists every command of the table with its line, and the command's help starts with it."""
    from qlsbench.cli import commands

    listed = {c.name: c.help for c in commands()}
    parser = build_parser()
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(top.choices) == list(listed)
    for name, sub in top.choices.items():
        assert sub.description.startswith(listed[name]), name


def test_dataset_commands_are_the_families_commands():
    """A family with a command of its own needs its line of help in the command table, and no line is orphaned."""
    from qlsbench.cli.datasets import DATASET_COMMANDS
    from qlsbench.families import FAMILIES

    assert set(DATASET_COMMANDS) == {f.command for f in FAMILIES.values()}


# ---------------------------------------------------------------- solvers NAME


def _option_rows(out: str) -> dict[str, list[str]]:
    """``qlsbench solvers NAME``'s option table: name -> [type, default, meaning...] (wrapped lines joined)."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["name", "type", "default"])
    start = lines[header].index("meaning")
    rows: dict[str, list[str]] = {}
    last = None
    for line in lines[header + 1 :]:
        if line[:start].strip():  # a new option
            cells = line[:start].split("  ")
            name, type_, default = [c.strip() for c in cells if c.strip()]
            rows[name] = [type_, default, line[start:].strip()]
            last = name
        else:  # the meaning of the last option, wrapped
            rows[last][2] += " " + line.strip()
    return rows


def test_solvers_name_lists_each_option_with_type_default_and_meaning(capsys):
    from qlsbench import solvers
    from qlsbench.solvers.options import HHLOptions

    assert main(["solvers", "hhl"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hhl: HHL on Aer circuits") and "module docstring" not in out
    rows = _option_rows(out)
    built = solvers.get("hhl").options  # the defaults the solver really has
    assert list(rows) == list(built)
    for field in dataclasses.fields(HHLOptions):
        type_, default, meaning = rows[field.name]
        assert type_ == field.type
        value = built[field.name]
        assert default == ("none" if value is None else f"{value:g}" if isinstance(value, float) else str(value))
        assert meaning == field.metadata["qlsbench.option"].help
    assert rows["refine"][1] == "0" and rows["clock"][:2] == ["int", "8"] and rows["time"][1] == "none"


def test_solvers_name_of_a_solver_without_options_says_so(capsys):
    assert main(["solvers", "lu"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "options: none"


def test_solvers_name_reads_a_plugins_fields(plugin_path, capsys):
    assert main(["solvers", "normal-cg"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("normal-cg: CG on the normal equations")
    assert _option_rows(out) == {"rtol": ["float", "1e-12", ""]}


# ---------------------------------------------------------------- solve's accuracy line


def test_solve_ends_with_the_accuracy_of_what_it_solved(tmp_path, capsys):
    """The line's numbers are the results file's medians, over all returned solutions and per status."""
    data, out = tmp_path / "ising.parquet", tmp_path / "cg.parquet"
    assert main(["ising", "--n", "2", "3", "4", "5", "--kappa", "100", "--out", str(data)]) == 0
    assert (
        main(
            [
                "solve",
                "--solver",
                "cg",
                "--option",
                "maxiter=3",
                "--dataset",
                str(data),
                "--out",
                str(out),
                "--max-qubits",
                "4",
                "--quiet",
            ]
        )
        == 0
    )
    line = capsys.readouterr().out.splitlines()[-1]
    rows = pd.read_parquet(out)
    returned = rows[rows["status"] != "skipped"]
    assert set(returned["status"]) == {"converged", "max_iter"}  # the case the line must split

    def medians(part):
        return f"{part['rel_residual'].median():.2e} and {part['fidelity'].median():.6f}"

    per_status = "; ".join(f"{s} {len(p)}: {medians(p)}" for s, p in returned.groupby("status"))
    assert line == (
        f"accuracy: median relative residual and fidelity {medians(returned)} over "
        f"{len(returned)} returned solutions ({per_status}); no solution: skipped 1"
    )


def test_the_accuracy_line_of_solves_without_a_solution_or_a_reference():
    from qlsbench.cli.solve import accuracy_summary

    nothing = pd.DataFrame({"status": ["skipped"], "rel_residual": [float("nan")], "fidelity": [float("nan")]})
    assert accuracy_summary(nothing) == "accuracy: none of the 1 solve returned a solution; no solution: skipped 1"
    unreferenced = pd.DataFrame({"status": ["converged"], "rel_residual": [1e-9], "fidelity": [float("nan")]})
    assert accuracy_summary(unreferenced) == (
        "accuracy: median relative residual and fidelity 1.00e-09 and no "
        "reference over 1 returned solution (converged 1: 1.00e-09 and no "
        "reference)"
    )


# ---------------------------------------------------------------- words


def test_plural_says_one_thing_and_many_things():
    from qlsbench.text import plural

    assert [plural(n, "system") for n in (0, 1, 2)] == ["0 systems", "1 system", "2 systems"]
    assert plural(1, "family", "families") == "1 family" and plural(3, "family", "families") == "3 families"


def test_one_system_is_written_in_the_singular(tmp_path, capsys):
    assert main(["ising", "--n", "2", "--out", str(tmp_path / "one.parquet")]) == 0
    assert capsys.readouterr().out.startswith("wrote 1 Ising system (kappa=10")


def test_resources_largest_is_the_largest_query_count(tmp_path, capsys):
    """A 2-qubit system of kappa 1000 needs more queries than a 4-qubit one of kappa 10: 'largest' is the former."""
    folder = tmp_path / "mixed"
    assert main(["ising", "--n", "2", "--kappa", "1000", "--out", str(folder / "part-0000.parquet")]) == 0
    assert main(["ising", "--n", "4", "--kappa", "10", "--out", str(folder / "part-0001.parquet")]) == 0
    capsys.readouterr()
    out = tmp_path / "resources.parquet"
    assert main(["resources", str(folder), "--out", str(out), "--quiet"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("epsilon")]
    table = pd.read_parquet(out)
    exact = table[table["tol"] == 0]
    assert len(lines) == exact["epsilon"].nunique() == 2
    for line in lines:
        epsilon = float(line.split()[1].rstrip(":"))
        rows = exact[exact["epsilon"] == epsilon]
        costliest = rows.loc[rows["adiabatic_queries_practical"].idxmax()]
        assert costliest["n_qubits"] == 2  # not the system of most qubits
        assert (
            f"largest {costliest['adiabatic_queries_practical']:.3g} (system {costliest['system_id']}: 2 qubits, "
            in line
        ), line
        assert costliest["adiabatic_queries_practical"] >= rows["adiabatic_queries_practical"].median()


def test_ctrl_c_while_a_command_starts_ends_in_one_line(monkeypatch, capsys):
    """An interrupt while the parser and the command's modules load is a line, not a KeyboardInterrupt traceback."""
    import qlsbench.cli as cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["info", "x.parquet"]) == 130
    err = capsys.readouterr().err.strip()
    assert err == "qlsbench: interrupted while starting; nothing was run"


def test_the_program_entry_runs_the_command_line_and_leaves_a_hosts_handler_alone(monkeypatch, capsys):
    """``qlsbench.console.main`` (the console script's) runs the command of ``sys.argv``; imported by a host (this
    test process), the module took no SIGINT handler, and the command line gave back none it had not taken."""
    import signal
    import sys

    from qlsbench import console

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(sys, "argv", ["qlsbench", "solvers"])
    assert console.main() == 0
    assert "lu" in capsys.readouterr().out.split()
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_at_any_moment_of_a_real_start_is_one_line_and_exit_130(tmp_path):
    """The console script under a real SIGINT, from the first instruction of its ``main`` (the command line's
    modules loading, where the interpreter's traceback and exit -2 used to come) to the simulation running: never a
    traceback, at most one line, and exit 130 (or the run's own 0 if it finished first). The interpreter's import
    log (``PYTHONPROFILEIMPORTTIME``) says when ``qlsbench.console`` has loaded, so each delay counts from there on
    any machine, however loaded."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    script = Path(sys.executable).parent / "qlsbench"
    if not script.exists():
        pytest.skip(f"no console script beside {sys.executable}")
    said = []
    for delay in (0.0, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.25, 0.5, 1.0):
        out = tmp_path / f"ds-{delay}"
        argv = [str(script), "simulate", "--n-spheres", "8", "--steps", "100000", "--out", str(out), "--quiet"]
        env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
        proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
        assert proc.stderr is not None
        for line in proc.stderr:  # until the console module has loaded: main's first instruction comes next
            if line.rstrip().endswith("qlsbench.console"):
                break
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        proc.wait(timeout=120)
        err = [line for line in rest.splitlines() if not line.startswith("import time:")]
        assert not any("Traceback" in line for line in err) and len(err) <= 1, (delay, err)
        assert proc.returncode in (130, 0), (delay, proc.returncode, err)
        said += err
    assert "qlsbench: interrupted while starting; nothing was run" in said  # the early window was hit
