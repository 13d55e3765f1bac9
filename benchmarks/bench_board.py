"""asv suite: the pinned board's pages, ``qlsbench board render`` and ``board add``, on the shipped board.

``board add`` ranked 20 solvers on 43 systems in 4 min 49 s (pandas calling a
Python function per group 75k times, every figure drawn twice); the target is
15 s for both. The board is a copy of ``qlsbench/pinned`` with the physics and
noisy tracks of ``docs/`` (as ``qlsbench board render`` from the repository
root), the submission one published solver's rows under a new label. The
ranking's shifted geometric means are checked against a per-group ``apply``
of :func:`~qlsbench.bench.ranking.shifted_geometric_mean`, the way they were
computed before they were vectorised.
"""

import shutil
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
#: The published solver whose rows, relabelled, make the submission.
SUBMITTED = "cg"


def _tracks(name: str):
    """A track's shipped files under ``docs/`` (``None`` without them: the page leaves the track out)."""
    folder = REPO / "docs" / name
    return [str(p) for p in sorted(folder.glob("*.parquet"))] if folder.is_dir() else None


class BoardPages:
    """Rendering the board's pages, and adding a submission (which renders them again)."""

    timeout = 600
    number = 1  # board add refuses a label already on the board: setup takes the submission off before each call
    repeat = 3
    warmup_time = 0

    def setup_cache(self):
        from qlsbench.bench import SolverSpec, load_results
        from qlsbench.bench.board import DEFAULT_BOARD, Board, Calibration, write_submission

        board = Path("board").resolve()  # asv keeps what setup_cache writes in its folder for the benchmarks
        shutil.copytree(DEFAULT_BOARD, board, ignore=shutil.ignore_patterns("submissions"))
        rows = load_results([board / "results.parquet"])
        mine = rows[rows["solver"] == SUBMITTED].assign(solver=f"{SUBMITTED}-again")
        submission = write_submission(
            Path("submission.parquet").resolve(),
            mine,
            SolverSpec(SUBMITTED, label=f"{SUBMITTED}-again"),
            Board(board),
            Calibration([1.0]),
        )
        return str(board), str(submission)

    def setup(self, paths):
        from qlsbench.bench.board import Board

        self.board, self.submission = Board(Path(paths[0])), paths[1]
        shutil.rmtree(self.board.submissions_folder, ignore_errors=True)
        self.pages = Path(paths[0]).parent / "pages"

    def time_render(self, paths):
        from qlsbench.report import render_board

        render_board(self.board, pages=self.pages, in_loop=_tracks("in-loop"), noisy=_tracks("noisy"))

    def time_add(self, paths):
        from qlsbench.bench.board import add_submission
        from qlsbench.report import render_board

        add_submission(self.board, self.submission)
        render_board(self.board, pages=self.pages, in_loop=_tracks("in-loop"), noisy=_tracks("noisy"))

    def track_sgm_max_rel_diff_vs_apply(self, paths):
        """Largest relative difference of the ranking's time and error means from a per-group apply (0: none)."""
        from qlsbench.bench import load_results
        from qlsbench.bench.ranking import per_system, rank_systems, shifted_geometric_mean, tracks

        results = load_results([self.board.results_path])
        worst = 0.0
        for track in tracks():
            systems = per_system(results, track.tol, by_dataset=False)
            table = rank_systems(systems, track.tol, systems["system_key"].nunique()).set_index("solver")
            g = systems.groupby("solver", sort=True)
            for column, mean in (("time_ms", "time_sgm_ms"), ("error", "error_sgm")):
                reference = g[column].apply(lambda v, shift=track.tol.shift: shifted_geometric_mean(v, shift))
                diff = np.abs(table[mean].reindex(reference.index) - reference) / np.abs(reference)
                worst = max(worst, float(diff.max()))
        return worst

    track_sgm_max_rel_diff_vs_apply.unit = "relative"
