"""The in-loop page's verdicts: the protocol in words, the abstract's VNLS claim judged under it (at the
study's scale and the paper's), accuracy and cost apart, and how the cost verdict moves with its bound."""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench.spread import Spread
from qlsbench.report._tables import markdown_table
from qlsbench.report.in_loop_page._runs import (
    CONTROL_WORDS,
    FALLBACK_BOUND,
    PAPER_WINDOW,
    SUCCESS_FIDELITY,
    _bar_text,
    _setting,
    cost_bounds,
    cost_status,
    judged_runs,
    separations,
    setting_status,
    why_not,
    within_cost,
)
from qlsbench.report.in_loop_page._tables import protocol_table

#: Fixed multiples of the reference's linear solves the cost verdict is also shown at, beside the calibrated
#: bounds (the oracle's cost at each fidelity level): where a bound flips the verdict is on the page.
OVERHEAD_SWEEP = (2.0, 5.0, 8.0, 10.0, 20.0, 50.0)


def paper_scale(judged: list[dict]) -> str:
    """The abstract's claim at the paper's scale: the finished runs judged like any other, with what one solve
    cost there; without finished runs, what a short window (:data:`PAPER_WINDOW`) would take at that cost."""
    runs = [r for r in judged if r["paper_scale"]]
    if not runs:
        return "**At the paper's scale** (100 spheres, VNLS sampled as in the paper): not run."
    solves, per_solve = sum(r["linear_solves"] for r in runs), _per_solve(runs)
    # a run decided early (it could no longer carry the simulation) ran as far as its verdict needed
    first, done = runs[0], [r for r in runs if r["status"] in ("completed", "decided")]
    cost = (
        f"one solve took {per_solve:.0f} s of solver time here, one thread each ({solves} solve(s) in "
        f"{', '.join(sorted({'`' + r['name'] + '`' for r in runs}))}, on systems of at most "
        f"{max(r['max_qubits'] for r in runs)} qubit(s))"
    )
    if done:
        quiet = min(r["first_solve_step"] for r in done)
        verdict = vnls_verdict(done, [c for c in judged if c["control"]])
        windows = any("from step" in r["setting"][0] for r in runs)
        plain = (
            ""
            if verdict.startswith(("holds", "does not hold")) or windows
            else " So the claim at the paper's scale stays untested: the larger systems of fig. 4's checkpoints "
            "come later in the sedimentation than this window reaches, and no window there was run."
        )
        settings = {r["setting"] for r in done}
        if len(settings) > 1:
            return (
                f"**At the paper's scale** (VNLS as in the paper, `{first['solver']}`; {len(done)} run(s) in "
                f"{len(settings)} simulations, each in the table below): **{verdict}**; {cost}.{plain}"
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


def paper_scale_table(judged: list[dict]) -> pd.DataFrame:
    """Per simulation VNLS ran in at the paper's scale (the window from zero, fig. 4's windows): its largest
    system, the reference's solves, whether it is a test and what each control did, the VNLS runs that carry,
    their accuracy load and their cost, each over the seeds with its spread."""
    runs = [r for r in judged if r["paper_scale"]]
    rows = []
    for setting in sorted({r["setting"] for r in runs}, key=lambda key: _window_start(key[0])):
        mine = [r for r in runs if r["setting"] == setting]
        controls = controls_of([c for c in judged if c["control"]], setting)
        done = [r for r in mine if r["status"] == "completed"]
        rows.append(
            {
                "simulation": setting[0],
                "largest system (qubits)": max(r["max_qubits"] for r in judged if r["setting"] == setting),
                # the whole window's: a run decided early counted the reference's solves of its steps only
                "reference's solves": max(r["linear_solves_ref"] for r in judged if r["setting"] == setting),
                "status": setting_status(controls),
                **{
                    f"control: {words}": _control_outcome([c for c in controls if c["control"] == control])
                    for control, words in CONTROL_WORDS.items()
                },
                "VNLS runs that carry": f"{sum(r['carries'] for r in mine)} of {len(mine)}",
                "VNLS load": Spread.of([r["load"] for r in done]).text(".3g") if done else "—",
                "VNLS solves over the reference's": Spread.of([r["overhead"] for r in done]).text(".2f")
                if done
                else "—",
                "solver s per solve": _per_solve(mine),
            }
        )
    return pd.DataFrame(rows)


def _per_solve(runs: list[dict]) -> float:
    """Solver seconds per linear solve over ``runs``."""
    return sum(r["solver_seconds"] for r in runs) / max(sum(r["linear_solves"] for r in runs), 1)


def _window_start(setting: str) -> int:
    """The step a simulation's window starts at (0 for a run from the start), read from its setting's words."""
    import re

    found = re.search(r"from step (\d+)", setting)
    return int(found.group(1)) if found else 0


def _control_outcome(runs: list[dict]) -> str:
    """What a control did in one simulation: how many of its runs carry it, or that it did not run."""
    if not runs:
        return "not run"
    return f"carries {sum(r['carries'] for r in runs)} of {len(runs)}"


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
    status = {key: setting_status(controls_of(controls, key)) for key in by_setting}
    tested = [r for key, rs in by_setting.items() if status[key] == "test" for r in rs]
    aside = _set_aside(by_setting, status, controls)
    if not tested:
        return f"not tested: no simulation it ran in is a test; {aside}"
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
        f"{max(r['fallback_share'] for r in tested):.0%} of steps), {against}" + (f"; {aside}" if aside else "")
    )


def cost_verdict(runs: list[dict], controls: list[dict], bounds: dict[tuple, float]) -> str:
    """Whether ``runs`` cost at most what the oracle's directions at the success fidelity cost in their setting
    (``bounds``, :func:`cost_bounds`), judged only where every control costs more (a test), with the cost as a
    number and its spread either way."""
    if not runs:
        return "not run"
    spread = Spread.of([r["overhead"] for r in runs]).text(".1f")
    by_setting: dict[tuple, list[dict]] = {}
    for r in runs:
        by_setting.setdefault(r["setting"], []).append(r)
    tested, aside = [], []
    for key, rs in by_setting.items():
        status = cost_status(controls_of(controls, key), bounds.get(key))
        if status == "test":
            tested += rs
        else:
            why = {
                "no bound": f"no oracle ran at fidelity {SUCCESS_FIDELITY:g} beside them",
                "no control": "no control ran beside them",
                "not a test": "a control costs no more than the oracle there",
            }[status]
            aside.append(f"{_files(rs)}: {why}")
    head = f"{spread} times the reference's linear solves (median [IQR] over runs)"
    if not tested:
        return f"{head}; no cost verdict: " + "; ".join(aside)
    within = [r for r in tested if within_cost(r, bounds[r["setting"]])]
    configs = _by_file(tested)
    apart = sum(
        all(sep.separated for sep in separations(rs, controls_of(controls, rs[0]["setting"]), "overhead"))
        for rs in configs.values()
    )
    limits = ", ".join(f"{bounds[k]:.2f}x" for k in sorted({r["setting"] for r in tested}))
    return (
        f"{head}; {len(within)} of {len(tested)} run(s) within what the oracle's directions at fidelity "
        f"{SUCCESS_FIDELITY:g} cost in the same simulation ({limits}); {apart} of {len(configs)} configuration(s) "
        "separated on cost from every control" + (f"; {len(aside)} set aside ({'; '.join(aside)})" if aside else "")
    )


def controls_of(controls: list[dict], setting: tuple) -> list[dict]:
    """The control runs of ``setting``."""
    return [c for c in controls if c["setting"] == setting]


def _by_file(runs: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in runs:
        out.setdefault(r["name"], []).append(r)
    return dict(sorted(out.items()))


def _oracle_levels(judged: list[dict]) -> list[float]:
    """The fidelity levels an oracle ran at in the settings of ``judged``, highest first."""
    return sorted({r["fidelity"] for r in judged if r["solver_name"] == "oracle" and r["fidelity"] == r["fidelity"]})[
        ::-1
    ]


def bound_sweep(runs: list[dict], controls: list[dict], judged: list[dict]) -> pd.DataFrame:
    """The cost verdict at each bound: the oracle's cost at each fidelity level it ran at in the runs' simulations
    (calibrated), then fixed multiples (:data:`OVERHEAD_SWEEP`). Per bound, its value in each simulation, in how
    many simulations every control costs more (the tests) and how many runs there are within it."""
    settings = {r["setting"] for r in runs}
    bounds = [
        (f"the oracle's cost at fidelity {level:g}", at)
        for level in _oracle_levels(judged)
        if settings & set(at := cost_bounds(judged, level))  # a level no oracle ran at where these runs ran: no bound
    ]
    bounds += [
        (f"{multiple:g}× the reference's solves", dict.fromkeys(settings, multiple)) for multiple in OVERHEAD_SWEEP
    ]
    rows = []
    for words, bound in bounds:
        tests = {key for key in settings if cost_status(controls_of(controls, key), bound.get(key)) == "test"}
        tested = [r for r in runs if r["setting"] in tests]
        rows.append(
            {
                "bound": words,
                "its value per simulation": ", ".join(f"{bound[k]:.2f}×" for k in sorted(settings) if k in bound),
                "simulations that are tests": f"{len(tests)} of {len(settings)}",
                "runs within it": f"{sum(within_cost(r, bound[r['setting']]) for r in tested)} of {len(tested)}",
            }
        )
    return pd.DataFrame(rows)


def _set_aside(by_setting: dict, status: dict, controls: list[dict]) -> str:
    """The simulations no verdict may be drawn from, counted, and which controls made each so (the protocol table
    below has each in full)."""
    aside = [key for key in by_setting if status[key] != "test"]
    if not aside:
        return ""
    runs = sum(len(by_setting[key]) for key in aside)
    parts = [f"{len(aside)} simulation(s), {runs} run(s)"]
    lacking = sum(status[key] == "no control" for key in aside)
    if lacking:
        parts.append(f"no control ran beside {lacking}")
    for control, words in CONTROL_WORDS.items():
        carried = sum(
            any(c["control"] == control and c["carries"] for c in controls if c["setting"] == key) for key in aside
        )
        if carried:
            parts.append(f"{words} carries {carried}")
    return f"{parts[0]} set aside ({'; '.join(parts[1:])})"


def _files(runs: list[dict]) -> str:
    """The results files of ``runs``, quoted."""
    return ", ".join(f"`{name}`" for name in sorted({r["name"] for r in runs}))


def _and(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _failures(failed: list[dict]) -> str:
    """Per file, how many runs failed and the worst of them in words."""
    return "; ".join(
        f"{name}: {len(rs)} run(s), e.g. seed {rs[0]['seed']}: {why_not(rs[0])}"
        for name, rs in _by_file(failed).items()
    )


def _against(tested: list[dict], controls: list[dict]) -> str:
    """Each tested configuration's separation from each control of its setting, in words."""
    by_config: dict[tuple, list[dict]] = {}
    for r in tested:
        by_config.setdefault((r["setting"], r["name"]), []).append(r)
    parts = []
    for (key, name), rs in sorted(by_config.items()):
        seps = separations(rs, controls_of(controls, key))
        parts.append(f"{name} is " + ", ".join(s.text() for s in seps))
    return "; ".join(parts)


def oracle_scale(judged: list[dict]) -> pd.DataFrame:
    """What directions of each fidelity cost to convergence: per oracle sweep run as the protocol runs Newton (to
    convergence, fallbacks on), the median solve overhead and fallback share at each level. The column at the
    success fidelity is the cost bound of the sweep's simulation."""
    sweeps: dict[str, dict[float, list[dict]]] = {}
    for r in judged:
        if (
            r["fidelity"] == r["fidelity"]
            and "Newton to convergence" in r["setting"][0]
            and "fallbacks off" not in r["setting"][0]
        ):
            sweeps.setdefault(r["name"], {}).setdefault(r["fidelity"], []).append(r)
    rows = []
    for name, levels in sorted(sweeps.items()):
        row = {"sweep": name}
        for level, rs in sorted(levels.items(), reverse=True):
            row[f"fidelity {level:g}"] = (
                f"{np.median([r['overhead'] for r in rs]):.2f}× ({np.median([r['fallback_share'] for r in rs]):.1%})"
            )
        rows.append(row)
    return pd.DataFrame(rows).fillna("—")


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
    words = PROTOCOL.format(fallback=FALLBACK_BOUND, success=SUCCESS_FIDELITY)
    scale = oracle_scale(judged)
    return "\n".join(
        [
            "## Verdicts",
            "",
            table,
            "",
            words,
            "",
            "What the oracle's directions cost, run as the solvers are (Newton to convergence, fallbacks on): the "
            "median linear solves over the reference's, with the share of steps on the fallback. The column at "
            f"fidelity {SUCCESS_FIDELITY:g} is each simulation's cost bound.",
            "",
            markdown_table(scale) if not scale.empty else "*No oracle sweep ran Newton to convergence.*",
            "",
            _stand_in_check(judged),
            "",
            markdown_table(protocol) if not protocol.empty else "*No solver ran to be judged.*",
            "",
            'The abstract\'s claim that VNLS "accurately simulates the dynamics", judged with VNLS on exact '
            f"expectation values: **{vnls_verdict(vnls, controls)}**.",
            "",
            f"Its cost, judged apart: {cost_verdict(vnls, controls, cost_bounds(judged))}.",
            "",
            "*The cost verdict across its bound* (a simulation is a test at a bound only while every control "
            "costs more; the runs counted are those in the simulations that are tests):",
            "",
            markdown_table(bound_sweep(vnls, controls, judged)),
            "",
            paper_scale(judged),
            "",
            *(
                ["*Per simulation at the paper's scale:*", "", markdown_table(paper_scale_table(judged)), ""]
                if any(r["paper_scale"] for r in judged)
                else []
            ),
        ]
    )


PROTOCOL = """**The protocol of a verdict in the loop: accuracy and cost apart.** A run **carries the simulation** when
it completes every step, never strays past the position tolerance and the stepper's fallback finishes at most
{fallback:.0%} of its steps (spheres: Lemke or the proximal method; penalty: Newton took a gradient step). That is
its accuracy. Its **cost** is its linear solves over those of the exact reference run beside it, a number with its
spread; a claim about cost is judged against what the oracle's directions at the success fidelity ({success:g},
the board's bar) cost in the same simulation, read from the oracle's runs there, never chosen (the table
below). Each is judged only where every control fails it: a simulation in which a control run carries is **not
a test** of accuracy (Newton run to convergence corrects any direction, and the fallback finishes what Newton
leaves, so answers that do not solve can stay within the tolerance), and one in which a control costs no more
than the bound is not a test of cost. Where a simulation is a test, a solver's runs are set against each
control's by the project's separation rule, on the accuracy *load* (the larger of position error over the
tolerance and fallback share over its bound) or on the cost, lower being better: the interquartile range below
the control's and a one-sided rank test at 0.05 (the rule's words "IQR above" mean better, here lower); a
deterministic control (returning b) counts once per seed; one seed is never separated.
Spreads are median [IQR] over seeds."""
