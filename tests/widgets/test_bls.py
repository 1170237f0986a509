"""The BLS view (``ti_notebook.widgets.bls``) shows what the compiled kernel does.

The page's example gives its 5x6 buffer and a mapping equal to the report's
``to_global``; the global cells the view says the buffer holds are the ones the kernel
really read (a stencil over every offset of the box, checked per iteration against the
field's values, 0 outside the field); the readers of a cell are exactly the iterations
whose accesses land on it; the reuse figures are the ones worked out by hand in each
test; picking a cell lists its readers; the picture is SVG with labelled axes and a
caption that fits; a kernel without ``ti.block_local`` is an error.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.widgets import BlsView, bls, bls_figure
from ti_notebook.widgets.bls_data import bls_data

pytestmark = pytest.mark.cpu

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _page_kernel(bls_page):
    namespace = bls_page()
    return namespace["foo"], namespace["a"]


def test_page_example_buffer_and_mapping_are_the_reports(bls_page):
    foo, a = _page_kernel(bls_page)
    (entry,) = foo.report.block_local
    for block in (0, 33, (5, 7)):
        (data,) = bls_data(foo, block=block)
        assert data.buffer_shape == (5, 6)
        assert data.holds.shape == (5, 6, 2)
        assert data.field_shape == a.shape and data.grid == (32, 32)
        for u in np.ndindex(5, 6):
            assert tuple(data.holds[u]) == entry.to_global(data.corner, u) == data.global_of(u)
    assert bls_data(foo, block=33)[0].corner == (4, 4)
    assert bls_data(foo, block=(5, 7))[0].corner == (20, 28)
    assert bls(foo).data.mapping == "buffer[u0, u1] = a[I - 1 + u0, J + u1]"


def test_page_example_readers_are_exactly_the_two_real_accesses(bls_page):
    foo, _ = _page_kernel(bls_page)
    (data,) = bls_data(foo, block=33)  # corner (4, 4)
    assert data.offset_box == ((-1, 0), (0, 2))
    assert data.offsets_exact and data.offsets() == [(-1, 0), (0, 2)]
    expected = {}
    for i, j in np.ndindex(4, 4):
        it = (4 + i, 4 + j)
        for di, dj in ((-1, 0), (0, 2)):  # a[i - 1, j] and a[i, j + 2]
            u = (it[0] + di - 3, it[1] + dj - 4)  # minus corner + origin (-1, 0)
            assert data.global_of(u) == (it[0] + di, it[1] + dj)
            expected.setdefault(u, set()).add(it)
    for u in np.ndindex(5, 6):
        assert data.readers(u) == sorted(expected.get(u, ())), u
    assert data.readers((0, 0)) == [(4, 4)]
    assert data.readers((1, 2)) == [(4, 4), (5, 6)]  # a[4, 6]: (5, 6) - (1, 0), (4, 4) + (0, 2)
    assert data.readers((4, 0)) == []  # filled, read by nobody
    assert data.cells_read == len(expected) == 26


def test_page_example_reuse_figures(bls_page):
    foo, _ = _page_kernel(bls_page)
    (data,) = bls_data(foo, block=(1, 1))
    # 16 iterations x 2 reads; the pass fills all 5 x 6 = 30 buffer cells
    assert (data.global_reads, data.buffer_loads, data.loads_saved) == (32, 30, 2)
    assert data.reuse == 32 / 30 and data.loads_per_use == 30 / 32
    assert data.reuse_text().splitlines() == [
        "per block without BLS: 16 iterations x 2 reads = 32 loads of a",
        "with BLS: 30 loads (the pass fills the whole 5 x 6 buffer, 26 cells of it read)",
        "2 loads saved per block, reuse 1.07 (32 / 30)",
    ]
    assert "32 reads -> 30 buffer loads per block (reuse 1.07)" in data.describe()


def _blocked(shape, block, names="ab"):
    fields = [ti.field(ti.f32, name=n) for n in names]
    axes = ti.ij if len(shape) == 2 else ti.i
    ti.root.pointer(axes, [n // block for n in shape]).dense(axes, block).place(*fields)
    return fields


def _five_point():
    a, b = _blocked((32, 32), 8)

    @ti.kernel
    def five():
        ti.block_local(a)
        for i, j in b:
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]

    return five


def _three_point():
    a, b = _blocked((64,), 16)

    @ti.kernel
    def three():
        ti.block_local(a)
        for i in b:
            b[i] = a[i - 1] + a[i] + a[i + 1]

    return three


def _same_offset_twice():
    a, b = _blocked((32,), 8)

    @ti.kernel
    def square():
        ti.block_local(a)
        for i in b:
            b[i] = a[i] * a[i]

    return square


def _far_apart():
    a, b = _blocked((16, 16), 4)

    @ti.kernel
    def apart():
        ti.block_local(a)
        for i, j in b:
            b[i, j] = a[i - 3, j] + a[i + 3, j]

    return apart


@pytest.mark.parametrize(
    ("build", "offsets", "reads", "loads", "cells_read"),
    [
        # 8x8 block, 5 reads each: 320; a 10 x 10 box; the box's 4 corners go unread
        (_five_point, [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)], 64 * 5, 100, 96),
        # block 16, 3 reads each: 48; the box [I - 1, I + 17): 18 cells
        (_three_point, [(-1,), (0,), (1,)], 16 * 3, 18, 18),
        # a[i] twice: 2 reads per iteration (repeats count), one offset, no halo
        (_same_offset_twice, [(0,)], 8 * 2, 8, 8),
        # 2 reads 6 rows apart: a 10 x 4 box for 32 reads, rows 1 and 2 of it unread
        (_far_apart, [(-3, 0), (3, 0)], 16 * 2, 40, 32),
    ],
)
def test_reuse_figures_of_other_stencils(build, offsets, reads, loads, cells_read):
    (data,) = bls_data(build(), block=1)
    assert data.offsets() == offsets and list(data.entry.offsets) == offsets
    assert data.global_reads == reads and data.buffer_loads == loads
    assert data.loads_saved == reads - loads and data.reuse == reads / loads
    assert data.cells_read == cells_read
    outcome = data.reuse_text().splitlines()[-1]
    if reads >= loads:
        assert outcome.startswith(f"{reads - loads} loads saved per block")
    else:
        assert outcome.startswith(f"BLS adds {loads - reads} loads per block")


def test_readers_of_a_one_d_stencil_are_exact():
    (data,) = bls_data(_three_point(), block=1)  # corner 16, buffer origin -1
    assert data.readers((0,)) == [(16,)]  # a[15]: only i = 16 reads i - 1
    assert data.readers((1,)) == [(16,), (17,)]
    assert data.readers((5,)) == [(19,), (20,), (21,)]
    assert data.readers((17,)) == [(31,)]


def test_an_accumulated_field_counts_atomic_adds():
    a, b = _blocked((16, 16), 4)

    @ti.kernel
    def scatter():
        ti.block_local(b)
        for i, j in a:
            b[i + 1, j] += a[i, j]
            b[i - 1, j] += 0.5 * a[i, j]
            ti.atomic_add(b[i, j - 2], a[i, j])

    (data,) = bls_data(scatter, block=5)
    assert data.entry.mode == "accumulate" and data.buffer_shape == (6, 6)
    assert data.offsets() == [(-1, 0), (0, -2), (1, 0)]
    # 16 iterations x 3 adds; the write-back adds at most the 36 buffer cells
    assert (data.global_reads, data.buffer_loads, data.loads_saved) == (48, 36, 12)
    lines = data.reuse_text().splitlines()
    assert lines[0] == "per block without BLS: 16 iterations x 3 atomic adds = 48 adds of b"
    assert lines[2] == "12 adds saved per block, reuse 1.33 (48 / 36)"


N, BLOCK = 16, 4
BOX = [(di, dj) for di in (-1, 0, 1) for dj in (0, 1)]  # every offset of the box


def _stencil(run=True):
    """A kernel reading every offset of the box, each with its own weight."""
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    ti.root.pointer(ti.ij, N // BLOCK).dense(ti.ij, BLOCK).place(a, b)

    @ti.kernel
    def fill(src: ti.types.ndarray()):
        for i, j in ti.ndrange(N, N):
            a[i, j] = src[i, j]

    @ti.kernel
    def stencil():
        ti.block_local(a)
        for i, j in b:
            b[i, j] = (
                1 * a[i - 1, j]
                + 10 * a[i - 1, j + 1]
                + 100 * a[i, j]
                + 1000 * a[i, j + 1]
                + 10000 * a[i + 1, j]
                + 100000 * a[i + 1, j + 1]
            )

    values = np.random.default_rng(7).integers(1, 10, (N, N)).astype(np.float32)
    if run:  # with BLS on (borders read the buffer's zeros, not the field)
        fill(values)
        stencil()
    return stencil, values, b.to_numpy(), {o: 10.0**n for n, o in enumerate(BOX)}


@pytest.mark.parametrize("block", [0, 5, 15, (2, 1)])  # corners, borders and the inside
def test_the_cells_the_view_maps_are_what_the_kernel_read(block):
    stencil, values, result, weight = _stencil()
    (data,) = bls_data(stencil, block=block)
    assert data.buffer_shape == (BLOCK + 2, BLOCK + 1)
    assert data.offsets() == sorted(BOX)  # every offset of the box is read
    expected = {}
    for u in np.ndindex(*data.buffer_shape):
        g = data.global_of(u)
        held = values[g] if data.inside[u] else 0.0  # the pass fills 0 outside the field
        if not data.inside[u]:
            assert not all(0 <= x < N for x in g)
        for it in data.readers(u):
            offset = (g[0] - it[0], g[1] - it[1])
            expected[it] = expected.get(it, 0.0) + weight[offset] * held
    assert len(expected) == BLOCK * BLOCK  # every iteration of the block reads the buffer
    for it, value in expected.items():
        assert result[it] == pytest.approx(value, rel=1e-6), it


def test_picking_a_cell_lists_its_global_index_and_readers():
    stencil, *_ = _stencil()
    view = bls(stencil, block=5)  # corner (4, 4); buffer origin (-1, 0)
    assert isinstance(view, BlsView) and view.buffers is None
    assert [box.max for box in view.cell[:2]] == [5, 4]
    assert len(view._boxes.children) == 2
    before = view.picture.value
    view.cell[0].value, view.cell[1].value = 0, 0
    assert view.info.value == "buffer[0, 0] = a[3, 4]; read by 1 iteration: [4, 4]"
    view.cell[0].value, view.cell[1].value = 2, 1
    readers = view.data.readers((2, 1))
    assert readers == [(4, 4), (4, 5), (5, 4), (5, 5), (6, 4), (6, 5)]
    assert view.info.value.startswith("buffer[2, 1] = a[5, 5]; read by 6 iterations: [4, 4]")
    assert view.picture.value != before and view.picture.value.startswith("<svg")


def test_a_dropdown_chooses_between_cached_fields():
    a, c, b = (ti.field(ti.f32, name=n) for n in "acb")
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(a, c, b)

    @ti.kernel
    def two():
        ti.block_local(a, c)
        for i, j in b:
            b[i, j] = a[i - 1, j] + c[i, j] + c[i, j + 2]

    view = bls(two)
    assert [label for label, _ in view.buffers.options] == ["a (read)", "c (read)"]
    # one offset (-1, 0): the range is the block moved up, no wider
    assert view.data.buffer_shape == (4, 4) and view.data.offsets() == [(-1, 0)]
    view.cell[1].value = 3
    view.buffers.value = 1
    assert view.data.field == "c" and view.data.buffer_shape == (4, 6)
    assert [box.max for box in view.cell[:2]] == [3, 5] and view.cell[1].value == 3
    # c is read at offsets (0, 0) and (0, 2) only: c[0, 3] is read by [0, 1] and [0, 3]
    assert view.data.offsets() == [(0, 0), (0, 2)]
    expected = "buffer[0, 3] = c[0, 3]; read by 2 iterations: [0, 1], [0, 3]"
    assert view.info.value == expected
    assert view.data.global_reads == 32 and view.data.buffer_loads == 24


def test_index_inputs_show_their_name_and_value():
    stencil, *_ = _stencil()
    view = bls(stencil)
    for a, box in enumerate(view._boxes.children):
        assert box.description == f"u{a}"
        assert box.style.description_width == "initial"  # not cut to "("
        assert box.layout.width == "8em"


def test_picture_is_svg_with_labelled_axes_and_a_caption_that_fits(bls_page):
    foo, _ = _page_kernel(bls_page)
    view = bls(foo, block=(1, 1))
    assert view.picture.value.startswith("<svg") and "</svg>" in view.picture.value
    fig = view.figure()
    global_axes, buffer_axes = fig.axes
    assert (global_axes.get_ylabel(), global_axes.get_xlabel()) == ("i", "j")
    assert (buffer_axes.get_ylabel(), buffer_axes.get_xlabel()) == ("u0", "u1")
    (caption,) = fig.texts
    assert caption.get_text().startswith("buffer[u0, u1] = a[I - 1 + u0, J + u1]")
    assert "offsets read: [-1, 0], [0, 2]" in caption.get_text()
    fig.canvas.draw()
    extent = caption.get_window_extent()
    assert extent.x0 >= 0 and extent.x1 <= fig.bbox.width and extent.y0 >= 0
    one_d = bls_figure(_three_point(), cell=(3,))
    assert one_d.axes[0].get_xlabel() == "i" and one_d.axes[1].get_xlabel() == "u0"
    one_d.canvas.draw()
    assert one_d.texts[0].get_window_extent().x1 <= one_d.bbox.width


def test_svg_is_deterministic_and_the_bundle_carries_it():
    stencil, *_ = _stencil()
    view = bls(stencil)
    bundle = view._repr_mimebundle_()
    assert WIDGET_VIEW in bundle
    assert bundle["image/svg+xml"] == view.svg() == bls(stencil).svg()
    assert bundle["image/svg+xml"].startswith("<?xml")
    assert bundle["text/plain"].startswith("<ti_notebook.widgets.bls: stencil: a (read)")
    fig = bls_figure(stencil, block=5, cell=(2, 1))
    assert "buffer[u0, u1] = a[I - 1 + u0, J + u1]" in fig.texts[0].get_text()
    assert fig.axes[1].get_title() == "buffer of a: 6 x 5 (120 bytes)"


def test_a_kernel_without_block_local_is_a_clear_error():
    x = ti.field(ti.f32, shape=(8, 8), name="x")

    @ti.kernel
    def plain():
        for i, j in x:
            x[i, j] += 1

    with pytest.raises(ti.errors.TiValueError) as info:
        bls(plain)
    assert "kernel 'plain' caches no field in block-local storage" in str(info.value)
    assert "ti.block_local(a)" in info.value.hint
    with pytest.raises(ti.errors.TiTypeError):
        bls(lambda: None)


def test_with_block_local_off_the_view_says_so():
    ti.init(arch=ti.cpu, make_block_local=False)
    stencil, *_ = _stencil(run=False)  # compiled only: the borders read outside ``a``
    with pytest.raises(ti.errors.TiValueError, match="caches no field"):
        bls(stencil)


def test_bad_block_or_cell_is_an_error():
    stencil, *_ = _stencil()
    with pytest.raises(ti.errors.TiValueError, match="block 16 is not in"):
        bls(stencil, block=16)
    with pytest.raises(ti.errors.TiValueError, match="not in the block grid"):
        bls(stencil, block=(4, 0))
    with pytest.raises(ti.errors.TiValueError, match="not in the \\[6, 5\\] buffer"):
        bls_data(stencil)[0].global_of((6, 0))
