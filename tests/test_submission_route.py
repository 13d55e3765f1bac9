"""The submission route from a user's folder: the quick subset, verify under the submission's own conditions and
from the folder it was made in, the published tracks shipped with the package, and the method page's counts and
the docs' commands checked against the data and the solvers (the solvers' colours and markers:
``tests/test_styles.py``).

The route end to end, from an empty folder and the README's words only, is ``tests/test_examples.py``'s (an
``examples`` test: a minute of solves and pages).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from qlsbench.bench import SolverSpec
from qlsbench.bench.board import Board, compare, verify_submission
from qlsbench.bench.board.comparing import quick_systems
from qlsbench.bench.board.submissions import SUBMISSION_KEY, read_submission
from qlsbench.bench.ranking import qubit_band

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- compare --quick


def test_the_quick_subset_is_one_system_per_group_and_band_of_fewest_qubits():
    manifest = Board().manifest()
    quick = quick_systems(manifest)
    entries = pd.DataFrame(manifest["systems"]).assign(band=lambda d: d["n_qubits"].map(qubit_band))
    cells = entries.groupby(["group", "band"])
    assert len(quick) == cells.ngroups and quick == quick_systems(json.loads(json.dumps(manifest)))
    for entry in quick:
        cell = cells.get_group((entry["group"], qubit_band(entry["n_qubits"])))
        assert entry["n_qubits"] == cell["n_qubits"].min()
    order = [manifest["systems"].index(e) for e in quick]
    assert len(quick) < len(manifest["systems"]) and order == sorted(order)  # in the manifest's order
    smallest = min(manifest["systems"], key=lambda e: (e["n_qubits"], e["name"]))
    assert smallest in quick


def test_a_quick_look_ranks_on_its_subset_and_writes_no_submission(tmp_path):
    board = Board()
    result = compare(
        SolverSpec("cg", {"rtol": 1e-10}),
        board,
        work=tmp_path / "w",
        time_limit=None,
        calibrate_times=False,
        progress=False,
        quick=True,
    )
    subset = {e["system_id"] for e in quick_systems(board.manifest())}
    assert result.quick and result.submission is None and result.systems == len(subset)
    assert set(result.results["system_id"]) == subset
    assert not list((tmp_path / "w").rglob("submission.parquet"))
    # the published rows it is ranked against are those of the same systems
    assert (result.board.set_index("solver").loc["lu", "systems"]) == len(subset)


# ---------------------------------------------------------------- board verify


JACOBI = textwrap.dedent("""
    from dataclasses import dataclass

    import numpy as np

    from qlsbench.solvers import BaseSolver, SolveResult, Status


    @dataclass
    class Jacobi(BaseSolver):
        name = "route-jacobi"
        rtol: float = 1e-10

        def _solve(self, system, seed):
            A, b = system.A.tocsr(), system.b
            x = np.zeros_like(b)
            for _ in range(500):
                r = b - A @ x
                if not np.linalg.norm(r) <= 1e6 * np.linalg.norm(b):
                    return SolveResult(None, Status.ERROR, "diverged")
                if np.linalg.norm(r) <= self.rtol * np.linalg.norm(b):
                    return SolveResult(x, Status.CONVERGED)
                x = x + r / A.diagonal()
            return SolveResult(x, Status.MAX_ITER)
""")


def _with_meta(path: Path, out: Path, **changes) -> Path:
    """A copy of submission ``path`` with its metadata changed."""
    table = pq.read_table(path)
    meta = {**json.loads(table.schema.metadata[SUBMISSION_KEY]), **changes}
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, SUBMISSION_KEY: json.dumps(meta)}), out)
    return out


def test_verify_runs_from_the_submissions_folder_under_its_qubit_cap(tmp_path, monkeypatch):
    """A module laid out as contrib/README.md asks (contrib/<name>/<module>.py), compared from its folder under a
    qubit cap: `board verify`, the console script run from that folder, imports it as `compare` did and re-runs
    the systems over the cap as skipped (recorded in the submission), not attempted. Without the cap recorded,
    the same rows disagree on those systems: the cap is what verify re-applies."""
    folder = tmp_path / "user"
    (folder / "contrib" / "route_jacobi").mkdir(parents=True)
    (folder / "contrib" / "route_jacobi" / "solver.py").write_text(JACOBI, encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))  # as `compare` imports a module:Class from its folder
    result = compare(
        SolverSpec("contrib.route_jacobi.solver:Jacobi"),
        Board(),
        work=folder / "results",
        time_limit=None,
        max_qubits=4,
        calibrate_times=False,
        progress=False,
    )
    rows, meta = read_submission(result.submission)
    assert (meta["time_limit"], meta["max_qubits"]) == (None, 4)
    over = rows["n_qubits"] > 4
    assert over.any() and (rows.loc[over, "status"] == "skipped").all()
    assert (rows.loc[~over, "status"] != "skipped").all()
    script = Path(sys.executable).parent / "qlsbench"  # the console script: unlike `python -m`, no folder on the path
    done = subprocess.run(
        [str(script), "board", "verify", str(result.submission), "--quiet"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("agree with the submission") and " skipped " in done.stdout
    uncapped = _with_meta(result.submission, tmp_path / "uncapped.parquet", max_qubits=None)
    again = verify_submission(Board(), uncapped, work=tmp_path / "v", progress=False)
    beyond = again["dim"] > 2**4
    assert beyond.any() and (again.loc[beyond, "re-run status"] != "skipped").all()  # attempted this time
    # attempted where the submission declined: no agreement, whether the attempt returned a solution or not
    assert not again.loc[beyond, "agrees"].any() and again.loc[~beyond, "agrees"].all()


@pytest.mark.parametrize("defect", ["another version", "a system missing", "another pinned set"])
def test_verify_and_add_refuse_a_submission_that_is_not_this_boards_alike(defect, tmp_path):
    """A shipped submission made against another pinned version, with a pinned system's rows gone (its id
    replaced), or on another pinned set: ``board verify`` refuses it in one line naming the file, as ``board add``
    does, before anything is re-run; the untouched file verifies' check passes."""
    from qlsbench.bench.board.submissions import add_submission, fits_board
    from qlsbench.errors import InputError

    board = Board()
    shipped = sorted((REPO / "qlsbench" / "pinned" / "submissions").glob("*.parquet"))[0]
    rows, meta = read_submission(shipped)
    assert fits_board(board, shipped, rows, meta)["version"] == meta["pinned_version"]
    bad = tmp_path / "bad.parquet"
    if defect == "another version":
        _with_meta(shipped, bad, pinned_version=meta["pinned_version"] - 2, label="old-version")
        words = "made against pinned version"
    elif defect == "another pinned set":
        _with_meta(shipped, bad, pinned_groups={"ising": "0"}, label="other-set")
        words = "another pinned set"
    else:
        table = pq.read_table(shipped)
        frame = table.to_pandas()
        gone = frame["system_id"].iloc[0]
        frame.loc[frame["system_id"] == gone, "system_id"] = "replaced-id"
        out = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(table.schema.metadata)
        pq.write_table(out, bad)
        _with_meta(bad, bad, label="incomplete")
        words = "no rows for 1 pinned system"
    for act in (
        lambda: verify_submission(board, bad, work=tmp_path / "v", progress=False),
        lambda: add_submission(board, bad, tmp_path / "subs"),
    ):
        with pytest.raises(InputError, match=words) as caught:
            act()
        assert str(bad) in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "v").exists() and not (tmp_path / "subs").exists()  # nothing re-run, nothing kept


def test_board_add_keeps_the_submission_only_once_its_pages_are_written(tmp_path, monkeypatch):
    """``board add`` renders from a view of the submissions folder with the new file in it, and the file enters the
    folder only after the pages: stopped inside the render (an interrupt here; a ``kill -9`` leaves the same folder,
    whose view the next add sweeps), the folder is as it was and the same add runs again. Folders a killed add or
    render left (their process gone) are removed; a live process's are not."""
    import os

    import qlsbench.report as report
    from qlsbench.cli import main

    shipped = sorted((REPO / "qlsbench" / "pinned" / "submissions").glob("*.parquet"))[0]
    submission = _with_meta(shipped, tmp_path / "mine.parquet", label="mine")
    subs, pages = tmp_path / "subs", tmp_path / "pages"
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(ended.stdout)  # a process that has ended: what a kill -9 leaves behind it
    subs.mkdir()
    for left in (subs / f".adding.{dead}-x1", subs / f".adding.{os.getpid()}-x3"):
        left.mkdir()
    seen = {}

    def render(board, pages, local, **kwargs):
        seen["view"] = sorted(p.name for p in Path(local).glob("*.parquet"))
        seen["kept"] = sorted(p.name for p in subs.glob("*.parquet"))
        if "interrupt" not in seen:
            seen["interrupt"] = True
            raise KeyboardInterrupt
        return []

    monkeypatch.setattr(report, "render_board", render)
    argv = ["board", "add", str(submission), "--pages", str(pages), "--submissions", str(subs), "--quiet"]
    assert main(argv) == 130
    assert seen["view"] == ["mine.parquet"] and seen["kept"] == []
    assert sorted(p.name for p in subs.iterdir()) == [f".adding.{os.getpid()}-x3"]  # the live one stays
    assert main(argv) == 0  # the same add again
    assert sorted(p.name for p in subs.glob("*.parquet")) == ["mine.parquet"] and seen["kept"] == []
    assert main(argv) == 2  # now it is on the board


def test_a_folder_left_by_a_killed_process_is_swept_and_a_live_ones_is_not(tmp_path):
    """What a page's staging (``.<pages>.<pid>-*``) and ``board add``'s view (``.adding.<pid>-*``) leave after a
    ``kill -9``: removed by the next run when their process has ended; a live process's, or a folder of another
    shape, stays."""
    import os

    from qlsbench.outputs import sweep_abandoned

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(ended.stdout)
    for name in (f".pages.{dead}-abc", f".pages.{os.getpid()}-def", ".pages.hand-made", f".pages.{dead}"):
        (tmp_path / name).mkdir()
    assert sweep_abandoned(tmp_path, ".pages.") == [tmp_path / f".pages.{dead}-abc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".pages.{os.getpid()}-def", ".pages.hand-made", f".pages.{dead}"]
    )


# ---------------------------------------------------------------- the published tracks


def test_the_shipped_tracks_are_what_the_tracks_files_give(tmp_path, monkeypatch):
    """qlsbench/pinned/tracks.json, which `board add` shows outside the repository, is what docs/in-loop and
    docs/noisy give now, read as `qlsbench board render` reads them from the repository's root (it rewrites the
    file)."""
    from qlsbench.bench.ranking import LOW_ACCURACY
    from qlsbench.report import TRACKS_FILE, noisy_track_blocks, read_tracks, write_tracks
    from qlsbench.report.in_loop_page import physics_track_blocks

    monkeypatch.chdir(REPO)
    files = {name: sorted(str(p) for p in Path("docs", name).glob("*.parquet")) for name in ("in-loop", "noisy")}
    blocks = {
        "physics": physics_track_blocks(files["in-loop"], LOW_ACCURACY.fidelity),
        "noisy": noisy_track_blocks(files["noisy"]),
    }
    write_tracks(Board(tmp_path), blocks, LOW_ACCURACY.fidelity)
    shipped = Board().folder / TRACKS_FILE
    assert (tmp_path / TRACKS_FILE).read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8"), (
        "run `qlsbench board render`"
    )
    read = read_tracks(Board(), LOW_ACCURACY.fidelity)
    assert [kind for kind, _ in read["noisy"]] == [kind for kind, _ in blocks["noisy"]]
    with pytest.raises(Exception, match="fidelity bar 0.99, not 0.9"):
        read_tracks(Board(), 0.9)


# ---------------------------------------------------------------- the docs


#: Numbers before a counted thing in docs/leaderboard.md that count nothing of the board's: a rule's example.
NOT_COUNTS = ("2 of 3 seeds",)
COUNT = re.compile(
    r"\b(\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty)"
    r"\s+(?:[a-z-]+\s+)?(solves|systems|repeats|seeds|solvers|rows|groups|configurations)\b",
    re.IGNORECASE,
)


def test_the_method_page_types_no_count_outside_its_generated_summary():
    """Counts of the board live in the summary `qlsbench board render` writes (checked against the data by
    tests/test_board_controls.py); a count typed elsewhere on the page goes stale, as 2408 solves did."""
    from qlsbench.report import SUMMARY_BEGIN, SUMMARY_END

    text = (REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    head, rest = text.split(SUMMARY_BEGIN, 1)
    outside = " ".join((head + rest.split(SUMMARY_END, 1)[1]).split())
    for phrase in NOT_COUNTS:
        outside = outside.replace(phrase, "")
    assert [m.group(0) for m in COUNT.finditer(outside)] == []


def _doc_commands() -> list[tuple[str, list[str]]]:
    """``(page, words)`` of every `qlsbench` command in a code block of README.md and docs/ that gives a --solver
    an --option, as the shell splits it (continued lines and quotes spanning lines joined, comments dropped)."""
    import shlex

    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found = []
    for page in pages:
        for block in re.findall(r"^```\w*\n(.*?)^```", page.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE):
            pending = ""
            for line in block.replace("\\\n", " ").splitlines():
                pending += line + "\n"
                try:
                    words = shlex.split(pending, comments=True)
                except ValueError:  # a quote still open: the command goes on on the next line
                    continue
                pending = ""
                if words[:1] == ["qlsbench"] and "--solver" in words and "--option" in words:
                    found.append((str(page.relative_to(REPO)), words))
    return found


def test_the_docs_commands_give_options_their_solver_accepts(tmp_path, monkeypatch):
    """Each documented `--solver X --option k=v` passes X's option check (as `qlsbench` runs it before solving);
    `mymodule:MySolver` is the module the README has the user save, and docs/solvers.md's example (both are
    checked)."""
    from qlsbench.cli.options import parse_option
    from qlsbench.solvers.registry import check_solver

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    route = readme.split("<!-- submission-route -->", 1)[1]
    modules = [re.search(r"```python\n(.*?)```", route, re.DOTALL).group(1)]
    solvers_md = (REPO / "docs" / "solvers.md").read_text(encoding="utf-8")
    modules.append(re.search(r"## Adding your own solver.*?```python\n(.*?)```", solvers_md, re.DOTALL).group(1))
    monkeypatch.syspath_prepend(str(tmp_path))
    for i, module in enumerate(modules):
        (tmp_path / f"docmodule{i}.py").write_text(module, encoding="utf-8")
    commands = _doc_commands()
    assert sum("mymodule:MySolver" in words for _, words in commands) >= 3 and len(commands) > 20
    for page, words in commands:
        solver = words[words.index("--solver") + 1]
        options = dict(parse_option(words[i + 1]) for i, w in enumerate(words) if w == "--option")
        names = [f"docmodule{i}:MySolver" for i in range(len(modules))] if solver == "mymodule:MySolver" else [solver]
        for name in names:
            check_solver(name, options, where=f"{page}: {' '.join(words)}")
