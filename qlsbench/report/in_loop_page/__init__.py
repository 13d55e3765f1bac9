"""``docs/in-loop.md``: solvers inside the simulation loop, generated from in-loop results files (never typed).

``qlsbench figure in-loop FILE... --out docs/in-loop.md`` reads results of
``qlsbench in-loop`` and writes the page and its figure: for each oracle sweep,
the physics error at each target fidelity over its seeds and the family's
success bar; for each real solver, whether it carried the run, how far, and at
what cost.
"""

from __future__ import annotations

from qlsbench.report.in_loop_page._figures import plot_in_loop
from qlsbench.report.in_loop_page._page import (
    FIGURE,
    FULL_SEEDS,
    HEADER,
    command,
    physics_track_blocks,
    render,
    seeds_line,
    warm_section,
)
from qlsbench.report.in_loop_page._runs import (
    CONTROL_WORDS,
    FALLBACK_BOUND,
    PAPER_SPHERES,
    PAPER_WINDOW,
    SUCCESS_FIDELITY,
    control_name,
    cost_bounds,
    cost_status,
    judged_runs,
    load,
    separations,
    setting_status,
    why_not,
    within_cost,
)
from qlsbench.report.in_loop_page._runs import (
    _split as _split,  # which inputs are in-loop results files: read by tests/test_in_loop_page.py
)
from qlsbench.report.in_loop_page._tables import (
    oracle_table,
    physics_track,
    protocol_table,
    sequence_table,
    solver_table,
    success_bars,
    warm_loop_table,
)
from qlsbench.report.in_loop_page._verdicts import (
    OVERHEAD_SWEEP,
    PROTOCOL,
    bound_sweep,
    cost_verdict,
    oracle_scale,
    paper_scale,
    paper_scale_table,
    verdicts,
    vnls_verdict,
)

__all__ = [
    "CONTROL_WORDS",
    "FALLBACK_BOUND",
    "FIGURE",
    "FULL_SEEDS",
    "HEADER",
    "OVERHEAD_SWEEP",
    "PAPER_SPHERES",
    "PAPER_WINDOW",
    "PROTOCOL",
    "SUCCESS_FIDELITY",
    "bound_sweep",
    "command",
    "control_name",
    "cost_bounds",
    "cost_status",
    "cost_verdict",
    "judged_runs",
    "load",
    "oracle_scale",
    "oracle_table",
    "paper_scale",
    "paper_scale_table",
    "physics_track",
    "physics_track_blocks",
    "plot_in_loop",
    "protocol_table",
    "render",
    "seeds_line",
    "separations",
    "sequence_table",
    "setting_status",
    "solver_table",
    "success_bars",
    "verdicts",
    "vnls_verdict",
    "warm_loop_table",
    "warm_section",
    "why_not",
    "within_cost",
]
