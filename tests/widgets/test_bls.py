"""The BLS view (``ti_notebook.widgets.bls``) shows what the compiled kernel does.

The page's example gives its 5x6 buffer and a mapping equal to the report's
``to_global``; the global cells the view says the buffer holds are the ones the kernel
really read (a stencil over every offset of the box, checked per iteration against the
field's values, 0 outside the field); picking a cell lists the iterations that read it;
the SVG is the same bytes every time; a kernel without ``ti.block_local`` is an error.
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


def test_page_example_readers_contain_the_two_real_accesses(bls_page):
    foo, _ = _page_kernel(bls_page)
    (data,) = bls_data(foo, block=33)  # corner (4, 4)
    assert data.offset_box == ((-1, 0), (0, 2))
    for i, j in np.ndindex(4, 4):
        it = (4 + i, 4 + j)
        for di, dj in ((-1, 0), (0, 2)):  # a[i - 1, j] and a[i, j + 2]
            u = (it[0] + di - 3, it[1] + dj - 4)  # minus corner + origin (-1, 0)
            assert data.global_of(u) == (it[0] + di, it[1] + dj)
            assert it in data.readers(u)
    assert data.readers((0, 0)) == [(4, 4)]
    assert data.readers((4, 5)) == [(7, 7)]
    assert data.loads_per_use == 30 / 16
    assert data.loads_saved == 6 * 16 - 30


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
    assert sorted(data.offsets()) == sorted(BOX)  # the box is exact for this kernel
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
    before = view.image.value
    view.cell[0].value, view.cell[1].value = 0, 0
    assert view.info.value == "buffer[0, 0] = a[3, 4]; read by 1 iteration: [4, 4]"
    view.cell[0].value, view.cell[1].value = 2, 1
    readers = view.data.readers((2, 1))
    assert readers == [(4, 4), (4, 5), (5, 4), (5, 5), (6, 4), (6, 5)]
    assert view.info.value.startswith("buffer[2, 1] = a[5, 5]; read by 6 iterations: [4, 4]")
    assert view.image.value != before and view.image.value[:4] == b"\x89PNG"


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
    # c is read at offsets (0, 0) and (0, 2); the report keeps only their box, so the
    # view also lists [0, 2] (offset (0, 1)): "may read", the documented rule
    assert view.data.offsets() == [(0, 0), (0, 1), (0, 2)]
    expected = "buffer[0, 3] = c[0, 3]; read by 3 iterations: [0, 1], [0, 2], [0, 3]"
    assert view.info.value == expected


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
