"""Python-scope methods of sparse and split fields (compiled loops) against a dense model.

Every layout below has no NumPy view, so ``fill``, ``to_numpy``, ``from_numpy``,
``copy_from``, the active mask and ``deactivate_all`` run as kernels. A dense NumPy
model replays each operation by Taichi's rules (checked against Taichi 1.7.4 in
``test_field_loops_taichi.py``): a write activates the cells on its path (a dynamic list
grows to hold it), ``fill``/``from_numpy`` write active elements only, ``to_numpy`` gives
0 for inactive ones, ``copy_from`` writes (and activates) every element, deactivating a
cell zeroes it and what lies inside it. ``make test-sim`` runs this file on the SIMT
emulator (the CUDA backend's code), unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import sparse

pytestmark = pytest.mark.cpu

N = 8
SHAPE = (N, N)


# -- layouts: (place, sparse levels as (node, elements per cell per axis)) ---------------------
def pointer(field):
    node = ti.root.pointer(ti.ij, 4)
    node.dense(ti.ij, 2).place(field)
    return [(node, (2, 2))]


def bitmasked(field):
    node = ti.root.bitmasked(ti.ij, N)
    node.place(field)
    return [(node, (1, 1))]


def pointer_bitmasked(field):
    outer = ti.root.pointer(ti.ij, 2)
    inner = outer.bitmasked(ti.ij, 4)
    inner.place(field)
    return [(outer, (4, 4)), (inner, (1, 1))]


def pointer_pointer(field):
    outer = ti.root.pointer(ti.ij, 2)
    inner = outer.pointer(ti.ij, 2)
    inner.dense(ti.ij, 2).place(field)
    return [(outer, (4, 4)), (inner, (2, 2))]


def dynamic(field):
    node = ti.root.dense(ti.i, N).dynamic(ti.j, N, chunk_size=4)
    node.place(field)
    return [(node, "dynamic")]


def pointer_dynamic(field):  # lists inside pointer cells
    outer = ti.root.pointer(ti.i, N)
    lists = outer.dynamic(ti.j, N, chunk_size=4)
    lists.place(field)
    return [(outer, (1, N)), (lists, "dynamic")]


def dense_split(field):  # dense, but split over two levels: no NumPy view either
    ti.root.dense(ti.ij, 4).dense(ti.ij, 2).place(field)
    return []


KINDS = {
    "f32": (lambda: ti.field(ti.f32), ()),
    "i32": (lambda: ti.field(ti.i32), ()),
    "vec3": (lambda: ti.Vector.field(3, ti.f32), (3,)),
    "mat22": (lambda: ti.Matrix.field(2, 2, ti.f64), (2, 2)),
}
CASES = [(layout, "f32") for layout in (pointer, bitmasked, pointer_bitmasked, pointer_pointer)]
CASES += [(dynamic, "f32"), (dense_split, "f32"), (pointer, "i32"), (dynamic, "i32")]
CASES += [(pointer_dynamic, "f32"), (pointer_dynamic, "vec3")]
CASES += [(layout, kind) for layout in (pointer, bitmasked, dynamic) for kind in ("vec3", "mat22")]


def cell_of(index, block) -> tuple[int, ...]:
    return tuple(i // b for i, b in zip(index, block, strict=True))


class Model:
    """The dense reference: every element's value and whether it is active."""

    def __init__(self, levels, element: tuple[int, ...], dtype) -> None:
        self.levels = levels
        self.values = np.zeros(SHAPE + element, dtype=dtype)
        self.cells = [set() for _ in levels]  # active cells per level
        self.lengths = np.zeros(N, dtype=int)

    def active(self) -> np.ndarray:
        mask = np.ones(SHAPE, dtype=bool)
        for (_node, block), cells in zip(self.levels, self.cells, strict=True):
            for index in np.ndindex(*SHAPE):
                if block == "dynamic":
                    mask[index] &= index[1] < self.lengths[index[0]]
                else:
                    mask[index] &= cell_of(index, block) in cells
        return mask

    def activate(self, index) -> None:
        for (_node, block), cells in zip(self.levels, self.cells, strict=True):
            if block == "dynamic":
                self.lengths[index[0]] = max(self.lengths[index[0]], index[1] + 1)
            else:
                cells.add(cell_of(index, block))

    def deactivate(self, depth: int, cell) -> None:
        """Deactivates ``cell`` of level ``depth``: it and what lies inside it zeroed."""
        block = self.levels[depth][1]
        if block == "dynamic":
            self.lengths[cell] = 0
            self.values[cell] = 0
            return
        for index in np.ndindex(*SHAPE):
            if cell_of(index, block) == cell:
                self.values[index] = 0
                for deeper, (_node, inner) in enumerate(self.levels[depth + 1 :], depth + 1):
                    if inner == "dynamic":
                        self.lengths[index[0]] = 0
                    else:
                        self.cells[deeper].discard(cell_of(index, inner))
        self.cells[depth].discard(cell)

    def expected(self) -> np.ndarray:
        values = self.values.copy()
        values[~self.active()] = 0
        return values


def build(layout, kind):
    make, element = KINDS[kind]
    field = make()
    levels = layout(field)
    dtype = np.float64 if kind == "mat22" else (np.int32 if kind == "i32" else np.float32)
    return field, Model(levels, element, dtype), element, dtype


def check(field, model) -> None:
    np.testing.assert_array_equal(field.to_numpy(), model.expected())
    np.testing.assert_array_equal(sparse.active_elements(field), model.active())


@ti.kernel
def bump(f: ti.template(), stride: ti.i32):
    # a kernel's own writes (activations) must be seen by the loops that follow
    for i, j in ti.ndrange(N, N):
        if (i * 3 + j) % stride == 0:
            f[i, j] = f[i, j] + 1


@pytest.mark.parametrize(("layout", "kind"), CASES, ids=lambda c: getattr(c, "__name__", c))
def test_python_scope_methods_match_the_dense_model(layout, kind):
    field, model, element, dtype = build(layout, kind)
    rng = np.random.default_rng(7)

    def random_values():
        return rng.integers(-50, 50, size=SHAPE + element).astype(dtype)

    for flat in rng.choice(N * N, size=9, replace=False):
        index = divmod(int(flat), N)
        value = rng.integers(1, 9, size=element).astype(dtype)
        field[index] = value.tolist() if element else value.item()
        model.activate(index)
        model.values[index] = value
    check(field, model)

    fill = 6
    if element:
        fill = np.reshape([1.5, -2.0, 3.25, 4.0][: int(np.prod(element))], element).tolist()
    field.fill(fill)
    active = model.active()
    model.values[active] = fill
    check(field, model)

    source = random_values()
    field.from_numpy(source)
    model.values[model.active()] = source[model.active()]
    check(field, model)

    bump(field, 11)
    for i, j in np.ndindex(*SHAPE):
        if (i * 3 + j) % 11 == 0:
            model.activate((i, j))
            model.values[i, j] += 1
    check(field, model)

    # deactivate one active cell per sparse level (outermost last: it empties the rest)
    for depth in reversed(range(len(model.levels))):
        node, block = model.levels[depth]
        if block == "dynamic":
            cell = int(np.flatnonzero(model.lengths)[0])
            ti.deactivate(node, cell)
        else:
            cell = sorted(model.cells[depth])[0]
            ti.deactivate(node, list(cell)[: len(node.shape)])
        model.deactivate(depth, cell)
        check(field, model)
    field.fill(fill)
    model.values[model.active()] = fill
    check(field, model)
    source = random_values()
    field.from_numpy(source)
    model.values[model.active()] = source[model.active()]
    check(field, model)

    # copy_from writes every element: every cell becomes active, a list full length
    dense = make_dense(kind)
    other = random_values()
    dense.from_numpy(other)
    field.copy_from(dense)
    for index in np.ndindex(*SHAPE):
        model.activate(index)
    model.values[...] = other
    check(field, model)
    back = make_dense(kind)
    back.copy_from(field)
    np.testing.assert_array_equal(back.to_numpy(), model.expected())

    if model.levels:  # deactivate_all: nothing stays active, nothing is written after
        model.levels[0][0].deactivate_all()
        model.cells = [set() for _ in model.levels]
        model.lengths[:] = 0
        model.values[...] = 0
        check(field, model)
        field.fill(fill)
        field.from_numpy(random_values())
        check(field, model)


def make_dense(kind):
    shape = SHAPE
    if kind == "vec3":
        return ti.Vector.field(3, ti.f32, shape=shape)
    if kind == "mat22":
        return ti.Matrix.field(2, 2, ti.f64, shape=shape)
    return ti.field(ti.i32 if kind == "i32" else ti.f32, shape=shape)


def test_sparse_to_sparse_copy_and_a_deactivated_source():
    src, dst = ti.field(ti.f32), ti.field(ti.f32)
    blocks = pointer(src)
    bitmasked(dst)
    src[1, 2], src[6, 7] = 3.0, 4.0
    blocks[0][0].deactivate_all()
    src[5, 5] = 9.0
    dst.copy_from(src)  # inactive source cells read 0, every destination cell is active
    expected = np.zeros(SHAPE, np.float32)
    expected[5, 5] = 9.0
    np.testing.assert_array_equal(dst.to_numpy(), expected)
    assert sparse.active_elements(dst).all()


def test_to_numpy_converts_to_the_asked_type():
    x = ti.field(ti.f32)
    pointer(x)
    x[3, 3] = 2.75
    out = x.to_numpy(dtype=np.float64)
    assert out.dtype == np.float64 and out[3, 3] == 2.75 and out.sum() == 2.75
    v = ti.Vector.field(2, ti.f32)
    pointer(v)
    v[0, 1] = (1.5, 2.5)
    assert v.to_numpy(dtype=np.int32)[0, 1].tolist() == [1, 2]


def test_copy_from_refuses_other_shapes_and_kinds():
    x, y = ti.field(ti.f32), ti.field(ti.f32, shape=(N, N + 1))
    pointer(x)
    with pytest.raises(TiValueError, match=r"shape \(8, 8\) does not match"):
        x.copy_from(y)
    with pytest.raises(TiTypeError, match="copies from a scalar field"):
        x.copy_from(ti.Vector.field(2, ti.f32, shape=SHAPE))
    with pytest.raises(TiTypeError, match="element shape"):
        ti.Vector.field(2, ti.f32, shape=SHAPE).copy_from(ti.Vector.field(3, ti.f32, shape=SHAPE))
    with pytest.raises(TiTypeError):
        x.copy_from(np.zeros(SHAPE, np.float32))


def test_the_loops_compile_once_per_field_not_per_call():
    x = ti.field(ti.f32)
    pointer(x)
    x[0, 0] = 1.0
    x.fill(0.0)
    x.to_numpy()
    x.from_numpy(np.ones(SHAPE, np.float32))
    seen = []
    remove = ti.watch_compiles(lambda event: seen.append(event.kernel))
    try:
        for k in range(5):  # new values, new arrays: the same compiled loops
            x.fill(float(k))
            x.from_numpy(np.full(SHAPE, k, np.float32))
            assert x.to_numpy()[1, 1] == k
    finally:
        remove()
    assert seen == []


def test_the_loops_stay_out_of_the_profile_and_the_tape():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    x = ti.field(ti.f32)
    pointer(x)
    w = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def total():
        for i in w:
            loss[None] += w[i] * w[i]

    w.from_numpy(np.arange(4, dtype=np.float32))
    x[2, 2] = 1.0
    with ti.ad.Tape(loss=loss):
        x.fill(3.0)  # not recorded: the Tape differentiates the user's kernels only
        total()
    assert w.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0]
    assert x.to_numpy()[2, 3] == 3.0
    query = ti.profiler.query_kernel_profiler_info
    assert query("total").counter == 1
    assert query("_fill").counter == 0 and query("_read").counter == 0


def test_struct_fields_copy_member_by_member():
    particle = ti.types.struct(mass=ti.f32, vel=ti.types.vector(2, ti.f32))
    s = particle.field()
    blocks = pointer(s)
    t = particle.field(shape=SHAPE)
    t.mass.from_numpy(np.full(SHAPE, 2.0, np.float32))
    t.vel.fill([1.0, -1.0])
    s[3, 3].mass = 5.0
    s.fill(0.5)  # the active block only
    assert s.mass.to_numpy().sum() == 2.0 and s.vel.to_numpy()[2, 2].tolist() == [0.5, 0.5]
    s.copy_from(t)  # every element, as Taichi's
    assert (s.mass.to_numpy() == 2.0).all() and (s.vel.to_numpy()[..., 1] == -1.0).all()
    assert sparse.active_elements(s.mass).all()
    blocks[0][0].deactivate_all()
    assert not s.to_numpy()["mass"].any()


CACHED_RUN = """
import numpy as np
import ti_notebook as ti
ti.init(arch=ti.cpu)
traced = []
ti.watch_compiles(lambda e: traced.append(e.kernel) if e.stage == "tracing" else None)
x, v = ti.field(ti.f32), ti.Vector.field(2, ti.f32)
ti.root.pointer(ti.i, 4).dense(ti.i, 2).place(x, v)
y = ti.field(ti.f32, shape=8)
x[1] = 1.0
x.fill(2.0)
v.fill([1.0, 2.0])
x.from_numpy(np.ones(8, np.float32))
v.to_numpy()
y.copy_from(x)
ti.sync()
print(sorted(set(traced)))
"""


def test_a_second_process_loads_the_loops_from_the_offline_cache(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "loops.py"
    script.write_text(CACHED_RUN)
    env = {**os.environ, "TI_OFFLINE_CACHE_FILE_PATH": str(tmp_path / "cache")}
    env.pop("TI_OFFLINE_CACHE", None)
    runs = [
        subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
        )
        for _ in range(2)
    ]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr[-2000:]
    first, second = (run.stdout.strip().splitlines()[-1] for run in runs)
    assert "_fill" in first and "_copy" in first
    assert second == "[]"
