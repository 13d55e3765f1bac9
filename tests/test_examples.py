"""Every code block of README.md and of the dataset card runs as written, in a fresh folder, as a new user runs it.

Each page's blocks run in order in one empty folder (what a block writes, the next reads), with only what the
page tells the user to have: the dataset card in ``datasets/``, and for the README the solver module of
``docs/solvers.md`` as ``mymodule.py`` ("from the folder that holds mymodule.py"). Python blocks run in a child
interpreter of this environment, shell blocks line by line through ``bash`` with this environment's ``qlsbench``
first on the path. ``xdg-open FILE`` (no display here) is checked as "FILE exists". The two set-up commands
between the README's ``workflow-command`` and ``test-command`` markers are not run here: CI runs the test command
verbatim and the workflow end to end in steps of their own. Marked ``examples``: CI runs this file as a step of
its own (a comparison and a board page take a minute).
"""

from __future__ import annotations

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
#: Where the README's own set-up commands sit; CI runs them, not this test.
SETUP = re.compile(r"<!-- (workflow|test)-command -->.*?<!-- /\1-command -->", re.DOTALL)


def code_blocks(page: str) -> list[tuple[str, str]]:
    """``(language, text)`` of every block a user would run on ``page``, in order."""
    text = SETUP.sub("", (REPO / page).read_text(encoding="utf-8"))
    return [(lang or "bash", body) for lang, body in FENCE.findall(text) if lang not in NOT_RUN]


def solver_module() -> str:
    """The solver class ``docs/solvers.md`` shows under *Adding your own solver*."""
    text = (REPO / "docs" / "solvers.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding your own solver"):]
    return FENCE.search(section).group(2)


def _environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # Hugging Face offline, with a cache of the test's own (nothing shared with another run).
    env.update(HF_HOME=str(folder / ".hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    return env


def _run(command: list[str], folder: Path, what: str) -> None:
    done = subprocess.run(command, cwd=folder, env=_environment(folder), capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def run_block(lang: str, body: str, folder: Path, where: str) -> None:
    """Run one block as the user would, failing with its output."""
    if lang == "python":
        _run([sys.executable, "-c", body], folder, f"{where} (python)")
        return
    for line in body.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if not command or command.startswith("#"):
            continue
        if command.startswith("xdg-open "):
            target = folder / command.split(maxsplit=1)[1]
            assert target.is_file(), f"{where}: `{command}` opens {target}, which the lines above did not write"
            continue
        _run(["bash", "-c", command], folder, f"{where}: `{command}`")


@pytest.mark.parametrize("page", ["README.md", "datasets/README.md"])
def test_every_code_block_runs_as_written(page, tmp_path):
    blocks = code_blocks(page)
    assert blocks, f"{page} has no code block"
    (tmp_path / "datasets").mkdir()
    shutil.copyfile(REPO / "datasets" / "README.md", tmp_path / "datasets" / "README.md")
    (tmp_path / "mymodule.py").write_text(solver_module(), encoding="utf-8")
    for i, (lang, body) in enumerate(blocks, 1):
        run_block(lang, body, tmp_path, f"{page}, block {i}")


def test_the_blocks_are_found_and_the_set_up_commands_left_to_ci():
    readme = code_blocks("README.md")
    assert any("pinned()" in body for _, body in readme) and any("qlsbench compare" in body for _, body in readme)
    assert not any("pip install" in body for _, body in readme)
    card = code_blocks("datasets/README.md")
    assert any("load_dataset(\"datasets\", \"pinned\"" in body for _, body in card)
    assert "class MySolver" in solver_module()
