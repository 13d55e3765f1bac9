"""Each solver's colour and marker: a fixed function of its name, the published ones committed and distinct by
measure (CIEDE2000), a new one never moving a published one; the page draws every marker the figures use."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from qlsbench.bench.board import Board
from qlsbench.report import solver_styles
from qlsbench.report._styles import (
    MARKERS,
    MIN_DELTA_E,
    MIN_DELTA_E_WHITE,
    NEAR_DELTA_E,
    PALETTE,
    PUBLISHED,
    delta_e,
    delta_e_lab,
    spare_colours,
    to_lab,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def published_labels() -> list[str]:
    """Every solver on the published board: its rows and its published submissions."""
    from qlsbench.report import board_results

    return sorted(board_results(Board())["solver"].unique())


def test_delta_e_is_ciede2000():
    """Sharma, Wu and Dalal's (2005) test pairs (given in CIELAB), and sRGB white and red in CIELAB."""
    pairs = [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
        ((50, 2.5, 0), (50, 0, -2.5), 4.3065),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
        ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ]
    for first, second, expected in pairs:
        assert delta_e_lab(first, second) == pytest.approx(expected, abs=1e-4)
        assert delta_e_lab(second, first) == pytest.approx(expected, abs=1e-4)
    assert to_lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=1e-3)
    assert to_lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.01)  # sRGB red, D65
    assert delta_e("#123456", "#123456") == 0.0


def test_the_palette_is_distinguishable_by_measure():
    assert len(set(PALETTE)) == len(PALETTE)
    closest = min(delta_e(a, b) for a, b in itertools.combinations(PALETTE, 2))
    assert closest >= MIN_DELTA_E
    assert min(delta_e(c, "#ffffff") for c in PALETTE) >= MIN_DELTA_E_WHITE  # no pale yellow on the white page


def test_published_solvers_are_distinct_and_close_colours_never_share_a_marker(published_labels):
    styles = solver_styles(published_labels)
    pairs = {(s.color, s.marker) for s in styles.values()}
    assert len(pairs) == len(published_labels)
    for a, b in itertools.combinations(published_labels, 2):
        close = delta_e(styles[a].color, styles[b].color) < NEAR_DELTA_E
        assert not close or styles[a].marker != styles[b].marker, (a, b)
    assert {label for label in published_labels if label in PUBLISHED}  # the table is the board's
    assert len({c for c, _ in PUBLISHED.values()}) == len(PUBLISHED)  # the table gives each its own colour


def test_adding_solvers_leaves_every_published_style_as_it_was(published_labels):
    before = solver_styles(published_labels)
    # sorted first, last and between the published labels, as `board add` marks them
    newcomers = ["aaa-first", "my-jacobi[rtol=1e-08] (self-submitted)", "lu2", "zzz-last"]
    after = solver_styles([*published_labels, *newcomers])
    unchanged = sum(after[label] == before[label] for label in published_labels)
    assert unchanged == len(published_labels)
    taken = {s.color for s in before.values()}
    assert not {after[n].color for n in newcomers} & taken  # a new solver is never drawn in a published colour
    assert len({after[n].color for n in newcomers}) == len(newcomers)
    assert {after[n].color for n in newcomers} <= set(spare_colours())
    assert solver_styles(["lu2", *published_labels])["lu2"] == solver_styles(["lu2"])["lu2"]  # by its name alone


def test_every_marker_is_drawn_by_the_page_and_matplotlib():
    import matplotlib.markers

    script = (REPO / "qlsbench" / "report" / "static" / "leaderboard.js").read_text(encoding="utf-8")
    drawn = set(re.findall(r"case '([a-z-]+)':", script)) | {"circle"}  # the circle is the script's default
    assert set(MARKERS) <= drawn, set(MARKERS) - drawn
    assert set(MARKERS.values()) <= set(matplotlib.markers.MarkerStyle.markers)
    assert len(set(MARKERS.values())) == len(MARKERS)
