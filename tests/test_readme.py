"""The README's first screen, as a new user meets it: its order, its snippet, its table and the files it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_check import assert_tables_render_whole, tables

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


#: The README's first screen: what a new user reads before scrolling far. It holds the submission route whole (the
#: solver module to save and the five commands), which is most of its length.
FIRST_SCREEN = 110


def test_the_first_screen_answers_in_order():
    head = README.splitlines()[:FIRST_SCREEN]
    headings = [line for line in head if line.startswith("## ")]
    expected = ["## Load", "## Compare", "## Reproduce", "## Solvers", "## Citation", "## Limitations"]
    assert [h for h in headings if any(h.startswith(e) for e in expected)] == headings[: len(expected)]
    assert [next(e for e in expected if h.startswith(e)) for h in headings[: len(expected)]] == expected
    screen = "\n".join(head)
    for needed in (
        "pinned()",
        "qlsbench compare",
        "paper.yaml",
        "<!-- workflow-command -->",
        "<!-- test-command -->",
        "arXiv:2504.08141",
        "![",
        "min",
        "jobs",
    ):
        assert needed in screen, needed
    assert "WORKFLOW_TIME" not in README  # the measured time is filled in


def test_the_load_snippet_runs_as_written():
    block = re.search(r"## Load.*?```python\n(.*?)```", README, re.DOTALL).group(1)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)  # noqa: S102 - the README's own snippet, run as a user would
    assert len(scope["df"]) == 47
    system = scope["system"]
    assert system.A.shape == (system.dim, system.dim) and system.x_ref.shape == (system.dim,)


def test_the_table_names_every_solver_and_family():
    from qlsbench.families import FAMILIES
    from qlsbench.solvers.registry import BUILTINS

    table = next(t for t in tables(README) if "solvers" in t["header"][0])
    text = " ".join(cell for row in table["rows"] for cell in row)
    for name in BUILTINS:
        assert f"`{name}`" in text, name
    for name in FAMILIES:
        assert f"`{name}`" in text, name
    assert_tables_render_whole(README)


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md"))]
)
def test_every_repository_path_a_page_names_exists(page):
    """Paths in backticks that belong to the repository (not ones a run writes) must be there."""
    text = (REPO / page).read_text()
    named = set(
        re.findall(
            r"`((?:docs|workflows|leaderboard|benchmarks|qlsbench/pinned)/[\w./-]+|LICENSE|"
            r"datasets/README\.md)`",
            text,
        )
    )
    named |= set(re.findall(r"\]\(((?:docs|datasets|leaderboard)/[\w./-]+)\)", text))
    missing = [p for p in sorted(named) if not (REPO / p.rstrip("/")).exists() and "*" not in p]
    assert not missing, f"{page} names {missing}"
    for line in text.splitlines():
        assert "WORKFLOW_TIME" not in line
    assert_tables_render_whole(text)


def test_the_citations_are_citation_cffs():
    """README.md and the dataset card cite the software as CITATION.cff does, at the package's version."""
    import yaml

    import qlsbench

    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    authors = ", ".join(a.get("name") or f"{a['given-names']} {a['family-names']}" for a in cff["authors"])
    assert cff["version"] == qlsbench.__version__ and cff["repository-code"] and cff["cff-version"] == "1.2.0"
    year = str(cff["date-released"])[:4]
    sentence = " ".join(README.split())
    assert f"{authors}, {cff['title']}, version {cff['version']} ({year}), {cff['url']}" in sentence
    card = (REPO / "datasets" / "README.md").read_text()
    bibtex = re.search(r"@software\{qlsbench,(.*?)\n\}", card, re.DOTALL).group(1)
    fields = dict(re.findall(r"(\w+)\s*=\s*\{(.*)\},?", bibtex))
    assert fields["title"] == cff["title"] and fields["author"] == "{" + authors + "}"
    assert (fields["version"], fields["url"], fields["year"]) == (cff["version"], cff["url"], year)
    pyproject = (REPO / "pyproject.toml").read_text()  # reads the version from qlsbench.versions, where it is written
    assert 'version = {attr = "qlsbench.versions.VERSION"}' in pyproject and 'dynamic = ["version"]' in pyproject
