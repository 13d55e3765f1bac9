"""Our block-encoding counts against an independent tool's, Qualtran's, and docs/estimates-crosscheck.md against the
table it is generated from.

The Qualtran tests build its bloqs for small pinned systems (2-3 qubits) and skip, saying why, where Qualtran is not
installed (``pip install 'qlsbench[estimates]'``); the page and table tests need no Qualtran.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qlsbench.data import pinned, to_system
from qlsbench.errors import InputError
from qlsbench.pauli import LCU_TOLS, lcu_form, lcu_summary, tol_label, truncated
from qlsbench.pauli import _crosscheck as crosscheck
from qlsbench.report import _estimates_page as estimates_page

ROOT = Path(__file__).resolve().parents[1]
TABLES = sorted((ROOT / "docs" / "estimates").glob("*.parquet"))
PAGE = ROOT / "docs" / "estimates-crosscheck.md"
HAS_QUALTRAN = importlib.util.find_spec("qualtran") is not None
needs_qualtran = pytest.mark.skipif(
    not HAS_QUALTRAN, reason="Qualtran is not installed (pip install 'qlsbench[estimates]')"
)

#: Small pinned systems: symmetric and not (a frictional one has imaginary coefficients), 4 to 36 terms.
SMALL = (
    "ising-k10-n2",
    "ising-k100-n3",
    "sedimentation-n100-mu0-step80-it0-n3",
    "sedimentation-n16-mu0.3-step0-it1-n3",
)


def test_the_page_is_what_the_shipped_table_gives(tmp_path):
    out = estimates_page.render([str(p) for p in TABLES], tmp_path / "estimates-crosscheck.md")
    assert out.read_text(encoding="utf-8").splitlines() == PAGE.read_text(encoding="utf-8").splitlines(), (
        "docs/estimates-crosscheck.md differs from what docs/estimates/ gives: run `qlsbench figure "
        "estimates-crosscheck docs/estimates/*.parquet --out docs/estimates-crosscheck.md`"
    )


def test_the_shipped_table_covers_the_pinned_set_with_our_current_formulas():
    table = estimates_page.read_crosscheck([str(p) for p in TABLES])
    assert set(table["system_id"]) == set(pinned()["system_id"])
    assert (table.groupby("system_id")["tol"].apply(sorted).map(tuple) == tuple(sorted(LCU_TOLS))).all()
    ours = pd.DataFrame([crosscheck.ours(n, L) for n, L in zip(table["n_qubits"], table["terms"])])
    assert (table[ours.columns].to_numpy() == ours.to_numpy()).all(), "rerun `qlsbench crosscheck` (README: docs)"


def test_the_agreement_table_counts_equal_rows_and_ratios_on_rows_made_by_hand():
    rows = pd.DataFrame(
        {
            "ours_select_toffolis": [3, 5, 7],
            "tool_select_toffolis": [3, 4, np.nan],
            "ours_prepare_rotations": [3, 7, 7],
            "tool_prepare_rotations": [0, 2, 0],
        }
    )
    comparisons = estimates_page.COMPARISONS
    table = estimates_page.agreement(rows, (comparisons[0], comparisons[9])).set_index("count")
    select = table.loc["SELECT, controlled: Toffolis"]
    assert (select["rows"], select["equal"]) == (2, 1)  # the uncounted row is left out
    assert (select["ours / Qualtran: min"], select["max"]) == (1.0, 1.25)
    alias = table.loc["PREPARE, alias sampling: rotations"]
    assert alias["median"] == 3.5  # only the row where Qualtran's count is not 0


@pytest.mark.skipif(HAS_QUALTRAN, reason="Qualtran is installed: its absence cannot be seen here")
def test_without_qualtran_the_cross_check_says_which_extra_to_install():
    with pytest.raises(InputError, match=r"pip install 'qlsbench\[estimates\]'"):
        crosscheck.require_tool()


def _terms(name: str, tol: float = 0.0):
    systems = pinned()
    return truncated(lcu_form(to_system(systems[systems["pinned_name"] == name].iloc[0]).A), tol)


@pytest.fixture(scope="module", params=SMALL)
def counted(request):
    """A small system's terms, ``n``, ``L``, ``a`` and our counts and Qualtran's (built once per system)."""
    if not HAS_QUALTRAN:
        pytest.skip("Qualtran is not installed (pip install 'qlsbench[estimates]')")
    terms = _terms(request.param)
    n, L = terms.n_qubits, len(terms)
    return terms, n, L, (L - 1).bit_length(), crosscheck.ours(n, L), crosscheck.tool_counts(terms)


def test_where_the_constructions_are_the_same_the_counts_are_equal(counted):
    terms, n, L, a, ours, tool = counted
    assert L == lcu_summary(terms)[f"terms_{tol_label(0.0)}"]
    # Unary iteration with a control: L - 1 Ands of 4 T each, ours exactly; SelectPauliLCU counts as ApplyLthBloq.
    assert tool["tool_select_toffolis"] == ours["ours_select_toffolis"] == L - 1
    assert tool["tool_select_t_gates"] == ours["ours_select_t_gates"] == 4 * (L - 1)
    assert tool["tool_select_pauli_lcu_toffolis"] == tool["tool_select_toffolis"]
    assert tool["tool_select_uncontrolled_pauli_lcu_toffolis"] == tool["tool_select_uncontrolled_toffolis"] == L - 2
    # Qubits: ours are the uncontrolled SELECT's; a control adds itself and the root's And.
    assert tool["tool_select_uncontrolled_qubits"] == ours["ours_select_qubits"] == n + 2 * a - 1
    assert tool["tool_select_qubits"] == ours["ours_select_qubits"] + 2
    # The rotation tree: our 2^a - 1 angles, and 2^a phases; no arbitrary rotation.
    assert tool["tool_rotation_tree_angles"] == ours["ours_prepare_rotations"] == 2**a - 1
    assert tool["tool_rotation_tree_phase_angles"] == 2**a
    assert tool["tool_rotation_tree_rotations"] == 0


def test_where_they_differ_the_counts_are_within_the_constructions_bounds(counted):
    _, n, L, a, ours, tool = counted
    mu = tool["tool_prepare_mu"]
    # Alias sampling: uniform superposition, QROM (at most L - 2 Ands), 2 mu - 1 for the comparison, a swaps.
    assert tool["tool_prepare_qrom_toffolis"] <= L - 2
    assert tool["tool_prepare_compare_toffolis"] == 2 * mu - 1
    assert tool["tool_prepare_swap_toffolis"] == a
    assert tool["tool_prepare_toffolis"] == sum(
        tool[f"tool_prepare_{s}_toffolis"] for s in crosscheck.ALIAS_STEPS.values()
    )
    assert tool["tool_prepare_rotations"] == (0 if L == 2**a else 2)
    # The block encoding: PREPARE, uncontrolled SELECT, PREPARE^dag; the junk registers held through SELECT.
    be = tool["tool_block_encoding_toffolis"]
    assert be == tool["tool_select_uncontrolled_toffolis"] + 2 * tool["tool_prepare_toffolis"]
    assert ours["ours_block_encoding_toffolis"] <= be
    assert be <= 3 * ours["ours_block_encoding_toffolis"] + 2 * (2 * mu - 1 + a + tool["tool_prepare_uniform_toffolis"])
    assert tool["tool_block_encoding_qubits"] == tool["tool_prepare_qubits"] + n
    assert tool["tool_prepare_qubits"] >= a + 2 * mu + a + 1  # selection, sigma, keep, alt, the comparison bit


@needs_qualtran
def test_dropping_the_pauli_strings_changes_no_toffoli_and_no_qubit_count():
    from qualtran.resource_counting import QECGatesCost, QubitCount, get_cost_value

    terms = _terms("sedimentation-n16-mu0.3-step0-it1-n3")
    for control_val in (1, None):
        bloq, cbloq = crosscheck.select_pauli_lcu(terms, control_val)
        gates = get_cost_value(bloq, QECGatesCost())  # every string costed, no generalizer
        assert gates.toffoli + gates.and_bloq + gates.cswap == crosscheck.gate_counts(cbloq)["toffolis"]
        assert get_cost_value(bloq, QubitCount()) == crosscheck.qubit_count(cbloq)


@needs_qualtran
def test_a_truncation_keeps_the_terms_resources_counts_and_one_term_is_refused():
    terms = _terms("sedimentation-n100-mu0-step50-it0-n2", 1e-6)
    assert len(terms) == lcu_summary(_terms("sedimentation-n100-mu0-step50-it0-n2"))["terms_1e-6"] == 1
    with pytest.raises(InputError, match="at least two terms"):
        crosscheck.tool_bloqs(terms)
