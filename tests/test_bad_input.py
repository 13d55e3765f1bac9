"""Bad input across the command line, workflow configs, datasets and plug-ins: one line naming the culprit.

The cases are tables, one module per area in ``tests/bad_input/`` (see its ``__init__`` for the format).
Every case runs the real ``qlsbench`` entry point in this process and checks the exit code, a single line on
stderr without a traceback that names the culprit, and that nothing below the test's folder was added,
removed or changed: not the inputs, not an output, not a hidden temporary file.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import shutil
from pathlib import Path

import pytest
from bad_input import REPO, Case

from qlsbench.cli import main

AREAS = ["basic", "cli", "data", "runner"]


def _tables() -> tuple[dict[str, Case], dict]:
    """Every area's cases (tuples read as ``Case(argv, culprit)``) and makers, names made unique per area."""
    cases, makers = {}, {}
    for area in AREAS:
        try:
            module = importlib.import_module(f"bad_input.{area}")
        except ModuleNotFoundError as exc:
            if exc.name != f"bad_input.{area}":
                raise
            continue
        for name, case in module.CASES.items():
            cases[f"{area}: {name}"] = case if isinstance(case, Case) else Case(*case)
        for key, maker in getattr(module, "MAKERS", {}).items():
            assert key not in makers, f"placeholder {key!r} is made twice"
            makers[key] = maker
    return cases, makers


CASES, MAKERS = _tables()


def _tree(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (hidden ones too) with a hash of its bytes; folders by their name."""
    state = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        state[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "folder"
    return state


@pytest.fixture(scope="module")
def workflow_folder(tmp_path_factory) -> Path:
    """The clone's workflow files alone: what ``datasets/`` or ``results/`` a run left there is not read."""
    folder = tmp_path_factory.mktemp("workflow")
    shutil.copy(REPO / "Snakefile", folder)
    shutil.copytree(REPO / "workflows", folder / "workflows")
    return folder


def test_there_are_at_least_seventy_cases():
    assert len(CASES) >= 70, len(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gives_one_line_naming_the_culprit(
    name, ising_dataset, tmp_path, capsys, monkeypatch, workflow_folder
):
    case = CASES[name]
    fields = {"tmp": tmp_path, "data": ising_dataset}
    for key in sorted({k for a in case.argv for k in re.findall(r"{(\w+)}", a)} - set(fields)):
        fields[key] = MAKERS[key](tmp_path, ising_dataset)
    argv = [a.format(**fields) for a in case.argv]
    monkeypatch.chdir(workflow_folder if case.cwd == "workflow" else tmp_path)
    before, workflow_before = _tree(tmp_path), _tree(workflow_folder)
    try:
        code = main(argv)
    except SystemExit as exc:  # usage errors leave through argparse
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == case.code, err
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("qlsbench") and case.culprit in err, err
    assert _tree(tmp_path) == before, "files below the test folder were added, removed or changed"
    assert _tree(workflow_folder) == workflow_before, "files below the workflow folder were added, removed or changed"


def test_a_failed_page_command_leaves_no_folder_and_old_figures_as_they_were(tmp_path, capsys):
    """A page whose input is found bad after its figures began leaves nothing half-written (issue 52)."""
    from qlsbench.cli import main
    from qlsbench.report._staging import staged

    pages = tmp_path / "pages"
    assert main(["figure", "in-loop", str(tmp_path / "none.parquet"), "--out", str(pages / "in-loop.md")]) == 2
    assert "none.parquet: no such file" in capsys.readouterr().err and not pages.exists()
    figures = tmp_path / "kept" / "figures"
    figures.mkdir(parents=True)
    (figures / "old.png").write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with staged(figures) as drawn:
            (drawn / "old.png").write_bytes(b"half")
            raise RuntimeError("the second figure failed")
    assert [p.name for p in figures.parent.iterdir()] == ["figures"] and (figures / "old.png").read_bytes() == b"old"
    with staged(figures) as drawn:
        (drawn / "old.png").write_bytes(b"new")
    assert (figures / "old.png").read_bytes() == b"new" and [p.name for p in figures.parent.iterdir()] == ["figures"]


def test_a_board_render_failing_midway_leaves_no_pages(tmp_path, monkeypatch):
    """The board's pages are drawn in a staging folder: the budget curves drawn, then the page fails: nothing."""
    from qlsbench.bench.board.folder import SHIPPED
    from qlsbench.report import _board_pages as board_pages

    def fail(*args, **kwargs):
        raise RuntimeError("the page failed after the plots")

    monkeypatch.setattr(board_pages, "write_leaderboard", fail)
    with pytest.raises(RuntimeError, match="after the plots"):
        board_pages.render_board(SHIPPED, pages=tmp_path / "pages", in_loop=None, noisy=None)
    assert list(tmp_path.iterdir()) == []
