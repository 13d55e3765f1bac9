"""Threads of the compiled kernels: small work runs serially, the cap is honoured, and the answer never changes."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.sparse as sp

import qlsbench.threads as threads
from qlsbench.cli import main
from qlsbench.errors import InputError
from qlsbench.pauli import coefficient_table, count_terms, decompose


@pytest.fixture(autouse=True)
def _restore():
    before = numba.get_num_threads()
    yield
    threads.set_threads(None)
    numba.set_num_threads(before)


def _random_sparse(n, rng, density=0.02):
    return sp.random(2**n, 2**n, density=density, random_state=np.random.default_rng(rng), format="csr")


def test_small_work_runs_on_one_thread_and_large_work_on_the_limit():
    with threads.kernel_threads(threads.SERIAL_WORK - 1) as count:
        assert count == 1 and numba.get_num_threads() == 1
    with threads.kernel_threads(threads.SERIAL_WORK) as count:
        assert count == min(threads.thread_limit(), numba.config.NUMBA_NUM_THREADS)
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored


def test_the_configured_count_and_the_callers_numba_setting_cap_the_threads(monkeypatch):
    threads.set_threads(1)
    assert threads.thread_limit() == 1
    with threads.kernel_threads(threads.SERIAL_WORK) as count:
        assert count == 1
    threads.set_threads(None)
    monkeypatch.setenv(threads.ENV, "1")
    assert threads.thread_limit() == 1
    monkeypatch.delenv(threads.ENV)
    numba.set_num_threads(1)
    with threads.kernel_threads(10 * threads.SERIAL_WORK) as count:
        assert count == 1
    assert numba.get_num_threads() == 1  # the caller's own setting is put back


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", ""])
def test_bad_thread_counts_are_named(value, monkeypatch):
    with pytest.raises(InputError, match="threads: must be a whole number from 1 to 1024"):
        threads.set_threads(value)
    if value.strip():
        monkeypatch.setenv(threads.ENV, value)
        with pytest.raises(InputError, match=threads.ENV):
            threads.thread_limit()


def test_serial_and_parallel_paths_give_the_same_bits(monkeypatch):
    """Each pattern is transformed by one thread alone, so the thread count cannot change a single bit."""
    A = _random_sparse(9, 3)
    dense = np.random.default_rng(4).normal(size=(2**7, 2**7))
    monkeypatch.setattr(threads, "SERIAL_WORK", 1 << 62)
    serial = decompose(A), count_terms(A, (0.0, 1e-3)), coefficient_table(dense)
    monkeypatch.setattr(threads, "SERIAL_WORK", 0)
    parallel = decompose(A), count_terms(A, (0.0, 1e-3)), coefficient_table(dense)
    for a, b in (
        (serial[0].x_int, parallel[0].x_int),
        (serial[0].z_int, parallel[0].z_int),
        (serial[0].coeffs, parallel[0].coeffs),
        (serial[2], parallel[2]),
    ):
        np.testing.assert_array_equal(a, b)
    assert serial[1] == parallel[1]
    # And the answer is the answer: A rebuilt from its terms.
    np.testing.assert_allclose(parallel[0].to_matrix(), A.toarray(), atol=1e-12)


def test_the_threads_option_is_checked_before_any_command(capsys):
    assert main(["--threads", "0", "solvers"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--threads" in err and "Traceback" not in err


def test_the_threads_option_caps_the_kernels(capsys, monkeypatch):
    for name in (threads.ENV, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)  # set_threads exports them for worker processes
    from threadpoolctl import threadpool_info

    assert main(["--threads", "1", "solvers"]) == 0
    assert threads.thread_limit() == 1 and threads.os.environ[threads.ENV] == "1"
    assert all(pool["num_threads"] == 1 for pool in threadpool_info())
