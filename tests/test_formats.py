"""The formats the field reads: every pinned system as Matrix Market, read back by scipy bit for bit."""

from __future__ import annotations

import json

import numpy as np
import scipy.io
import scipy.sparse as sp

from qlsbench.data import iter_systems, write_systems
from qlsbench.data.matrix_market import export_matrix_market
from qlsbench.data.pinned import PINNED
from qlsbench.problems import LinearSystem


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit for bit, dtype and shape included, but for the sign of a zero: the file keeps it (``-0.0``),
    scipy's reader returns +0."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nonzero = b != 0
    return bool(np.array_equal(a, b, equal_nan=True)
                and np.array_equal(a[nonzero].view(np.uint8), b[nonzero].view(np.uint8)))


def test_every_pinned_system_reads_back_from_matrix_market_bit_for_bit(tmp_path):
    systems = {s.system_id: s for s in iter_systems(PINNED / "systems")}
    export_matrix_market(PINNED / "systems", tmp_path)
    manifest = json.loads((PINNED / "manifest.json").read_text())
    assert len(list(tmp_path.glob("*.json"))) == len(systems) == len({e["system_id"] for e in manifest["systems"]})
    for meta_path in tmp_path.glob("*.json"):
        meta = json.loads(meta_path.read_text())
        system = systems[meta["system_id"]]
        stem = meta_path.name.removesuffix(".json")
        A = sp.csr_matrix(scipy.io.mmread(tmp_path / f"{stem}.mtx"))
        A.sum_duplicates()
        A.sort_indices()
        expected = system.A.tocsr()
        expected.sort_indices()
        assert _same(A.toarray(), expected.toarray()), stem
        assert _same(scipy.io.mmread(tmp_path / f"{stem}.b.mtx").ravel(), np.asarray(system.b)), stem
        assert _same(scipy.io.mmread(tmp_path / f"{stem}.x_ref.mtx").ravel(), np.asarray(system.x_ref)), stem
        assert meta["dim"] == system.dim and meta["n_orig"] == system.meta["n_orig"]
        assert meta["source"]["dataset_hash"]


def test_a_complex_system_is_written_as_a_complex_matrix(tmp_path):
    A = sp.csr_matrix(np.array([[2.0 + 1e-3j, 0.1], [0.1, 1.0 - 0.5j]]))
    b = np.array([1.0 + 1.0 / 3.0j, -2.0])
    data = write_systems([LinearSystem(A, b, {"family": "test", "scene": "complex"})], tmp_path / "c.parquet")
    export_matrix_market(data, tmp_path / "out")
    (meta,) = (tmp_path / "out").glob("*.json")
    stem = meta.name.removesuffix(".json")
    assert "complex general" in (tmp_path / "out" / f"{stem}.mtx").read_text().splitlines()[0]
    assert _same(scipy.io.mmread(tmp_path / "out" / f"{stem}.mtx").toarray(), A.toarray())
    assert _same(scipy.io.mmread(tmp_path / "out" / f"{stem}.b.mtx").ravel(), b)


def test_hhl_circuits_in_openqasm_3_read_back_to_the_same_state_and_solve_the_system(tmp_path):
    """The written circuit is the transpiled HHL circuit: qasm3.loads gives back its state, whose post-selected
    branch points along the solution (4 clock qubits resolve the kappa-10 Ising system's spectrum)."""
    from qiskit import qasm3
    from qiskit.quantum_info import Statevector

    from qlsbench.solvers.hhl.circuit import postselected
    from qlsbench.solvers.qasm import export_hhl_qasm, hhl_transpiled

    written = export_hhl_qasm(PINNED / "systems" / "ising.parquet", tmp_path, clock=4)
    assert sorted(p.name for p in written) == ["ising-k10-n2.hhl.qasm", "ising-k10-n3.hhl.qasm",
                                              "ising-k100-n2.hhl.qasm", "ising-k100-n3.hhl.qasm"]
    system = next(s for s in iter_systems(PINNED / "systems" / "ising.parquet") if s.dim == 4)
    loaded = qasm3.loads((tmp_path / "ising-k10-n2.hhl.qasm").read_text())
    assert set(loaded.count_ops()) <= {"cx", "U", "u", "measure", "barrier"}
    state = Statevector(loaded.remove_final_measurements(inplace=False))
    original = Statevector(hhl_transpiled(system, 4).remove_final_measurements(inplace=False))
    assert abs(state.inner(original)) > 1 - 1e-9
    x = postselected(np.asarray(state.data), 2, 4)
    fidelity = abs(np.vdot(x, system.x_ref)) ** 2 / (np.vdot(x, x).real * np.vdot(system.x_ref, system.x_ref).real)
    assert fidelity > 0.9
