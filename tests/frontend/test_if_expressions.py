"""``a if cond else b`` runs only the chosen side, as Python does: a guard protects the
read it guards, a ti.func's effects happen only when chosen; sides that cannot fault
become a branch-free select.

Taichi's simulation/game_of_life.py relies on the guard: ``alive[i, j] if 0 <= i < n
and 0 <= j < n else 0`` with ``i = -1`` at the border; Taichi 1.7 (debug=True) gives
the same values for ``get`` below. Taichi 1.7 differs on effects: it inlines a ti.func
on either side before choosing, so ``test_only_the_chosen_side_has_effects`` gives
hits [3, 3] there (checked); here, as in Python, [2, 1].
"""

import numpy as np
import pytest

import ti_notebook as ti
from tests.frontend.error_points import raises_at
from ti_notebook.errors import TiTypeError

pytestmark = pytest.mark.cpu


def test_guarded_read_outside_the_field_is_not_made():
    x = ti.field(ti.i32, shape=4)
    x.from_numpy(np.array([10, 11, 12, 13], np.int32))

    @ti.kernel
    def get(i: ti.i32) -> ti.i32:
        return x[i] + 1 if 0 <= i < 4 else -1

    assert [get(i) for i in (-1, 0, 3, 4, 100)] == [-1, 11, 14, -1, -1]


def test_game_of_life_neighbour_count_at_the_border():
    n = 6
    alive = ti.field(int, shape=(n, n))
    count = ti.field(int, shape=(n, n))
    rng = np.random.default_rng(7)
    cells = (rng.random((n, n)) < 0.5).astype(np.int64)
    alive.from_numpy(cells)

    @ti.func
    def get_alive(i, j):
        return alive[i, j] if 0 <= i < n and 0 <= j < n else 0

    @ti.kernel
    def neighbours():
        for i, j in alive:
            s = 0
            for di, dj in ti.static([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1)]):
                s += get_alive(i + di, j + dj)
            count[i, j] = s + get_alive(i + 1, j) + get_alive(i + 1, j + 1)

    neighbours()
    padded = np.pad(cells, 1)
    expected = sum(
        padded[1 + di : 1 + di + n, 1 + dj : 1 + dj + n]
        for di in (-1, 0, 1)
        for dj in (-1, 0, 1)
        if (di, dj) != (0, 0)
    )
    np.testing.assert_array_equal(count.to_numpy(), expected)


def test_only_the_chosen_side_has_effects():
    hits = ti.field(ti.i32, shape=2)

    @ti.func
    def touch(k: ti.template()) -> ti.i32:
        hits[k] += 1
        return k + 10

    @ti.kernel
    def pick(c: ti.i32) -> ti.i32:
        return touch(0) if c > 0 else touch(1)

    assert [pick(1), pick(1), pick(0)] == [10, 10, 11]
    assert list(hits.to_numpy()) == [2, 1]


def test_pure_sides_become_a_select_and_guarded_loads_a_branch():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def pure(a: ti.i32) -> ti.f32:
        return a * 2 if a > 0 else 1.5

    @ti.kernel
    def guarded(a: ti.i32) -> ti.f32:
        return x[a] if a < 4 else 1.5

    assert [pure(3), pure(-3)] == [6.0, 1.5]
    assert guarded(7) == 1.5
    pure_ir, guarded_ir = pure.stages(0)["ir"], guarded.stages(0)["ir"]
    assert "select" in pure_ir and " if " not in pure_ir
    assert " = if " in guarded_ir and "alloca" in guarded_ir


def test_the_two_sides_promote_to_one_type():
    @ti.kernel
    def mixed(a: ti.i32) -> ti.f64:
        y = 1 if a > 0 else ti.f64(0.25)
        return y * 3

    x = ti.field(ti.f32, shape=1)

    @ti.kernel
    def with_load(a: ti.i32) -> ti.f32:
        return x[0] if a > 0 else 7  # an f32 side and an int literal: f32

    x[0] = 0.5
    assert mixed(1) == 3.0 and mixed(0) == 0.75
    assert with_load(1) == 0.5 and with_load(0) == 7.0


def test_vector_sides_and_a_scalar_broadcast():
    v = ti.Vector.field(3, ti.f32, shape=())
    out = ti.Vector.field(3, ti.f32, shape=2)
    v[None] = [1.0, 2.0, 3.0]

    @ti.kernel
    def choose(c: ti.i32):
        out[0] = v[None] * 2 if c > 0 else ti.Vector([0.0, -1.0, -2.0])
        out[1] = v[None] if c > 0 else 0.5

    choose(1)
    np.testing.assert_allclose(out.to_numpy(), [[2, 4, 6], [1, 2, 3]])
    choose(0)
    np.testing.assert_allclose(out.to_numpy(), [[0, -1, -2], [0.5, 0.5, 0.5]])


def test_a_condition_known_at_compile_time_traces_one_side():
    x = ti.field(ti.f32, shape=2)
    debug = False

    @ti.kernel
    def run() -> ti.f32:
        return x[5] if debug else 2.0  # x[5] is never compiled

    assert run() == 2.0


def test_nested_conditional_expressions():
    @ti.kernel
    def sign(a: ti.f32) -> ti.i32:
        return -1 if a < 0 else (0 if a == 0 else 1)

    assert [sign(-2.0), sign(0.0), sign(3.0)] == [-1, 0, 1]


def test_a_vector_condition_is_refused_with_the_select_hint():
    @ti.kernel
    def bad(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, 1.0])
        w = v if v > 0 else -v
        return w[0]

    err = raises_at(TiTypeError, bad, "v if v > 0 else -v", 1.0, under="v > 0")
    assert "ti.select" in str(err)


def test_sides_of_different_shapes_are_refused():
    @ti.kernel
    def bad(a: ti.f32) -> ti.f32:
        w = ti.Vector([a, 1.0]) if a > 0 else ti.Vector([a, 1.0, 2.0])
        return w[0]

    raises_at(TiTypeError, bad, "else ti.Vector([a, 1.0, 2.0])", 1.0, match="shapes")
