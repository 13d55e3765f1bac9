"""The ranking tables: one track's ranking of the solvers, the leaderboard of both tracks, and the rankings per
family (or dataset) and qubit band, with the controls beside every row."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench.ranking._kinds import solver_kinds
from qlsbench.bench.ranking._statistics import _grouped_sgm, overlaps_above, rate_columns, times_best
from qlsbench.bench.ranking._success import LOW_ACCURACY, Tolerances, Track, tracks
from qlsbench.bench.ranking._systems import _costs, band_order, per_system
from qlsbench.errors import InputError

#: The control every verdict names: the null solver that returns ``b`` (:class:`~qlsbench.solvers.nulls.NullB`).
NULL_B = "null-b"


def _seed_counts(low: pd.Series, high: pd.Series) -> pd.Series:
    """Seeds per system as the page prints them, from each row's fewest and most: ``3``, or ``2-3`` where systems
    had different numbers."""
    return pd.Series(
        [f"{int(lo)}" if lo == hi else f"{int(lo)}-{int(hi)}" for lo, hi in zip(low, high)], index=low.index
    )


def _limits(limits: pd.Series, solvers: pd.Series) -> pd.Series:
    """Per solver, the time limits (seconds) its systems ran under as the page prints them: ``120``, ``120-1200``
    where they differ, ``none`` without one."""
    g = limits.groupby(solvers, sort=True)
    return pd.Series(
        [("none" if pd.isna(lo) else f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}") for lo, hi in zip(g.min(), g.max())],
        index=g.min().index,
    )


def rank_systems(
    systems: pd.DataFrame,
    tol: Tolerances,
    universe: int,
    costs: pd.DataFrame | None = None,
    kinds: pd.Series | None = None,
) -> pd.DataFrame:
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
    board = pd.DataFrame(
        {
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
        }
    )
    kind = (
        kinds.reindex(board.index).fillna("classical")
        if kinds is not None
        else pd.Series("classical", index=board.index)
    )
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
    board = (
        board.sort_values(
            ["_control", "success_rate", "median_fidelity", "time_sgm_rel"], ascending=[True, False, False, True]
        )
        .drop(columns="_control")
        .reset_index(drop=True)
    )
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
    out["null_b_fidelity_bar"] = (
        (shared["fidelity_null"] >= tol.fidelity)
        .groupby(shared["solver"])
        .sum()
        .reindex(out.index)
        .fillna(0)
        .astype(int)
    )
    out["null_b"] = [
        null_b_note(k, f, n)
        for k, f, n in zip(out["null_b_success"], out["null_b_fidelity_bar"], out["null_b_systems"])
    ]
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


def track_table(results: pd.DataFrame, track: Track) -> pd.DataFrame:
    """The ranking of one track over all systems of ``results`` (each counted once by content)."""
    if results.empty:
        raise InputError("no results to rank")
    systems = per_system(results, track.tol, by_dataset=False)
    return rank_systems(systems, track.tol, systems["system_key"].nunique(), _costs(results), solver_kinds(results))


def leaderboard(
    results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances | None = LOW_ACCURACY
) -> pd.DataFrame:
    """The exact track's ranking with each solver's variational-track success rate beside it.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows as written by :func:`qlsbench.bench._runner.run_solver`.
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
    cols = [
        "solver",
        "kind",
        "systems",
        "coverage",
        "solves",
        "skipped",
        "failed",
        "success_rate",
        "success_rate_ci_low",
        "success_rate_ci_high",
        "overlaps_above",
        "null_b",
        "median_fidelity",
        "b_fidelity",
        "seeds",
        "time_sgm_rel",
        "error_sgm_rel",
        "time_sgm_ms",
        "error_sgm",
        "median_time_ms",
        "measured_time_ms",
        "time_limit_s",
    ]
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


def band_tables(
    results: pd.DataFrame,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    by: str = "family",
    rows: pd.DataFrame | None = None,
) -> pd.DataFrame:
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
    return out[
        [
            "family",
            "band",
            "solver",
            "systems",
            "coverage",
            *rate,
            "success_rate_low",
            "success_rate_low_ci_low",
            "success_rate_low_ci_high",
            "time_sgm_rel",
        ]
    ]
