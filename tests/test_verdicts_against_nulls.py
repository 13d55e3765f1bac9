"""No verdict a null passes (issue 64): every rule that turns numbers into a verdict on the reproduction and in-loop
pages, handed a null solver's own results in place of the solver's, must not return the favourable verdict; and
the controls the rules are set against are what they say (random sparse matrices of the stated size and fill).
"""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.bench.spread import separation
from qlsbench.errors import InputError
from qlsbench.pauli import count_terms
from qlsbench.problems import pad_and_normalize, random_sparse_symmetric
from qlsbench.report import in_loop_page, reproduction
from qlsbench.report.reproduction import FIG2_QUBITS, load_shipped, null_values, with_controls

ROOT = Path(__file__).resolve().parents[1]
SHIPPED, CONTROLS = ROOT / "docs" / "reproduction", ROOT / "docs" / "reproduction-controls"


def _shipped_judged():
    """Every run of the shipped in-loop results, as the page judges it."""
    from qlsbench.bench.in_loop import read_in_loop

    loops = in_loop_page._split([str(p) for p in sorted((ROOT / "docs" / "in-loop").glob("*.parquet"))])[0]
    return [r for path in loops for r in in_loop_page.judged_runs(Path(path).stem, *read_in_loop(path))]


@pytest.mark.parametrize("diagonal", ["dominant", "normal"])
@pytest.mark.parametrize(("n", "nnz"), [(6, 6), (6, 36), (40, 160), (120, 701)])
def test_the_random_null_has_the_size_and_fill_it_is_asked_for(n, nnz, diagonal):
    A = random_sparse_symmetric(n, nnz, seed=3, diagonal=diagonal).A
    assert A.shape == (n, n) and A.nnz == n + 2 * ((nnz - n) // 2)
    assert abs(A - A.T).max() == 0 and np.all(A.diagonal() != 0)
    lowest = np.linalg.eigvalsh(A.toarray())[0]
    if diagonal == "dominant":
        assert lowest > 0  # SPD, as the contact systems
    with pytest.raises(InputError, match="diagonal must be one of"):
        random_sparse_symmetric(n, nnz, diagonal="ones")
    with pytest.raises(InputError, match="nnz"):
        random_sparse_symmetric(n, n * n + 1)


def test_a_random_null_is_not_separated_from_another_draw_of_itself():
    """Fig. 5's rule, handed random matrices as the systems: neither of its claims holds against the null."""

    def counts(seeds, diagonal):
        out = []
        for seed in seeds:
            A = pad_and_normalize(random_sparse_symmetric(100, 700, seed=seed, diagonal=diagonal)).A
            c = count_terms(A, (0.0, 1e-3))
            out.append((c[0.0] / ((4**7 + 2**7) // 2), c[0.0] / max(c[1e-3], 1)))
        return np.array(out)

    for diagonal in ("dominant", "normal"):
        systems, null = counts(range(10, 20), diagonal), counts(range(5), diagonal)
        assert not separation(systems[:, 1], null[:, 1], "random").separated, "no sharper drop than itself"
        assert not separation(null[:, 0], systems[:, 0], "random").separated, "as close to the stair as itself"


def test_the_reproduction_rules_never_pass_a_null_solvers_outcomes():
    """Fig. 2's rules with returning b or a random vector in the solver's place, from the shipped controls."""
    from qlsbench.bench.spread import Spread

    shipped = with_controls(load_shipped(SHIPPED), load_shipped(CONTROLS))
    nulls = null_values(shipped)
    for name in ("null-b", "null-random"):
        spreads = {q: Spread.of(v) for q, v in nulls[name].items()}
        apart = [q for q, v in nulls[name].items() if separation(v, nulls["null-b"][q], "b").separated]
        assert not apart, "a null is never separated from returning b"
        assert not reproduction.all_solved_verdict(spreads, above_b=apart).startswith("reproduced")
        assert not reproduction.local_learns_verdict(spreads, spreads, apart).startswith("reproduced")
        values = {q: nulls[name][q] for q in FIG2_QUBITS}
        assert not reproduction.contrast_verdict(values, values).startswith("reproduced"), "no contrast with itself"


def test_the_contrast_rule_tells_a_contrast_from_two_falls_alike():
    rng = np.random.default_rng(0)
    flat = {q: 0.9 + 0.01 * rng.standard_normal(10) for q in FIG2_QUBITS}
    falling = {q: 0.9 - 0.15 * (q - FIG2_QUBITS[0]) + 0.01 * rng.standard_normal(10) for q in FIG2_QUBITS}
    assert reproduction.contrast_verdict(falling, flat).startswith("reproduced")
    point, low, high = reproduction.fall_contrast(falling, flat)
    assert low < point < high and point == pytest.approx(0.45, abs=0.05)
    assert not reproduction.contrast_verdict(falling, falling).startswith("reproduced")
    assert reproduction.contrast_verdict(flat, falling).startswith("not reproduced")


def test_the_in_loop_rules_never_pass_a_control_run_as_the_solver():
    """The shipped controls, judged as if each were the solver, by both the accuracy and the cost rule."""
    judged = _shipped_judged()
    controls = [r for r in judged if r["control"]]
    bounds = in_loop_page.cost_bounds(judged)
    for key in in_loop_page.CONTROL_WORDS:
        theirs = [{**c, "control": None} for c in controls if c["control"] == key]
        assert not in_loop_page.vnls_verdict(theirs, controls).startswith("holds")
        verdict = in_loop_page.cost_verdict(theirs, controls, bounds)
        tested = [r for r in theirs if bounds.get(r["setting"]) is not None]
        assert " 0 of " in verdict or "no cost verdict" in verdict or not tested, verdict


def test_the_cost_bound_is_read_from_the_oracle_not_chosen():
    """Issue 64's numbers: in the 16-sphere pile the oracle at 0.99 costs 5.66x the reference's solves, at 0.999
    3.93x: the bound the page uses is that median, and moving the oracle's runs moves it."""
    judged = _shipped_judged()
    sixteen = [k for k in in_loop_page.cost_bounds(judged) if "16 spheres" in k[0]]
    assert len(sixteen) == 1
    assert in_loop_page.cost_bounds(judged)[sixteen[0]] == pytest.approx(5.66, abs=0.02)
    assert in_loop_page.cost_bounds(judged, 0.999)[sixteen[0]] == pytest.approx(3.93, abs=0.02)
    doubled = [{**r, "overhead": 2 * r["overhead"]} if r["solver_name"] == "oracle" else r for r in judged]
    assert in_loop_page.cost_bounds(doubled)[sixteen[0]] == pytest.approx(2 * 5.66, abs=0.04)


def test_the_random_null_matches_a_dense_build():
    """The places are distinct and the values land where drawn: the sparse build equals a dense one."""
    system = random_sparse_symmetric(9, 41, seed=1)
    dense = system.A.toarray()
    assert sp.csr_matrix(dense).nnz == 41 and np.allclose(
        np.diag(dense), np.abs(dense).sum(axis=1) - np.abs(np.diag(dense)) + 1
    )


def test_the_pages_seed_counts_are_the_seeds_that_ran():
    """Issue 64, item 2 and 4: every fig. 2 cell's n is the number of seeds the shipped files hold for it (the
    stopping rule never drops one), read back from the page itself."""
    import re

    from qlsbench.report.reproduction import FIG2_COLUMNS

    shipped = with_controls(load_shipped(SHIPPED), load_shipped(CONTROLS))
    page = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8").splitlines()
    head = next(i for i, line in enumerate(page) if line.startswith("| qubits | returning b | random vector |"))
    columns = [c.strip() for c in page[head].strip("|").split("|")]
    checked = 0
    for line in page[head + 2 :]:
        if not line.startswith("|"):
            break
        cells = dict(zip(columns, (c.strip() for c in line.strip("|").split("|"))))
        q = int(cells["qubits"])
        for header, label in FIG2_COLUMNS:
            found = re.search(r"\(n = (\d+)\)", cells.get(header, ""))
            rows = shipped.solver(label, "ising/kappa10")
            ran = rows[(rows["n_qubits"] == q) & (rows["status"] != "skipped")]
            if found is None:
                assert ran.empty, (label, q)
                continue
            assert int(found.group(1)) == ran["seed"].nunique(), (label, q)
            checked += 1
    assert checked >= 40
