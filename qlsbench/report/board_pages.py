"""The published board's pages: ``index.html`` (the web page), ``leaderboard.md`` and ``.csv``, and the plots.

The board's own rows (``results.parquet``), the published submissions (accepted
upstream, in the board's ``submissions/``) and, on a user's own pages, the
self-submitted files ``qlsbench board add`` keeps in a local folder (marked
"self-submitted") are ranked together, times scaled by each file's calibration
factor; a submission is one more row, with its exact options and machine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from qlsbench.bench.board.folder import Board
from qlsbench.bench.board.pinning import pinned_table
from qlsbench.bench.board.running import publish_results, solver_runs
from qlsbench.bench.board.submissions import (
    SELF_SUBMITTED,
    local_files,
    read_submission,
    scaled_submission,
    self_submitted,
)
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, ranking_rows, tracks
from qlsbench.bench.results import load_results
from qlsbench.data import atomic_write_text
from qlsbench.report.budget_curves import plot_budget_curves
from qlsbench.report.in_loop_page import physics_track_blocks
from qlsbench.report.leaderboard_columns import display_table
from qlsbench.report.leaderboard_page import control_sentence, write_leaderboard
from qlsbench.report.noisy_page import noisy_track_blocks
from qlsbench.report.resource_figures import estimate_blocks

#: The pages ``board publish`` and ``board add`` write into their folder.
PAGES = ("index.html", "leaderboard.md", "leaderboard.csv", "budget_curves.png")


def publish(board: Board, results_dir: str | os.PathLike, pages: str | os.PathLike,
            tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY, in_loop: list | None = None,
            noisy: list | None = None, local: str | os.PathLike | None = None, progress: bool = False) -> pd.DataFrame:
    """Publish a board run: ``results.parquet`` beside the pinned set, its pages in ``pages``; returns the rows."""
    results = publish_results(board, results_dir)
    render_board(board, pages=pages, tol=tol, low=low, in_loop=in_loop, noisy=noisy, local=local, progress=progress)
    return results


def board_results(board: Board, local: str | os.PathLike | None = None) -> pd.DataFrame:
    """The board's published rows, every published submission's and the self-submitted files in ``local``
    (marked), times scaled to the board's machine."""
    frames = [load_results([board.results_path])]
    frames += [scaled_submission(path) for path in board.submission_files()]
    frames += [self_submitted(path) for path in local_files(local)]
    return pd.concat(frames, ignore_index=True)


def _preamble(board: Board, results: pd.DataFrame) -> str:
    manifest = board.manifest()
    rows, distinct = len(manifest["systems"]), len({e["system_id"] for e in manifest["systems"]})
    count = f"{rows} systems" + ("" if rows == distinct else
                                 f" ({distinct} distinct: a system in two groups counts once)")
    return (f"Pinned benchmark set v{manifest['version']}: {count} in "
            f"{len(manifest['groups'])} groups ({', '.join(f'`{g}` {h}' for g, h in manifest['groups'].items())}). "
            f"{_coverage_sentence(board, manifest, results)} `qlsbench compare --solver module:Class` ranks a new "
            "one against these rows without running them again and writes a submission; `qlsbench board add` puts "
            "it on your own copy of these pages, marked self-submitted; a pull request checked by `qlsbench board "
            "verify` puts it here (docs/leaderboard.md).")


def _coverage_sentence(board: Board, manifest: dict, results: pd.DataFrame) -> str:
    """Say which board solvers have not run on every pinned system (a board run still under way), or that all have."""
    pinned = {e["system_id"] for e in manifest["systems"]}
    ran = results.groupby("solver")["system_id"].agg(lambda ids: len(pinned & set(ids)))
    labels = [run["spec"].label for run in solver_runs(board.config)]
    short = [f"{label} on {ran.get(label, 0)} of {len(pinned)}" for label in labels if ran.get(label, 0) < len(pinned)]
    if not short:
        return "Every solver ran on every system."
    return (f"Not every board solver has run on every system yet ({'; '.join(short)}): their rates are over the "
            "systems they ran (see coverage), and `qlsbench board run` resumes them.")


def _submissions_table(board: Board, local: str | os.PathLike | None = None) -> pd.DataFrame:
    rows = []
    marked = [(path, "") for path in board.submission_files()] + [(path, SELF_SUBMITTED) for path in local_files(local)]
    for path, mark in marked:
        _, meta = read_submission(path)
        machine = meta.get("machine", {})
        rows.append({"solver": meta["label"] + mark, "route": "self-submitted" if mark else "published",
                     "name": meta["name"],
                     "options": json.dumps(meta.get("options", {}), sort_keys=True),
                     "time factor": f"{meta['time_factor']:.3g} ({min(meta['calibration_factors'] or [1]):.3g}-"
                                    f"{max(meta['calibration_factors'] or [1]):.3g})",
                     "machine": f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores",
                     "date": machine.get("date", "?")})
    return pd.DataFrame(rows)


#: The target error of the fault-tolerant estimates on the page: the exact track's residual bar.
RESOURCE_EPSILON = 1e-6


def _estimates(board: Board) -> pd.DataFrame:
    """``qlsbench resources`` rows of every pinned group at :data:`RESOURCE_EPSILON`, with a ``group`` column."""
    import tempfile

    from qlsbench.bench.pauli_study import resource_table

    with tempfile.TemporaryDirectory() as tmp:
        return pd.concat([resource_table(path, Path(tmp) / f"{group}.parquet", epsilons=(RESOURCE_EPSILON,),
                                         progress=False).assign(group=group)
                          for group, path in board.pinned_files().items()], ignore_index=True)


class _Progress:
    """The progress line of :func:`render_board`: one step per part of the pages, named as it starts."""

    def __init__(self, total: int, enabled: bool):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, desc="board pages", unit="step", disable=not enabled, leave=enabled)
        self.started = False

    def __call__(self, label: str) -> None:
        if self.started:
            self.bar.update()
        self.started = True
        self.bar.set_postfix_str(label)

    def close(self) -> None:
        self.bar.update()
        self.bar.close()


#: The steps of :func:`render_board` the progress line counts (the page's own steps included).
_STEPS = ("results", "budget curves", "tracks", "estimates", "rankings", "plots and per-system results", "tables",
          "writing")


def render_board(board: Board, results: pd.DataFrame | None = None, pages: str | os.PathLike = "leaderboard",
                 tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY, in_loop: list | None = None,
                 noisy: list | None = None, local: str | os.PathLike | None = None,
                 progress: bool = False) -> list[Path]:
    """Write :data:`PAGES` into ``pages``: the web page, Markdown and CSV (the pinned set and the submissions
    listed), the downloads beside them (``data/``: the rows and the pinned systems) and, when solvers recorded
    progress, the budget curves. ``results`` default: :func:`board_results`. ``in_loop``: in-loop results files
    (``qlsbench in-loop``) for the physics track, ``noisy``: solve results of the device backends for the noisy
    track; ``None`` leaves a track out. ``local``: a folder of self-submitted files to rank too, marked.
    ``progress`` shows a progress line (on stderr)."""
    step = _Progress(len(_STEPS), progress)
    try:
        return _render(board, results, Path(pages), tol, low, in_loop, noisy, local, step)
    finally:
        step.close()


def _render(board: Board, results: pd.DataFrame | None, pages: Path, tol: Tolerances, low: Tolerances,
            in_loop: list | None, noisy: list | None, local: str | os.PathLike | None, step) -> list[Path]:
    step("results")
    results = board_results(board, local) if results is None else results
    written = []
    step("budget curves")
    if results["progress_evaluations"].map(lambda v: v is not None and len(v) > 0).any():
        written.append(plot_budget_curves(results, pages / "budget_curves.png", tol=low))
    step("tracks")
    track = physics_track_blocks([str(p) for p in in_loop], low.fidelity) if in_loop is not None else []
    track += noisy_track_blocks([str(p) for p in noisy]) if noisy is not None else []
    step("estimates")
    pinned = pinned_table(board)
    extra = [*track, *estimate_blocks(_estimates(board), RESOURCE_EPSILON, by="group"),
             ("h2", "The pinned set"), ("table", display_table(pinned))]
    submissions = _submissions_table(board, local)
    if not submissions.empty:
        extra = [("h2", "Submissions"),
                 ("p", "Published: accepted upstream after `qlsbench board verify` re-ran a sample of their "
                       "systems. Self-submitted: added on this machine with `qlsbench board add`, not checked. "
                       "Times were measured on the submitter's machine and scaled by its time factor (board LU "
                       "time / LU time there; the range over repeats)."),
                 ("table", submissions), *extra]
    write_leaderboard(results, pages / "leaderboard.md", pages / "leaderboard.csv", tol, low,
                      html_path=pages / "index.html", systems=pinned, title="qlsbench leaderboard v2",
                      preamble=_preamble(board, results), by="dataset", extra=extra,
                      names=dict(zip(pinned["system_id"], pinned["name"])), step=step)
    docs = _summarised_docs(pages)
    if docs is not None:  # the method page's numbers are this summary, rewritten with the pages, never typed
        atomic_write_text(docs, with_summary(docs.read_text(encoding="utf-8"), board_summary(board, results, tol, low)))
        written.append(docs)
    return written + [pages / name for name in PAGES if name != "budget_curves.png"]


#: The lines of ``docs/leaderboard.md`` between which :func:`board_summary` stands.
SUMMARY_BEGIN, SUMMARY_END = "<!-- board summary: written by qlsbench board render, do not edit -->", \
    "<!-- end of board summary -->"


def _summarised_docs(pages: Path) -> Path | None:
    """``docs/leaderboard.md`` beside the pages' folder when it carries the summary's markers (the repository's
    board); ``None`` for pages written anywhere else."""
    docs = pages.resolve().parent / "docs" / "leaderboard.md"
    return docs if docs.exists() and SUMMARY_BEGIN in docs.read_text(encoding="utf-8") else None


def with_summary(text: str, summary: str) -> str:
    """``text`` with the lines between its summary markers replaced by ``summary``."""
    head, rest = text.split(SUMMARY_BEGIN, 1)
    _, tail = rest.split(SUMMARY_END, 1)
    return f"{head}{SUMMARY_BEGIN}\n{summary}\n{SUMMARY_END}{tail}"


def board_summary(board: Board, results: pd.DataFrame, tol: Tolerances = Tolerances(),
                  low: Tolerances = LOW_ACCURACY) -> str:
    """The published board in a few lines of Markdown, every number from the manifest and the rows: the pinned
    set, the solves, each track's rates over all systems (controls apart) and what null-b does per track and group.
    """
    manifest = board.manifest()
    entries = pd.DataFrame(manifest["systems"])
    groups = ", ".join(f"`{g}` {n}" for g, n in entries.groupby("group", sort=False).size().items())
    rows = ranking_rows(results, tracks(tol, low), by="dataset")
    lines = [f"- **Pinned set v{manifest['version']}**: {len(entries)} rows, {entries['system_id'].nunique()} "
             f"distinct systems, in {len(manifest['groups'])} groups ({groups}).",
             f"- **Rows**: {len(results)} solves of {results['solver'].nunique()} solvers, "
             f"{int((results['solver_name'].map(_is_control)).sum())} of them by the controls "
             f"({', '.join(sorted(results.loc[results['solver_name'].map(_is_control), 'solver'].unique()))})."]
    for track in tracks(tol, low):
        view = rows[(rows["track"] == track.name) & (rows["group"] == "all") & (rows["band"] == "all")]
        ranked = view[view["kind"] != "control"]
        rates = "; ".join(f"{s} {r:.2f} [{lo:.2f}, {hi:.2f}]" for s, r, lo, hi in
                          zip(ranked["solver"], ranked["success_rate"], ranked["success_rate_ci_low"],
                              ranked["success_rate_ci_high"]))
        lines.append(f"- **{track.name.capitalize()} track** (success over systems, 95 % Wilson interval): {rates}. "
                     f"{control_sentence(view, track)}")
        for group in sorted(set(rows["group"]) - {"all"}):
            part = rows[(rows["track"] == track.name) & (rows["group"] == group) & (rows["band"] == "all")]
            sentence = control_sentence(part, track, f" on `{group.removeprefix('pinned/')}`")
            lines += [f"  - {sentence}"] if sentence else []
    return "\n".join(_wrapped(line) for line in lines)


def _wrapped(item: str, width: int = 116) -> str:
    """A Markdown list item wrapped within ``width`` columns, its continuation lines indented under its text."""
    import textwrap

    indent = " " * (len(item) - len(item.lstrip(" ")) + 2)
    return "\n".join(textwrap.wrap(item, width, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False))


def _is_control(name) -> bool:
    from qlsbench.solvers.registry import is_control

    return isinstance(name, str) and is_control(name)
