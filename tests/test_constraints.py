"""constraints.txt (tools/constraints.py writes it) against what else names versions: pyproject.toml's requirements,
the jobs' conda environment (workflows/envs/qlsbench.yaml) and the README's install commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
CONDA = REPO / "workflows" / "envs" / "qlsbench.yaml"
#: The extras tools/constraints.py resolves (`dev` brings `test`, which brings `all`).
RESOLVED = ("all", "test", "dev")
#: conda-forge's names where they differ from PyPI's, for dependencies written outside the pip section (``python``
#: itself is compared with the interpreter constraints.txt was resolved with).
CONDA_TO_PYPI = {
    "pytables": "tables",
    "matplotlib-base": "matplotlib",
    "pytorch": "torch",
    "msgpack-python": "msgpack",
    "python-dateutil": "python-dateutil",
}


def constraints() -> dict[str, Version]:
    """constraints.txt: normalised name -> the pinned version."""
    pins = {}
    for number, line in enumerate((REPO / "constraints.txt").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"constraints.txt line {number}: {line!r} is not name==version"
            pins[canonicalize_name(requirement.name)] = Version(spec.version)
    return pins


def _python() -> Version:
    """The interpreter constraints.txt was resolved with (its header says)."""
    header = "".join(line for line in (REPO / "constraints.txt").read_text().splitlines() if line.startswith("#"))
    return Version(re.search(r"Python (\d+\.\d+\.\d+)", header).group(1))


def requirements() -> list[tuple[str, Requirement]]:
    """pyproject.toml's requirements that constraints.txt covers: the core and the extras it resolves, with the
    extras those name (``qlsbench[...]``); each with where it is written."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    found = [("dependencies", Requirement(r)) for r in project["dependencies"]]
    todo, seen = list(RESOLVED), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for line in project["optional-dependencies"][extra]:
            requirement = Requirement(line)
            if canonicalize_name(requirement.name) == "qlsbench":
                todo += sorted(requirement.extras)
            else:
                found.append((f"optional-dependencies.{extra}", requirement))
    return found


def conda_pins() -> list[tuple[str, str, str]]:
    """workflows/envs/qlsbench.yaml's pinned packages: ``(PyPI name, operator, version)``; conda's ``name=1.2`` is a
    prefix (1.2.*), ``name==1.2.3`` and pip's ``name==1.2.3`` are exact."""
    pins = []
    for entry in yaml.safe_load(CONDA.read_text())["dependencies"]:
        if isinstance(entry, dict):
            for line in entry["pip"]:
                requirement = Requirement(line)
                for spec in requirement.specifier:
                    pins.append((requirement.name, spec.operator, spec.version))
            continue
        match = re.fullmatch(r"([\w.-]+)\s*(==|=|>=|<=)?\s*([\w.*]+)?", entry)
        assert match, f"{CONDA.name}: cannot read the conda dependency {entry!r}"
        name, operator, version = match.groups()
        if version:
            pins.append((CONDA_TO_PYPI.get(name, name), operator, version))
    return pins


def test_constraints_satisfy_pyproject():
    """A requirement raised in pyproject.toml, or one added, needs constraints.txt written again."""
    pins = constraints()
    for where, requirement in requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, (
            f"pyproject.toml {where}: {requirement.name} is not in constraints.txt "
            "(python tools/constraints.py writes it again)"
        )
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"pyproject.toml {where}: {requirement} but constraints.txt pins {requirement.name}=={pins[name]}"
        )


def test_the_conda_environment_pins_the_constraints_versions():
    pins, python = constraints(), _python()
    checked = 0
    for name, operator, version in conda_pins():
        if name == "python":
            assert python.release[: len(Version(version).release)] == Version(version).release, (
                f"{CONDA.name}: python={version}, but constraints.txt was resolved with Python {python}"
            )
            continue
        key = canonicalize_name(name)
        assert key in pins, f"{CONDA.name}: {name} is pinned there but not in constraints.txt"
        pinned = pins[key]
        if operator == "=":  # conda's prefix match
            agrees = pinned.release[: len(Version(version).release)] == Version(version).release
        else:
            agrees = Requirement(f"{name}{operator}{version}").specifier.contains(pinned, prereleases=True)
        assert agrees, f"{CONDA.name}: {name}{operator}{version}, but constraints.txt pins {name}=={pinned}"
        checked += 1
    assert checked >= 15  # the file was read: its pip section pins every dependency


@pytest.mark.parametrize("marker", ["test-command", "workflow-command"])
def test_the_readme_installs_with_the_constraints(marker):
    readme = (REPO / "README.md").read_text()
    command = re.search(rf"<!-- {marker} -->(.*?)<!-- /{marker} -->", readme, re.DOTALL).group(1)
    installs = re.findall(r"pip install [^&]*", command)
    assert installs and all("-c constraints.txt" in i for i in installs), f"README.md {marker}: {command.strip()}"
