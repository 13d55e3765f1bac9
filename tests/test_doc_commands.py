"""Every command the docs show runs as written in a fresh clone, or the page says first what it needs (issue 62).

The check (``tests/doc_commands.py``) reads each page top to bottom; the README's and the card's blocks are also
run as written by ``tests/test_examples.py`` (a CI step of its own).
"""

from __future__ import annotations

from functools import cache

import pytest
from doc_commands import REPO, Clone, check_page, shipped_paths, workflow_outputs

PAGES = ["README.md", "datasets/README.md"] + sorted(
    str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md") if not p.name.startswith(".")
)


@pytest.fixture(scope="module")
def clone_parts():
    if not (REPO / ".git").exists():
        pytest.skip("not a git clone: what is shipped is what git tracks")
    return shipped_paths(), cache(workflow_outputs)


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_in_a_fresh_clone(page, clone_parts):
    shipped, outputs = clone_parts
    findings = check_page(page, (REPO / page).read_text(encoding="utf-8"), Clone(set(shipped), outputs))
    assert not findings, "\n".join(map(str, findings))


def _findings(text: str, shipped=("workflows/config/default.yaml",), outputs=frozenset()) -> list[str]:
    clone = Clone(set(shipped), lambda config: set(outputs))
    return [f.reason for f in check_page("page.md", text, clone)]


def test_a_command_whose_input_nothing_makes_is_found():
    """The issue's own example: the pinned folders exist only after `qlsbench pinned --out datasets/pinned`."""
    block = "```\nqlsbench lcu datasets/pinned/dem_c-mu0 --terms --out lcu.parquet\n```\n"
    assert _findings(block) == [
        "reads datasets/pinned/dem_c-mu0, which a fresh clone does not have and nothing above on the page writes"
    ]
    first = "```\nqlsbench pinned --out datasets/pinned\n```\n"
    assert _findings(first + block) == []  # written by a block above
    said = "After `qlsbench pinned --out datasets/pinned`:\n\n"
    assert _findings(said + block) == []  # said first in the prose
    assert _findings(block + first) != []  # said after is too late


def test_options_globs_programs_and_the_workflow_are_checked():
    assert "qlsbench refuses it" in _findings("```\nqlsbench lcu x --no-such-option\n```\n")[0]
    glob = "```\nqlsbench figure pauli-terms results/pauli/dem_c/*.parquet --out f.png\n```\n"
    assert "results/pauli/dem_c/*.parquet" in _findings(glob)[0]
    workflow = "```\nsnakemake --cores 2\n```\n"
    assert _findings(workflow + glob, outputs={"results/pauli/dem_c/a.parquet"}) == []
    assert _findings("```\nsnakemake --configfile workflows/config/none.yaml\n```\n") == [
        "its --configfile workflows/config/none.yaml is not shipped"
    ]
    assert _findings("```\nno-such-program --x\n```\n") == ["no-such-program is not installed by the README's commands"]
    assert _findings("```\npytest tests/test_none.py\n```\n") == [
        "names tests/test_none.py, which a fresh clone does not have"
    ]
    assert _findings("```\npython -m no_such_module.x\n```\n") == ["python -m no_such_module.x: no such module"]
    loop = "```\nfor g in a b; do qlsbench lcu p/$g --out $g.parquet & done; wait\n```\n"
    assert _findings(loop) == [
        "reads p/a, which a fresh clone does not have and nothing above on the page writes",
        "reads p/b, which a fresh clone does not have and nothing above on the page writes",
    ]
