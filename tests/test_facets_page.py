"""The facet study page is what the shipped results give, and the results' summary is what their rows give."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from qlsbench.bench import facet_study

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "facets" / "facets.json"
PAGE = ROOT / "docs" / "facets.md"


def test_the_page_is_generated_from_the_shipped_results():
    """Regenerate with ``python -m qlsbench.bench.facet_study --page`` when this fails."""
    content = json.loads(RESULTS.read_text())
    assert PAGE.read_text() == facet_study.page(content)


def test_the_summary_is_the_rows_summarised_and_covers_every_pile_and_facet_count():
    content = json.loads(RESULTS.read_text())
    assert content["summary"] == facet_study.summarise(content["rows"])
    assert {(r["pile"], r["s"]) for r in content["summary"]} == {
        (p.name, s) for p in facet_study.PILES for s in facet_study.FACETS
    }


def test_the_facets_error_shrinks_as_facets_are_added_on_the_sliding_pile():
    """Inscribed polygons tend to the disk: on sliding contacts the median error falls with every doubling of s
    (a property of the shipped rows, not of one step), and no step's exact-cone reference failed to converge."""
    content = json.loads(RESULTS.read_text())
    rows = [r for r in content["rows"] if r["pile"] == "sliding"]
    medians = [np.nanmedian([r["error"] for r in rows if r["s"] == s]) for s in facet_study.FACETS]
    assert all(b < a for a, b in zip(medians, medians[1:], strict=False))
    assert all(r.get("exact_status", "converged") == "converged" for r in content["rows"])
