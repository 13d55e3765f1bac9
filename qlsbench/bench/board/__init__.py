"""The pinned board: a fixed set of systems, the solvers ranked on it, and how a new solver joins them.

One job per module, in the order a board lives:

1. :mod:`~qlsbench.bench.board.pinning`: ``qlsbench board pin`` builds the
   pinned set from ``board.yaml``'s sources (Ising-inspired at kappa 10 and
   100, DEM-C subsystems by qubit band and kappa) with a manifest of their
   content hashes; the set ships in ``qlsbench/pinned/`` and every read of it
   is checked against the manifest (:func:`qlsbench.data._pinned.pinned_files`).
2. :mod:`~qlsbench.bench.board.running`: ``qlsbench board run`` runs the
   board's solvers on it, ``board publish`` keeps their rows as
   ``results.parquet``.
3. :mod:`~qlsbench.bench.board.comparing`: ``qlsbench compare`` runs only a new
   solver and ranks it against those rows, its times scaled to the board's
   machine by the ratio of two dense LU timings
   (:mod:`~qlsbench.bench.board.calibration`); ``--quick`` runs one system per
   group and qubit band for a first look (:func:`quick_systems`).
4. :mod:`~qlsbench.bench.board.submissions`: the file a comparison writes,
   ``board add`` (onto the user's own pages) and ``board verify`` (a sample
   re-run, for a pull request to the published board).

:class:`~qlsbench.bench.board.folder.Board` names the files of a board folder.
The names below are the board's public surface.
"""

from qlsbench.bench.board.calibration import Calibration, time_factor
from qlsbench.bench.board.comparing import Comparison, compare, quick_systems
from qlsbench.bench.board.folder import DEFAULT_BOARD, Board
from qlsbench.bench.board.pinning import (
    pin,
    pinned_table,
    select_systems,
    source_groups,
)
from qlsbench.bench.board.running import (
    check_runs,
    publish_results,
    run_board,
    solver_runs,
)
from qlsbench.bench.board.submissions import (
    LOCAL_SUBMISSIONS,
    SELF_SUBMITTED,
    add_submission,
    local_files,
    own_label,
    read_submission,
    scaled_submission,
    self_submitted,
    verify_submission,
    work_folder,
    write_submission,
)

__all__ = [
    "DEFAULT_BOARD",
    "LOCAL_SUBMISSIONS",
    "SELF_SUBMITTED",
    "Board",
    "Calibration",
    "Comparison",
    "add_submission",
    "check_runs",
    "compare",
    "local_files",
    "own_label",
    "pin",
    "pinned_table",
    "publish_results",
    "quick_systems",
    "read_submission",
    "run_board",
    "scaled_submission",
    "select_systems",
    "self_submitted",
    "solver_runs",
    "source_groups",
    "time_factor",
    "verify_submission",
    "work_folder",
    "write_submission",
]
