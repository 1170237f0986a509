"""Compile-time Python in kernels: ``ti.static`` conditions on any captured value
(``is None``, ``== "sum"``, ``in``, ``not``, ``and``/``or``), Python lists of fields,
``ti.static_print`` and ``ti.static_assert``, and the errors of their misuse.
"""

import numpy as np
import pytest

import ti_notebook as ti
from tests.frontend.error_points import raises_at
from ti_notebook.errors import TiAssertionError, TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


# -- static conditions on captured Python values ----------------------------------------------
def _reducer(op: str, weights=None):
    @ti.kernel
    def reduce(a: ti.f32, b: ti.f32) -> ti.f32:
        r = 0.0
        if ti.static(op == "sum"):
            r = a + b
        elif ti.static(op in ("max", "maximum")):
            r = max(a, b)
        if ti.static(weights is not None and len(weights) == 2):
            r = a * weights[0] + b * weights[1]
        return r

    return reduce


def test_static_equality_membership_and_is_on_captured_values():
    assert _reducer("sum")(2.0, 5.0) == 7.0
    assert _reducer("maximum")(2.0, 5.0) == 5.0
    assert _reducer("none")(2.0, 5.0) == 0.0
    assert _reducer("sum", (10.0, 100.0))(2.0, 5.0) == 520.0


def test_static_not_and_or_short_circuit_like_python():
    config = None
    names = ()

    @ti.kernel
    def run() -> ti.i32:
        r = 0
        if ti.static(not config):
            r += 1
        if ti.static(config is None or config.missing_attribute):  # never read
            r += 10
        if ti.static(not names and "x" not in names):
            r += 100
        return r

    assert run() == 111


def test_static_value_of_and_or_is_pythons():
    scale = None

    @ti.kernel
    def run() -> ti.f32:
        return ti.static(scale or 2.5) * ti.static(3 and 4)

    assert run() == 10.0


def test_compile_time_comparisons_of_types_and_shapes():
    x = ti.field(ti.f32, shape=(3, 4))
    y = ti.field(ti.i32, shape=5)

    @ti.kernel
    def describe(f: ti.template()) -> ti.i32:
        r = 0
        if ti.static(f.dtype == ti.f32):
            r += 1
        if ti.static(f.shape == (3, 4)):
            r += 10
        if ti.static(len(f.shape) != 2):
            r += 100
        return r

    assert describe(x) == 11
    assert describe(y) == 100


def test_chained_comparison_mixing_kernel_and_static_values():
    lo = 2

    @ti.kernel
    def inside(a: ti.i32) -> ti.i32:
        return lo <= a < 10 and ti.static(lo < 3)

    assert [inside(a) for a in (1, 2, 9, 10)] == [0, 1, 1, 0]


def test_is_on_a_kernel_value_is_refused():
    @ti.kernel
    def bad(a: ti.i32) -> ti.i32:
        return a is None

    @ti.kernel
    def bad_in(a: ti.i32) -> ti.i32:
        return a in (1, 2)

    raises_at(TiTypeError, bad, "a is None", 1, under="a is None", match="'is'")
    raises_at(TiTypeError, bad_in, "a in (1, 2)", 1, under="a in (1, 2)", match="'in'")


def test_operators_on_compile_time_sequences_are_pythons():
    n, dim = 4, 3

    @ti.kernel
    def run() -> ti.i32:
        shape = [n] * dim
        more = (1, 2) + (3,)
        return len(shape) * 100 + shape[2] * 10 + more[2] + ti.static(len("ab" * 2)) * 1000

    assert run() == 4000 + 300 + 40 + 3


def test_operators_on_a_field_keep_the_index_it_hint():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def bad() -> ti.f32:
        return x * 2

    err = raises_at(TiTypeError, bad, "x * 2", match="field 'x'")
    assert "x[i]" in str(err)


# -- Python lists of fields ------------------------------------------------------------------
def test_list_of_fields_indexed_by_constants_and_static_loops():
    levels = [ti.field(ti.f32, shape=4) for _ in range(3)]

    @ti.kernel
    def fill():
        for i in range(4):
            levels[0][i] = i
            levels[ti.static(1)][i] = 10 * i
            for k in ti.static(range(2, 3)):
                levels[k][i] = levels[k - 1][i] + levels[0][i]
            levels[2][i] += 0.5

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for f in ti.static(levels):
            for i in range(4):
                s += f[i]
        return s

    fill()
    np.testing.assert_allclose(levels[0].to_numpy(), [0, 1, 2, 3])
    np.testing.assert_allclose(levels[1].to_numpy(), [0, 10, 20, 30])
    np.testing.assert_allclose(levels[2].to_numpy(), [0.5, 11.5, 22.5, 33.5])
    assert total() == pytest.approx(6 + 60 + 68)


def test_list_of_fields_as_a_template_argument_and_an_attribute():
    class Grid:
        def __init__(self):
            self.levels = [ti.field(ti.i32, shape=2), ti.field(ti.i32, shape=2)]

    grid = Grid()

    @ti.kernel
    def through_template(fields: ti.template(), k: ti.template()):
        for i in range(2):
            fields[k][i] = k + 1

    @ti.kernel
    def through_attribute():
        for i in range(2):
            grid.levels[1][i] += 10

    through_template(grid.levels, 0)
    through_template(grid.levels, 1)
    through_attribute()
    assert list(grid.levels[0].to_numpy()) == [1, 1]
    assert list(grid.levels[1].to_numpy()) == [12, 12]


def test_list_of_fields_indexed_at_run_time_is_refused():
    levels = [ti.field(ti.f32, shape=4) for _ in range(2)]

    @ti.kernel
    def bad(k: ti.i32) -> ti.f32:
        return levels[k][0]

    raises_at(TiSyntaxError, bad, "levels[k][0]", 1, under="k", match="compile time")


# -- ti.static_print / ti.static_assert -------------------------------------------------------
def test_static_print_prints_once_per_compilation(capsys):
    dim = 3

    @ti.kernel
    def run(a: ti.f32) -> ti.f32:
        ti.static_print("dim is", dim, [dim] * 2, sep=":")
        ti.static_print("a:", a)
        return a * dim

    assert run(2.0) == 6.0
    assert run(3.0) == 9.0
    out = capsys.readouterr().out
    assert out.count("dim is:3:[3, 3]") == 1
    assert "a: <kernel value: f32>" in out


def test_static_assert_passes_and_fails_at_compile_time():
    dim = 2

    @ti.kernel
    def ok() -> ti.i32:
        ti.static_assert(dim == 2)
        ti.static_assert(dim > 1, "dim must be greater than 1")
        return dim

    @ti.kernel
    def fails() -> ti.i32:
        ti.static_assert(dim == 3, "this kernel needs dim == 3")
        return 0

    @ti.kernel
    def fails_without_message() -> ti.i32:
        ti.static_assert(dim > 5)
        return 0

    assert ok() == 2
    err = raises_at(TiAssertionError, fails, "ti.static_assert(dim == 3", match="needs dim == 3")
    assert isinstance(err, AssertionError)
    assert "'dim == 3' is false" in str(err)
    raises_at(
        TiAssertionError,
        fails_without_message,
        "ti.static_assert(dim > 5)",
        match="static assertion failed: dim > 5",
    )


def test_static_assert_on_a_kernel_value_is_refused():
    @ti.kernel
    def bad(a: ti.i32):
        ti.static_assert(a > 0, "a must be positive")

    err = raises_at(TiTypeError, bad, "ti.static_assert(a > 0", 1, under="a > 0")
    assert "debug=True" in str(err)


def test_static_assert_with_element_shape_as_taichis_stable_fluid_graph():
    """real_func/graph/stable_fluid_graph.py: ti.static_assert(vf.element_shape() == [3])
    is in Taichi's own examples; here on a captured tuple shape."""
    shape = (3,)

    @ti.kernel
    def run() -> ti.i32:
        ti.static_assert(list(shape) == [3])
        return shape[0]

    assert run() == 3


def test_static_helpers_from_python_scope(capsys):
    ti.static_print("hello", 1)
    ti.static_assert(True)
    with pytest.raises(TiAssertionError, match="custom"):
        ti.static_assert(0, "custom")
    assert capsys.readouterr().out == "hello 1\n"


def test_code_after_a_static_return_in_a_func_is_not_traced():
    """Taichi's stable_fluid_graph pattern: a static if returns, and the static_assert
    after it only holds for the other specialisations."""

    @ti.func
    def width(n: ti.template()) -> ti.i32:
        if ti.static(n == 2):
            return 20
        ti.static_assert(n == 3, "only 2 or 3")
        return 30

    @ti.kernel
    def both() -> ti.i32:
        return width(2) + width(3)

    assert both() == 50
