"""The FCLIB files qlsbench writes, read by the field's own tools: FCLIB's reference reader and Siconos.

FCLIB's reader is its C library (Debian's ``libfclib-dev``); ``tests/data/fclib_read.c``, ours, calls its public
API (``fclib_read_global``, ``fclib_read_solution``, ``fclib_read_guesses``) and prints what it returns. Nothing
here goes through qlsbench's own reader: the arrays Siconos solves are the ones FCLIB's reader returned. The
dataset card's sentence on which pinned systems reran bit for bit is generated from the shipped ``fclib.json``;
a test compares the two.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest
import scipy.sparse as sp
from siconos_global import siconos_global

from qlsbench.bench.board.contacts import SUMMARY_BEGIN, SUMMARY_END, reproduction_summary

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "docs" / "fclib"
CARD = ROOT / "datasets" / "README.md"
DRIVER = ROOT / "tests" / "data" / "fclib_read.c"


@pytest.fixture(scope="module")
def fclib_reader(tmp_path_factory) -> Path:
    """Our driver linked against FCLIB's reader, built once; a skip saying why where it cannot be built."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip(
            "no C compiler to build tests/data/fclib_read.c against FCLIB's reader (Debian: apt-get install gcc)"
        )
    binary = tmp_path_factory.mktemp("fclib-reader") / "fclib_read"
    built = subprocess.run([compiler, "-O1", "-o", str(binary), str(DRIVER), "-lfclib"], capture_output=True, text=True)
    if built.returncode != 0 and ("fclib.h" in built.stderr or "-lfclib" in built.stderr):
        pytest.skip("FCLIB's reader is not installed (Debian: apt-get install libfclib-dev)")
    assert built.returncode == 0, built.stderr[-2000:]
    return binary


def read_with_fclib(reader: Path, path: Path, tmp_path: Path) -> dict[str, str]:
    """What FCLIB's reader returns for ``path``: the driver's lines as ``{name: rest of the line}``."""
    copy = tmp_path / path.name  # fclib_read_guesses opens its file read-write: never the shipped one
    shutil.copyfile(path, copy)
    done = subprocess.run([str(reader), str(copy)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"FCLIB's reader rejects {path.name}: {done.stderr[-1500:]}"
    return {name: rest for name, _, rest in (line.partition(" ") for line in done.stdout.splitlines())}


def _text(read: dict, name: str) -> str:
    return bytes.fromhex(read[name]).decode("utf-8")


def _floats(read: dict, name: str) -> np.ndarray:
    return np.array(read[name].split(), dtype=np.float64)


def _matrix(read: dict, name: str) -> sp.csr_matrix:
    """A matrix as fclib.h describes its compressed-row storage (nz = -2: p row pointers, i column indices)."""
    m, n, nz, nzmax = map(int, read[name].split())
    assert nz == -2, f"{name} is stored with nz = {nz}, expected compressed rows (-2)"
    p, i = (np.array(read[f"{name}.{key}"].split(), dtype=np.int64) for key in "pi")
    x = _floats(read, f"{name}.x")
    assert len(p) == m + 1 and len(i) == len(x) == nzmax == p[-1]
    return sp.csr_matrix((x, i, p), shape=(m, n))


def _problem(read: dict) -> tuple:
    """``(M, H, f, w, mu)`` as FCLIB's reader returned them."""
    return _matrix(read, "M"), _matrix(read, "H"), _floats(read, "f"), _floats(read, "w"), _floats(read, "mu")


def _state(read: dict, prefix: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(_floats(read, f"{prefix}.{key}") for key in "vur")


def _check_state(problem: tuple, state: tuple, what: str) -> None:
    """``M v = H r + f`` and ``u = H^T v + w`` to rounding, and ``r`` in the Coulomb cone to the step's LCP
    tolerance (its friction rows ask ``sum(beta) <= mu gamma`` to about 1e-10)."""
    M, H, f, w, mu = problem
    v, u, r = state
    scale = max(np.abs(H @ r).max(), np.abs(f).max())
    assert np.abs(M @ v - H @ r - f).max() <= 1e-12 * scale, f"{what}: M v != H r + f"
    assert np.abs(u - H.T @ v - w).max() <= 1e-12 * max(np.abs(u).max(), 1e-300), f"{what}: u != H^T v + w"
    per_contact = r.reshape(-1, 3)
    normal, tangent = per_contact[:, 0], np.linalg.norm(per_contact[:, 1:], axis=1)
    slack = 1e-9 * (1 + np.abs(r).max())
    assert np.all(normal >= 0), f"{what}: a negative normal impulse"
    assert np.all(tangent <= mu * normal + slack), f"{what}: r outside the Coulomb cone"


def _shipped() -> dict:
    return json.loads((SHIPPED / "fclib.json").read_text())


# --------------------------------------------------------------------------- the shipped export


def test_fclib_json_names_every_pinned_dem_c_system_and_every_shipped_file():
    from qlsbench.data import PINNED

    summary = _shipped()
    pinned = {
        e["name"]: e for e in json.loads((PINNED / "manifest.json").read_text())["systems"] if e["family"] == "dem_c"
    }
    assert set(summary["systems"]) == set(pinned)
    assert {e["file"] for e in summary["systems"].values()} == {p.name for p in SHIPPED.glob("*.hdf5")}
    for name, entry in summary["systems"].items():
        assert entry["group"] == pinned[name]["group"] and f"-step{entry['step']}-it{entry['newton_iter']}-" in name
    assert summary["machine"]["cpu"] and summary["machine"]["blas"]


def test_fclib_reads_every_shipped_file_with_its_strings_solution_and_warm_start(fclib_reader, tmp_path):
    """Every shipped file through FCLIB's own reader: the title, description and math_info as written (a
    variable-length string hands this reader a pointer's bytes), the step's contacts and friction as fclib.json
    says, and a solution and a guess that satisfy the global form's equations with r in the Coulomb cone; the
    solution's normal rows are complementary, as the step's LCP asked."""
    systems = _shipped()["systems"]
    for name, entry in systems.items():
        read = read_with_fclib(fclib_reader, SHIPPED / entry["file"], tmp_path)
        assert _text(read, "title").startswith(f"qlsbench pinned {name}: {entry['scene']} step {entry['step']} ")
        description, math_info = _text(read, "description"), _text(read, "math_info")
        assert f"Time step {entry['step']} " in description and f"group {entry['group']}, " in description
        assert ("mu = 0" in math_info) == (entry["mu"] == 0) and "positive semidefinite" in math_info
        assert int(read["spacedim"]) == 3
        problem = _problem(read)
        M, H, f, w, mu = problem
        assert H.shape == (M.shape[0], 3 * entry["contacts"]) and np.all(mu == entry["mu"])
        solution = _state(read, "solution")
        _check_state(problem, solution, f"{name} solution")
        # The step's LCP (its tolerance 1e-10 (1 + |r|)) holds 0 <= r_n _|_ u_n >= 0 row by row, friction or not.
        u_normal, r_normal = solution[1][0::3], solution[2][0::3]
        assert np.abs(np.minimum(u_normal, r_normal)).max() <= 1e-9 * (1 + np.abs(u_normal).max())
        assert ", converged, residual " in description
        assert int(read["guesses"]) == 1
        _check_state(problem, _state(read, "guess1"), f"{name} guess")


@pytest.mark.parametrize(
    ("name", "share"),
    [("sedimentation-n100-mu0-step80-it0-n3", 1e-6), ("sedimentation-n16-mu0.3-v2-step190-it0-n7", 0.25)],
)
def test_siconos_solves_a_shipped_step_read_by_fclib_to_its_stored_velocities(fclib_reader, tmp_path, name, share):
    """Siconos' global solver on the exact Coulomb cone, handed the arrays FCLIB's reader returned, moves the
    spheres as the stored solution does: frictionless, to 1e-6 of the step's velocity change (measured: 4e-14);
    with friction, within a quarter of it, the share by which the stepper's inscribed octagon can turn the
    friction (its directions are up to 22.5 degrees off the sliding direction; measured: 17 %). A wrong frame,
    sign or offset in the file would put them a whole velocity change apart."""
    read = read_with_fclib(fclib_reader, SHIPPED / f"{name}.fclib.hdf5", tmp_path)
    problem = _problem(read)
    M, H, f, w, mu = problem
    v, u, r = _state(read, "solution")
    siconos = siconos_global(problem, tmp_path)
    assert int(siconos["info"]) == 0  # converged
    change = np.abs(v - f / M.diagonal()).max()  # the step's velocity change: f = M v_before, M diagonal
    assert change > 0
    assert np.abs(siconos["v"] - v).max() <= share * change
    assert np.abs(siconos["r"][0::3] - r[0::3]).max() <= max(share, 1e-6) * np.abs(r[0::3]).max()


# --------------------------------------------------------------------------- the writer


def test_a_simulations_files_store_the_velocities_the_step_applied_and_its_warm_start(fclib_reader, tmp_path):
    """`simulate --fclib` files, read by FCLIB's reader: the title as given, the solution's v the velocities the
    stepper applied (bit for bit), and, where a step kept the previous step's contacts, its guess the previous
    step's impulses (the warm start)."""
    from qlsbench.families.spheres import FclibWriter
    from qlsbench.physics import StepOptions, build_scene, simulate

    scene = build_scene("sedimentation", n_spheres=12, seed=0)
    applied, writer = {}, FclibWriter(tmp_path / "fclib", 1, "twelve")
    # From step 110 on the spheres have settled onto each other: most contacts carry impulses from step to step.
    simulate(
        scene,
        130,
        StepOptions(mu=0.3),
        problems=lambda step, problem: writer(step, problem) if step >= 110 else None,
        observer=lambda state, report: applied.__setitem__(report.step, state.velocities.reshape(-1).copy()),
    )
    files = sorted((tmp_path / "fclib").glob("step-*.hdf5"))
    assert len(files) == 20
    previous, warm = None, 0
    for path in files:
        step = int(path.stem.removeprefix("step-"))
        read = read_with_fclib(fclib_reader, path, tmp_path)
        problem = _problem(read)
        contacts = problem[1].shape[1] // 3
        assert _text(read, "title") == f"qlsbench twelve step {step} (mu 0.3, {contacts} contacts)"
        solution, guess = _state(read, "solution"), _state(read, "guess1")
        assert np.array_equal(solution[0], applied[step])
        _check_state(problem, guess, f"step {step} guess")
        # The same contacts (H's pattern) as the step before: the warm start is that step's answer.
        if previous is not None and previous[0] == step - 1 and _same_pattern(previous[1], problem[1]):
            np.testing.assert_array_equal(guess[2], previous[2])
            warm += bool(np.any(guess[2]))
        previous = (step, problem[1], solution[2])
    assert warm >= 10  # measured: 18 of the 19 pairs of steps


def _same_pattern(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    return a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


def test_the_writer_gives_the_same_bytes_twice_with_no_timestamp_and_fixed_length_strings(tmp_path):
    """Deterministic files: no object carries a creation or modification time, so the same problem gives the
    same bytes; the strings are scalar fixed-length NUL-terminated, as FCLIB's writer (H5LTmake_dataset_string)
    makes them."""
    from qlsbench.physics.lcp import write_fclib_global

    M, H = sp.diags([2.0, 2.0, 2.0], format="csr"), sp.csr_matrix(np.eye(3)[:, [2, 0, 1]])
    state = (np.array([0.7, 0.0, 0.0]), np.array([0.0, 0.7, 0.0]), np.array([2.0, -0.6, 0.0]))
    args = (M, H, M @ np.array([1.0, 0.0, -1.0]), np.zeros(3), np.array([0.3]), "one sphere sliding to rest")
    options = {
        "description": "a ball on the floor",
        "math_info": "r = (2, -0.6, 0) solves it",
        "solution": state,
        "guesses": [state, tuple(np.zeros(3) for _ in range(3))],
    }
    first = write_fclib_global(tmp_path / "a.hdf5", *args, **options).read_bytes()
    assert write_fclib_global(tmp_path / "b.hdf5", *args, **options).read_bytes() == first
    with h5py.File(tmp_path / "a.hdf5", "r") as handle:
        names = []
        handle.visit(names.append)
        for name in names:
            info = h5py.h5o.get_info(handle[name].id)
            assert info.ctime == info.mtime == info.atime == info.btime == 0, name
        title = handle["fclib_global/info/title"].id
        kind = title.get_type()
        assert title.shape == () and not kind.is_variable_str()
        assert kind.get_size() == len("one sphere sliding to rest") + 1 and kind.get_strpad() == h5py.h5t.STR_NULLTERM
        assert int(handle["guesses/number_of_guesses"][0]) == 2 and "l" not in handle["solution"]


def test_a_solution_of_the_wrong_size_is_refused_in_one_line_naming_the_file(tmp_path):
    from qlsbench.errors import InputError
    from qlsbench.physics.lcp import write_fclib_global

    M, H = sp.identity(3, format="csr"), sp.identity(3, format="csr")
    with pytest.raises(
        InputError,
        match=r"bad\.hdf5: FCLIB guess has v, u, r of lengths 3, 2, 3; the problem needs "
        r"3, 3, 3$",
    ):
        write_fclib_global(
            tmp_path / "bad.hdf5",
            M,
            H,
            np.zeros(3),
            np.zeros(3),
            np.array([0.3]),
            guesses=[(np.zeros(3), np.zeros(2), np.zeros(3))],
        )
    assert not (tmp_path / "bad.hdf5").exists()


# --------------------------------------------------------------------------- the card


def test_the_cards_reproduction_sentence_is_what_the_shipped_fclib_json_gives():
    """The card says which pinned systems reran bit for bit from the shipped export, never by hand."""
    card = CARD.read_text(encoding="utf-8")
    assert SUMMARY_BEGIN in card and SUMMARY_END in card
    block = card.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0].strip("\n")
    assert block == reproduction_summary(_shipped()), (
        "datasets/README.md's sentence differs from docs/fclib/fclib.json: run `qlsbench export datasets/pinned "
        "--out docs/fclib --format fclib` (after `qlsbench pinned --out datasets/pinned`)"
    )


def test_the_reproduction_sentence_counts_per_group_and_sorts_the_others_by_distance():
    entry = {"lcp_chain": "v1", "reproduced": False, "matrix_rel_diff": 0.0}
    systems = {
        "a1": {**entry, "group": "a", "reproduced": True},
        "a2": {**entry, "group": "a", "matrix_rel_diff": 0.5},
        "b1": {**entry, "group": "b", "lcp_chain": "v2"},
        "b2": {**entry, "group": "b", "lcp_chain": "v2", "matrix_rel_diff": None},
    }
    text = " ".join(
        reproduction_summary({"machine": {"cpu": "CPU X", "blas": "openblas (K kernel)"}, "systems": systems}).split()
    )
    assert "written on CPU X, BLAS openblas (K kernel)" in text
    assert "`a` (v1 chain) 1 of 2 and `b` (v2 chain) 0 of 2." in text
    assert "The other 3 files are steps of that machine's own run" in text
    assert (
        "1 with the pinned matrix to within 1e-09 of its largest entry (the last bits), 2 further apart "
        "(by up to 0.50 times its largest entry)" in text
    )
