"""A field is indexed by the axes its layout uses, in axis order (as in Taichi 1.7.4).

Observed with Taichi 1.7.4: ``ti.root.dense(ti.j, 4).place(y)`` gives ``y.shape == (4,)``
and ``for i in y`` binds one name; ``ti.root.dense(ti.k, 4).dense(ti.i, 3)`` gives
``(3, 4)`` with ``z[i, j]`` running ``i`` along ``ti.i``; ``ti.root.dynamic(ti.j, n)``
is a single list whose methods take no index (``x.append(v)``, ``x.deactivate()``).
"""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


def test_a_layout_on_axis_j_alone_is_one_dimensional():
    y = ti.field(ti.i32)
    ti.root.dense(ti.j, 4).place(y)
    assert y.shape == (4,)

    @ti.kernel
    def fill():
        for i in y:
            y[i] = i * 3

    fill()
    assert y.to_numpy().tolist() == [0, 3, 6, 9]


def test_unused_axes_are_skipped_and_the_rest_keep_their_order():
    z = ti.field(ti.i32)
    ti.root.dense(ti.k, 4).dense(ti.i, 3).place(z)
    v = ti.field(ti.i32)
    ti.root.dense(ti.i, 2).dense(ti.k, 3).place(v)
    assert (z.shape, v.shape) == ((3, 4), (2, 3))

    @ti.kernel
    def fill():
        for i, j in z:
            z[i, j] = i * 10 + j
        for i, j in v:
            v[i, j] = i * 10 + j

    fill()
    assert z.to_numpy().tolist() == [[10 * i + j for j in range(4)] for i in range(3)]
    assert v.to_numpy().tolist() == [[10 * i + j for j in range(3)] for i in range(2)]
    # ti.i inside ti.k's cells: z[i, j] for consecutive i are neighbours in memory
    assert z.layout().address((1, 0)) - z.layout().address((0, 0)) == 4


def test_a_root_list_on_axis_j_is_one_list_beside_other_subtrees():
    spheres = ti.field(ti.f32)
    ti.root.dynamic(ti.j, 64, chunk_size=16).place(spheres)
    pixels = ti.field(ti.i32)
    ti.root.dense(ti.ij, (2, 3)).dynamic(ti.k, 8).place(pixels)
    assert (spheres.shape, pixels.shape) == ((64,), (2, 3, 8))

    @ti.kernel
    def build() -> ti.i32:
        spheres.deactivate()
        for k in range(5):
            spheres.append(k * 0.5)
        for u, v in ti.ndrange(2, 3):
            pixels[u, v].deactivate()
            pixels[u, v].append(u + v)
        return spheres.length()

    assert build() == 5
    assert spheres.to_numpy()[:6].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 0.0]
    assert pixels.to_numpy()[1, 2, :2].tolist() == [3, 0]
    assert spheres.snode.parent().name == "dynamic(j)"  # the axis as written


def test_matches_taichi():
    taichi = pytest.importorskip("taichi")
    shapes = []
    for lib in (taichi, ti):
        lib.init(arch=lib.cpu)
        a, b, c = lib.field(lib.i32), lib.field(lib.i32), lib.field(lib.i32)
        lib.root.dense(lib.j, 4).place(a)
        lib.root.dense(lib.k, 4).dense(lib.j, 3).place(b)
        lib.root.dynamic(lib.k, 16).place(c)
        shapes.append((a.shape, b.shape, c.shape))
    assert shapes[0] == shapes[1]
