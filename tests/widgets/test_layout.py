"""The layout view (``ti_notebook.widgets.layout``) shows what the memory plan says.

Addresses come from the plan for every kind of layout; the loop order is the order a
serialised struct-for really writes; the cache-line count moves the right way between
row- and column-major; the SVG is the same bytes every time; the widget's slider, field
buttons and cell boxes change what it shows; a large field is drawn as a window.
"""

import base64
import doctest
import importlib
import io
import re

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.widgets import LayoutView, layout, layout_figure
from ti_notebook.widgets.layout_data import (
    FIRST_AXIS_FASTEST,
    STRIPS,
    kernel_report,
    layout_data,
    loop_kind,
)
from ti_notebook.widgets.render import png_bytes, svg_text

pytestmark = pytest.mark.cpu

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _row_major():
    x = ti.field(ti.f32, name="x")
    ti.root.dense(ti.ij, (5, 7)).place(x)
    return [x]


def _column_major():
    x = ti.field(ti.f32, name="x")
    ti.root.dense(ti.j, 7).dense(ti.i, 5).place(x)
    return [x]


def _aos():
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f64, name="b")
    ti.root.dense(ti.i, 20).place(a, b)
    return [a, b]


def _soa():
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f64, name="b")
    ti.root.dense(ti.i, 20).place(a)
    ti.root.dense(ti.i, 20).place(b)
    return [a, b]


def _blocked():
    x = ti.field(ti.f32, name="x")
    ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (8, 8)).place(x)
    return [x]


def _one_d():
    x = ti.field(ti.i32, name="x")
    ti.root.dense(ti.i, 37).place(x)
    return [x]


def _three_d():
    x = ti.field(ti.f32, name="x")
    ti.root.dense(ti.ijk, (3, 4, 5)).place(x)
    return [x]


def _pointer_dense():
    x = ti.field(ti.f32, name="x")
    ti.root.pointer(ti.ij, (3, 2)).dense(ti.ij, (4, 4)).place(x)
    return [x]


LAYOUTS = [
    _row_major,
    _column_major,
    _aos,
    _soa,
    _blocked,
    _one_d,
    _three_d,
    _pointer_dense,
]
WHOLE = 64  # a window wide enough to hold each of the layouts above whole


@pytest.mark.parametrize("build", LAYOUTS, ids=lambda f: f.__name__.strip("_"))
def test_cell_addresses_are_the_plans(build):
    fields = build()
    for field in fields:
        plan = field.layout()
        data = layout_data(field, together=fields, window=WHOLE)
        assert data.window == plan.shape and not data.is_windowed
        np.testing.assert_array_equal(data.addresses, plan.addresses())
        np.testing.assert_array_equal(data.cache_lines, plan.addresses() // 64)
        # memory order: ranks 0..n-1, increasing with the address
        ranks = data.order.reshape(-1)
        assert sorted(ranks.tolist()) == list(range(ranks.size))
        assert np.all(np.diff(data.addresses.reshape(-1)[np.argsort(ranks)]) > 0)
        last = tuple(n - 1 for n in plan.shape)
        for index in [(0,) * len(plan.shape), last]:
            assert data.cell(index)["address"] == plan.address(index)


def test_blocks_are_outlined_for_nested_layouts_only():
    assert layout_data(_blocked()[0]).blocks == ((8, 8),)
    assert layout_data(_pointer_dense()[0]).blocks == ((4, 4),)
    assert layout_data(_row_major()[0]).blocks == ()
    assert layout_data(_column_major()[0]).blocks == ()  # columns are not blocks


def test_byte_strip_interleaves_fields_placed_together_only():
    a, b = _aos()
    strip = layout_data(a, together=[a, b]).byte_strip
    assert [(s.start, s.field, s.index) for s in strip[:4]] == [
        (0, "a", (0,)),
        (8, "b", (0,)),  # f64 after the f32, aligned to 8 bytes
        (16, "a", (1,)),
        (24, "b", (1,)),
    ]
    for s in strip:
        plan = (a if s.field == "a" else b).layout()
        assert s.start == plan.address(s.index) - a.layout().address((0,))
    a, b = _soa()
    strip = layout_data(a, together=[a, b]).byte_strip
    assert {s.field for s in strip} == {"a"}
    assert [s.start for s in strip] == list(range(0, 64, 4))


@pytest.mark.parametrize(
    "build",
    [_row_major, _column_major, _blocked, _one_d, _three_d, _pointer_dense],
    ids=lambda f: f.__name__.strip("_"),
)
def test_visit_order_is_what_a_serialised_struct_for_writes(build, serialised_visit_order):
    (x,) = build()
    activate = None
    if x.layout().is_sparse:

        @ti.kernel
        def fill():
            for i, j in ti.ndrange(12, 8):  # the pointer/dense field's shape
                x[i, j] = -1  # activates every cell, so the loop visits them all

        activate = fill
    written, kernel = serialised_visit_order(x, activate)
    for loop in ("struct-for", kernel):
        data = layout_data(x, loop, window=WHOLE)
        assert data.loop == "struct-for"
        np.testing.assert_array_equal(data.visit, written)
        # each drawn cell's visit position agrees with the recorded order
        assert data.visit_rank[tuple(written.T)].tolist() == list(range(len(written)))


def test_a_kernel_without_a_struct_for_over_the_field_means_ndrange():
    (x,) = _column_major()
    other = ti.field(ti.f32, shape=4, name="other")

    @ti.kernel
    def sweep():
        for i, j in ti.ndrange(5, 7):
            x[i, j] = 1.0
        for i in other:
            other[i] = 2.0

    assert loop_kind(x, sweep) == "ndrange"
    assert loop_kind(other, sweep) == "struct-for"
    data = layout_data(x, sweep)
    assert data.visit.tolist() == [list(index) for index in np.ndindex(5, 7)]


def test_ndrange_over_a_column_major_field_touches_more_cache_lines():
    n = 64
    row, column = ti.field(ti.f32, name="row"), ti.field(ti.f32, name="column")
    ti.root.dense(ti.ij, (n, n)).place(row)
    ti.root.dense(ti.j, n).dense(ti.i, n).place(column)
    steps = 32
    by_rows = layout_data(row, "ndrange").lines_touched(steps)
    by_columns = layout_data(column, "ndrange").lines_touched(steps)
    assert by_rows == steps * 4 // 64  # 32 consecutive f32: two lines
    assert by_columns == steps  # every step jumps a 256-byte column
    assert by_columns > by_rows
    # a struct-for follows memory, so the column-major field is cheap again
    assert layout_data(column, "struct-for").lines_touched(steps) == by_rows


def test_svg_is_the_same_bytes_twice():
    fields = _aos()
    first = svg_text(layout_figure(*fields, loop="struct-for", iterations=7))
    second = svg_text(layout_figure(*fields, loop="struct-for", iterations=7))
    assert first.startswith("<?xml") and "<svg" in first
    assert first.encode() == second.encode()
    assert "Date" not in first.split("</metadata>")[0].split("<metadata>")[-1]
    third = svg_text(layout_figure(*fields, loop="struct-for", iterations=8))
    assert third != first  # the picture does depend on what it shows


@pytest.mark.parametrize(
    "shape, window", [((20,), 20), ((5, 7), 35), ((3, 4, 5), 60), ((100, 200), 32 * 32)]
)
def test_the_live_svg_has_a_cell_element_per_drawn_cell(shape, window):
    x = ti.field(ti.f32, shape=shape, name="x")
    svg = layout(x, loop="ndrange").svg()
    assert svg.count('class="ti-cell"') == window
    assert svg == layout(x, loop="ndrange").svg()  # deterministic


def test_the_svg_hover_texts_are_the_plans_addresses():
    a, b = _aos()
    data = layout_data(a, "struct-for", together=[a, b])
    svg = layout(a, b, loop="struct-for").svg()
    hovers = re.findall(r'class="ti-cell"[^>]*><title>([^<]*)</title>', svg)
    assert len(hovers) == data.addresses.size
    for (index, address), hover in zip(np.ndenumerate(data.addresses), hovers, strict=True):
        assert hover.startswith(f"{data.name}{list(index)}: byte {address}, cache line ")
    assert "iteration 0" in hovers[0]


def test_the_mime_bundle_has_the_widget_the_svg_and_text():
    (x,) = _blocked()
    view = layout(x, loop="struct-for")
    assert isinstance(view, LayoutView)
    bundle = view._repr_mimebundle_()
    assert WIDGET_VIEW in bundle
    assert bundle[WIDGET_VIEW]["model_id"] == view.widget.model_id
    assert bundle["image/svg+xml"].startswith("<svg") and bundle["image/svg+xml"] == view.svg()
    assert view.picture.value == view.svg()  # the live view shows the same SVG
    assert "x: f32[16, 24]" in bundle["text/plain"]
    # JupyterLab's fallback where the widget's model is gone or the notebook untrusted
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")


def test_the_slider_changes_the_highlighted_cells_and_the_count():
    (x,) = _row_major()  # 5x7 f32, 28 bytes a row
    view = layout(x, loop="ndrange")
    view.slider.value = 5
    picture = view.picture.value
    assert view.highlighted() == 5
    assert view.count.value == "5 iterations touched 1 cache line"
    view.slider.value = 20
    assert view.highlighted() == 20
    assert view.count.value == "20 iterations touched 2 cache lines"
    assert view.picture.value != picture
    assert view.slider.max == 35


def test_field_buttons_and_cell_boxes():
    a, b = _aos()
    view = layout(a, b, loop="struct-for")
    assert view.fields.options == (("a (0)", 0), ("b (1)", 1))
    view.cell[0].value = 3
    assert view.info.value == f"a[3]: byte {a.layout().address((3,))}, cache line 0, iteration 3"
    view.fields.value = 1
    assert view.data.name == "b"
    view.cell[0].value = 5
    address = b.layout().address((5,))
    assert view.info.value == f"b[5]: byte {address}, cache line {address // 64}, iteration 5"


def test_a_large_field_draws_a_window_and_states_the_full_shape():
    big = ti.field(ti.f32, shape=(1000, 1000), name="big")
    data = layout_data(big, "ndrange", corner=(990, 100))
    assert data.shape == (1000, 1000) and data.window == (32, 32)
    assert data.corner == (968, 100)  # moved in so the window fits
    np.testing.assert_array_equal(data.addresses, big.layout().addresses()[968:, 100:132])
    fig = layout_figure(big, loop="ndrange", corner=(990, 100))
    assert "big: f32[1000, 1000], showing [968:1000, 100:132]" in fig.texts[0].get_text()
    assert data.lines_touched(1000) == 63  # 4000 contiguous bytes from byte 0


def test_bad_arguments_are_clear_errors():
    (x,) = _row_major()
    with pytest.raises(ti.errors.TiValueError, match="not a loop order"):
        layout(x, loop="diagonal")
    with pytest.raises(ti.errors.TiTypeError, match="neither a loop order nor a kernel"):
        layout(x, loop=3)
    with pytest.raises(ti.errors.TiValueError, match="outside the field"):
        layout_data(x).cell((5, 0))
    with pytest.raises(ti.errors.TiValueError, match="needs a field"):
        layout()


@pytest.mark.parametrize("name", ["", ".layout_data", ".layout_draw", ".layout_view"])
def test_docstring_examples(name):
    # tests/test_docstrings.py walks ti_notebook/ only; the widgets live in widgets/
    module = importlib.import_module("ti_notebook.widgets" + name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_huge_field_follows_the_loops_first_iterations_only():
    from ti_notebook.widgets.layout_data import VISIT_LIMIT

    big = ti.field(ti.f32, shape=(2048, 2048), name="big")
    view = layout(big, loop="ndrange")
    assert view.slider.max == len(view.data.visit) == VISIT_LIMIT
    assert view.data.visit[-1].tolist() == [VISIT_LIMIT // 2048 - 1, 2047]
    view.slider.value = VISIT_LIMIT
    assert view.count.value == f"{VISIT_LIMIT} iterations touched {VISIT_LIMIT // 16} cache lines"
    assert f"of the first {VISIT_LIMIT:,} the view follows" in view.svg()


def test_svgs_use_the_themes_colours_not_black_on_white():
    # matplotlib's SVG: text stays <text>, none of it or the axes hard-coded black, no
    # white background; the layout's own SVG: its captions in the theme's colour
    svg = svg_text(layout_figure(*_aos(), loop="struct-for", iterations=3))
    assert "#000000" not in svg and "<text" in svg and "currentColor" in svg
    assert "fill: #ffffff" not in re.sub(r"<text[^>]*>", "", svg)  # white labels only
    assert 'class="ti-figure"' in svg and "text{fill:currentColor}" in svg
    live = layout(*_aos(), loop="struct-for").svg()
    captions = re.findall(r'<text x="0"[^>]*>', live)
    assert captions and all('fill="currentColor"' in c for c in captions)
    assert "#444" not in live and "#eeeeee" not in live


def test_the_png_is_transparent_and_has_no_black_ink():
    from PIL import Image

    image = Image.open(io.BytesIO(png_bytes(layout_figure(*_row_major())))).convert("RGBA")
    pixels = np.asarray(image)
    assert pixels[0, 0, 3] == 0 and pixels[-1, -1, 3] == 0  # transparent corners
    opaque = pixels[pixels[..., 3] > 128][:, :3]
    neutral_dark = (opaque.max(axis=1) <= 0x55) & (np.ptp(opaque, axis=1) <= 8)
    assert not neutral_dark.any()  # text and axes are mid-grey, not black


def test_the_layout_follows_the_interchanged_order_the_report_records():
    n = 1024
    rows, cols = ti.field(ti.f32, name="rows"), ti.field(ti.f32, name="cols")
    ti.root.dense(ti.i, n).dense(ti.j, n).place(rows)
    ti.root.dense(ti.j, n).dense(ti.i, n).place(cols)

    @ti.kernel
    def by_rows(a: ti.template()):
        for i in range(n):  # a row loop: over cols, run as strips with the loops swapped
            for j in range(n):
                a[i, j] += 1

    @ti.kernel
    def flat(a: ti.template()):
        for i, j in ti.ndrange(n, n):  # over cols: the flat index splits i fastest
            a[i, j] += 1

    by_rows(rows), by_rows(cols), flat(cols)
    (strips,) = [t.interchange for t in kernel_report(by_rows, cols).tasks if t.interchange]
    assert strips[0] == "strips" and [t.interchange for t in by_rows.report.tasks]
    assert all(t.interchange is None for t in kernel_report(by_rows, rows).tasks)
    data = layout_data(cols, loop=by_rows)
    assert data.loop == STRIPS.format(n=strips[1])
    # a strip's rows at j = 0, then the same rows at j = 1: the memory order of cols
    assert data.visit[:3].tolist() == [[0, 0], [1, 0], [2, 0]]
    assert data.visit[strips[1]].tolist() == [0, 1]
    assert data.lines_touched(16) == 1
    assert layout_data(rows, loop=by_rows).loop == "ndrange"  # not interchanged there
    assert layout_data(rows, loop=by_rows).lines_touched(16) == 1
    assert [t.interchange for t in kernel_report(flat, cols).tasks][-1] == ("axes",)
    assert layout_data(cols, loop=flat).loop == FIRST_AXIS_FASTEST
    assert layout_data(cols, loop=flat).visit[:2].tolist() == [[0, 0], [1, 0]]
    assert "as compiled" in layout(cols, loop=flat).svg()  # the caption says so


def test_vector_matrix_and_struct_fields_are_drawn_per_component():
    v = ti.Vector.field(3, ti.f32, shape=(4, 4), name="v")
    m = ti.Matrix.field(2, 2, ti.f32, shape=8, name="m")
    s = ti.Struct.field({"a": ti.f32, "b": ti.i32}, shape=8, name="s")
    for field, names in ((v, ["v[0]", "v[1]", "v[2]"]), (s, ["s.a", "s.b"])):
        view = layout(field)
        assert [label.split(" (")[0] for label, _ in view.fields.options] == names
    view = layout(m)
    assert len(view.fields.options) == 4
    # the components of one vector field interleave: the byte strip shows all three
    assert {slot.field for slot in layout(v).data.byte_strip} == {"v[0]", "v[1]", "v[2]"}
