"""One definition per fact (issue 68): a fact typed a second time in the code drifts from the first.

Each fact below is a pattern that matches its literal definition; the test reads every module of the package and
every workflow rule, and fails where the pattern matches anywhere but the one place the fact is defined. Prose
(docstrings, comments) may name the values: only code is read.
"""

from __future__ import annotations

import ast
import functools
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
    "a solve's default time limit": (r"""["']time_limit["']\s*[:,]\s*60\b""", "qlsbench/workflow/_solvers.py"),
}


@functools.cache
def _code(path: Path) -> str:
    """``path``'s code (:func:`_without_prose`), read once per test session."""
    return _without_prose(path.read_text(encoding="utf-8"), python=path.suffix == ".py")


def _without_prose(text: str, python: bool) -> str:
    """Code without its comments and docstrings (a workflow rule, not all Python, without its comments)."""
    if not python:
        return "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            for number in range(first.lineno - 1, first.end_lineno or first.lineno):
                lines[number] = ""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
        if token.type != tokenize.COMMENT:
            kept.append(token.string)
    return " ".join(kept)


def _sources() -> list[Path]:
    return sorted((ROOT / "qlsbench").rglob("*.py")) + sorted((ROOT / "workflows").rglob("*.smk"))


@pytest.mark.parametrize("fact", FACTS)
def test_a_fact_is_defined_once(fact):
    pattern, home = FACTS[fact]
    places = [str(p.relative_to(ROOT)) for p in _sources() if re.search(pattern, _code(p))]
    assert places == [home], f"{fact}: defined in {places}; define it in {home} alone and read it from there"


def test_the_facts_test_sees_a_second_copy():
    """The pattern finds a copy typed as a tuple, a list or a default argument."""
    pattern, _ = FACTS["the Pauli term-count tolerances"]
    for copy in ("tols=(0.0, 1e-6, 1e-3)", "x = [0, 1e-6, 1e-3]", "def f(t=(0.0,1e-6,1e-3)): pass"):
        assert re.search(pattern, _without_prose(copy + "\n", python=True)), copy
    prose = '"""counts at 0, 1e-6, 1e-3"""\n\nx = 1  # and 0.0, 1e-6, 1e-3 here\n'
    assert not re.search(pattern, _without_prose(prose, python=True))
