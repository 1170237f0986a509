"""A list or tuple of kernel values bound to a name holds one local per item, as in
Taichi, once the kernel assigns its items.

Observed with Taichi 1.7.4 (the same kernels with ``import taichi as ti``): ``v = [a,
b, c]`` then ``v[1], v[2] = v[2], v[1]`` under a runtime ``if`` swaps them (Taichi's
implicit_fem example orients its triangles this way); ``v[i] = ...`` with ``i`` of
``ti.static(range(n))`` writes item i; tuples' items are assignable too; a runtime
index raises ``TypeError: list indices must be integers or slices, not Expr``;
``v = [...]`` a second time is refused; ``v[0] = 2.7`` into an int item warns "Assign
may lose precision"; a ti.func's plain parameter is a copy, a ``ti.template()`` one
is the caller's list.
"""

import warnings

import pytest

import ti_notebook as ti
from tests.frontend.error_points import raises_at
from ti_notebook.errors import TiIndexError, TiPrecisionWarning, TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def _orient(lib):
    """implicit_fem's get_indices in small: items read from a field through a list
    comprehension, swapped under a runtime if, read back."""
    lib.init(arch=lib.cpu)
    quads = lib.Vector.field(4, lib.i32, shape=3)
    keys = lib.field(lib.f32, shape=8)
    out = lib.field(lib.i32, shape=(3, 3, 3))
    quads.from_numpy(__import__("numpy").array([[0, 1, 2, 3], [4, 5, 6, 7], [7, 2, 5, 0]], "int32"))
    keys.from_numpy(__import__("numpy").array([3, 1, 2, 0, 5, 7, 6, 4], "float32"))

    @lib.kernel
    def orient():
        for c in quads:
            for i in lib.static([0, 2, 3]):
                verts = [quads[c][(i + j) % 4] for j in range(3)]
                if keys[verts[1]] > keys[verts[2]]:
                    tmp = verts[1]
                    verts[1] = verts[2]
                    verts[2] = tmp
                if keys[verts[0]] > keys[verts[1]]:
                    verts[0], verts[1] = verts[1], verts[0]
                k = 0 if i == 0 else i - 1
                for j in lib.static(range(3)):
                    out[c, k, j] = verts[j]

    orient()
    return out.to_numpy().tolist()


def _items(lib):
    """Items written in a static loop, with +=, in a while loop; len, ti.static
    iteration, tuples, vector items and a float into an int item."""
    lib.init(arch=lib.cpu)
    x = lib.field(lib.i32, shape=3)
    out = lib.field(lib.f32, shape=12)
    x.from_numpy(__import__("numpy").array([4, 5, 6], "int32"))

    @lib.kernel
    def items():
        v = [0, 0, 0]
        for i in lib.static(range(3)):
            v[i] = x[i] * 2
        v[1] += 100
        s = 0
        for e in lib.static(v):
            s += e
        out[0] = s
        out[1] = len(v)
        t = (x[0], 1.5)
        t[1] *= 3
        out[2] = t[0] + t[1]
        for i in range(3):
            w = [i, i * 2]
            while w[0] < 10:
                w[0] += w[1] + 1
            out[3 + i] = w[0]
        m = [lib.Vector([1, 2]), lib.Vector([3, 4])]
        m[0] = m[1]
        m[1][0] = 9
        out[6] = m[0][0] + m[1][0] * 10
        f = [1, 2]
        f[0] = 2.7
        out[7] = f[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        items()
    return out.to_numpy().tolist()


def _through_funcs(lib):
    """A plain parameter is a copy; a template parameter is the caller's list."""
    lib.init(arch=lib.cpu)
    out = lib.field(lib.i32, shape=3)

    @lib.func
    def bump(v):
        v[0] += 100
        return v[0]

    @lib.func
    def swap01(v: lib.template()):
        v[0], v[1] = v[1], v[0]

    @lib.kernel
    def run(a: lib.i32, b: lib.i32):
        v = [a, b]
        v[0] += 1
        r = bump(v)
        swap01(v)
        out[0], out[1], out[2] = v[0], v[1], r

    run(1, 2)
    return out.to_numpy().tolist()


def test_swap_under_a_runtime_if():
    quads = [[0, 1, 2, 3], [4, 5, 6, 7], [7, 2, 5, 0]]
    keys = [3, 1, 2, 0, 5, 7, 6, 4]
    expected = []
    for quad in quads:  # the same steps in Python
        rows = []
        for i in (0, 2, 3):
            v = [quad[(i + j) % 4] for j in range(3)]
            if keys[v[1]] > keys[v[2]]:
                v[1], v[2] = v[2], v[1]
            if keys[v[0]] > keys[v[1]]:
                v[0], v[1] = v[1], v[0]
            rows.append(v)
        expected.append(rows)
    got = _orient(ti)
    assert got == expected
    assert any(
        row != [quad[(i + j) % 4] for j in range(3)]
        for quad, rows in zip(quads, got, strict=True)
        for i, row in zip((0, 2, 3), rows, strict=True)
    )


def test_items_written_and_read_back():
    got = _items(ti)
    assert got[:3] == [130.0, 3.0, 8.5]
    assert got[3:6] == [10.0, 10.0, 12.0]
    assert got[6:8] == [93.0, 2.0]


def test_float_into_an_int_item_warns():
    x = ti.field(ti.i32, shape=())

    @ti.kernel
    def run():
        f = [1, 2]
        f[0] = 2.7
        x[None] = f[0]

    with pytest.warns(TiPrecisionWarning, match="f\\[0\\]"):
        run()
    assert x[None] == 2


def test_funcs_copy_or_share_the_list():
    assert _through_funcs(ti) == [2, 2, 102]


def test_a_list_never_assigned_stays_a_compile_time_list():
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run():
        n = [2, 3]
        for i in ti.static(range(n[0])):
            x[i] = n[1]

    run()
    assert x.to_numpy().tolist() == [3, 3, 0, 0]


def test_fields_in_an_assigned_list_are_still_fields():
    a = ti.field(ti.i32, shape=2)
    b = ti.field(ti.i32, shape=2)

    @ti.kernel
    def run():
        fs = [a, b, 0]
        fs[2] = 5
        fs[1][1] = fs[2]

    run()
    assert b.to_numpy().tolist() == [0, 5]


def _runtime_index(k: ti.i32):
    v = [1, 2, 3]
    for i in range(k):
        v[i] = 0


def _out_of_range():
    v = [1, 2, 3]
    v[3] = 0


def _slice():
    v = [1, 2, 3]
    v[0:2] = 0


def _whole():
    v = [1, 2, 3]
    v[0] = 5
    v = [4, 5, 6]


def _augmented_whole():
    v = [1, 2, 3]
    v[0] = 5
    v += 1


def _field_item():
    fs = [_A, 0]
    fs[1] = 1
    fs[0] = 2


_A = ti.field(ti.i32, shape=2)


@pytest.mark.parametrize(
    ("body", "cls", "line", "under", "match"),
    [
        (_runtime_index, TiTypeError, "v[i] = 0", "i", "known only when the kernel runs"),
        (_out_of_range, TiIndexError, "v[3] = 0", "3", "index 3 out of range"),
        (_slice, TiSyntaxError, "v[0:2] = 0", "v[0:2]", "slice"),
        (_whole, TiSyntaxError, "v = [4, 5, 6]", "v", "as a whole"),
        (_augmented_whole, TiSyntaxError, "v += 1", "v", "as a whole"),
        (_field_item, TiSyntaxError, "fs[0] = 2", "fs[0]", "compile-time value"),
    ],
)
def test_errors_point_at_the_item(body, cls, line, under, match):
    kernel = ti.kernel(body)
    args = (3,) if body is _runtime_index else ()
    raises_at(cls, kernel, line, *args, under=under, match=match)


@ti.func
def _zero_first(v: ti.template()):
    v[0] = 0


def test_a_template_parameter_given_a_list_of_values_says_where_to_assign():
    @ti.kernel
    def run() -> ti.i32:
        v = [1, 2]
        _zero_first(v)
        return v[0]

    with pytest.raises(TiSyntaxError, match="Python sequence") as info:
        run()
    assert "where the list is made" in str(info.value)
    assert "v[0] = 0" in str(info.value)


@pytest.mark.taichi
def test_matches_taichi():
    taichi = pytest.importorskip("taichi")
    for case in (_orient, _items, _through_funcs):
        expected = case(taichi)
        ti.init(arch=ti.cpu)
        assert case(ti) == expected, case.__name__
