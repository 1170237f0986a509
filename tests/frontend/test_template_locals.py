"""A ti.func's ``ti.template()`` parameter given a local variable is that variable
(Taichi passes it by reference); swizzles of several letters are assignable.

Observed with Taichi 1.7.4 (the same program with ``import taichi as ti``):
``f(c)`` with ``def f(color: ti.template()): color[0] += 1`` changes the caller's ``c``;
an unannotated parameter is a copy. ``c.rgb += v.xyz`` and ``c.zw = vec2(7, 8)`` write
those components. Taichi's oit_renderer example blends colours this way.
"""

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def _by_reference(lib):
    lib.init(arch=lib.cpu)
    vec4 = lib.math.vec4
    out = lib.Vector.field(4, lib.f32, shape=())
    total = lib.field(lib.i32, shape=())

    @lib.func
    def bump(color: lib.template()):
        color[0] += 1

    @lib.func
    def add_y(color: lib.template()):
        color.y += 2

    @lib.func
    def set_zw(color: lib.template()):
        color.zw = lib.math.vec2(7, 8)

    @lib.func
    def copy_only(color):
        color.x += 100

    @lib.func
    def count(n: lib.template()):
        n += 5

    @lib.func
    def blend(color: lib.template(), base: lib.template()):
        color.rgb += (1 - color.a) * base.rgb * base.a
        color.a += (1 - color.a) * base.a

    @lib.kernel
    def run():
        c = vec4(0)
        bump(c)
        add_y(c)
        set_zw(c)
        copy_only(c)
        n = 1
        count(n=n)
        total[None] = n
        d = vec4(0)
        blend(d, vec4(0.5, 0.25, 1.0, 0.5))
        blend(d, vec4(0.2, 0.2, 0.2, 1))
        out[None] = c + d

    run()
    return out.to_numpy().tolist(), int(total[None])


def test_a_template_parameter_writes_the_callers_local():
    values, total = _by_reference(ti)
    assert values == pytest.approx([1.35, 2.225, 7.6, 9.0])
    assert total == 6


def test_matches_taichi():
    taichi = pytest.importorskip("taichi")
    expected = _by_reference(taichi)
    got = _by_reference(ti)
    assert got[0] == pytest.approx(expected[0]) and got[1] == expected[1]


def test_swizzle_assignment_to_field_elements_and_locals():
    v = ti.Vector.field(4, ti.f32, shape=2)

    @ti.kernel
    def run():
        for i in v:
            v[i].xz = ti.math.vec2(i + 1, i + 3)
            w = v[i]
            w.ba += ti.math.vec2(10, 20)
            v[i].yw = w.ab

    run()
    assert v.to_numpy().tolist() == [[1, 20, 3, 13], [2, 20, 4, 14]]


def _twice():
    c = ti.math.vec3(0)
    c.xx = ti.math.vec2(1, 2)
    return c[0]


def _mixed_groups():
    c = ti.math.vec3(0)
    c.xr = ti.math.vec2(1, 2)
    return c[0]


def _past_the_end():
    c = ti.math.vec3(0)
    c.w = 1.0
    return c[0]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (_twice, "names a component twice"),
        (_mixed_groups, "cannot assign to '.xr'"),
        (_past_the_end, "no .w"),
    ],
)
def test_bad_swizzle_targets_are_refused(body, message):
    body.__annotations__["return"] = ti.f32
    with pytest.raises(TiSyntaxError, match=message):
        ti.kernel(body)()
