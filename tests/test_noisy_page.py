"""docs/noisy.md is generated from the device results shipped in docs/noisy/: page and results must agree; the
page's tables are checked on rows made by hand."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qlsbench.report import noisy_page

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "docs" / "noisy").glob("*.parquet"))


def test_the_page_is_what_the_shipped_device_results_give(tmp_path):
    if not RESULTS:
        pytest.skip("no device results shipped in docs/noisy/ yet")
    out = noisy_page.render([str(p) for p in RESULTS], tmp_path / "noisy.md", tmp_path / "figures")
    committed = (ROOT / "docs" / "noisy.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8").splitlines() == committed.splitlines(), (
        "docs/noisy.md differs from what docs/noisy/ gives: run "
        "`qlsbench figure noisy docs/noisy/*.parquet --out docs/noisy.md`")


def _rows() -> pd.DataFrame:
    """Two solvers, 2 and 3 qubits, three seeds, three conditions; fidelities chosen by hand."""
    fid = {("ideal", 2): [1.0, 0.995, 0.999], ("noisy", 2): [0.9, 0.95, 0.92], ("mitigated", 2): [0.99, 0.995, 0.98],
           ("ideal", 3): [0.991, 0.99, 0.999], ("noisy", 3): [0.5, 0.6, 0.7], ("mitigated", 3): [0.8, 0.85, 0.9]}
    settings = {"ideal": (0.0, "none"), "noisy": (1.0, "none"), "mitigated": (1.0, "readout+zne")}
    rows = []
    for solver in ("vqls-local", "hhl"):
        for (condition, n), values in fid.items():
            scale, mitigation = settings[condition]
            for seed, f in enumerate(values):
                rows.append({"solver_name": solver, "n_qubits": n, "system_id": f"s{n}", "fidelity": f,
                             "wall_time": 10.0 * n, "routed_depth": 40 * n, "two_qubit_gates": 9 * n,
                             "device_seconds": 1.5 * n, "repeat": seed,
                             "resources": json.dumps({"device": "sherbrooke", "calibration_date": "2025-02-26T14:43",
                                                      "noise_scale": scale, "mitigation": mitigation})})
    rows.append({**rows[0], "resources": json.dumps({"backend": "exact"})})  # not a device solve: left out
    return pd.DataFrame(rows)


def test_conditions_come_from_the_noise_scale_and_the_mitigation():
    rows = noisy_page.device_rows(_rows())
    assert len(rows) == 2 * 18
    assert set(rows["condition"]) == {"ideal", "noisy", "mitigated (readout+zne)"}
    assert (rows.loc[rows["noise_scale"] == 0, "condition"] == "ideal").all()


def test_the_largest_system_solved_is_read_from_the_median_over_seeds():
    table = noisy_page.largest_solved(noisy_page.device_rows(_rows())).set_index(["solver", "condition"])
    column = "largest system at fidelity >= 0.99 (qubits)"
    assert table.loc[("vqls-local", "ideal"), column] == 3  # medians 0.999 and 0.991
    assert table.loc[("vqls-local", "mitigated (readout+zne)"), column] == 2  # median 0.99 at 2, 0.85 at 3
    assert table.loc[("vqls-local", "noisy"), column] == "none"


def test_the_size_table_gives_each_conditions_spread():
    table = noisy_page.noisy_table(noisy_page.device_rows(_rows())).set_index(["solver", "qubits"])
    row = table.loc[("hhl", 3)]
    assert row["noisy fidelity"].startswith(f"{np.median([0.5, 0.6, 0.7]):.3f}")
    assert row["routed depth"] == 120 and row["two-qubit gates"] == 27
    assert row["mitigation"] == "readout+zne"


def test_two_mitigations_of_one_size_are_two_rows_never_pooled():
    rows = _rows()
    extra = rows[(rows["solver_name"] == "hhl") & (rows["n_qubits"] == 2)].iloc[6:9].copy()  # the mitigated ones
    extra["fidelity"] = [0.5, 0.5, 0.5]
    extra["resources"] = extra["resources"].str.replace("readout+zne", "readout")
    table = noisy_page.noisy_table(noisy_page.device_rows(pd.concat([rows, extra])))
    hhl2 = table[(table["solver"] == "hhl") & (table["qubits"] == 2)].set_index("mitigation")
    assert list(hhl2.index) == ["readout", "readout+zne"]
    assert hhl2.loc["readout", "mitigated fidelity"].startswith("0.500")
    assert hhl2.loc["readout+zne", "mitigated fidelity"].startswith("0.990")
    assert hhl2.loc["readout", "noisy fidelity"] == hhl2.loc["readout+zne", "noisy fidelity"]


def test_the_committed_board_page_carries_the_tracks_the_shipped_files_give():
    """leaderboard/leaderboard.md's physics and noisy tracks are what docs/in-loop/ and docs/noisy/ give now."""
    from qlsbench.report.in_loop_page import physics_track_blocks
    from qlsbench.report.leaderboard_page import blocks_markdown

    page = (ROOT / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    loops = [str(p) for p in sorted((ROOT / "docs" / "in-loop").glob("*.parquet"))]
    tracks = physics_track_blocks(loops) + noisy_page.noisy_track_blocks([str(p) for p in RESULTS])
    expected = blocks_markdown(tracks)
    assert expected in page, ("leaderboard/leaderboard.md's tracks differ from the shipped results: run "
                              "`qlsbench board render`")
