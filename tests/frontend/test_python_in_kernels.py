"""Python that Taichi accepts in kernels: comprehensions and ``*args``/``**kwargs``,
and the errors of their misuse (line, caret, hint). Builtins are in
test_kernel_builtins.py.

Values are computed by hand or with NumPy; Taichi 1.7's behaviour is the reference
where it has one (comprehensions unrolled at compile time, ``*`` of a matrix row by
row, ``len(m)`` its rows).
"""

import numpy as np
import pytest

import ti_notebook as ti
from tests.frontend.error_points import raises_at
from ti_notebook.errors import TiIndexError, TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


# -- comprehensions ---------------------------------------------------------------------
def test_list_comprehension_over_static_and_plain_ranges():
    x = ti.field(ti.f32, shape=5)
    x.from_numpy(np.array([1.5, 2.0, -3.0, 4.0, 8.0], np.float32))

    @ti.kernel
    def build() -> ti.f32:
        a = ti.Vector([x[i] * 2 for i in ti.static(range(3))])
        b = ti.Vector([x[i] for i in range(1, 5) if i % 2 == 0])  # x[2], x[4]
        return a[0] * 100 + a[1] * 10 + a[2] + b[0] * 1000 + b[1] * 10000

    assert build() == pytest.approx(3.0 * 100 + 4.0 * 10 - 6.0 - 3000.0 + 80000.0)


def test_nested_comprehension_builds_a_matrix():
    out = ti.Matrix.field(3, 3, ti.f32, shape=())

    @ti.kernel
    def outer(a: ti.f32):
        out[None] = ti.Matrix([[a * r + c for c in range(3)] for r in range(3)])

    outer(2.0)
    expected = 2.0 * np.arange(3)[:, None] + np.arange(3)[None, :]
    np.testing.assert_allclose(out.to_numpy(), expected)


def test_comprehension_with_two_for_clauses_and_unpacking():
    @ti.kernel
    def pairs() -> ti.i32:
        flat = [i * 10 + j for i in range(3) for j in range(i)]  # 10, 20, 21
        tagged = [k * v for k, v in ((1, 5), (2, 7))]  # 5, 14
        return sum(flat) * 100 + sum(tagged)

    assert pairs() == (10 + 20 + 21) * 100 + 5 + 14


def test_comprehension_over_a_kernel_vector_and_matrix_rows():
    @ti.kernel
    def squares(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, 2 * a, 3 * a])
        w = ti.Vector([c * c for c in v])
        m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        row_sums = [row.sum() for row in m]  # Taichi iterates a matrix by rows
        return w.sum() + row_sums[0] * 100 + row_sums[1] * 1000

    assert squares(2.0) == pytest.approx(4 + 16 + 36 + 300 + 7000)


def test_comprehension_of_random_values_draws_each_one():
    """mpm3d's ti.Vector([ti.random() for i in range(dim)]): three draws, not one."""
    out = ti.Vector.field(3, ti.f32, shape=64)

    @ti.kernel
    def fill():
        for i in out:
            out[i] = ti.Vector([ti.random() for _ in range(3)])

    fill()
    values = out.to_numpy()
    assert ((values >= 0) & (values < 1)).all()
    assert not np.allclose(values[:, 0], values[:, 1])


def test_comprehension_variables_do_not_leak_and_shadow_nothing():
    @ti.kernel
    def scoped() -> ti.i32:
        i = 100
        total = sum([i for i in range(4)])
        return total + i

    assert scoped() == 6 + 100


def test_generator_and_dict_comprehensions():
    @ti.func
    def weighted(a, b, scale):
        return (a + 2 * b) * scale

    @ti.kernel
    def use(p: ti.i32) -> ti.i32:
        total = sum(p * k for k in range(4))
        kw = {name: k + 1 for k, name in enumerate(("a", "b"))}
        return total * 100 + weighted(**kw, scale=p)

    assert use(3) == 3 * 6 * 100 + (1 + 4) * 3


def test_comprehension_in_a_ti_func():
    @ti.func
    def norms(m):
        return ti.Vector([m[r, 0] * m[r, 0] + m[r, 1] * m[r, 1] for r in ti.static(range(2))])

    @ti.kernel
    def run() -> ti.f32:
        v = norms(ti.Matrix([[1.0, 2.0], [3.0, 4.0]]))
        return v[0] * 100 + v[1]

    assert run() == pytest.approx(5 * 100 + 25)


# -- *args and **kwargs -------------------------------------------------------------------
def test_ndrange_of_an_unpacked_shape():
    shape = (3, 4)
    grid = ti.field(ti.i32, shape=shape)

    @ti.kernel
    def fill() -> ti.i32:
        n = 0
        for i, j in ti.ndrange(*shape):
            grid[i, j] = i * 10 + j
            n += 1
        for I in ti.grouped(ti.ndrange(*[(1, 2)] * 2)):  # noqa: E741
            n += I[0] * 100 + I[1] * 1000
        return n

    assert fill() == 12 + 100 + 1000
    np.testing.assert_array_equal(grid.to_numpy(), np.add.outer(np.arange(3) * 10, np.arange(4)))


def test_static_loop_over_ndrange_of_an_unpacked_list():
    """mpm3d: for offset in ti.static(ti.grouped(ti.ndrange(*neighbour)))."""
    neighbour = (3,) * 2

    @ti.kernel
    def count() -> ti.i32:
        s = 0
        for offset in ti.static(ti.grouped(ti.ndrange(*neighbour))):
            s += offset[0] * 10 + offset[1]
        return s

    assert count() == sum(i * 10 + j for i in range(3) for j in range(3))


def test_func_called_with_unpacked_tuple_vector_matrix_and_dict():
    @ti.func
    def combine(a, b, c, d=0, scale=1):
        return (a * 1000 + b * 100 + c * 10 + d) * scale

    t = (1, 2)
    options = {"scale": 2}

    @ti.kernel
    def run() -> ti.i32:
        v = ti.Vector([3, 4, 5])
        m = ti.Matrix([[1, 2], [3, 4]])
        return combine(*t, 3) + combine(*v) + combine(*m, **options)

    assert run() == 1230 + 3450 + 1234 * 2


def test_unpacking_into_displays_and_builtins():
    @ti.kernel
    def run(a: ti.i32) -> ti.i32:
        v = ti.Vector([a, a + 1])
        w = ti.Vector([*v, 7, *(8, 9)])
        return len(w) * 1000 + max(*w) * 10 + min(*v, 100)

    assert run(5) == 5 * 1000 + 9 * 10 + 5


# -- misuse ------------------------------------------------------------------------------
def test_comprehension_over_a_runtime_range_names_the_bound():
    @ti.kernel
    def bad(n: ti.i32) -> ti.i32:
        return sum([i for i in range(n)])

    err = raises_at(TiSyntaxError, bad, "for i in range(n)", 3, under="n")
    assert "compile time" in str(err) and "ti.template()" in str(err)


def test_comprehension_over_a_field_or_a_scalar_is_refused():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def over_field() -> ti.f32:
        return sum([v for v in x])

    @ti.kernel
    def over_scalar(a: ti.f32) -> ti.f32:
        return sum([v for v in a])

    raises_at(TiSyntaxError, over_field, "for v in x", under="x", match="field")
    raises_at(TiTypeError, over_scalar, "for v in a", 1.0, under="a", match="single kernel")


def test_comprehension_filter_on_a_kernel_value_is_refused():
    @ti.kernel
    def bad(a: ti.i32) -> ti.i32:
        return sum([k for k in range(4) if k < a])

    raises_at(TiSyntaxError, bad, "if k < a", 2, under="k < a", match="'if'")


def test_unpacking_a_scalar_or_a_non_dict_is_refused():
    @ti.func
    def two(a, b):
        return a + b

    @ti.kernel
    def star_scalar(a: ti.i32) -> ti.i32:
        return two(*a)

    @ti.kernel
    def star_star_tuple() -> ti.i32:
        return two(1, **(2,))

    raises_at(TiTypeError, star_scalar, "two(*a)", 1, under="*a", match="single number")
    raises_at(TiTypeError, star_star_tuple, "**(2,)", under="(2,)", match="dict")


def test_a_captured_dict_is_read_at_compile_time():
    params = {"shape": [4, 2], "dt": 0.5}

    @ti.kernel
    def area() -> ti.f32:
        return params["shape"][0] * params["shape"][1] * params["dt"]

    assert area() == 4.0

    @ti.kernel
    def missing() -> ti.f32:
        return params["dx"]

    with pytest.raises(TiIndexError, match="'params' has no key 'dx'"):
        missing()
