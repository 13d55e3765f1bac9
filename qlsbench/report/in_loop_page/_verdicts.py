"""The in-loop page's verdicts: the protocol in words, the abstract's VNLS claim judged under it (at the
study's scale and the paper's), and how the verdict moves with the solve-overhead bound."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.report._tables import markdown_table
from qlsbench.report.in_loop_page._runs import (
    CONTROL_WORDS,
    FALLBACK_BOUND,
    OVERHEAD_BOUND,
    PAPER_WINDOW,
    _bar_text,
    _setting,
    judged_runs,
    separations,
    setting_status,
    why_not,
)
from qlsbench.report.in_loop_page._tables import protocol_table

#: The solve-overhead bounds the VNLS verdict is judged again at: the bound is a choice, and the page shows where
#: it flips the verdict.
OVERHEAD_SWEEP = (2.0, 5.0, 8.0, 10.0, 20.0, 50.0)


def paper_scale(judged: list[dict]) -> str:
    """The abstract's claim at the paper's scale: the finished runs judged like any other, with what one solve
    cost there; without finished runs, what a short window (:data:`PAPER_WINDOW`) would take at that cost."""
    runs = [r for r in judged if r["paper_scale"]]
    if not runs:
        return "**At the paper's scale** (100 spheres, VNLS sampled as in the paper): not run."
    solves = sum(r["linear_solves"] for r in runs)
    per_solve = sum(r["solver_seconds"] for r in runs) / max(solves, 1)
    first, done = runs[0], [r for r in runs if r["status"] == "completed"]
    cost = (
        f"one solve took {per_solve:.0f} s of solver time here, one thread each ({solves} solve(s) in "
        f"{', '.join(sorted({'`' + r['name'] + '`' for r in runs}))}, on systems of at most "
        f"{max(r['max_qubits'] for r in runs)} qubit(s))"
    )
    if done:
        quiet = min(r["first_solve_step"] for r in done)
        verdict = vnls_verdict(done, [c for c in judged if c["control"]])
        plain = (
            ""
            if verdict.startswith(("holds", "does not hold"))
            else " So the claim at the paper's scale stays untested: the larger systems of fig. 4's checkpoints "
            "come later in the sedimentation than this window reaches, and no window there was run."
        )
        return (
            f"**At the paper's scale** ({first['setting'][0]}; VNLS as in the paper, `{first['solver']}`; "
            f"{len(done)} run(s), the first {quiet} steps without a Newton system): **{verdict}**; {cost}.{plain}"
        )
    window = PAPER_WINDOW["steps"] * PAPER_WINDOW["seeds"]
    controls = [c for c in judged if c["control"]]
    exact = [
        r["overhead"]
        for r in judged
        if r["solver_name"] == "vnls"
        and r["solver_options"].get("exact")
        and setting_status([c for c in controls if c["setting"] == r["setting"]]) == "test"
    ]
    more = (
        (
            f"; a lower bound, as where the controls fail VNLS on exact values made {min(exact):.1f}-"
            f"{max(exact):.1f} times the reference's solves"
        )
        if exact
        else ""
    )
    return (
        f"**At the paper's scale the claim was not tested.** {first['setting'][0]}, VNLS as in the paper "
        f"(`{first['solver']}`): {cost}. {PAPER_WINDOW['steps']} steps x {PAPER_WINDOW['seeds']} seeds take at "
        f"least one solve per step, so at least {window} solves and {window * per_solve / 60:.0f} min of one "
        f"core, {'over' if window * per_solve > 60 * PAPER_WINDOW['minutes'] else 'within'} the "
        f"{PAPER_WINDOW['minutes']} min this study could give it{more}."
    )


def vnls_verdict(runs: list[dict], controls: list[dict] | None = None) -> str:
    """The abstract's claim that VNLS "accurately simulates the dynamics", under the in-loop protocol.

    ``runs`` are VNLS runs and ``controls`` control runs, both as :func:`judged_runs` gives them. Only settings in
    which every control run fails the protocol are tests; the claim holds only when, in each, every VNLS run
    carries the simulation and each configuration's loads are separated from every control's. So it never holds
    where a null carries the simulation too, and the verdict names the controls it was set against.
    """
    if not runs:
        return "not run"
    controls = controls or []
    by_setting: dict[tuple, list[dict]] = {}
    for r in runs:
        by_setting.setdefault(r["setting"], []).append(r)
    status = {key: setting_status([c for c in controls if c["setting"] == key]) for key in by_setting}
    tested = [r for key, rs in by_setting.items() if status[key] == "test" for r in rs]
    aside = _set_aside(by_setting, status, controls)
    if not tested:
        return f"not tested: {aside}"
    failed = [r for r in tested if not r["carries"]]
    against = _against(tested, controls)
    if failed:
        return (
            f"does not hold: {len(failed)} of {len(tested)} run(s) in the settings where every control fails "
            f"do not carry the simulation ({_failures(failed)}); {against}" + (f"; {aside}" if aside else "")
        )
    if "not separated" in against or "no outcomes" in against:
        return f"not shown: every run carries the simulation, but {against}" + (f"; {aside}" if aside else "")
    return (
        f"holds on {len(tested)} run(s): every one carried the simulation (largest error "
        f"{max(r['position_error_max'] for r in tested):.1e} m, fallback on at most "
        f"{max(r['fallback_share'] for r in tested):.0%} of steps, at most "
        f"{max(r['overhead'] for r in tested):.1f}x the reference's solves), {against}"
        + (f"; {aside}" if aside else "")
    )


def _carries_at(run: dict, bound: float) -> bool:
    """Whether ``run`` carries the simulation with the solve-overhead bound at ``bound`` (the other bounds kept)."""
    if run["status"] != "completed" or run["steps_run"] < run["steps"]:
        return False
    return (
        run["position_error_max"] <= run["setting"][1]
        and run["fallback_share"] <= FALLBACK_BOUND
        and run["overhead"] <= bound
    )


def bound_sweep(runs: list[dict], controls: list[dict]) -> str:
    """The VNLS verdict's sensitivity to the solve-overhead bound: at each bound of :data:`OVERHEAD_SWEEP`, in how
    many settings every control still fails (the tests), and how many VNLS runs there carry the simulation."""
    parts = []
    for bound in OVERHEAD_SWEEP:
        tests = {
            r["setting"]
            for r in runs
            if (theirs := [c for c in controls if c["setting"] == r["setting"]])
            and not any(_carries_at(c, bound) for c in theirs)
        }
        tested = [r for r in runs if r["setting"] in tests]
        carried = sum(_carries_at(r, bound) for r in tested)
        parts.append(
            f"at {bound:g}x, {carried} of {len(tested)} run(s) carry in {len(tests)} setting(s) that are tests"
        )
    return (
        "*The solve bound decides the verdict* (the fallback and position bounds kept; a setting is a test at a "
        "bound only while every control fails it): " + "; ".join(parts) + "."
    )


def _set_aside(by_setting: dict, status: dict, controls: list[dict]) -> str:
    """The settings no verdict may be drawn from, and why."""
    words = []
    for key, rs in by_setting.items():
        if status[key] == "no control":
            words.append(f"{len(rs)} run(s) in {key[0]} have no control beside them")
        elif status[key] == "not a test":
            carried = sorted({CONTROL_WORDS[c["control"]] for c in controls if c["setting"] == key and c["carries"]})
            words.append(
                f"{len(rs)} run(s) in {key[0]} judge nothing, as {' and '.join(carried)} carry that "
                "simulation too (not a test)"
            )
    return "; ".join(words)


def _failures(failed: list[dict]) -> str:
    """Per file, how many runs failed and the worst of them in words."""
    by_file: dict[str, list[dict]] = {}
    for r in failed:
        by_file.setdefault(r["name"], []).append(r)
    return "; ".join(
        f"{name}: {len(rs)} run(s), e.g. seed {rs[0]['seed']}: {why_not(rs[0])}" for name, rs in sorted(by_file.items())
    )


def _against(tested: list[dict], controls: list[dict]) -> str:
    """Each tested configuration's separation from each control of its setting, in words."""
    by_config: dict[tuple, list[dict]] = {}
    for r in tested:
        by_config.setdefault((r["setting"], r["name"]), []).append(r)
    parts = []
    for (key, name), rs in sorted(by_config.items()):
        seps = separations(rs, [c for c in controls if c["setting"] == key])
        parts.append(f"{name} is " + ", ".join(s.text() for s in seps))
    return "; ".join(parts)


def oracle_scale(judged: list[dict]) -> str:
    """What directions of each fidelity cost to convergence: the oracle sweeps run as the protocol runs Newton
    (to convergence, fallbacks on), the median solve overhead and fallback share per level."""
    sweeps: dict[str, dict[float, list[dict]]] = {}
    for r in judged:
        if (
            r["fidelity"] == r["fidelity"]
            and "Newton to convergence" in r["setting"][0]
            and "fallbacks off" not in r["setting"][0]
        ):
            sweeps.setdefault(r["name"], {}).setdefault(r["fidelity"], []).append(r)
    if not sweeps:
        return "no oracle sweep ran Newton to convergence"
    return "; ".join(
        f"in {name} the oracle's directions cost (median times the reference's solves, share of steps on the "
        "fallback) "
        + "; ".join(
            f"{np.median([r['overhead'] for r in rs]):.1f}x and {np.median([r['fallback_share'] for r in rs]):.1%} at "
            f"fidelity {level:g}"
            for level, rs in sorted(levels.items(), reverse=True)
        )
        for name, levels in sorted(sweeps.items())
    )


def _stand_in_check(judged: list[dict]) -> str:
    """Where a file records both, how often the reference's Newton iterations equal its linear solves: what
    justifies the iterations standing in for the solves in older files."""
    both = [r for r in judged if r["ref_counted"]]
    same = sum(r["linear_solves_ref"] == r["newton_iterations_ref"] for r in both)
    older = sorted({r["name"] for r in judged if not r["ref_counted"]})
    if not older:
        return ""
    return (
        f"Files written before the reference's linear solves were counted ({len(older)} of them) give its "
        "Newton iterations instead, one solve each; in the files that count both, the two agree on "
        f"{same} of {len(both)} runs."
    )


def verdicts(files: list[tuple[str, pd.DataFrame, dict]]) -> str:
    """The page's summary: each oracle sweep's success bar, the protocol of a verdict in the loop with every
    solver and control under it, and the verdict on the abstract's VNLS claim."""
    rows = []
    judged = [r for name, steps, meta in files for r in judged_runs(name, steps, meta)]
    for name, _, meta in files:
        oracle = [r for r in meta["runs"] if r["fidelity"] == r["fidelity"]]
        if oracle:
            rows.append([name, _setting(meta["options"]), _bar_text(oracle)])
    table = (
        markdown_table(pd.DataFrame(rows, columns=["sweep", "simulation", "success bar (fidelity)"]))
        if rows
        else "*No oracle sweep shipped.*"
    )
    vnls = [r for r in judged if r["solver_name"] == "vnls" and r["solver_options"].get("exact")]
    controls = [r for r in judged if r["control"]]
    protocol = protocol_table(judged)
    words = PROTOCOL.format(fallback=FALLBACK_BOUND, overhead=OVERHEAD_BOUND, scale=oracle_scale(judged))
    return "\n".join(
        [
            "## Verdicts",
            "",
            table,
            "",
            words,
            "",
            _stand_in_check(judged),
            "",
            markdown_table(protocol) if not protocol.empty else "*No solver ran to be judged.*",
            "",
            'The abstract\'s claim that VNLS "accurately simulates the dynamics" (judged with VNLS on exact '
            f"expectation values, its best case): **{vnls_verdict(vnls, controls)}**.",
            "",
            bound_sweep(vnls, controls),
            "",
            paper_scale(judged),
            "",
        ]
    )


PROTOCOL = """**The protocol of a verdict in the loop.** Staying within the position tolerance is not enough: Newton run
to convergence corrects any direction, and the stepper's fallback finishes a step Newton leaves, so answers that
do not solve (the controls: returning b, a random vector, the oracle at fidelity 0: an answer orthogonal to the
solution) stay within it too. A run **carries the simulation** when it completes every step, never strays past
the tolerance, the fallback finishes at most {fallback:.0%} of its steps (spheres: Lemke or the proximal method;
penalty: Newton took a gradient step) and it makes at most {overhead:g} times the linear solves of the exact
reference run beside it. The bounds sit below what the controls need where they fail (the table below); for
scale, {scale}. A simulation in which any control run carries is **not a
test** (its systems are too easy: e.g. with one unknown any answer scaled by the projection α is exact), and no
verdict is drawn from it. Where every control fails, a solver's runs are set against each control's by the
project's separation rule on the runs' *load* (the largest of position error over the tolerance, fallback share
over its bound and solve overhead over its bound; lower is better): the interquartile range below the
control's and a one-sided rank test at 0.05 (the rule's words "IQR above" mean better, here lower); a
deterministic control (returning b) counts once per seed; one seed is never separated.
Spreads are median [IQR] over seeds."""
