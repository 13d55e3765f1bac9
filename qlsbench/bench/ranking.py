"""Rank solvers from results files, in the style of qpbenchmark, on two tracks.

A *track* is a success criterion (:class:`Tolerances`) and the ranking it
gives. The **exact** track asks what a linear-algebra library promises: the
solver reports ``converged``, fidelity >= 0.99 and relative residual <= 1e-6.
The **variational** track asks what a variational (quantum or neural-state)
solver is built for: a solution came back (``converged``, ``max_iter`` or
``stalled``) with fidelity >= 0.99 and relative residual <= 1e-2; it judges the
read-out, not the solver's own claim (SPSA never "converges"). Each track ranks
every solver on its own: by success rate, then the shifted geometric mean
``shift * expm1(mean(log1p(v / shift)))`` of time (and of relative error),
given as "x best": how many times the best solver's its mean is, each pair of
solvers compared on the systems both ran (:func:`times_best`; where all ran
every system, the best solver is 1.0). The variational track also shows the
median fidelity, so a 0.95-fidelity solver and one that never started differ.

A solver is measured on the systems it was run on: a system it was not
configured for is *not run* and leaves its rates alone, and ``coverage`` says
which share of all the systems in the results it ran. A system it was run on
but declined (``skipped``: too many qubits, a matrix of the wrong structure)
counts as unsuccessful, like an error, a time-out or a crash. Unsuccessful
solves are charged rather than dropped, so a solver cannot look fast by failing
fast: their time is the time limit (or their own time without one) and their
error at least 1.0, the error of returning zero. Errors are floored at the
accuracy of the reference solution itself, ``cond * eps``.

A system is its content (``system_id``): one that occurs many times (a 2x2
contact system at 27 steps of a simulation, or the same system in two
datasets) is ranked once. Repeats of one system are reduced to one value
(mean success, median time, error and fidelity) before the means over
systems, so a solver run three times does not weigh three times as much.

Every success rate carries its 95 % Wilson score interval
(:func:`wilson_interval`) over the systems it counts, and a ranking row says
whether its interval overlaps the row above's (``overlaps_above``): two such
rows are not separated at 95 %, and their order is the tie-breakers'.

The null solvers (:mod:`qlsbench.solvers.nulls`, kind ``control``: returning
``b``, a random vector) are rows of every table, listed after the ranked
solvers and never ranked among them nor taken as the "best" of a ratio: a bar
a control meets is no verdict. Beside every row's rate stands what returning
``b`` does on the same systems: its fidelity there (``b_fidelity``) and on how
many of them null-b meets the bar (``null_b``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qlsbench.checks import FRACTION, POSITIVE
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.solvers.base import RESOURCE_KEYS, RETURNED
from qlsbench.solvers.registry import is_control, is_variational

#: The control every verdict names: the null solver that returns ``b`` (:class:`~qlsbench.solvers.nulls.NullB`).
NULL_B = "null-b"

#: Qubit bands of the per-family tables, as inclusive ranges.
QUBIT_BANDS: tuple[tuple[int, int], ...] = ((1, 4), (5, 6), (7, 8), (9, 10), (11, 64))

#: Statuses of a solve that failed outright.
_FAILED = (Status.ERROR, Status.TIMEOUT, Status.CRASHED)
#: Costs shown beside accuracy on the variational track (medians over solves that returned a solution).
VARIATIONAL_COSTS = ("cost_evaluations", "circuit_executions", "shots", "mc_samples")


@dataclass(frozen=True)
class Tolerances:
    """What counts as a successful solve, and the geometric-mean shift.

    Attributes
    ----------
    fidelity : float
        Minimum state fidelity with the reference solution.
    residual : float
        Maximum relative residual ``||A x - b|| / ||b||``.
    shift : float
        Shift of the geometric means (time in milliseconds, relative error).
    require_converged : bool
        Whether the solver must also report ``converged``; otherwise
        ``max_iter`` and ``stalled`` solutions are judged by their accuracy alone.
    """

    fidelity: float = 0.99
    residual: float = 1e-6
    shift: float = 10.0
    require_converged: bool = True

    def __post_init__(self) -> None:
        FRACTION.check(self.fidelity, "fidelity tolerance")
        POSITIVE.check(self.residual, "residual tolerance")
        POSITIVE.check(self.shift, "shift")

    def describe(self) -> str:
        """One line for the leaderboard header."""
        status = "status `converged`" if self.require_converged else "a solution returned (`converged`, `max_iter` or `stalled`)"
        return f"{status}, fidelity >= {self.fidelity:g} and relative residual <= {self.residual:g}"


#: The variational track's criterion (qpbenchmark's "low accuracy"): what variational solvers are built for.
LOW_ACCURACY = Tolerances(fidelity=0.99, residual=1e-2, require_converged=False)


@dataclass(frozen=True)
class Track:
    """A named success criterion and what the page says of it."""

    name: str
    tol: Tolerances
    intuition: str


def tracks(tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY) -> tuple[Track, Track]:
    """The exact and the variational track for these two criteria."""
    return (Track("exact", tol, "Could this solver replace a direct solve? Only a solution accurate to the "
                                "residual bar, that the solver itself reports as converged, counts."),
            Track("variational", low, "Did the solver's read-out land on the answer? A returned state with high "
                                      "fidelity and a residual a variational method can reach counts, whatever "
                                      "the optimiser reported."))


def shifted_geometric_mean(values: np.ndarray, shift: float) -> float:
    """``exp(mean(log(v + shift))) - shift``, evaluated without cancellation.

    The textbook form subtracts two numbers near ``shift`` and loses every
    digit when the values are far below it (relative errors of 1e-14 against
    a shift of 10). The equivalent ``shift * expm1(mean(log1p(v / shift)))``
    keeps full relative precision; for values far below the shift it tends to
    their arithmetic mean.
    """
    v = np.asarray(values, dtype=float)
    return float(shift * np.expm1(np.mean(np.log1p(v / shift))))


def wilson_interval(successes, trials, z: float = 1.96):
    """Wilson score interval of the success rate ``successes / trials`` (95 % for the default ``z``).

    The board's rates count **systems**, not solves: ``trials`` is the number
    of systems the rate is over (in a ranking, those the solver was run on,
    declined ones included) and ``successes`` the sum over them of the share
    of that system's repeats (seeds) meeting the bar, so a system solved by 2
    of its 3 seeds adds 2/3. Repeats of one
    system are not independent trials (a deterministic solver repeats one
    answer), and counting them as such would narrow the interval for nothing.

    Parameters
    ----------
    successes : float or array_like
        Successes, ``0 <= successes <= trials``; may be fractional (see above).
    trials : int or array_like
        Trials (systems); where it is 0 the interval is NaN.
    z : float
        Standard-normal quantile of the two-sided level (1.96: 95 %).

    Returns
    -------
    (low, high) : tuple of float or of numpy.ndarray
        ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with
        ``p = successes / trials``, in [0, 1]; floats for scalar input.
        Unlike the normal approximation it is not empty at 0 or n successes.
    """
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    if np.any(k < 0) or np.any(k > n * (1 + 1e-12)) or np.any(n < 0):
        raise InputError(f"successes must lie in [0, trials], got {successes} of {trials}")
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 trials: NaN
        p, z2n = np.minimum(k / n, 1.0), z * z / n
        # centre - half cancels near p = 0 (and 1 - high near p = 1); the roots' product p² / (1 + z²/n) does not
        low = p * p / ((1 + z2n) * _wilson_upper(p, n, z))
        high = 1 - (1 - p) ** 2 / ((1 + z2n) * _wilson_upper(1 - p, n, z))
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def _wilson_upper(p, n, z: float):
    """The upper Wilson bound of rate ``p`` over ``n`` trials: a sum of positive terms, free of cancellation."""
    z2n = z * z / n
    return (p + z2n / 2 + z * np.sqrt(p * (1 - p) / n + z2n / (4 * n))) / (1 + z2n)


def rate_columns(success: pd.Series, by, name: str = "success_rate") -> pd.DataFrame:
    """Per group of per-system ``success`` (share of repeats solved): the rate ``name`` over systems and its
    Wilson interval, ``name_ci_low`` and ``name_ci_high`` (:func:`wilson_interval`: the trials are systems)."""
    g = success.groupby(by, sort=True)
    out = pd.DataFrame({name: g.mean()})
    out[f"{name}_ci_low"], out[f"{name}_ci_high"] = wilson_interval(g.sum().to_numpy(), g.size().to_numpy())
    return out


def overlaps_above(low, high) -> np.ndarray:
    """Whether each row's interval ``[low, high]`` meets the previous row's (never for the first row).

    Rows are in rank order, so a True row is not separated at the
    interval's level from the one ranked just above it.
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    out = np.zeros(len(low), dtype=bool)
    out[1:] = np.maximum(low[1:], low[:-1]) <= np.minimum(high[1:], high[:-1])
    return out


def _seed_counts(low: pd.Series, high: pd.Series) -> pd.Series:
    """Seeds per system as the page prints them, from each row's fewest and most: ``3``, or ``2-3`` where systems
    had different numbers."""
    return pd.Series([f"{int(lo)}" if lo == hi else f"{int(lo)}-{int(hi)}" for lo, hi in zip(low, high)],
                     index=low.index)


def _limits(limits: pd.Series, solvers: pd.Series) -> pd.Series:
    """Per solver, the time limits (seconds) its systems ran under as the page prints them: ``120``, ``120-1200``
    where they differ, ``none`` without one."""
    g = limits.groupby(solvers, sort=True)
    return pd.Series([("none" if pd.isna(lo) else f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}")
                      for lo, hi in zip(g.min(), g.max())], index=g.min().index)


def _grouped_sgm(values: pd.Series, keys: pd.Series, shift: float) -> pd.Series:
    """:func:`shifted_geometric_mean` of ``values`` per key (sorted keys), each group's values in their order.

    One sort and one pass of slices instead of a pandas ``apply`` (a Python
    call per group through pandas' machinery); the arithmetic per group is
    :func:`shifted_geometric_mean`'s on the same values in the same order, so
    the means are the same to the last bit.
    """
    codes, uniques = pd.factorize(keys, sort=True)
    if len(codes) == 0:
        return pd.Series([], index=pd.Index(uniques, name=keys.name), dtype=float)
    order = np.argsort(codes, kind="stable")
    parts = np.split(values.to_numpy(dtype=float)[order], np.flatnonzero(np.diff(codes[order])) + 1)
    return pd.Series([shifted_geometric_mean(part, shift) for part in parts],
                     index=pd.Index(uniques, name=keys.name))


def qubit_band(n_qubits) -> str:
    """Label of the band of :data:`QUBIT_BANDS` holding ``n_qubits`` (``"?"`` when unknown)."""
    if n_qubits is None or pd.isna(n_qubits):
        return "?"
    for lo, hi in QUBIT_BANDS:
        if lo <= n_qubits <= hi:
            return f"{lo}-{hi}" if hi < QUBIT_BANDS[-1][1] else f">={lo}"
    return "?"


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
    return pd.Series([bool(evidence.get(label, False)) if said is None else bool(said)
                      for label, said in declared.items()], index=declared.index)


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


def mark_success(results: pd.DataFrame, tol: Tolerances) -> pd.DataFrame:
    """Add ``success``, penalised ``time_ms``, penalised ``error``, ``fidelity_or_zero`` and ``measured_ms`` (the
    wall time of a solve that returned a solution, NaN for the others) columns."""
    df = results.copy()
    statuses = (Status.CONVERGED,) if tol.require_converged else RETURNED
    returned = df["status"].isin(RETURNED)
    df["success"] = (df["status"].isin(statuses) & (df["fidelity"] >= tol.fidelity)
                     & (df["rel_residual"] <= tol.residual))
    # A crashed solve took its process with it, and its time: charge the solver's longest known solve.
    wall = df["wall_time"].fillna(df.groupby("solver")["wall_time"].transform("max")).fillna(0.0)
    limit = df["time_limit"].where(df["time_limit"].notna(), wall)
    df["time_ms"] = 1e3 * wall.where(df["success"], np.maximum(limit, wall))
    # x_ref is itself a float64 direct solve, accurate only to about cond * eps:
    # smaller errors cannot be told apart, and ranking them would reward luck.
    cond = df["cond"].where(np.isfinite(df["cond"]), 1.0)
    floor = np.finfo(float).eps * np.maximum(cond, 1.0)
    err = df["rel_error"].where(np.isfinite(df["rel_error"]), 1.0)
    err = np.maximum(err, floor)
    df["error"] = err.where(df["success"], np.maximum(err, 1.0))
    # A solve that returned nothing (error, time-out, refusal) has no state: fidelity 0 in the medians.
    df["fidelity_or_zero"] = df["fidelity"].where(returned & df["fidelity"].notna(), 0.0)
    # What the solve took, where it came back with a solution: the ranking's time charges failures the limit,
    # and a page that showed only that would give the limit as a variational solver's time.
    df["measured_ms"] = 1e3 * df["wall_time"].where(returned)
    return df


def _system_key(df: pd.DataFrame, by_dataset: bool = True) -> pd.Series:
    """What makes a system one: its ``system_id`` (within its dataset when ``by_dataset``)."""
    if "system_id" in df:
        ids = df["system_id"].astype(str)
        return df["dataset"].astype(str) + "/" + ids if by_dataset else ids
    return df["dataset"].astype(str) + "/#" + df.groupby(["solver", "dataset"]).cumcount().astype(str)


def _distinct_solves(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """One row per solve: the rows of a system that occurs several times are the same solves again.

    The runner solves such a system once per repeat and writes the row at
    every occurrence; a solve is (solver, system, repeat, seed).
    """
    subset = ["solver", key, *[c for c in ("repeat", "seed") if c in df]]
    return df.drop_duplicates(subset) if len(subset) > 2 else df


def per_system(results: pd.DataFrame, tol: Tolerances, by_dataset: bool = True) -> pd.DataFrame:
    """One row per (solver, system it was run on): mean success over repeats, median time, error and fidelity.

    Rows of one system are pooled; ``solves``, ``skipped`` and ``failed``
    count distinct solves, so a system that occurs 27 times counts once per
    repeat, and ``seeds`` the distinct seeds behind its medians.
    ``time_ms`` is the charged time (the limit for an unsuccessful solve),
    ``measured_ms`` the median wall time of the solves that returned a
    solution (NaN when none did) and ``time_limit`` the longest limit its
    solves ran under (seconds; NaN without one).
    ``by_dataset=False`` takes a system in two datasets as one.
    """
    df = mark_success(results, tol)
    df["system_key"] = _system_key(df, by_dataset)
    df["band"] = df["n_qubits"].map(qubit_band)
    for col in ("family", "n_qubits", "cond"):
        if col not in df:
            df[col] = np.nan
    if "seed" not in df:  # results that do not record seeds ran one
        df["seed"] = df["repeat"] if "repeat" in df else 0
    if "solver_name" not in df:
        df["solver_name"] = df["solver"]
    df["b_fidelity"] = _b_fidelities(df)
    g = df.groupby(["solver", "system_key"], sort=True)
    out = g.agg(success=("success", "mean"), time_ms=("time_ms", "median"), error=("error", "median"),
                fidelity=("fidelity_or_zero", "median"), seeds=("seed", "nunique"), family=("family", "first"),
                band=("band", "first"), dataset=("dataset", "first"), n_qubits=("n_qubits", "first"),
                cond=("cond", "first"), measured_ms=("measured_ms", "median"), time_limit=("time_limit", "max"),
                solver_name=("solver_name", "first"), b_fidelity=("b_fidelity", "first"))
    return out.join(_solve_counts(_distinct_solves(df, "system_key"))).reset_index()


def _b_fidelities(df: pd.DataFrame) -> pd.Series:
    """Per row, the fidelity ``b`` scores returned as the answer on its system
    (:func:`qlsbench.bench.metrics.b_fidelity`: known for the pinned systems, NaN for others), each id computed once."""
    if "system_id" not in df:
        return pd.Series(np.nan, index=df.index)
    from qlsbench.bench.metrics import b_fidelity  # reads the pinned set: imported when a ranking needs it

    ids = df["system_id"].astype(str)
    return ids.map({sid: b_fidelity(sid) for sid in ids.unique()})


def _solve_counts(solves: pd.DataFrame) -> pd.DataFrame:
    """Per (solver, system_key): solves attempted (declined ones aside), declined and failed, as integers.

    Each count is a sum of a 0/1 column in one grouped pass (a Python
    function per group cost seconds on a board of 20 solvers).
    """
    status = solves["status"]
    flags = pd.DataFrame({"solves": status != Status.SKIPPED, "skipped": status == Status.SKIPPED,
                          "failed": status.isin(_FAILED)}, index=solves.index).astype(int)
    return flags.groupby([solves["solver"], solves["system_key"]], sort=True).sum()


def _costs(results: pd.DataFrame) -> pd.DataFrame:
    """Median of each variational cost per solver, over solves that returned a solution (NaN where none)."""
    df = results[results["status"].isin(RETURNED)]
    if "system_id" in df:
        df = _distinct_solves(df, "system_id")
    cols = [c for c in VARIATIONAL_COSTS if c in df]
    return df.groupby("solver")[cols].median() if cols else pd.DataFrame(index=df["solver"].unique())


def rank_systems(systems: pd.DataFrame, tol: Tolerances, universe: int, costs: pd.DataFrame | None = None,
                 kinds: pd.Series | None = None) -> pd.DataFrame:
    """One track's table from :func:`per_system` rows: one row per solver, best first.

    ``universe`` is the number of systems the table is about (for coverage);
    ``costs`` and ``kinds`` add the variational costs and each solver's kind.
    ``success_rate`` has its Wilson interval beside it (:func:`rate_columns`),
    ``overlaps_above`` says whether that interval meets the row above's, and
    ``seeds`` (variational rows only) how many seeds each system's median fidelity is over.
    """
    # per-system rows made elsewhere may not say what a solve took or its limit: then neither is known
    systems = systems.assign(**{c: np.nan for c in ("measured_ms", "time_limit") if c not in systems})
    g = systems.groupby("solver", sort=True)
    board = pd.DataFrame({
        "systems": g.size(),
        "coverage": g.size() / max(universe, 1),
        "solves": g["solves"].sum(),
        "skipped": g["skipped"].sum(),
        "failed": g["failed"].sum(),
        **dict(rate_columns(systems["success"], systems["solver"]).items()),
        "median_fidelity": g["fidelity"].median(),
        "seeds": _seed_counts(g["seeds"].min(), g["seeds"].max()),
        "time_sgm_ms": _grouped_sgm(systems["time_ms"], systems["solver"], tol.shift),
        "error_sgm": _grouped_sgm(systems["error"], systems["solver"], tol.shift),
        "median_time_ms": g["time_ms"].median(),
        "measured_time_ms": g["measured_ms"].median(),
        "time_limit_s": _limits(systems["time_limit"], systems["solver"]),
    })
    kind = (kinds.reindex(board.index).fillna("classical") if kinds is not None
            else pd.Series("classical", index=board.index))
    # a control is never the "best" a ratio is taken to: a null solver's instant answer is not a speed
    rivals = (kind != "control").to_numpy()
    board["time_sgm_rel"] = times_best(systems, "time_ms", board["time_sgm_ms"], tol.shift, rivals)
    board["error_sgm_rel"] = times_best(systems, "error", board["error_sgm"], tol.shift, rivals)
    board = board.join(_controls_beside(systems, tol))
    if kinds is not None:
        board.insert(0, "kind", kind)
        # a deterministic solver's repeats are one answer again: its seed count would say nothing
        board["seeds"] = board["seeds"].where(board["kind"].isin(["variational", "control"]))
    if costs is not None:
        board = board.join(costs, how="left")
    board = board.reset_index()
    board = board.assign(_control=board["solver"].map(kind).eq("control").to_numpy())  # controls after the ranked
    board = board.sort_values(["_control", "success_rate", "median_fidelity", "time_sgm_rel"],
                              ascending=[True, False, False, True]).drop(columns="_control").reset_index(drop=True)
    ranked = (board["kind"] != "control").to_numpy() if "kind" in board else np.ones(len(board), dtype=bool)
    overlap = np.zeros(len(board), dtype=bool)  # among the ranked rows only: a control is beside, not in, the order
    overlap[ranked] = overlaps_above(board["success_rate_ci_low"][ranked], board["success_rate_ci_high"][ranked])
    board.insert(board.columns.get_loc("success_rate_ci_high") + 1, "overlaps_above", overlap)
    return board


def _controls_beside(systems: pd.DataFrame, tol: Tolerances) -> pd.DataFrame:
    """Per solver, what returning ``b`` does on the systems it ran: ``b_fidelity`` (median over them of the
    fidelity of ``b``), ``null_b_systems`` (those of them null-b ran), ``null_b_success`` (of those, how many
    null-b meets the bar on, each system's share of repeats) and ``null_b_fidelity_bar`` (how many it meets the
    fidelity bar on, the residual aside), and ``null_b`` as the page prints it.

    A bar null-b meets on a system says nothing of a solver there; the page sets the counts beside every rate.
    """
    # per-system rows made elsewhere may not say what b scores or the solver's registered name
    systems = systems.assign(**{c: np.nan for c in ("b_fidelity",) if c not in systems})
    names = systems["solver_name"] if "solver_name" in systems else systems["solver"]
    g = systems.groupby("solver", sort=True)
    out = pd.DataFrame({"b_fidelity": g["b_fidelity"].median()})
    null = systems[names == NULL_B].groupby("system_key")[["success", "fidelity"]].mean().add_suffix("_null")
    if null.empty:
        out["null_b"] = np.nan
        return out
    shared = systems.join(null, on="system_key").dropna(subset=["success_null"])
    per = shared.groupby("solver", sort=True)
    out["null_b_systems"] = per.size().reindex(out.index).fillna(0).astype(int)
    out["null_b_success"] = per["success_null"].sum().reindex(out.index).fillna(0.0)
    out["null_b_fidelity_bar"] = (shared["fidelity_null"] >= tol.fidelity).groupby(shared["solver"]).sum() \
        .reindex(out.index).fillna(0).astype(int)
    out["null_b"] = [null_b_note(k, f, n) for k, f, n in
                     zip(out["null_b_success"], out["null_b_fidelity_bar"], out["null_b_systems"])]
    return out


def null_b_note(success: float, fidelity_bar: int, systems: int) -> str:
    """What null-b does on ``systems`` systems, as the page prints it beside a rate: ``2/42 (16)`` (it meets the
    bar on 2 of the 42 and the fidelity bar alone on 16), ``0/14 (12)`` or ``0/14``; ``—`` where it ran none of them
    (short: the track tables fit a 1400-px window, and the column's tooltip and the sentence under the table say it
    in words). ``success`` sums each system's share of repeats meeting the bar."""
    if systems == 0:
        return "—"
    more = f" ({fidelity_bar})" if fidelity_bar > success else ""
    return f"{success:g}/{systems}{more}"


def times_best(systems: pd.DataFrame, column: str, sgm: pd.Series, shift: float,
               rivals: np.ndarray | None = None) -> pd.Series:
    """Each solver's "x best": how many times the best solver's shifted geometric mean of ``column`` its own is,
    each comparison over the systems both solvers ran.

    For solvers ``s`` and ``t``, ``r(s, t)`` is ``s``'s shifted geometric mean
    over the systems both ran divided by ``t``'s over the same systems; a
    solver's value is the largest ``r(s, t)`` over every ``t`` that shares a
    system with it (itself included, so it is at least 1). Where every solver
    ran every system this is qpbenchmark's ``sgm(s) / min over t of sgm(t)``,
    to the last bit. Where they ran different systems (a workflow where HHL
    ran only the small ones), dividing means over different systems compares
    the systems, not the solvers; each ratio here is like with like.

    Parameters
    ----------
    systems : pandas.DataFrame
        :func:`per_system` rows (``solver``, ``system_key`` and ``column``), sorted by solver then system.
    column : str
        The per-system value (``time_ms``, ``error``).
    sgm : pandas.Series
        Each solver's shifted geometric mean of ``column`` over all its systems (indexed by solver), used where
        two solvers share all their systems, so that case gives exactly the plain ratio of means.
    shift : float
        The geometric means' shift.
    rivals : numpy.ndarray of bool, optional
        Per solver of ``sgm``'s index, whether it may be the "best" others are compared with (default all);
        the controls are not.

    Returns
    -------
    pandas.Series
        Indexed by solver.
    """
    values = systems.pivot(index="solver", columns="system_key", values=column).reindex(sgm.index)
    ran = values.notna().to_numpy()
    v = values.to_numpy(dtype=float)
    counts = ran.astype(int)
    shared = counts @ counts.T  # systems each pair of solvers both ran
    own = counts.sum(axis=1)
    full = sgm.to_numpy(dtype=float)
    out = np.ones(len(v))
    rivals = np.ones(len(v), dtype=bool) if rivals is None else np.asarray(rivals, dtype=bool)
    for i in range(len(v)):
        for j in np.flatnonzero((shared[i] > 0) & (rivals | (np.arange(len(v)) == i))):
            if shared[i, j] == own[i] == own[j]:  # the same systems: the means over all of them
                mine, theirs = full[i], full[j]
            else:
                common = ran[i] & ran[j]  # in system order, as the full means are taken
                mine, theirs = (shifted_geometric_mean(v[k, common], shift) for k in (i, j))
            out[i] = max(out[i], mine / theirs)
    return pd.Series(out, index=sgm.index)


def track_table(results: pd.DataFrame, track: Track) -> pd.DataFrame:
    """The ranking of one track over all systems of ``results`` (each counted once by content)."""
    if results.empty:
        raise InputError("no results to rank")
    systems = per_system(results, track.tol, by_dataset=False)
    return rank_systems(systems, track.tol, systems["system_key"].nunique(), _costs(results), solver_kinds(results))


def leaderboard(results: pd.DataFrame, tol: Tolerances = Tolerances(),
                low: Tolerances | None = LOW_ACCURACY) -> pd.DataFrame:
    """The exact track's ranking with each solver's variational-track success rate beside it.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows as written by :func:`qlsbench.bench.runner.run_solver`.
    tol : Tolerances
        The exact track's criterion and shift.
    low : Tolerances or None
        The variational track's criterion, whose success rate is added as ``success_rate_low``.

    Returns
    -------
    pandas.DataFrame
        ``solver, kind, systems, coverage, solves, skipped, failed, success_rate, success_rate_ci_low,
        success_rate_ci_high, overlaps_above, success_rate_low, success_rate_low_ci_low,
        success_rate_low_ci_high, null_b, median_fidelity, b_fidelity, seeds, time_sgm_rel, error_sgm_rel,
        time_sgm_ms, error_sgm, median_time_ms, measured_time_ms, time_limit_s``, sorted by success rate
        (descending), then median fidelity, then relative time (the controls after the ranked rows). The
        ``_ci_`` columns are each rate's 95 % Wilson interval over systems; ``overlaps_above`` compares the
        exact track's intervals of consecutive rows; ``seeds`` is given for variational solvers.
        ``median_time_ms`` is the median over systems of the charged time (the limit for an unsuccessful solve),
        ``measured_time_ms`` the median over systems of the time of the solves that returned a solution (systems
        where none did left out) and ``time_limit_s`` the limit(s) its solves ran under, as text. ``null_b``
        says on how many of the solver's systems null-b meets the exact track's bar, ``b_fidelity`` is the median
        over them of what returning ``b`` scores (NaN outside the pinned set); controls come last, unranked.
    """
    exact, variational = tracks(tol, low or LOW_ACCURACY)
    board = track_table(results, exact)
    cols = ["solver", "kind", "systems", "coverage", "solves", "skipped", "failed", "success_rate",
            "success_rate_ci_low", "success_rate_ci_high", "overlaps_above", "null_b", "median_fidelity",
            "b_fidelity", "seeds",
            "time_sgm_rel", "error_sgm_rel", "time_sgm_ms", "error_sgm", "median_time_ms", "measured_time_ms",
            "time_limit_s"]
    board = board[cols]
    if low is not None:
        systems = per_system(results, low, by_dataset=False)
        rates = rate_columns(systems["success"], systems["solver"], "success_rate_low")
        at = cols.index("overlaps_above") + 1
        for i, column in enumerate(rates.columns):
            board.insert(at + i, column, board["solver"].map(rates[column]).to_numpy())
    return board


def ranking_rows(results: pd.DataFrame, all_tracks: tuple[Track, ...], by: str = "family") -> pd.DataFrame:
    """Every track's ranking over every group (family or dataset) and qubit band, ``all`` included.

    One row per (track, group, band, solver) that ran a system there; the
    page filters these rows. Coverage is relative to the systems of that
    group and band.
    """
    if by not in ("family", "dataset"):
        raise InputError(f"rankings group by 'family' or 'dataset', not {by!r}")
    kinds, costs = solver_kinds(results), _costs(results)
    rows = []
    for track in all_tracks:
        systems = per_system(results, track.tol, by_dataset=by == "dataset")
        # "all" counts a system once even when two datasets hold it (a pinned system in two groups)
        whole = per_system(results, track.tol, by_dataset=False) if by == "dataset" else systems
        for group in ["all", *sorted(systems[by].dropna().astype(str).unique())]:
            in_group = whole if group == "all" else systems[systems[by].astype(str) == group]
            for band in ["all", *sorted(in_group["band"].unique(), key=band_order)]:
                part = in_group if band == "all" else in_group[in_group["band"] == band]
                table = rank_systems(part, track.tol, part["system_key"].nunique(), costs, kinds)
                table.insert(0, "band", band)
                table.insert(0, "group", group)
                table.insert(0, "track", track.name)
                rows.append(table)
    return pd.concat(rows, ignore_index=True)


def band_order(band: str) -> int:
    """Sort key of a qubit-band label (``1-4`` before ``11-64``; unknown last)."""
    digits = "".join(c for c in band.split("-")[0] if c.isdigit())
    return int(digits) if digits else 999


def band_tables(results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY,
                by: str = "family", rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """Success rates (both tracks), coverage and time ratios per family (or dataset) and qubit band.

    ``rows``: :func:`ranking_rows` of the same results, tracks and grouping, when already computed (the page
    has them from its ranking); computed here otherwise.

    Returns
    -------
    pandas.DataFrame
        One row per (group, band, solver that ran a system there): ``systems``,
        ``coverage``, ``success_rate``, ``success_rate_low`` (each with its
        Wilson interval, ``_ci_low`` and ``_ci_high``) and ``time_sgm_rel``
        (x the fastest solver of that group and band, :func:`times_best`). The group is
        in column ``family``.
    """
    rows = ranking_rows(results, tracks(tol, low), by) if rows is None else rows
    rows = rows[(rows["group"] != "all") & (rows["band"] != "all")]
    exact = rows[rows["track"] == "exact"].set_index(["group", "band", "solver"])
    variational = rows[rows["track"] == "variational"].set_index(["group", "band", "solver"])
    rate = ["success_rate", "success_rate_ci_low", "success_rate_ci_high"]
    out = exact[["systems", "coverage", *rate, "time_sgm_rel"]].copy()
    for column in rate:
        out[column.replace("success_rate", "success_rate_low")] = variational[column].reindex(out.index)
    out = out.reset_index().rename(columns={"group": "family"})
    return out[["family", "band", "solver", "systems", "coverage", *rate, "success_rate_low",
                "success_rate_low_ci_low", "success_rate_low_ci_high", "time_sgm_rel"]]


def resource_table(results: pd.DataFrame) -> pd.DataFrame:
    """What each solver's solves cost, over the solves that returned a solution.

    ``qubits`` is the range of the systems solved (``2-8``), ``iterations``
    and every key of :data:`~qlsbench.solvers.base.RESOURCE_KEYS` a median
    (NaN where the solver reports no such cost). ``shots`` 0 means exact
    expectation values (a state-vector run); the page prints it so.
    """
    df = results[results["status"].isin(RETURNED)]
    if "system_id" in df:  # a system that occurs many times was solved once per repeat
        df = _distinct_solves(df, "system_id")
    cols = ["iterations", *[k for k in RESOURCE_KEYS if k in df]]
    g = df.groupby("solver", sort=True)
    table = g[cols].median()
    lo, hi = g["n_qubits"].min(), g["n_qubits"].max()
    table.insert(0, "qubits", [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(lo, hi)])
    return table.dropna(axis=1, how="all").reset_index()


def success_by_dataset(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> pd.DataFrame:
    """Success rate of each solver on each dataset it was run on, with its Wilson interval.

    One row per (solver, dataset): ``success_rate``, ``success_rate_ci_low`` and ``success_rate_ci_high``.
    """
    systems = per_system(results, tol)
    return rate_columns(systems["success"], [systems["solver"], systems["dataset"]]).reset_index()


def failing_systems(results: pd.DataFrame, solver: str, tol: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """The systems ``solver`` did not solve at ``tol``: id, qubits, kappa, status, fidelity, residual, message."""
    df = mark_success(results[results["solver"] == solver], tol)
    cols = [c for c in ("dataset", "system_id", "n_qubits", "cond", "repeat", "status", "fidelity", "rel_residual",
                        "message") if c in df]
    out = df.loc[~df["success"], cols].copy()
    if "message" in out:
        out["message"] = out["message"].fillna("").str.slice(0, 100)
    return out.reset_index(drop=True)


def system_outcomes(results: pd.DataFrame, all_tracks: tuple[Track, ...], by_dataset: bool = True) -> pd.DataFrame:
    """How each solver fared on each system it was run on: the page's per-system drill-down.

    One row per (solver, system): ``system_id``, ``dataset``, ``family``,
    ``band``, ``n_qubits``, ``cond``; per track ``success_<track>`` (the share
    of its repeats meeting that track's bar, as the ranking counts it);
    ``statuses`` (its distinct solves' outcomes with counts, most frequent
    first: ``converged ×3`` or ``timeout ×2, max_iter ×1``); ``residual`` and
    ``fidelity`` (medians over the solves that returned a solution, NaN where
    none did); ``measured_ms`` (their median wall time); ``time_limit`` (s)
    and ``message`` (the first non-empty message of a solve that did not
    return a solution, else of any solve; shortened to 120 characters).
    """
    first = mark_success(results, all_tracks[0].tol)
    first["system_key"] = _system_key(first, by_dataset)
    first["band"] = first["n_qubits"].map(qubit_band)
    returned = first["status"].isin(RETURNED)
    first["residual"] = first["rel_residual"].where(returned)
    first["fidelity_returned"] = first["fidelity"].where(returned)
    g = first.groupby(["solver", "system_key"], sort=True)
    out = g.agg(system_id=("system_id", "first"), dataset=("dataset", "first"), family=("family", "first"),
                band=("band", "first"), n_qubits=("n_qubits", "first"), cond=("cond", "first"),
                residual=("residual", "median"), fidelity=("fidelity_returned", "median"),
                measured_ms=("measured_ms", "median"), time_limit=("time_limit", "max"))
    for track in all_tracks:
        marked = first if track is all_tracks[0] else mark_success(results, track.tol).assign(
            system_key=first["system_key"])
        out[f"success_{track.name}"] = marked.groupby(["solver", "system_key"], sort=True)["success"].mean()
    solves = _distinct_solves(first, "system_key")
    out["statuses"] = _status_counts(solves)
    out["message"] = _first_messages(solves)
    return out.reset_index()


def _status_counts(solves: pd.DataFrame) -> pd.Series:
    """Per (solver, system_key): its solves' statuses with counts, most frequent first (``timeout ×2, ...``)."""
    counts = solves.groupby(["solver", "system_key", "status"], sort=True).size().reset_index(name="n")
    counts = counts.sort_values(["solver", "system_key", "n", "status"], ascending=[True, True, False, True])
    counts["text"] = counts["status"].astype(str) + " ×" + counts["n"].astype(str)
    return counts.groupby(["solver", "system_key"], sort=True)["text"].agg(", ".join)


def _first_messages(solves: pd.DataFrame) -> pd.Series:
    """Per (solver, system_key): the first non-empty message, a failed solve's before a returned one's."""
    if "message" not in solves:
        return pd.Series(dtype=object)
    text = solves["message"].fillna("").astype(str).str.strip()
    ranked = solves.assign(text=text, returned=solves["status"].isin(RETURNED))[text != ""]
    ranked = ranked.sort_values("returned", kind="stable")  # False (failed, declined) first
    first = ranked.groupby(["solver", "system_key"], sort=True)["text"].first()
    return first.where(first.str.len() <= 120, first.str.slice(0, 119) + "…")


def seed_table(results: pd.DataFrame, low: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """Solvers run with several seeds on a system: success and fidelity of each system's best and median seed.

    Per system (``system_id``), the seeds' variational-track successes and
    fidelities are reduced to their best and their median (a system counts
    as solved by the median seed when at least half of its seeds solve it);
    the table gives the share of systems solved and the median fidelity over
    systems, both ways, each share with its Wilson interval over systems
    (``_ci_low``, ``_ci_high``). Solvers with one seed per system, or whose
    seeds never give different answers (repeats of a deterministic solver), are
    left out.
    """
    df = mark_success(results[results["status"] != Status.SKIPPED], low)
    df = df.drop_duplicates(["solver", "system_id", "seed"]) if "system_id" in df else df
    rows = []
    for solver, part in df.groupby("solver", sort=True):
        per = part.groupby("system_id").agg(seeds=("seed", "nunique"), best=("success", "max"),
                                            median=("success", lambda v: float(np.mean(v) >= 0.5)),
                                            fid_best=("fidelity", "max"), fid_median=("fidelity", "median"))
        spread = part.groupby("system_id")["fidelity"].agg(lambda v: float(v.max() - v.min()) if v.notna().any() else 0.0)
        if per["seeds"].max() < 2 or not (spread > 1e-9).any():  # one seed, or seeds that never differ
            continue
        rows.append({"solver": solver, "systems": len(per), "seeds": int(per["seeds"].max()),
                     **_share("success_best_seed", per["best"]), **_share("success_median_seed", per["median"]),
                     "median_fidelity_best_seed": float(per["fid_best"].median()),
                     "median_fidelity_median_seed": float(per["fid_median"].median())})
    shares = [f"success_{w}_seed{end}" for w in ("best", "median") for end in ("", "_ci_low", "_ci_high")]
    return pd.DataFrame(rows, columns=["solver", "systems", "seeds", *shares, "median_fidelity_best_seed",
                                       "median_fidelity_median_seed"])


def _share(name: str, solved: pd.Series) -> dict[str, float]:
    """The share of systems ``solved`` (one 0/1 per system) as ``name``, with its Wilson interval."""
    low, high = wilson_interval(float(solved.sum()), len(solved))
    return {name: float(solved.mean()), f"{name}_ci_low": low, f"{name}_ci_high": high}
