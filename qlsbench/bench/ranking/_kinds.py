"""Each solver's kind (control, variational, quantum, classical): the registry's word, else its rows' evidence."""

from __future__ import annotations

import pandas as pd

from qlsbench.solvers.registry import is_control, is_variational


def solver_kinds(results: pd.DataFrame) -> pd.Series:
    """Each solver's kind: ``control`` if its registered name is a null solver
    (:func:`~qlsbench.solvers.registry.is_control`), else ``variational`` if the registry says its name is
    (:func:`~qlsbench.solvers.registry.is_variational`), else ``quantum`` if its solves ran circuits (HHL), else
    ``classical``.

    Where the registry cannot tell (``external``, which runs another program; a plug-in no longer installed,
    whose results files outlive it), the rows say: a solver whose solves record read-outs against a cost budget
    is variational."""
    solvers = results["solver"]
    variational = _variational_labels(results)
    circuits = _any_per_solver(results, "circuit_executions", lambda v: v is not None and not pd.isna(v) and v > 0)
    kinds = pd.Series("classical", index=pd.Index(solvers.unique(), name="solver"))
    kinds[circuits.reindex(kinds.index, fill_value=False).to_numpy()] = "quantum"
    kinds[variational.reindex(kinds.index, fill_value=False).to_numpy()] = "variational"
    # the registry says what a control is: a null solver's columns (one evaluation, no circuits) would read classical
    kinds[_control_labels(results).reindex(kinds.index, fill_value=False).to_numpy()] = "control"
    return kinds


def _variational_labels(results: pd.DataFrame) -> pd.Series:
    """Per solver label, whether it is variational: the registry's answer for its name, else its rows' evidence."""
    evidence = _any_per_solver(results, "progress_evaluations", lambda v: v is not None and len(v) > 0)
    if "solver_name" not in results:
        return evidence
    names = results.drop_duplicates("solver").set_index("solver")["solver_name"]
    declared = names.map(lambda name: is_variational(name) if isinstance(name, str) else None)
    return pd.Series(
        [bool(evidence.get(label, False)) if said is None else bool(said) for label, said in declared.items()],
        index=declared.index,
    )


def _control_labels(results: pd.DataFrame) -> pd.Series:
    """Per solver label, whether its registered name is a null solver's."""
    if "solver_name" not in results:
        return pd.Series(False, index=pd.Index(results["solver"].unique(), name="solver"))
    names = results.drop_duplicates("solver").set_index("solver")["solver_name"]
    return names.map(lambda name: isinstance(name, str) and is_control(name))


def _any_per_solver(results: pd.DataFrame, column: str, test) -> pd.Series:
    if column not in results:
        return pd.Series(False, index=pd.Index(results["solver"].unique(), name="solver"))
    return results[column].map(test).groupby(results["solver"]).any()
