"""Compiled (numba) kernels of the Pauli decomposition; patterns run in parallel (threads: :mod:`qlsbench.threads`).

Everything works one XOR pattern ``x`` at a time on the row ``A[j ^ x, j]``:
its Walsh-Hadamard transform ``W``, times the phase ``i^{-|x & z|} / N``, is
the coefficient of every string ``P(x, z)``. ``dense_coefficient_table`` fills
all ``4^n`` entries (pauli-lcu's output); the per-pattern kernels below list
only the terms above a tolerance, from a dense array or from grouped non-zeros.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import intrinsic, overload


@intrinsic
def _popcount(typingctx, v):
    """Number of set bits of an int64, as LLVM's ``ctpop`` (one instruction where the CPU has it)."""
    if not isinstance(v, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return v(v), codegen


@nb.njit(cache=True, inline="always")
def _fwht_inplace(row, scratch):
    """Unnormalised Walsh-Hadamard transform of ``row`` in place, ``scratch`` of the same length.

    Constant-geometry form: every stage maps ``(s[2k], s[2k + 1])`` to
    ``(d[k], d[k + N/2]) = (s[2k] + s[2k + 1], s[2k] - s[2k + 1])``, ``n`` times.
    Source and destination never alias, so the compiler vectorises each
    stage (about twice as fast as the in-place butterflies here).
    """
    N = row.shape[0]
    half = N // 2
    src, dst = row, scratch
    h = 1
    while h < N:
        for k in range(half):
            a = src[2 * k]
            b = src[2 * k + 1]
            dst[k] = a + b
            dst[k + half] = a - b
        src, dst = dst, src
        h *= 2
    if src is not row:  # odd number of stages: the result is in scratch
        row[:] = src


@nb.njit(cache=True, inline="always")
def _phase(v, k):
    """``v * i^{-k}`` for ``k`` in 0..3."""
    if k == 0:
        return v
    if k == 1:
        return complex(v.imag, -v.real)
    if k == 2:
        return -v
    return complex(-v.imag, v.real)


@nb.njit(parallel=True, cache=True)
def _table_real(A, out):
    N = A.shape[0]
    inv_n = 1.0 / N
    for x in nb.prange(N):
        row = np.empty(N)  # real transform: half the arithmetic of a complex one
        for j in range(N):
            row[j] = A[j ^ x, j]
        _fwht_inplace(row, np.empty(N))
        for z in range(N):
            out[x, z] = _phase(complex(row[z] * inv_n, 0.0), _popcount(x & z) & 3)


@nb.njit(parallel=True, cache=True)
def _table_complex(A, out):
    N = A.shape[0]
    inv_n = 1.0 / N
    for x in nb.prange(N):
        row = out[x]
        for j in range(N):
            row[j] = A[j ^ x, j]
        _fwht_inplace(row, np.empty(N, dtype=np.complex128))
        for z in range(N):
            row[z] = _phase(row[z] * inv_n, _popcount(x & z) & 3)


def dense_coefficient_table(A: np.ndarray) -> np.ndarray:
    """``T[x, z]``: the coefficient of ``P(x, z)`` for every Pauli string of a dense ``2^n x 2^n`` matrix."""
    out = np.empty(A.shape, dtype=np.complex128)
    if np.iscomplexobj(A):
        _table_complex(np.ascontiguousarray(A, dtype=np.complex128), out)
    else:
        _table_real(np.ascontiguousarray(A, dtype=np.float64), out)
    return out


# --- Per-pattern kernels: the transform of one XOR pattern x at a time ------------------------
#
# Patterns are processed in two passes: ``count_patterns`` evaluates the raw
# transform of each pattern and counts the entries to keep, ``gather_terms``
# writes those out as coefficients at offsets known from the counts. Dense
# input keeps the transforms between the passes; sparse input evaluates them
# again (cheap from a small support) and needs no work array. Rows of real
# symmetric matrices are folded to half length: ``A[j ^ x, j]`` is symmetric
# under ``j -> j ^ x``, so only the half of ``j`` with the top bit ``b`` of
# ``x`` clear is transformed, and only ``z`` with ``|x & z|`` even (no odd-Y
# string) is formed.


@nb.njit(cache=True)
def group_patterns(indptr, indices, data, N):
    """Counting sort of CSR non-zeros by XOR pattern ``x = row ^ col`` (explicit zeros dropped).

    ``N`` is a power of two at least the number of rows and columns.

    Returns ``xs`` (distinct patterns, increasing), ``starts`` (``K + 1``
    offsets) and the columns and values of the non-zeros in pattern order.
    """
    count = np.zeros(N + 1, dtype=np.int64)
    for r in range(len(indptr) - 1):
        for p in range(indptr[r], indptr[r + 1]):
            if data[p] != 0:
                count[(r ^ indices[p]) + 1] += 1
    K = 0
    for x in range(N):
        if count[x + 1] > 0:
            K += 1
        count[x + 1] += count[x]
    xs = np.empty(K, dtype=np.int64)
    starts = np.empty(K + 1, dtype=np.int64)
    k = 0
    for x in range(N):
        if count[x + 1] > count[x]:
            xs[k] = x
            starts[k] = count[x]
            k += 1
    starts[K] = count[N]
    cols = np.empty(count[N], dtype=np.int64)
    vals = np.empty(count[N], dtype=data.dtype)
    fill = count[:N].copy()
    for r in range(len(indptr) - 1):
        for p in range(indptr[r], indptr[r + 1]):
            if data[p] != 0:
                x = r ^ indices[p]
                cols[fill[x]] = indices[p]
                vals[fill[x]] = data[p]
                fill[x] += 1
    return xs, starts, cols, vals


@nb.njit(parallel=True, cache=True)
def grouped_is_symmetric(xs, starts, cols, vals, N):
    """Whether ``A[j ^ x, j] == A[j, j ^ x]`` for every stored pair (``A`` real, canonical CSR)."""
    ok = np.ones(len(xs), dtype=np.bool_)
    for k in nb.prange(len(xs)):
        x = xs[k]
        row = np.zeros(N, dtype=vals.dtype)
        for p in range(starts[k], starts[k + 1]):
            row[cols[p]] = vals[p]
        for p in range(starts[k], starts[k + 1]):
            if row[cols[p] ^ x] != vals[p]:
                ok[k] = False
                break
    return ok.all()


@nb.njit(cache=True, inline="always")
def _top_bit(x):
    b = 0
    while (x >> (b + 1)) > 0:
        b += 1
    return b


@nb.njit(cache=True, inline="always")
def _fill_row(row, k, x, starts, cols, vals, A, dense, fold):
    """Pattern ``x``'s entries ``A[j ^ x, j]`` into ``row`` (only bit-``b``-clear ``j``, doubled, when folding)."""
    row[:] = 0
    if fold:
        b = _top_bit(x)
        low = (1 << b) - 1
        if dense:
            for jc in range(row.shape[0]):
                j = ((jc >> b) << (b + 1)) | (jc & low)
                row[jc] = 2.0 * A[j ^ x, j]
        else:
            for p in range(starts[k], starts[k + 1]):
                j = cols[p]
                if not (j >> b) & 1:
                    row[((j >> (b + 1)) << b) | (j & low)] += 2.0 * vals[p]
    elif dense:
        for j in range(row.shape[0]):
            row[j] = A[j ^ x, j]
    else:
        for p in range(starts[k], starts[k + 1]):
            row[cols[p]] += vals[p]


#: A pattern with at most this many entries in its (folded) row is evaluated from its support.
SUPPORT_MAX = 12

# A pattern whose (folded) row has few entries v_i at positions p_i (i < s) needs no transform:
#   W[z] = sum_i v_i (-1)^{z . p_i} = F[P(z)],
# where bit i of P(z) is the parity of z & p_i and F[y] = sum_i v_i (-1)^{y_i} holds the 2^s signed
# sums. P is linear over GF(2): P(z | 2^q) = P(z) ^ c_q for z < 2^q, with bit i of c_q = bit q of p_i.
# So a row costs O(2^s + N) instead of O(n N), and its counts only O(2^s + n s): P maps the N values
# of z evenly onto the span of the c_q.


@nb.njit(cache=True, inline="always")
def _support(k, x, starts, cols, vals, fold, M):
    """Positions and values of pattern ``k``'s row (folded: bit-``b``-clear columns, compressed, doubled).

    Returns empty arrays when the row has more than ``SUPPORT_MAX`` entries or ``2^s > M``.
    """
    b = _top_bit(x) if fold else 0
    low = (1 << b) - 1
    s = 0
    for p in range(starts[k], starts[k + 1]):
        if not fold or not (cols[p] >> b) & 1:
            s += 1
    if s > SUPPORT_MAX or (1 << s) > M:
        s = 0
    pos = np.empty(s, dtype=np.int64)
    v = np.empty(s, dtype=vals.dtype)
    i = 0
    for p in range(starts[k], starts[k + 1]):
        if i == s:
            break
        j = cols[p]
        if fold:
            if (j >> b) & 1:
                continue
            pos[i] = ((j >> (b + 1)) << b) | (j & low)
            v[i] = 2.0 * vals[p]
        else:
            pos[i] = j
            v[i] = vals[p]
        i += 1
    return pos, v


@nb.njit(cache=True, inline="always")
def _signed_sums(v):
    """``F[y] = sum_i v_i (-1)^{y_i}`` for all ``2^s`` values of ``y``."""
    table = np.empty(1 << len(v), dtype=v.dtype)
    table[0] = v.sum()
    for i in range(len(v)):  # flipping bit i of y flips the sign of v_i
        for y in range(1 << i):
            table[y | (1 << i)] = table[y] - 2.0 * v[i]
    return table


@nb.njit(cache=True, inline="always")
def _bit_masks(pos, M):
    """``c_q`` for every bit ``q`` of a row of length ``M``: bit ``i`` of ``c_q`` is bit ``q`` of ``pos[i]``."""
    m = 0
    while (1 << m) < M:
        m += 1
    c = np.zeros(m, dtype=np.int64)
    for q in range(m):
        for i in range(len(pos)):
            c[q] |= ((pos[i] >> q) & 1) << i
    return c


@nb.njit(cache=True, inline="always")
def _count_from_support(pos, v, M, thresholds2, counts, peak2, i):
    """Counts and peak of a row from its support alone: each value of the span of the ``c_q`` is hit ``M / |span|``
    times."""
    table = _signed_sums(v)
    c = _bit_masks(pos, M)
    in_span = np.zeros(len(table), dtype=np.bool_)
    span = np.empty(len(table), dtype=np.int64)
    span[0] = 0
    in_span[0] = True
    size = 1
    for q in range(len(c)):
        if not in_span[c[q]]:  # a new direction: the span doubles
            for t in range(size):
                y = span[t] ^ c[q]
                span[size + t] = y
                in_span[y] = True
            size *= 2
    hits = M // size
    for t in range(size):
        w = table[span[t]]
        m2 = w.real * w.real + w.imag * w.imag
        if m2 > peak2[i]:
            peak2[i] = m2
        for u in range(len(thresholds2)):
            if m2 > thresholds2[u]:
                counts[i, u] += hits


@nb.njit(cache=True, inline="always")
def _row_values(row, k, x, starts, cols, vals, A, dense, fold):
    """The raw transform ``W`` of pattern ``k`` into ``row``, by FWHT."""
    _fill_row(row, k, x, starts, cols, vals, A, dense, fold)
    _fwht_inplace(row, np.empty_like(row))


#: Column keys hold the Pauli ``z`` above this bit and the index of the column's value below it.
KEY_SHIFT = 32


@nb.njit(cache=True, inline="always")
def _column_keys(x, width, fold, masks):
    """``key[zc] = (z << KEY_SHIFT) | index`` for every column ``zc`` of pattern ``x``'s row.

    ``z`` is the column's Pauli ``z`` (for folded rows: bit ``b`` inserted and
    set to the parity of ``z & x``); ``index`` is where its value is, with
    ``masks[q]`` the index step of bit ``q``. Both are linear over GF(2) in
    ``zc``, so the keys are built by doubling: ``key[zc | 2^q] = key[zc] ^ key[2^q]``.
    """
    b = _top_bit(x) if fold else 0
    key = np.empty(width, dtype=np.int64)
    key[0] = 0
    half = 1
    q = 0
    while half < width:
        zq = 1 << q
        if fold:
            zq = 1 << (q if q < b else q + 1)
            zq |= (_popcount(x & zq) & 1) << b
        step = (zq << KEY_SHIFT) | masks[q]
        for zc in range(half):
            key[half + zc] = key[zc] ^ step
        half *= 2
        q += 1
    return key


@nb.njit(cache=True, inline="always")
def _unit_masks(width):
    """``2^q`` for every bit ``q`` of a row of length ``width``: column ``zc``'s value at index ``zc``."""
    m = 0
    while (1 << m) < width:
        m += 1
    masks = np.empty(m, dtype=np.int64)
    for q in range(m):
        masks[q] = 1 << q
    return masks


@nb.njit(cache=True, inline="always")
def _row_lookup(i, k, x, starts, cols, vals, A, dense, fold, width, W, stored):
    """``(values, keys)`` of pattern ``k``: column ``zc`` has ``z = keys[zc] >> KEY_SHIFT`` and raw
    transform ``values[keys[zc] & (2^KEY_SHIFT - 1)]`` (the ``2^s`` signed sums of a small support,
    else the transformed row, kept in ``W[i]`` or evaluated here)."""
    if not stored and not dense:
        pos, v = _support(k, x, starts, cols, vals, fold, width)
        if len(pos):
            return _signed_sums(v), _column_keys(x, width, fold, _bit_masks(pos, width))
    if stored:
        row = W[i]
    else:
        row = np.empty(width, dtype=W.dtype)
        _row_values(row, k, x, starts, cols, vals, A, dense, fold)
    return row, _column_keys(x, width, fold, _unit_masks(width))


@nb.njit(cache=True, inline="always")
def _count_row(row, thresholds2, counts, peak2, i):
    """Count ``|row| > threshold`` per threshold (squared, no square roots) and keep the peak."""
    for z in range(row.shape[0]):
        v = row[z]
        m2 = v.real * v.real + v.imag * v.imag
        if m2 > peak2[i]:
            peak2[i] = m2
        for t in range(len(thresholds2)):
            if m2 > thresholds2[t]:
                counts[i, t] += 1


@nb.njit(parallel=True, cache=True)
def count_patterns(p0, xs, starts, cols, vals, A, dense, fold, width, thresholds2, W, store, counts, peak2):
    """Count, per pattern ``xs[p0 + i]``, coefficients with magnitude above each threshold.

    ``W[z] = sum_j (-1)^{z . j} A[j ^ x, j]`` and the coefficient is
    ``i^{-|x & z|} W[z] / N``: phase and scale do not change which entries
    pass, so ``thresholds2`` are ``(N tol)^2``. With ``store`` the rows ``W``
    are kept in ``W[i]`` for :func:`gather_terms`;
    otherwise each row lives in a scratch buffer and is evaluated again there.
    Folded rows (``fold``) hold ``width = N / 2`` entries, column ``zc`` for
    ``z`` = ``zc`` with bit ``b`` inserted, set so ``|x & z|`` is even.
    """
    for i in nb.prange(counts.shape[0]):
        k = p0 + i
        if not store and not dense:
            pos, v = _support(k, xs[k], starts, cols, vals, fold, width)
            if len(pos):
                _count_from_support(pos, v, width, thresholds2, counts, peak2, i)
                continue
        row = W[i] if store else np.empty(width, dtype=W.dtype)
        _row_values(row, k, xs[k], starts, cols, vals, A, dense, fold)
        _count_row(row, thresholds2, counts, peak2, i)


def _coefficient(w, inv_n, k, out):
    """The coefficient ``i^{-k} w / N`` as ``out`` stores it (compiled through the overload below)."""


@overload(_coefficient)
def _coefficient_impl(w, inv_n, k, out):
    if isinstance(out.dtype, types.Float):

        def signed(w, inv_n, k, out):  # real symmetric input: k = |x & z| is even, the phase a sign
            return -w * inv_n if k & 2 else w * inv_n

        return signed

    def phased(w, inv_n, k, out):
        return _phase(w * inv_n, k & 3)

    return phased


@nb.njit(parallel=True, cache=True)
def gather_terms(
    p0, xs, starts, cols, vals, A, dense, fold, width, W, stored, threshold2, inv_n, offsets, kept, x_out, z_out, c_out
):
    """Write the ``kept[i]`` terms of pattern ``xs[p0 + i]`` with ``|W| > threshold``, from ``offsets[i]`` on.

    ``c_out`` is real for real symmetric input (only even ``|x & z|`` is
    formed), complex otherwise.
    """
    low = (1 << KEY_SHIFT) - 1
    for i in nb.prange(len(offsets)):
        k = p0 + i
        x = xs[k]
        values, keys = _row_lookup(i, k, x, starts, cols, vals, A, dense, fold, width, W, stored)
        pos = offsets[i]
        if kept[i] == width:  # every entry kept (the rule for DEM-C rows): no compaction, no branch
            for zc in range(width):
                z = keys[zc] >> KEY_SHIFT
                x_out[pos + zc] = x
                z_out[pos + zc] = z
                c_out[pos + zc] = _coefficient(values[keys[zc] & low], inv_n, _popcount(x & z), c_out)
            continue
        end = pos + kept[i]  # never past the counted terms, whatever rounding did
        for zc in range(width):
            w = values[keys[zc] & low]
            if w.real * w.real + w.imag * w.imag > threshold2 and pos < end:
                z = keys[zc] >> KEY_SHIFT
                x_out[pos] = x
                z_out[pos] = z
                c_out[pos] = _coefficient(w, inv_n, _popcount(x & z), c_out)
                pos += 1
