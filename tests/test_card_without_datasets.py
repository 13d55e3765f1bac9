"""The dataset card's Quick start on the core install, run from the repository's root, where the card's folder
``datasets/`` has the name of Hugging Face's package.

Without that package, ``datasets`` imports as the card's folder (a namespace package: the current folder comes
first on the path). The interpreters here see this environment's packages minus Hugging Face's ``datasets`` (a
folder of links to every other entry of site-packages), started with ``-S -E -s`` so nothing else is added, in a
folder laid out as the repository's root: the card and its ``load_dataset.py``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CARD = REPO / "datasets" / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
#: Hugging Face's package and its metadata: what the core install lacks.
HUGGING_FACE = re.compile(r"^datasets($|-.*\.dist-info$)")


def quick_start() -> list[tuple[str, str]]:
    """The Quick start's blocks: ``(language, text)``."""
    text = CARD.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") :]
    section = section[: section.index("\n## ", 1)]
    return FENCE.findall(section)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A folder laid out as the repository's root (the card folder, with the pinned set written into it) and a
    site-packages without Hugging Face's ``datasets``."""
    folder = tmp_path_factory.mktemp("root")
    (folder / "datasets").mkdir()
    for name in ("README.md", "load_dataset.py"):
        shutil.copyfile(REPO / "datasets" / name, folder / "datasets" / name)
    subprocess.run(
        [sys.executable, "-m", "qlsbench", "pinned", "--out", "datasets/pinned"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    site = tmp_path_factory.mktemp("site-without-datasets")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not HUGGING_FACE.match(entry.name):
            (site / entry.name).symlink_to(entry)
    return folder, site


def run_core(root, code: str) -> subprocess.CompletedProcess:
    """``code`` from the root folder, on the packages of the core install: no site, no user site, no environment
    variables; the folder first on the path (as for any ``python`` started there), then the linked site-packages
    and the repository (qlsbench)."""
    folder, site = root
    path = f"import sys; sys.path[1:1] = [{str(site)!r}, {str(REPO)!r}]\n"
    return subprocess.run(
        [sys.executable, "-S", "-E", "-s", "-c", path + code], cwd=folder, capture_output=True, text=True, timeout=300
    )


def test_the_folder_shadows_hugging_faces_package_there(root):
    """The setting is the one a user meets: ``datasets`` imports, as the card's folder, not as a package."""
    done = run_core(root, "import datasets, pandas, qlsbench; print(datasets.__file__, list(datasets.__path__))")
    assert done.returncode == 0, done.stderr
    file, paths = done.stdout.split(" ", 1)
    assert file == "None" and str(root[0] / "datasets") in paths


def test_the_first_example_runs_on_the_core_install(root):
    lang, first = quick_start()[1]
    assert lang == "python" and "from datasets" not in first
    done = run_core(root, first)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(done.stdout.splitlines()) == 47  # one line per pinned system


def test_the_hugging_face_example_names_what_to_install(root):
    lang, hugging_face = quick_start()[2]
    assert lang == "python" and "from datasets import load_dataset" in hugging_face
    done = run_core(root, hugging_face)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: Hugging Face's datasets package is not installed"), done.stderr
    assert 'pip install "qlsbench[data]"' in last and "unknown location" not in done.stderr
