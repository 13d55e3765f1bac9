"""One definition per fact (issue 68): a fact typed a second time in the code drifts from the first.

Each fact below is a pattern that matches its literal definition; the test reads every module of the package and
every workflow rule, and fails where the pattern matches anywhere but the one place the fact is defined. Prose
(docstrings, comments) may name the values: only code is read.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: fact -> (a pattern matching a literal copy of it in code, the one file that defines it)
FACTS = {
    "the Pauli term-count tolerances": (r"0(\.0)?\s*,\s*1e-6\s*,\s*1e-3\b", "qlsbench/pauli/_decomposition.py"),
    "the largest quantity a bound admits": (r"\bMAX_QUANTITY\s*(:[^=]*)?=", "qlsbench/checks.py"),
}


def _code(path: Path) -> str:
    """``path``'s code without its comments and strings (a workflow rule's Python parts read as Python)."""
    text = path.read_text(encoding="utf-8")
    kept = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type not in (tokenize.COMMENT, tokenize.STRING):
                kept.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):  # a Snakemake rule is not all Python
        return "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return " ".join(kept)


def _sources() -> list[Path]:
    return sorted((ROOT / "qlsbench").rglob("*.py")) + sorted((ROOT / "workflows").rglob("*.smk"))


@pytest.mark.parametrize("fact", FACTS)
def test_a_fact_is_defined_once(fact):
    pattern, home = FACTS[fact]
    places = [str(p.relative_to(ROOT)) for p in _sources() if re.search(pattern, _code(p))]
    assert places == [home], f"{fact}: defined in {places}; define it in {home} alone and read it from there"


def test_the_facts_test_sees_a_second_copy(tmp_path, monkeypatch):
    """The pattern finds a copy typed as a tuple, a list or a default argument."""
    pattern, _ = FACTS["the Pauli term-count tolerances"]
    for copy in ("tols=(0.0, 1e-6, 1e-3)", "x = [0, 1e-6, 1e-3]", "def f(t=(0.0,1e-6,1e-3)): pass"):
        module = tmp_path / "m.py"
        module.write_text(copy + "\n")
        assert re.search(pattern, _code(module)), copy
    module.write_text('"""counts at 0, 1e-6, 1e-3"""  # and 0.0, 1e-6, 1e-3 here\n')
    assert not re.search(pattern, _code(module))
