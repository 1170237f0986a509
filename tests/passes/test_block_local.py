"""make_block_local: ``ti.block_local(...)`` caches fields per dense block.

Every result is compared with the same kernel compiled with ``make_block_local=False``
and with NumPy; the report is checked against the page's example (a 4x4 block read at
``[i - 1, j]`` and ``[i, j + 2]`` needs a 5x6 buffer over ``[I-1, I+4) x [J, J+6)``).
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

N = 64
BLOCK = 4
ACTIVE_BLOCKS = [(0, 0), (3, 5), (15, 15), (7, 0), (4, 5), (0, 15)]
# blocks the loops run over stay off the field's edges: an index outside a field is
# undefined behaviour without debug=True (as in Taichi), and the runs without BLS read
# the field itself
INTERIOR_BLOCKS = [(3, 5), (7, 1), (4, 5), (9, 9), (8, 4)]


def _block_fields(*names, sparse=True, dtype=ti.f32):
    fields = []
    for _ in range(len(names)):
        f = ti.field(dtype, name=names[len(fields)])
        level = ti.root.pointer if sparse else ti.root.dense
        level(ti.ij, N // BLOCK).dense(ti.ij, BLOCK).place(f)
        fields.append(f)
    return fields


def _activate(f, blocks, values=None):
    """Writes a block's cells (activating it); returns the dense NumPy picture."""
    picture = np.zeros((N, N), np.float32)
    rng = np.random.default_rng(len(blocks))
    for bi, bj in blocks:
        cells = rng.random((BLOCK, BLOCK)).astype(np.float32) if values is None else values
        picture[bi * BLOCK : (bi + 1) * BLOCK, bj * BLOCK : (bj + 1) * BLOCK] = cells
    mask = np.zeros((N, N), bool)
    for bi, bj in blocks:
        mask[bi * BLOCK : (bi + 1) * BLOCK, bj * BLOCK : (bj + 1) * BLOCK] = True

    @ti.kernel
    def write(src: ti.types.ndarray(), on: ti.types.ndarray()):
        for i, j in ti.ndrange(N, N):
            if on[i, j]:
                f[i, j] = src[i, j]

    write(picture, mask.astype(np.int32))
    return picture


def _shifted(a, di, dj):
    """a[i + di, j + dj] with 0 outside."""
    out = np.zeros_like(a)
    src = a[max(di, 0) : N + min(di, 0), max(dj, 0) : N + min(dj, 0)]
    out[max(-di, 0) : N - max(di, 0), max(-dj, 0) : N - max(dj, 0)] = src
    return out


def _run_both(build):
    """Runs ``build()`` (which returns (result array, report)) with BLS on, then off."""
    on = build()
    ti.init(arch=ti.cpu, make_block_local=False)
    off = build()
    return on, off


def _page_example():
    a, b = _block_fields("a", "b")
    picture = _activate(a, ACTIVE_BLOCKS)
    _activate(b, INTERIOR_BLOCKS, values=np.zeros((BLOCK, BLOCK)))

    @ti.kernel
    def foo():
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[i - 1, j] + a[i, j + 2]

    foo()
    return picture, b.to_numpy(), foo.stages()["report"]["block_local"]


def test_page_example_buffer_shape_and_mapping():
    _, _, report = _page_example()
    (entry,) = report
    assert entry["field"] == "a" and entry["mode"] == "read"
    assert entry["block_shape"] == (4, 4)
    assert entry["ranges"] == [(-1, 4), (0, 6)]
    assert entry["range_text"] == "[I - 1, I + 4) x [J, J + 6)"
    assert entry["buffer_shape"] == (5, 6)
    assert entry["bytes"] == 5 * 6 * 4
    assert entry["mapping"] == "buffer[u0, u1] = a[I - 1 + u0, J + u1]"
    # what the widget's reuse figures count: the offsets read and the reads per iteration
    assert entry["offsets"] == [(-1, 0), (0, 2)] and entry["accesses"] == 2


def test_page_example_results_match_without_bls_and_numpy():
    (picture, got_on, _), (_, got_off, report_off) = _run_both(_page_example)
    assert report_off == []
    expect = _shifted(picture, -1, 0) + _shifted(picture, 0, 2)
    b_active = np.zeros((N, N), bool)
    for bi, bj in INTERIOR_BLOCKS:
        b_active[bi * BLOCK : (bi + 1) * BLOCK, bj * BLOCK : (bj + 1) * BLOCK] = True
    expect[~b_active] = 0
    np.testing.assert_allclose(got_on, expect, rtol=1e-6)
    np.testing.assert_array_equal(got_on, got_off)


def test_ir_shows_the_buffer_and_the_per_block_loop():
    a, b = _block_fields("a2", "b2")

    @ti.kernel
    def foo():
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[i - 1, j] + a[i + 1, j]

    text = foo.stages()["ir_optimized"]
    assert "local_array bls[24]" in text  # rows [I - 1, I + 5) x 4 columns
    assert "struct_for pointer(ij)" in text or "offloaded struct_for" in text


def _stencil_with_inner_loops():
    a, b = _block_fields("a", "b")
    picture = _activate(a, ACTIVE_BLOCKS)
    _activate(b, INTERIOR_BLOCKS, values=np.zeros((BLOCK, BLOCK)))

    @ti.kernel
    def smooth():
        for i, j in b:
            ti.block_local(a)
            s = 0.0
            for di in range(-2, 3):  # a constant-range inner loop
                for dj in ti.static(range(-1, 2)):
                    s += a[i + di, j + dj]
            b[i, j] = s

    smooth()
    return picture, b.to_numpy(), smooth.stages()["report"]["block_local"]


def test_inner_constant_range_loops_are_analysed():
    (picture, on, report), (_, off, _) = _run_both(_stencil_with_inner_loops)
    (entry,) = report
    assert entry["ranges"] == [(-2, 6), (-1, 5)]
    assert entry["buffer_shape"] == (8, 6)
    # di runs over 5 values for each of the 3 unrolled dj: 15 offsets, 15 reads
    assert entry["offsets"] == [(di, dj) for di in range(-2, 3) for dj in range(-1, 2)]
    assert entry["accesses"] == 15
    expect = sum(_shifted(picture, di, dj) for di in range(-2, 3) for dj in range(-1, 2))
    active = np.zeros((N, N), bool)
    for bi, bj in INTERIOR_BLOCKS:
        active[bi * BLOCK : (bi + 1) * BLOCK, bj * BLOCK : (bj + 1) * BLOCK] = True
    expect[~active] = 0
    np.testing.assert_allclose(on, expect, rtol=1e-5)
    np.testing.assert_allclose(on, off, rtol=1e-6)


def _scatter_with_atomics():
    a, b = _block_fields("a", "b", sparse=False)
    picture = _activate(a, [(bi, bj) for bi in range(N // BLOCK) for bj in range(N // BLOCK)])

    @ti.kernel
    def scatter():
        for i, j in a:
            ti.block_local(b)
            if 1 <= i < N - 1 and j >= 2:
                b[i + 1, j] += a[i, j]
                b[i - 1, j] += 0.5 * a[i, j]
                ti.atomic_add(b[i, j - 2], a[i, j])

    scatter()
    return picture, b.to_numpy(), scatter.stages()["report"]["block_local"]


def test_atomic_accumulation_through_bls_matches():
    (picture, on, report), (_, off, _) = _run_both(_scatter_with_atomics)
    (entry,) = report
    assert entry["mode"] == "accumulate"
    assert entry["ranges"] == [(-1, 5), (-2, 4)]
    assert entry["offsets"] == [(-1, 0), (0, -2), (1, 0)] and entry["accesses"] == 3
    inside = np.zeros((N, N), np.float32)
    inside[1 : N - 1, 2:] = picture[1 : N - 1, 2:]
    expect = _shifted(inside, -1, 0) + 0.5 * _shifted(inside, 1, 0) + _shifted(inside, 0, 2)
    np.testing.assert_allclose(on, expect, rtol=1e-5)
    np.testing.assert_allclose(on, off, rtol=1e-5)


def test_grouped_index_and_vector_offsets():
    a, b = _block_fields("a", "b", sparse=False)
    picture = _activate(a, [(1, 1), (2, 3)])

    @ti.kernel
    def shift():
        for I in ti.grouped(b):  # noqa: E741
            ti.block_local(a)
            if I[0] < N - 1:
                b[I] = a[I + ti.Vector([1, 0])] - a[I]

    shift()
    (entry,) = shift.stages()["report"]["block_local"]
    assert entry["buffer_shape"] == (5, 4)
    expect = _shifted(picture, 1, 0) - picture
    expect[N - 1] = 0
    np.testing.assert_allclose(b.to_numpy(), expect)


def test_hierarchical_dense_field_and_integer_type():
    a, b = _block_fields("a", "b", sparse=False, dtype=ti.i32)

    @ti.kernel
    def init():
        for i, j in a:
            a[i, j] = i * 100 + j

    @ti.kernel
    def diff():
        for i, j in b:
            ti.block_local(a)
            if 0 < j < N - 1:
                b[i, j] = a[i, j + 1] - a[i, j - 1]

    init()
    diff()
    got = b.to_numpy()
    assert (got[:, 1:-1] == 2).all()
    assert (got[:, 0] == 0).all() and (got[:, -1] == 0).all()


def test_unanalysable_index_is_an_error_naming_the_line():
    a, b = _block_fields("a", "b")

    @ti.kernel
    def transpose():
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[j, i]

    with pytest.raises(ti.errors.TiSyntaxError) as info:
        transpose()
    message = str(info.value)
    assert "b[i, j] = a[j, i]" in message and "^" in message and "transpose" in message


def test_assigning_a_cached_field_is_an_error():
    a, b = _block_fields("a", "b")

    @ti.kernel
    def write():
        for i, j in b:
            ti.block_local(a)
            a[i, j] = b[i, j]

    with pytest.raises(ti.errors.TiSyntaxError, match="read or atomically added"):
        write()


def test_field_without_blocks_is_an_error_naming_the_cached_field():
    u = ti.field(ti.f32, shape=(16, 16), name="u")
    v = ti.field(ti.f32, shape=(16, 16), name="v")

    @ti.kernel
    def k():
        ti.block_local(u)
        for i, j in v:
            v[i, j] = u[i - 1, j]

    with pytest.raises(ti.errors.TiSyntaxError, match="dense under a block level") as info:
        k()
    message = str(info.value)
    # the field the user passed is the subject; the loop's field is why it cannot be
    assert "cannot cache 'u' per block: the loop runs over 'v', which has no blocks" in message
    assert "ti.block_local(u)" in message  # the caret is on the user's line
    assert info.value.hint.endswith(".dense(ti.ij, 4).place(v)")


def test_offsets_of_inner_loops_are_exact_not_their_box():
    a, b = _block_fields("a", "b", sparse=False)

    @ti.kernel
    def diagonal(n: ti.i32):
        for i, j in b:
            ti.block_local(a)
            s = 0.0
            for k in range(3):  # a[i + k, j + k]: the diagonal, not the 3 x 3 square
                s += a[i + k, j + k] + a[i + k, j + k - k]
            for _ in range(n):  # not a constant trip count: reads per iteration unknown
                s += a[i, j]
            b[i, j] = s

    (entry,) = diagonal.stages(1)["report"]["block_local"]
    assert entry["ranges"] == [(0, 6), (0, 6)]
    assert entry["offsets"] == [(0, 0), (1, 0), (1, 1), (2, 0), (2, 2)]
    assert entry["accesses"] is None

    @ti.kernel
    def repeated():
        for i, j in b:
            ti.block_local(a)
            s = 0.0
            for _ in range(4):  # one offset, read 4 times by the loop and once after
                s += a[i, j]
            b[i, j] = s + a[i, j]

    (entry,) = repeated.stages()["report"]["block_local"]
    assert entry["offsets"] == [(0, 0)] and entry["accesses"] == 5
    assert entry["buffer_shape"] == (BLOCK, BLOCK)


def test_block_local_outside_a_struct_for_is_an_error():
    a, _ = _block_fields("a", "b")

    @ti.kernel
    def k():
        for _i in range(4):
            ti.block_local(a)

    with pytest.raises(ti.errors.TiSyntaxError, match="struct-for"):
        k()


def test_turned_off_the_kernel_still_runs_unchanged():
    ti.init(arch=ti.cpu, make_block_local=False)
    picture, got, report = _page_example()
    assert report == []
    assert got.shape == (N, N) and np.isfinite(got).all()
    assert picture.sum() > 0
