"""The published board's pages: ``index.html`` (the web page), ``leaderboard.md`` and ``.csv``, and the plots.

The board's own rows (``results.parquet``), the published submissions (accepted
upstream, in the board's ``submissions/``) and, on a user's own pages, the
self-submitted files ``qlsbench board add`` keeps in a local folder (marked
"self-submitted") are ranked together, times scaled by each file's calibration
factor; a submission is one more row, with its exact options and machine.

The physics and noisy tracks are computed from their results files where
they are (``docs/in-loop``, ``docs/noisy`` in the repository); ``board
publish`` and ``board render`` keep what the page shows of them in the
board's ``tracks.json`` (a few tens of kB, shipped in the package beside the
results), so ``board add`` outside the repository shows the same tracks
(:data:`PUBLISHED_TRACK`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from qlsbench.bench._results import load_results
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
from qlsbench.data import atomic_write_text
from qlsbench.errors import InputError
from qlsbench.report._budget_curves import plot_budget_curves
from qlsbench.report._leaderboard_columns import display_table
from qlsbench.report._leaderboard_page import control_sentence, write_leaderboard
from qlsbench.report._noisy_page import noisy_track_blocks
from qlsbench.report._resource_figures import estimate_blocks
from qlsbench.report._staging import staged
from qlsbench.report.in_loop_page import physics_track_blocks

#: The pages ``board publish`` and ``board add`` write into their folder.
PAGES = ("index.html", "leaderboard.md", "leaderboard.csv", "budget_curves.png")
#: The file beside a board's results that keeps its published tracks' blocks (:func:`write_tracks`).
TRACKS_FILE = "tracks.json"
#: A track given as this (``in_loop=``, ``noisy=``) is read from the board's :data:`TRACKS_FILE`: the track as
#: the board published it, where its results files are not at hand (a user's folder outside the repository).
PUBLISHED_TRACK = "published"
#: The tracks' names in :data:`TRACKS_FILE`, in the order the page shows them.
TRACK_NAMES = ("physics", "noisy")


def publish(
    board: Board,
    results_dir: str | os.PathLike,
    pages: str | os.PathLike,
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    in_loop: list | str | None = None,
    noisy: list | str | None = None,
    local: str | os.PathLike | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Publish a board run: ``results.parquet`` beside the pinned set, its pages in ``pages`` (and, when both
    tracks come from their files, :data:`TRACKS_FILE`); returns the rows."""
    results = publish_results(board, results_dir)
    render_board(
        board,
        pages=pages,
        tol=tol,
        low=low,
        in_loop=in_loop,
        noisy=noisy,
        local=local,
        progress=progress,
        keep_tracks=True,
    )
    return results


def tracks_path(board: Board) -> Path:
    """Where ``board`` keeps its published tracks' blocks: beside its results."""
    return board.folder / TRACKS_FILE


def write_tracks(board: Board, blocks: dict[str, list], bar: float) -> Path:
    """Keep each track's page blocks (``{"physics": [...], "noisy": [...]}``) in the board's :data:`TRACKS_FILE`,
    tables as columns and rows: what the page shows, not the results behind it (those stay in the repository).
    ``bar``: the fidelity bar the physics track was set against."""
    from qlsbench.bench._results import jsonable

    def block(kind: str, value) -> list:
        if kind != "table":
            return [kind, value]
        cells = value.astype(object).where(value.notna(), None)
        return [kind, {"columns": [str(c) for c in value.columns], "rows": cells.to_numpy().tolist()}]

    data = {"bar": bar, **{name: [block(kind, value) for kind, value in blocks[name]] for name in TRACK_NAMES}}
    return atomic_write_text(
        tracks_path(board), json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False, default=jsonable) + "\n"
    )


def read_tracks(board: Board, bar: float) -> dict[str, list]:
    """The blocks :func:`write_tracks` kept for ``board``; a clear error when it has none or kept them against
    another fidelity bar than ``bar``."""
    path = tracks_path(board)
    if not path.is_file():
        raise InputError(
            f"{path}: this board keeps no published tracks (`qlsbench board render` with the tracks' "
            "files writes them; --in-loop and --noisy give files, --no-tracks leaves them out)"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["bar"] != bar:
        raise InputError(
            f"{path}: its physics track was set against the fidelity bar {data['bar']:g}, not {bar:g}; "
            "give the in-loop files (--in-loop) to compute it at this bar"
        )

    def block(kind: str, value):
        return (kind, pd.DataFrame(value["rows"], columns=value["columns"])) if kind == "table" else (kind, value)

    return {name: [block(kind, value) for kind, value in data[name]] for name in TRACK_NAMES}


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
    count = f"{rows} systems" + (
        "" if rows == distinct else f" ({distinct} distinct: a system in two groups counts once)"
    )
    return (
        f"Pinned benchmark set v{manifest['version']}: {count} in "
        f"{len(manifest['groups'])} groups ({', '.join(f'`{g}` {h}' for g, h in manifest['groups'].items())}). "
        f"{_coverage_sentence(board, manifest, results)} `qlsbench compare --solver module:Class` ranks a new "
        "one against these rows without running them again and writes a submission; `qlsbench board add` puts "
        "it on your own copy of these pages, marked self-submitted; a pull request checked by `qlsbench board "
        "verify` puts it here (docs/leaderboard.md)."
    )


def _coverage_sentence(board: Board, manifest: dict, results: pd.DataFrame) -> str:
    """Say which board solvers have not run on every pinned system (a board run still under way), or that all have."""
    pinned = {e["system_id"] for e in manifest["systems"]}
    ran = results.groupby("solver")["system_id"].agg(lambda ids: len(pinned & set(ids)))
    labels = [run["spec"].label for run in solver_runs(board.config)]
    short = [f"{label} on {ran.get(label, 0)} of {len(pinned)}" for label in labels if ran.get(label, 0) < len(pinned)]
    if not short:
        return "Every solver ran on every system."
    return (
        f"Not every board solver has run on every system yet ({'; '.join(short)}): their rates are over the "
        "systems they ran (see coverage), and `qlsbench board run` resumes them."
    )


def _submissions_table(board: Board, local: str | os.PathLike | None = None) -> pd.DataFrame:
    rows = []
    marked = [(path, "") for path in board.submission_files()] + [(path, SELF_SUBMITTED) for path in local_files(local)]
    for path, mark in marked:
        _, meta = read_submission(path)
        machine = meta.get("machine", {})
        rows.append(
            {
                "solver": meta["label"] + mark,
                "route": "self-submitted" if mark else "published",
                "name": meta["name"],
                "options": json.dumps(meta.get("options", {}), sort_keys=True),
                "time factor": f"{meta['time_factor']:.3g} ({min(meta['calibration_factors'] or [1]):.3g}-"
                f"{max(meta['calibration_factors'] or [1]):.3g})",
                "machine": f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores",
                "date": machine.get("date", "?"),
            }
        )
    return pd.DataFrame(rows)


#: The target error of the fault-tolerant estimates on the page: the exact track's residual bar.
RESOURCE_EPSILON = 1e-6


def _estimates(board: Board) -> pd.DataFrame:
    """``qlsbench resources`` rows of every pinned group at :data:`RESOURCE_EPSILON`, with a ``group`` column."""
    import tempfile

    from qlsbench.bench._pauli_study import resource_table

    with tempfile.TemporaryDirectory() as tmp:
        return pd.concat(
            [
                resource_table(
                    path, Path(tmp) / f"{group}.parquet", epsilons=(RESOURCE_EPSILON,), progress=False
                ).assign(group=group)
                for group, path in board.pinned_files().items()
            ],
            ignore_index=True,
        )


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
_STEPS = (
    "results",
    "budget curves",
    "tracks",
    "estimates",
    "rankings",
    "plots and per-system results",
    "tables",
    "writing",
)


def render_board(
    board: Board,
    results: pd.DataFrame | None = None,
    pages: str | os.PathLike = "leaderboard",
    tol: Tolerances = Tolerances(),
    low: Tolerances = LOW_ACCURACY,
    in_loop: list | str | None = None,
    noisy: list | str | None = None,
    local: str | os.PathLike | None = None,
    progress: bool = False,
    keep_tracks: bool = False,
) -> list[Path]:
    """Write :data:`PAGES` into ``pages``: the web page, Markdown and CSV (the pinned set and the submissions
    listed), the downloads beside them (``data/``: the rows and the pinned systems) and, when solvers recorded
    progress, the budget curves. ``results`` default: :func:`board_results`. ``in_loop``: in-loop results files
    (``qlsbench in-loop``) for the physics track, ``noisy``: solve results of the device backends for the noisy
    track; ``None`` leaves a track out, :data:`PUBLISHED_TRACK` reads it from the board's :data:`TRACKS_FILE`.
    ``keep_tracks``: when both tracks come from their files, keep their blocks in :data:`TRACKS_FILE` too
    (``board publish`` and ``render``). ``local``: a folder of self-submitted files to rank too, marked.
    ``progress`` shows a progress line (on stderr)."""
    step = _Progress(len(_STEPS), progress)
    pages = Path(pages)
    try:
        with staged(pages) as drawn:  # the pages move in together once all are written: a failure leaves none
            written = _render(
                board,
                results,
                drawn,
                tol,
                low,
                {"physics": in_loop, "noisy": noisy},
                local,
                step,
                keep_tracks,
                docs=_summarised_docs(pages),
            )
    finally:
        step.close()
    return [pages / p.relative_to(drawn) if p.is_relative_to(drawn) else p for p in written]


def _track_blocks(board: Board, given: dict[str, list | str | None], bar: float, keep: bool) -> list:
    """The page blocks of each track as ``given`` (files, :data:`PUBLISHED_TRACK` or ``None``: left out), kept in
    the board's :data:`TRACKS_FILE` when ``keep`` and both came from files."""
    compute = {"physics": lambda files: physics_track_blocks(files, bar), "noisy": noisy_track_blocks}
    from_files = {name: v is not None and not isinstance(v, str) for name, v in given.items()}
    published = read_tracks(board, bar) if any(isinstance(v, str) for v in given.values()) else {}
    blocks = {
        name: compute[name]([str(p) for p in files]) if from_files[name] else published[name]
        for name in TRACK_NAMES
        if (files := given[name]) is not None
    }
    if keep and all(from_files.values()):
        write_tracks(board, blocks, bar)
    return [block for name in TRACK_NAMES for block in blocks.get(name, [])]


def _render(
    board: Board,
    results: pd.DataFrame | None,
    pages: Path,
    tol: Tolerances,
    low: Tolerances,
    tracks: dict[str, list | str | None],
    local: str | os.PathLike | None,
    step,
    keep_tracks: bool,
    docs: Path | None,
) -> list[Path]:
    step("results")
    results = board_results(board, local) if results is None else results
    written = []
    step("budget curves")
    if results["progress_evaluations"].map(lambda v: v is not None and len(v) > 0).any():
        written.append(plot_budget_curves(results, pages / "budget_curves.png", tol=low))
    step("tracks")
    track = _track_blocks(board, tracks, low.fidelity, keep_tracks)
    step("estimates")
    pinned = pinned_table(board)
    extra = [
        *track,
        *estimate_blocks(_estimates(board), RESOURCE_EPSILON, by="group"),
        ADVANTAGE_LINK,
        ("h2", "The pinned set"),
        ("table", display_table(pinned)),
    ]
    submissions = _submissions_table(board, local)
    if not submissions.empty:
        extra = [
            ("h2", "Submissions"),
            (
                "p",
                "Published: accepted upstream after `qlsbench board verify` re-ran a sample of their "
                "systems. Self-submitted: added on this machine with `qlsbench board add`, not checked. "
                "Times were measured on the submitter's machine and scaled by its time factor (board LU "
                "time / LU time there; the range over repeats).",
            ),
            ("table", submissions),
            *extra,
        ]
    write_leaderboard(
        results,
        pages / "leaderboard.md",
        pages / "leaderboard.csv",
        tol,
        low,
        html_path=pages / "index.html",
        systems=pinned,
        title="qlsbench leaderboard v2",
        preamble=_preamble(board, results),
        by="dataset",
        extra=extra,
        names=dict(zip(pinned["system_id"], pinned["name"])),
        step=step,
    )
    if docs is not None:  # the method page's numbers are this summary, rewritten with the pages, never typed
        atomic_write_text(docs, with_summary(docs.read_text(encoding="utf-8"), board_summary(board, results, tol, low)))
        written.append(docs)
    return written + [pages / name for name in PAGES if name != "budget_curves.png"]


#: Where the board points past its pinned sizes: the estimates above are for these 2-10 qubit systems only.
ADVANTAGE_LINK = (
    "p",
    "These estimates are for the pinned systems of 2 to 10 qubits. How each family's systems grow with their "
    "simulation (kappa, sparsity, the cost of loading them), the best classical solver measured on them, a "
    "fault-tolerant solver estimated to physical qubits and seconds, and where, if anywhere, the two cross: "
    "docs/advantage.md (`qlsbench advantage`).",
)


#: The lines of ``docs/leaderboard.md`` between which :func:`board_summary` stands.
SUMMARY_BEGIN, SUMMARY_END = (
    "<!-- board summary: written by qlsbench board render, do not edit -->",
    "<!-- end of board summary -->",
)


#: Where ``board add`` draws a self-submission's pages when asked for the repository's own board pages.
LOCAL_PAGES = Path("results") / "leaderboard"


def self_submission_pages(pages: str | os.PathLike) -> Path:
    """The folder a self-submission's pages go to: ``pages``, unless that is the repository's published board
    (the folder beside ``docs/leaderboard.md`` and its summary), which a clone keeps as shipped: then
    :data:`LOCAL_PAGES` beside it. A self-submitted row on the published pages would also rewrite the method
    page's counts and leave the clone with changes a ``git pull`` trips over."""
    pages = Path(pages)
    return pages.resolve().parent / LOCAL_PAGES if _summarised_docs(pages) is not None else pages


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


def board_summary(
    board: Board, results: pd.DataFrame, tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY
) -> str:
    """The published board in a few lines of Markdown, every number from the manifest, the rows and the code's
    constants: the pinned set, the solves (repeats, time limits, qubit caps), what ``compare --quick`` and ``board
    verify`` run, each track's rates over all systems (controls apart) and what null-b does per track and group.
    """
    manifest = board.manifest()
    entries = pd.DataFrame(manifest["systems"])
    groups = ", ".join(f"`{g}` {n}" for g, n in entries.groupby("group", sort=False).size().items())
    rows = ranking_rows(results, tracks(tol, low), by="dataset")
    lines = [
        f"- **Pinned set v{manifest['version']}**: {len(entries)} rows, {entries['system_id'].nunique()} "
        f"distinct systems, in {len(manifest['groups'])} groups ({groups}).",
        f"- **Rows**: {len(results)} solves of {results['solver'].nunique()} solvers, "
        f"{int((results['solver_name'].map(_is_control)).sum())} of them by the controls "
        f"({', '.join(sorted(results.loc[results['solver_name'].map(_is_control), 'solver'].unique()))}).",
        *_conditions_lines(results),
        *_route_lines(manifest),
    ]
    for track in tracks(tol, low):
        view = rows[(rows["track"] == track.name) & (rows["group"] == "all") & (rows["band"] == "all")]
        ranked = view[view["kind"] != "control"]
        rates = "; ".join(
            f"{s} {r:.2f} [{lo:.2f}, {hi:.2f}]"
            for s, r, lo, hi in zip(
                ranked["solver"], ranked["success_rate"], ranked["success_rate_ci_low"], ranked["success_rate_ci_high"]
            )
        )
        lines.append(
            f"- **{track.name.capitalize()} track** (success over systems, 95 % Wilson interval): {rates}. "
            f"{control_sentence(view, track)}"
        )
        for group in sorted(set(rows["group"]) - {"all"}):
            part = rows[(rows["track"] == track.name) & (rows["group"] == group) & (rows["band"] == "all")]
            sentence = control_sentence(part, track, f" on `{group.removeprefix('pinned/')}`")
            lines += [f"  - {sentence}"] if sentence else []
    return "\n".join(_wrapped(line) for line in lines)


def _by_value(values: pd.Series, unit, others: bool = False) -> str:
    """``3 for a, b; 5 for c``: the solvers (``values``' index) grouped by their value. ``others``: the commonest
    value last, as ``for the others`` (``1200 s for a, b; 120 s for the others``)."""
    groups = values.groupby(values, sort=False).groups
    order = sorted(groups, key=lambda v: ((len(groups[v]) if others else 0), v))
    return "; ".join(
        f"{unit(v)} for "
        + ("the others" if others and len(order) > 1 and v == order[-1] else ", ".join(sorted(groups[v])))
        for v in order
    )


def _conditions_lines(results: pd.DataFrame) -> list[str]:
    """How the rows were run, from the rows: repeats per system, the time limit per solve and any qubit cap."""
    repeats = results.groupby("solver")["repeat"].nunique()
    limits = results.groupby("solver")["time_limit"].max()
    capped = results["message"].fillna("").str.extract(r"over max_qubits=(\d+)")[0].dropna()
    caps = capped.astype(int).groupby(results.loc[capped.index, "solver"]).max()
    lines = [
        f"- **Repeats** per system (repeat r uses seed r): {_by_value(repeats, str)}.",
        f"- **Time limit** per solve: {_by_value(limits, lambda v: f'{v:g} s', others=True)}.",
    ]
    if len(caps):
        lines.append(
            f"- **Qubit caps** (larger systems get a `skipped` row, counted unsolved): "
            f"{_by_value(caps, lambda v: f'{v} qubits')}."
        )
    return lines


def _route_lines(manifest: dict) -> list[str]:
    """What ``compare`` (and ``--quick``) and ``board verify`` run, from the code's constants and the manifest."""
    from qlsbench.bench.board.comparing import COMPARE_TIME_LIMIT, quick_systems
    from qlsbench.bench.board.submissions import VERIFY_FIDELITY, VERIFY_RESIDUAL_FACTOR, VERIFY_SAMPLE

    quick = quick_systems(manifest)
    return [
        f"- **`qlsbench compare`**: every pinned system at {COMPARE_TIME_LIMIT:g} s per solve unless "
        f"`--time-limit` says otherwise; `--quick` runs {len(quick)} of the {len(manifest['systems'])} rows, per "
        f"group and qubit band the one of fewest qubits ({', '.join(e['name'] for e in quick)}). "
        f"**`qlsbench board verify`** re-runs {VERIFY_SAMPLE} systems of a submission, spread from the smallest "
        f"to the largest, and fails on a re-run that differs from the submitted row in the tracks it succeeds "
        f"on, by more than {VERIFY_RESIDUAL_FACTOR:g}x in residual or by more than {VERIFY_FIDELITY:g} in "
        "fidelity."
    ]


def _wrapped(item: str, width: int = 116) -> str:
    """A Markdown list item wrapped within ``width`` columns, its continuation lines indented under its text."""
    import textwrap

    indent = " " * (len(item) - len(item.lstrip(" ")) + 2)
    return "\n".join(
        textwrap.wrap(item, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    )


def _is_control(name) -> bool:
    from qlsbench.solvers.registry import is_control

    return isinstance(name, str) and is_control(name)
