"""Struct-fors over sparse and dense layouts, ndrange and range-for bounds on the GPU:
which cells a loop visits, with which indices, must be the CPU's (and NumPy's).

Sparse struct-fors run one CUDA block per active leaf block; a loop whose body
activates cells first launches a kernel copying the activity bits it visits by.
"""

import numpy as np
import pytest
from sim_compare import assert_same, task_launches

import ti_notebook as ti

SPARSE = {"pointer": lambda: ti.root.pointer, "bitmasked": lambda: ti.root.bitmasked}


def _activated_cells(n: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(n, size=n // 5, replace=False))


@pytest.mark.parametrize("kind", sorted(SPARSE))
def test_sparse_loop_visits_the_active_cells_only(gpu, kind):
    cells = _activated_cells(512, seed=1)

    def build():
        x = ti.field(ti.i32)
        visited = ti.field(ti.i32, shape=())
        seen = ti.field(ti.i32, shape=512)
        if kind == "pointer":
            ti.root.pointer(ti.i, 64).dense(ti.i, 8).place(x)
        else:
            ti.root.bitmasked(ti.i, 512).place(x)

        @ti.kernel
        def visit():
            for i in x:
                visited[None] += 1
                seen[i] += 1
                x[i] = x[i] * 3 + i

        for i in cells:
            x[int(i)] = 1
        visit()
        return visited[None], seen.to_numpy(), x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    count, seen, values = actual
    if kind == "bitmasked":
        assert count == len(cells) and seen.sum() == len(cells)
        assert (seen[cells] == 1).all()
        assert_same(values[cells], 3 + cells)


def test_two_levels_of_pointers_and_a_dense_leaf(gpu):
    cells = [3, 4, 100, 101, 250, 511]

    def build():
        x = ti.field(ti.f32)
        ti.root.pointer(ti.i, 4).pointer(ti.i, 8).dense(ti.i, 16).place(x)
        total = ti.field(ti.f32, shape=())

        @ti.kernel
        def visit():
            for i in x:
                x[i] += 1.0
                total[None] += x[i]

        for i in cells:
            x[i] = float(i)
        visit()
        return x.to_numpy(), total[None]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    leaf_blocks = {c // 16 for c in cells}
    active = np.zeros(512, bool)
    for b in leaf_blocks:
        active[b * 16 : (b + 1) * 16] = True
    values = np.zeros(512, np.float32)
    values[cells] = cells
    assert actual[1] == (values + 1)[active].sum()


def test_activation_inside_the_loop_does_not_extend_it(gpu):
    def build():
        x = ti.field(ti.i32)
        ti.root.bitmasked(ti.i, 64).place(x)
        visited = ti.field(ti.i32, shape=())

        @ti.kernel
        def grow():
            for i in x:
                visited[None] += 1
                if i + 1 < 64:
                    x[i + 1] = 1

        x[0] = 1
        counts = []
        for _ in range(4):
            visited[None] = 0
            grow()
            counts.append(visited[None])
        return counts, task_launches(grow), grow.stages()["report"].launches

    (counts_cpu, _, _), (counts, task, all_launches) = gpu.against_cpu(build)
    assert counts == counts_cpu == [1, 2, 3, 4]
    assert [launch["kind"] for launch in all_launches] == ["snapshot", "struct_for"]
    assert task[0]["kind"] == "struct_for"


def test_activation_of_new_pointer_blocks_and_deactivation_in_the_loop(gpu):
    def build():
        x = ti.field(ti.i32)
        block = ti.root.pointer(ti.i, 16)
        block.dense(ti.i, 4).place(x)
        visited = ti.field(ti.i32, shape=())
        active = ti.field(ti.i32, shape=16)

        @ti.kernel
        def move():
            for i in x:
                visited[None] += 1
                if i % 4 == 0 and i + 4 < 64:
                    x[i + 4] = x[i] + 1
                    ti.deactivate(block, [i // 4])

        @ti.kernel
        def probe():
            for b in range(16):
                active[b] = ti.is_active(block, [b])

        x[0] = 5
        x[20] = 7
        visited[None] = 0
        move()
        probe()
        return visited[None], np.flatnonzero(active.to_numpy()).tolist(), x[4], x[24]

    expected, actual = gpu.against_cpu(build)
    assert actual == expected
    assert actual[0] == 8  # two blocks of 4 cells were active at the start
    assert actual[1] == [1, 6] and actual[2:] == (6, 8)


def test_is_active_and_activate_in_a_kernel(gpu):
    def build():
        x = ti.field(ti.f32)
        leaf = ti.root.pointer(ti.ij, 8)
        leaf.dense(ti.ij, 4).place(x)
        flags = ti.field(ti.i32, shape=(8, 8))

        @ti.kernel
        def mark():
            for i, j in ti.ndrange(8, 8):
                if (i + j) % 3 == 0:
                    ti.activate(leaf, [i, j])

        @ti.kernel
        def probe():
            for i, j in flags:
                flags[i, j] = ti.is_active(leaf, [i, j])

        mark()
        probe()
        return flags.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    i, j = np.indices((8, 8))
    assert_same((i + j) % 3 == 0, actual.astype(bool))


LAYOUTS = {
    "row_major": lambda x: ti.root.dense(ti.i, 24).dense(ti.j, 20).place(x),
    "column_major": lambda x: ti.root.dense(ti.j, 20).dense(ti.i, 24).place(x),
    "blocks_4x4": lambda x: ti.root.dense(ti.ij, (6, 5)).dense(ti.ij, 4).place(x),
    "blocks_8x2": lambda x: ti.root.dense(ti.ij, (3, 10)).dense(ti.ij, (8, 2)).place(x),
    "flat": lambda x: ti.root.dense(ti.ij, (24, 20)).place(x),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_dense_layouts_give_the_same_values(gpu, layout):
    def build():
        x = ti.field(ti.i32)
        LAYOUTS[layout](x)
        order = ti.field(ti.i32, shape=())

        @ti.kernel
        def fill():
            for i, j in x:
                x[i, j] = i * 1000 + j
                order[None] += 1

        fill()
        return x.to_numpy(), order[None]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    i, j = np.indices((24, 20))
    assert_same(i * 1000 + j, actual[0])
    assert actual[1] == 24 * 20


@pytest.mark.parametrize("layout", ["aos", "soa"])
def test_aos_and_soa_fields_and_vectors(gpu, layout):
    def build():
        x, y = ti.field(ti.f32), ti.field(ti.f32)
        v = ti.Vector.field(3, ti.f32)
        if layout == "aos":
            ti.root.dense(ti.i, 300).place(x, y, v)
        else:
            ti.root.dense(ti.i, 300).place(x)
            ti.root.dense(ti.i, 300).place(y)
            ti.root.dense(ti.i, 300).place(v)

        @ti.kernel
        def fill():
            for i in x:
                x[i] = i
                y[i] = 2 * i
                v[i] = ti.Vector([x[i], y[i], x[i] + y[i]])

        @ti.kernel
        def combine():
            for i in v:
                v[i] = v[i] * 0.5 + ti.Vector([y[i], 0.0, -x[i]])

        fill()
        combine()
        return x.to_numpy(), y.to_numpy(), v.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    k = np.arange(300, dtype=np.float32)
    assert_same(np.stack([2.5 * k, k, 0.5 * k], axis=1), actual[2])


def test_ndrange_with_offsets_and_a_grouped_loop(gpu):
    def build():
        x = ti.field(ti.i32, shape=(10, 12))
        y = ti.field(ti.i32, shape=(4, 5, 6))

        @ti.kernel
        def fill():
            for i, j in ti.ndrange((-3, 5), (2, 9)):
                x[i + 3, j] = i * 100 + j
            for I in ti.grouped(ti.ndrange(4, (1, 5), (-2, 4))):  # noqa: E741
                y[I[0], I[1], I[2] + 2] = I[0] * 100 + I[1] * 10 + I[2]

        fill()
        return x.to_numpy(), y.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    x = np.zeros((10, 12), np.int32)
    i, j = np.meshgrid(np.arange(-3, 5), np.arange(2, 9), indexing="ij")
    x[i + 3, j] = i * 100 + j
    assert_same(x, actual[0])


@pytest.mark.parametrize("begin,end", [(0, 1000), (-40, 37), (5, 5), (10, 3), (-7, 4099)])
def test_range_for_with_runtime_bounds(gpu, begin, end):
    def build():
        x = ti.field(ti.i32, shape=5000)
        count = ti.field(ti.i32, shape=())

        @ti.kernel
        def fill(a: ti.i32, b: ti.i32):
            for i in range(a, b):
                x[i + 40] = i
                count[None] += 1

        x.fill(-99)
        fill(begin, end)
        return x.to_numpy(), count[None]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    want = np.full(5000, -99, np.int32)
    want[begin + 40 : end + 40] = np.arange(begin, end)
    assert_same(want, actual[0])
    assert actual[1] == max(end - begin, 0)


def test_range_for_bound_read_from_a_field(gpu):
    def build():
        n = ti.field(ti.i32, shape=())
        x = ti.field(ti.f32, shape=256)

        @ti.kernel
        def fill():
            for i in range(n[None] * 2):
                x[i] = ti.sqrt(ti.cast(i, ti.f32))

        n[None] = 100
        fill()
        return x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-6)
    assert (actual[200:] == 0).all() and actual[199] == pytest.approx(np.sqrt(199), rel=1e-6)


def test_pointer_over_bitmasked_cells(gpu):
    def build():
        x = ti.field(ti.i32)
        ti.root.pointer(ti.i, 8).bitmasked(ti.i, 8).place(x)
        total = ti.field(ti.i32, shape=())

        @ti.kernel
        def visit():
            for i in x:
                total[None] += i
                x[i] = i * 2

        for i in (0, 3, 9, 63, 40):
            x[i] = 1
        visit()
        return total[None], x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert actual[0] == 0 + 3 + 9 + 63 + 40  # bitmasked: the set cells only


def test_block_dim_larger_than_a_sparse_block(gpu):
    def build():
        x = ti.field(ti.i32)
        ti.root.pointer(ti.i, 8).dense(ti.i, 16).place(x)
        total = ti.field(ti.i32, shape=())

        @ti.kernel
        def visit():
            ti.loop_config(block_dim=1024)
            for i in x:
                total[None] += i
                x[i] = i

        for i in (0, 40, 127):
            x[i] = 1
        visit()
        return total[None], x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    blocks = [0, 2, 7]  # the leaf blocks of cells 0, 40 and 127
    assert actual[0] == sum(i for b in blocks for i in range(16 * b, 16 * b + 16))


@pytest.mark.parametrize(
    "layout",
    [
        lambda x: ti.root.pointer(ti.ij, (3, 2)).dense(ti.ij, (4, 4)).place(x),
        lambda x: ti.root.bitmasked(ti.ij, (8, 6)).place(x),
        lambda x: ti.root.pointer(ti.ij, 4).bitmasked(ti.ij, 2).place(x),
    ],
    ids=["pointer_dense", "bitmasked", "pointer_bitmasked"],
)
def test_serialised_sparse_loop_visits_in_the_cpus_order(gpu, layout, serialised_visit_order):
    """One thread runs the loop: inactive rows are skipped as on the CPU (this loop
    never ended on the GPU when a skip jumped back without moving on)."""
    cells = [(0, 1), (5, 5), (7, 0), (2, 3), (6, 4)]

    def build():
        x = ti.field(ti.i32)
        layout(x)

        def activate():
            for cell in cells:
                x[cell] = -1

        order, kernel = serialised_visit_order(x, before=activate)
        return order, x.to_numpy(), [launch["kind"] for launch in task_launches(kernel) or []]

    (order_cpu, values_cpu, _), (order, values, kinds) = gpu.against_cpu(build)
    assert_same(order_cpu, order)
    assert_same(values_cpu, values)
    assert kinds == ["serial"] and len(order) >= len(cells)
