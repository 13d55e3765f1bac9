"""docs/advantage.md is what the shipped sweep tables give, and every number it states is theirs (issue 63)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from qlsbench.bench.advantage import AXES, crossover_table
from qlsbench.report import figures

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "docs" / "advantage"
PAGE = REPO / "docs" / "advantage.md"


def _tables() -> list[str]:
    return sorted(str(p) for p in SHIPPED.glob("*.parquet"))


def test_the_page_is_generated_from_the_shipped_tables(tmp_path):
    out = figures()["advantage"](_tables(), tmp_path / "advantage.md", figures=str(tmp_path / "figures"))
    assert out.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8"), (
        "docs/advantage.md differs from docs/advantage/: run "
        "`qlsbench figure advantage docs/advantage/*.parquet --out docs/advantage.md`"
    )
    assert (tmp_path / "figures" / "advantage-growth.png").read_bytes().startswith(b"\x89PNG")


def test_every_family_ran_every_small_size_and_its_kappa_checks_out():
    """The shipped sweep holds each family's small axis whole; below 4,096 unknowns the sparse kappa matches the
    dense one, and the Poisson control's kappa is the closed form."""
    from qlsbench.problems import poisson_kappa

    systems = pd.concat(pd.read_parquet(p) for p in _tables() if p.endswith(".systems.parquet"))
    for family, axis in AXES.items():
        assert set(axis.small) <= set(systems.loc[systems["family"] == family, "size"]), family
    dense = systems[systems["kappa_method"] == "dense"]
    assert (dense["kappa_sparse_rel_error"] < 1e-6).all()
    control = systems[systems["family"].str.startswith("poisson")]
    exact = control["kappa_method"] == "dense"
    assert control.loc[exact, "kappa"].tolist() == pytest.approx(
        [poisson_kappa(m) for m in control.loc[exact, "size"]], rel=1e-8
    )
    # above the dense limit the estimate is ARPACK's at tolerance 1e-6: 4e-8 off at 65,536 points in 1-D
    assert control.loc[~exact, "kappa"].tolist() == pytest.approx(
        [poisson_kappa(m) for m in control.loc[~exact, "size"]], rel=1e-6
    )


def test_the_pages_crossover_statements_are_the_tables():
    text = PAGE.read_text(encoding="utf-8")
    tables = {
        kind: pd.concat(pd.read_parquet(p) for p in _tables() if p.endswith(f".{kind}.parquet"))
        for kind in ("classical", "quantum")
    }
    for family in sorted(set(tables["classical"]["family"])):
        table = crossover_table(
            family,
            tables["classical"][tables["classical"]["family"] == family],
            tables["quantum"][tables["quantum"]["family"] == family],
        )
        crossing = table[table["crossover_N"].map(math.isfinite)]
        if crossing.empty:
            assert f"No crossover for {family} under any model or readout" in text
        else:
            assert f"{family}: the fitted lines cross in {len(crossing)} of {len(table)} settings" in text


def test_the_control_stands_beside_the_anchors_with_the_reasons_they_differ():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## The control beside the anchors") :]
    assert "Tu et al., arXiv:2502.11239" in section and "crossover at N ≈ 2^33–2^48" in section
    for family in ("poisson-1d", "poisson-2d", "poisson-3d"):
        assert f"| ours, {family} |" in section
    assert section.count("\n- ") >= 4  # data loading, read-out, the classical side, size


def _crosscheck() -> pd.DataFrame:
    return pd.read_parquet(SHIPPED / "loading.crosscheck.parquet")


def test_the_shipped_loading_crosscheck_covers_every_system_with_our_current_formulas():
    """Every system of the sweep has its four lookups in the cross-check, and our columns are today's formulas."""
    from qlsbench.estimates import lookup, map_lookups

    table = _crosscheck()
    systems = pd.concat(pd.read_parquet(p) for p in _tables() if p.endswith(".systems.parquet"))
    expected = pd.DataFrame(map_lookups(systems))
    got = table.dropna(subset=["items"])

    def keys(frame):  # the rotation row's gaps make the tool table's counts floats
        return sorted((r.family, int(r.size), r.lookup, int(r.items), int(r.bits)) for r in frame.itertuples())

    assert keys(got) == keys(expected)
    for row in got.itertuples():
        ours = lookup(int(row.items), int(row.bits))
        assert (row.ours_compute_toffolis, row.ours_erase_toffolis) == (
            ours["compute_toffolis"],
            ours["erase_toffolis"],
        )
    # Qualtran's construction of the same lookup costs exactly 2 Toffolis less to compute and 4 less to erase, on
    # every row: the formula and the bloq agree term by term but for unary iteration's two saved steps
    # (a lookup of two items Qualtran makes with CNOTs alone: no Toffoli to compare)
    assert ((table["ours_compute_toffolis"] - table["tool_compute_toffolis"]) == 2).all()
    erase = table[table["tool_erase_toffolis"] > 0]
    assert ((erase["ours_erase_toffolis"] - erase["tool_erase_toffolis"]) == 4).all()
    assert (table.loc[table["tool_erase_toffolis"] == 0, "items"] <= 4).all()  # erased by measurement alone


HAS_QUALTRAN = __import__("importlib").util.find_spec("qualtran") is not None


@pytest.mark.skipif(not HAS_QUALTRAN, reason="Qualtran is not installed (pip install 'qlsbench[estimates]')")
@pytest.mark.parametrize("items, bits", [(351, 5), (1000, 20), (64, 1)])
def test_qualtran_counts_a_lookup_as_the_shipped_table_says(items, bits):
    """Qualtran here counts what the shipped table says it counted, at our block sizes."""
    from qlsbench.estimates import lookup_row

    row = lookup_row(items, bits)
    shipped = _crosscheck()
    same = shipped[(shipped["items"] == items) & (shipped["bits"] == bits)]
    if len(same):
        assert row["tool_compute_toffolis"] == same["tool_compute_toffolis"].iloc[0]
    assert row["tool_compute_toffolis"] <= row["ours_compute_toffolis"] <= 1.5 * row["tool_compute_toffolis"]


@pytest.mark.skipif(HAS_QUALTRAN, reason="Qualtran is installed: its absence cannot be seen here")
def test_without_qualtran_the_loading_crosscheck_names_the_extra(tmp_path, capsys):
    from qlsbench.cli import main

    assert main(["loadcheck", str(SHIPPED / "ising.systems.parquet"), "--out", str(tmp_path / "x.parquet")])
    assert "pip install 'qlsbench[estimates]'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_anchors_assumptions_only_make_the_quantum_side_cheaper_and_cg_is_the_anchors_opponent():
    """Each step toward the anchors' model (a query at one Toffoli, b free, no read-out) lowers the quantum
    seconds on every control system, and the last step's classical side is CG with Jacobi's own times."""
    from qlsbench.bench.advantage import ANCHOR_STEPS, anchor_ablation, best_classical

    for family in ("poisson-1d", "poisson-2d", "poisson-3d"):
        classical = pd.read_parquet(SHIPPED / f"{family}.classical.parquet")
        quantum = pd.read_parquet(SHIPPED / f"{family}.quantum.parquet")
        table = anchor_ablation(family, classical, quantum, 1e-2, "superconducting-1e-4")
        assert table["assumptions"].tolist() == [label for label, _ in ANCHOR_STEPS]
        seconds = table["quantum_seconds_at_largest"].tolist()
        assert seconds[0] > seconds[1] > seconds[2] == seconds[3], family
        cg = best_classical(classical[(classical["method"] == "cg-jacobi") & (classical["epsilon"] == 1e-2)])
        assert table["classical_seconds_at_largest"].iloc[-1] == cg["seconds"].iloc[-1]
