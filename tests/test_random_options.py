"""Every solver, every option, random spellings and magnitudes, through the command line (issue 52).

One draw per (solver, option), from a fixed seed, so CI sees the same draws on
every run. A draw is either refused in one line naming the option (exit code
2), or solved: then no row may be "converged" at a relative residual of 1 or
more, no returned row may carry a NaN metric, and no solve may hang (each runs
under a time limit, so a long one is a ``timeout`` row). Runs in CI's
end-to-end step (marker ``options``): a few minutes of solves.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from solver_setups import REQUIRED

from qlsbench.cli import main
from qlsbench.options import SPEC
from qlsbench.solvers.registry import BUILTINS

pytestmark = pytest.mark.options

#: Fixed, so every CI run tries the same values.
SEED = 20261128
#: Seconds per solve: enough for every solver's default on a 2-qubit system, short enough that a budget of
#: 10^7 iterations is a timeout row, not a hang.
TIME_LIMIT = 20


def _spell(rng: np.random.Generator, value: float) -> str:
    """``value`` in one of the spellings a user might type."""
    kind = rng.integers(5)
    if kind == 0:
        return f"{value:e}"
    if kind == 1:
        return f"{value:E}".replace("E+0", "E")
    if kind == 2:
        return f"  {value!r} "
    if kind == 3 and float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):_}"
    return repr(value)


def _draw(rng: np.random.Generator, f: dataclasses.Field) -> str:
    spec = f.metadata[SPEC]
    pick = rng.random()
    if spec.choices is not None and pick < 0.7:
        return str(rng.choice(list(spec.choices)))
    if pick < 0.1:
        return str(rng.choice(["abc", "", "nan", "inf", "-inf", "true", "none", "[1, 2]"]))
    return _number_text(rng, "int" in str(f.type))


def _number_text(rng: np.random.Generator, whole: bool) -> str:
    """A number of any magnitude and sign (whole most of the time for a whole-number field), spelt as a user might."""
    magnitude = 10.0 ** rng.uniform(-15, 15)
    value = magnitude * rng.choice([-1, 1]) if rng.random() < 0.2 else magnitude
    if whole and rng.random() < 0.7:
        value = float(round(value))
    return _spell(rng, value)


def _draws():
    rng = np.random.default_rng(SEED)
    out = []
    for name, builtin in BUILTINS.items():
        if builtin.options is None:
            continue
        for f in dataclasses.fields(builtin.options):
            if name == "external" or "bool" in str(f.type):
                continue  # external's options are paths and commands (tests/test_external.py); flags are words
            out.append(pytest.param(name, f.name, _draw(rng, f), id=f"{name}-{f.name}"))
    return out


@pytest.mark.parametrize("solver, option, text", _draws())
def test_a_random_option_is_refused_by_name_or_solved_honestly(solver, option, text, ising_dataset, tmp_path, capsys):
    out = tmp_path / "out.parquet"
    argv = [
        "solve",
        "--solver",
        solver,
        "--option",
        f"{option}={text}",
        "--dataset",
        str(ising_dataset),
        "--out",
        str(out),
        "--quiet",
        "--time-limit",
        str(TIME_LIMIT),
        "--max-qubits",
        "2",
    ]
    for key, value in REQUIRED.get(solver, {}).items():
        argv += ["--option", f"{key}={value}"]
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "Warning" not in err, err
    if code != 0:
        assert code == 2 and "\n" not in err and (option in err or solver in err), (code, err)
        assert not out.exists()
        return
    rows = pd.read_parquet(out)
    returned = rows[rows["status"].isin(["converged", "max_iter", "stalled"])]
    assert not returned[["rel_residual", "fidelity"]].isna().any().any(), returned
    converged = rows[rows["status"] == "converged"]
    assert (converged["rel_residual"] < 1.0).all() and np.isfinite(converged["rel_residual"]).all(), converged


#: What a user might put in each of ``external``'s fields: ``{dir}`` is a fresh folder, ``{py}`` this interpreter,
#: ``{lu}`` a working entry file; a draw takes one of a field's spellings, the other fields a working set's.
EXTERNAL_SPELLINGS = {
    "environment": [
        "",
        "   ",
        "{dir}/no/such/env",
        "{dir}",
        "{dir}/requirements.txt",
        "{lu}",
        "{py}:solve",
        "~nobody/env",
        "{dir}/a\nb",
    ],
    "entry": [
        "",
        "nocolon",
        "{lu}:",
        ":solve",
        "{dir}/no_such.py:solve",
        "{lu}:no_such_function",
        "no_such_module:solve",
        "{lu}:solve:extra",
        "{dir}",
    ],
    "command": [
        "",
        "'unbalanced",
        "{dir}/no_such_program",
        "{dir}",
        "{py} -c 'import sys; sys.exit(3)'",
        '{py} -c \'open(__import__("sys").argv[2], "w").write("[1, 2]")\'',
        "{py} -c 'import time; time.sleep(600)'",
        "{py} -c 'import os; os.kill(os.getpid(), 9)'",
    ],
    "solver_options": ["", "=", "a", "a=", "=1", "a=1,b", "a=nan", "a=[1,", "a=1e999"],
    "peer": ["", "../up", "a/b", ".hidden", "x" * 300, "naïve", "a b", "-"],
}


def _external_draws():
    rng = np.random.default_rng(SEED)
    out = []
    for field, spellings in EXTERNAL_SPELLINGS.items():
        for text in rng.choice(spellings, size=2, replace=False):
            out.append(pytest.param(field, str(text), id=f"external-{field}-{len(out)}"))
    return out


@pytest.mark.parametrize("field, text", _external_draws())
def test_a_random_external_field_is_refused_by_name_or_solved_honestly(field, text, ising_dataset, tmp_path, capsys):
    """A draw is refused up front in one line naming the field (or external), or runs: then every row is an answer
    judged as any other or a row saying what went wrong, never our traceback."""
    import sys

    values = {
        k: v.format(dir=tmp_path, py=sys.executable, lu=REQUIRED["external"]["entry"].rpartition(":")[0])
        for k, v in {**REQUIRED["external"], field: text}.items()
    }
    if field == "command":
        values = {"command": values["command"]}
    out = tmp_path / "out.parquet"
    argv = ["solve", "--solver", "external", "--dataset", str(ising_dataset), "--out", str(out), "--quiet"]
    argv += ["--time-limit", "5", "--max-qubits", "2"]
    for key, value in values.items():
        argv += ["--option", f"{key}={value}"]
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err, err
    if code != 0:
        assert code == 2 and "\n" not in err and (field in err or "external" in err), (code, err)
        assert not out.exists()
        return
    rows = pd.read_parquet(out)
    answered = rows[rows["status"].isin(["converged", "max_iter", "stalled"])]
    assert not answered[["rel_residual", "fidelity"]].isna().any().any(), answered
    failed = rows[~rows["status"].isin(["converged", "max_iter", "stalled", "skipped"])]
    assert failed["message"].str.len().gt(0).all() and not failed["message"].str.contains("Traceback").any(), failed


def _solve_flag_draws():
    """Two draws for each numeric flag of ``solve`` (the run's own flags, beside the solver's options)."""
    import argparse

    from qlsbench.cli import build_parser

    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    rng = np.random.default_rng(SEED + 1)
    out = []
    for action in commands.choices["solve"]._actions:
        bound = getattr(action.type, "__self__", None)
        if action.option_strings and bound is not None:
            for _ in range(2):
                text = str(rng.choice(["abc", "", "nan", "inf"])) if rng.random() < 0.1 else None
                text = text if text is not None else _number_text(rng, type(bound).__name__ == "Whole")
                out.append(pytest.param(action.option_strings[0], text, id=action.option_strings[0]))
    out += [pytest.param("--shard", text, id="--shard") for text in ("3/2", "0/0", "1/1e9", "-1/2", "a/b")]
    return out


@pytest.mark.parametrize("flag, text", _solve_flag_draws())
def test_a_random_solve_flag_is_refused_by_name_or_run_honestly(flag, text, ising_dataset, tmp_path, capsys):
    out = tmp_path / "out.parquet"
    argv = ["solve", "--solver", "lu", "--dataset", str(ising_dataset), "--out", str(out), "--quiet", flag, text]
    if flag != "--time-limit":
        argv += ["--time-limit", str(TIME_LIMIT)]
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err, err
    if code != 0:
        assert code == 2 and "\n" not in err and flag.lstrip("-") in err.replace("_", "-"), (code, err)
        assert not out.exists()
        return
    rows = pd.read_parquet(out)
    assert len(rows) and not rows[rows["status"] == "converged"][["rel_residual", "fidelity"]].isna().any().any()


def test_the_draws_cover_every_numeric_option():
    """The parametrisation is every option of every built-in (external and flags aside), not a sample."""
    expected = sum(
        1
        for name, b in BUILTINS.items()
        if b.options is not None and name != "external"
        for f in dataclasses.fields(b.options)
        if "bool" not in str(f.type)
    )
    assert len(_draws()) == expected and not math.isnan(expected)
