"""Every code block of README.md and of the dataset card runs as written, in a fresh folder, as a new user runs it.

Each page's blocks run in order in one empty folder (what a block writes, the next reads), with only what the
page tells the user to have: the dataset card in ``datasets/``. Python blocks run in a child interpreter of this
environment, shell blocks line by line through ``bash`` with this environment's ``qlsbench`` first on the path.
``xdg-open FILE`` (no display here) is checked as "FILE exists". The two set-up commands between the README's
``workflow-command`` and ``test-command`` markers are not run here: CI runs the test command verbatim and the
workflow end to end in steps of their own. The README's submission route (between its ``submission-route``
markers: the solver module a new user saves, then ``compare --quick``, ``compare``, ``board add`` and ``board
verify``) runs in a test of its own, which also checks what those commands wrote. Marked ``examples``: CI runs
this file as a step of its own (the route's comparisons and board pages take about half a minute).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.examples

REPO = Path(__file__).resolve().parents[1]
#: Fenced blocks: their language and text.
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
#: Languages that are not commands (a citation, a packaging snippet).
NOT_RUN = {"bibtex", "toml", "yaml", "text"}
#: Where the README's own set-up commands sit (CI runs them, not this test) and its submission route (a test of
#: its own runs it).
SETUP = re.compile(r"<!-- (workflow-command|test-command|submission-route) -->.*?<!-- /\1 -->", re.DOTALL)
#: The README's submission route: a solver module to save, then the commands run from its folder.
ROUTE = re.compile(r"<!-- submission-route -->(.*?)<!-- /submission-route -->", re.DOTALL)


def code_blocks(page: str) -> list[tuple[str, str]]:
    """``(language, text)`` of every block a user would run on ``page``, in order."""
    text = SETUP.sub("", (REPO / page).read_text(encoding="utf-8"))
    return [(lang or "bash", body) for lang, body in FENCE.findall(text) if lang not in NOT_RUN]


def route_blocks() -> tuple[str, str, str]:
    """The README's submission route: the file name it tells the user to save the module as (the sentence just
    before the route), the module and the commands."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    before, route = readme.split("<!-- submission-route -->", 1)[0], ROUTE.search(readme).group(1)
    name = re.findall(r"saved as `(\w+\.py)`", before)[-1]
    (lang, module), (_, commands) = FENCE.findall(route)
    assert lang == "python", "the route's first block is the solver module"
    return name, module, commands


def solver_module() -> str:
    """The solver class ``docs/solvers.md`` shows under *Adding your own solver*."""
    text = (REPO / "docs" / "solvers.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding your own solver") :]
    return FENCE.search(section).group(2)


def _environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # Hugging Face offline, with a cache of the test's own (nothing shared with another run).
    env.update(HF_HOME=str(folder / ".hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    return env


def _run(command: list[str], folder: Path, what: str) -> str:
    """Run ``command`` in ``folder``; its standard output, or a failure with its output."""
    done = subprocess.run(command, cwd=folder, env=_environment(folder), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def run_block(lang: str, body: str, folder: Path, where: str) -> dict[str, str]:
    """Run one block as the user would, failing with its output; each shell command's standard output."""
    if lang == "python":
        return {"python": _run([sys.executable, "-c", body], folder, f"{where} (python)")}
    outputs = {}
    for line in body.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if not command or command.startswith("#"):
            continue
        if command.startswith("xdg-open "):
            target = folder / command.split(maxsplit=1)[1]
            assert target.is_file(), f"{where}: `{command}` opens {target}, which the lines above did not write"
            continue
        outputs[command] = _run(["bash", "-c", command], folder, f"{where}: `{command}`")
    return outputs


@pytest.mark.parametrize("page", ["README.md", "datasets/README.md"])
def test_every_code_block_runs_as_written(page, tmp_path):
    blocks = code_blocks(page)
    assert blocks, f"{page} has no code block"
    (tmp_path / "datasets").mkdir()
    shutil.copyfile(REPO / "datasets" / "README.md", tmp_path / "datasets" / "README.md")
    for i, (lang, body) in enumerate(blocks, 1):
        run_block(lang, body, tmp_path, f"{page}, block {i}")


def _page_parts(folder: Path) -> tuple[str, dict[str, tuple[str, str]]]:
    """A board page's tracks (its Markdown from the physics track's heading to the estimates') and each solver's
    (colour, marker) on its web page."""
    md = (folder / "leaderboard.md").read_text(encoding="utf-8")
    tracks = md[md.index("## Physics track") : md.index("## What a fault-tolerant solver would cost")]
    html = (folder / "index.html").read_text(encoding="utf-8")
    data = json.loads(
        re.search(r'<script type="application/json" id="plot-data">(.*?)</script>', html, re.DOTALL).group(1)
    )
    return tracks, {s: (style["color"], style["marker"]) for s, style in zip(data["solvers"], data["styles"])}


def test_the_submission_route_runs_from_an_empty_folder(tmp_path):
    """The README's words only, from an empty folder outside the repository: save the module, a quick look, the
    full comparison, `board add`, `board verify`; all succeed, and the pages keep the published tracks and every
    published solver's colour and marker (as the committed board page has them)."""
    name, module, commands = route_blocks()
    (tmp_path / name).write_text(module, encoding="utf-8")
    outputs = run_block("bash", commands, tmp_path, "README.md, submission route")
    quick = next(out for command, out in outputs.items() if "--quick" in command)
    assert quick.startswith("quick look: ") and "not a submission" in quick.splitlines()[-1]
    assert not list((tmp_path / "results" / "compare").rglob("quick/submission.parquet"))
    verify = next(out for command, out in outputs.items() if "board verify" in command)
    assert verify.rstrip().endswith("agree with the submission")
    mine_tracks, mine_styles = _page_parts(tmp_path / "leaderboard")
    published_tracks, published_styles = _page_parts(REPO / "leaderboard")
    assert "## Noisy track" in mine_tracks and mine_tracks == published_tracks
    assert {s: mine_styles[s] for s in published_styles} == published_styles
    assert len(mine_styles) == len(published_styles) + 1  # the new row, self-submitted


def test_the_blocks_are_found_and_the_set_up_commands_left_to_ci():
    readme = code_blocks("README.md")
    assert any("pinned()" in body for _, body in readme) and not any("qlsbench compare" in body for _, body in readme)
    assert not any("pip install" in body for _, body in readme)
    name, module, commands = route_blocks()
    assert name == "mymodule.py" and "class MySolver" in module
    assert [line.split()[:3] for line in commands.splitlines() if line.startswith("qlsbench")] == [
        ["qlsbench", "compare", "--quick"],
        ["qlsbench", "compare", "--solver"],
        ["qlsbench", "board", "add"],
        ["qlsbench", "board", "verify"],
    ]
    card = code_blocks("datasets/README.md")
    assert any('load_dataset("datasets", "pinned"' in body for _, body in card)
    assert "class MySolver" in solver_module()
