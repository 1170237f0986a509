"""ti.FieldsBuilder: dense/pointer/place, finalize() -> SNodeTree, destroy(), many trees.

Every expectation was checked against real Taichi 1.7.4 (the shim in /tmp/tishim),
except the ones guarded by ``if not _is_taichi()``: after ``tree.destroy()`` Taichi 1.7.4
aborts the whole process (``terminate called after throwing an instance of
'std::string'``) on any use of the tree's fields (Python get/set, to_numpy, kernels), so
those checks run on ti_notebook only, which raises RuntimeError mentioning "destroy".

Observed in Taichi 1.7.4:
- ``fb.dense(...)`` returns an SNode; ``fb.finalize()`` returns an SNodeTree with
  ``destroy()`` and a ``destroyed`` attribute (False, then True).
- ``finalize()`` twice, or ``fb.dense(...)`` after ``finalize()``: TaichiRuntimeError
  (a RuntimeError) "FieldsBuilder finalized".
- ``destroy()`` twice: TaichiRuntimeError "SNode tree has been destroyed".
- destroying one tree leaves the fields of the other trees working.

``_is_taichi()`` tells the shim from ti_notebook by where ``ti.kernel`` is defined
(``taichi.lang.kernel_impl`` vs ``ti_notebook.session.kernel``): the shim's module is named
``ti_notebook`` too, so ``ti.__name__`` cannot tell them apart.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _is_taichi() -> bool:
    """True when ``ti_notebook`` is the test shim that re-exports real Taichi."""
    return ti.kernel.__module__.split(".")[0] == "taichi"


def _inc_kernel():
    @ti.kernel
    def inc(v: ti.template()):
        for I in ti.grouped(v):  # noqa: E741
            v[I] += 1

    return inc


def test_finalize_returns_tree_and_fields_work():
    fb = ti.FieldsBuilder()
    x = ti.field(ti.i32)
    y = ti.field(ti.f32)
    fb.dense(ti.i, 4).place(x, y)
    tree = fb.finalize()
    assert hasattr(tree, "destroy")
    assert tree.destroyed is False

    inc = _inc_kernel()
    inc(x)
    inc(x)
    assert x.to_numpy().tolist() == [2, 2, 2, 2]
    assert y.to_numpy().tolist() == [0.0] * 4
    x[1] = 5
    y[3] = 1.5
    assert x[1] == 5 and y[3] == 1.5
    assert x.to_numpy().tolist() == [2, 5, 2, 2]
    y.from_numpy(np.array([1, 2, 3, 4], np.float32))
    y.fill(0.25)
    assert y.to_numpy().tolist() == [0.25] * 4
    tree.destroy()
    assert tree.destroyed is True


def test_nested_dense_in_builder():
    fb = ti.FieldsBuilder()
    x = ti.field(ti.i32)
    fb.dense(ti.ij, (2, 3)).dense(ti.ij, (4, 4)).place(x)
    tree = fb.finalize()
    assert x.shape == (8, 12)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 12 + j

    fill()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(96, dtype=np.int32).reshape(8, 12))
    tree.destroy()


def test_builder_place_0d():
    fb = ti.FieldsBuilder()
    p = ti.field(ti.i32)
    fb.place(p)
    tree = fb.finalize()
    assert p.shape == ()
    p[None] = 3

    @ti.kernel
    def double():
        p[None] *= 2

    double()
    assert p[None] == 6
    tree.destroy()


def test_several_trees_alive_at_once():
    inc = _inc_kernel()
    trees, fields = [], []
    for k in range(4):
        fb = ti.FieldsBuilder()
        f = ti.field(ti.i32)
        fb.dense(ti.i, 3 + k).place(f)
        trees.append(fb.finalize())
        fields.append(f)
    # a field from ti.root alongside them
    r = ti.field(ti.i32, shape=5)

    for k, f in enumerate(fields):
        for _ in range(k + 1):
            inc(f)
    inc(r)
    for k, f in enumerate(fields):
        assert f.to_numpy().tolist() == [k + 1] * (3 + k)
    assert r.to_numpy().tolist() == [1] * 5

    f0, f3 = fields[0], fields[3]

    @ti.kernel
    def sum_all() -> ti.i32:
        s = 0
        for i in f0:
            s += f0[i]
        for i in f3:
            s += f3[i]
        for i in r:
            s += r[i]
        return s

    assert sum_all() == 3 * 1 + 6 * 4 + 5

    # destroying one tree leaves the others alive
    trees[1].destroy()
    inc(fields[2])
    inc(r)
    assert fields[0].to_numpy().tolist() == [1] * 3
    assert fields[2].to_numpy().tolist() == [4] * 5
    assert r.to_numpy().tolist() == [2] * 5
    assert sum_all() == 3 * 1 + 6 * 4 + 5 * 2
    for k in (0, 2, 3):
        trees[k].destroy()
    inc(r)
    assert r.to_numpy().tolist() == [3] * 5


def test_new_tree_after_destroy():
    inc = _inc_kernel()
    for round_ in range(3):
        fb = ti.FieldsBuilder()
        x = ti.field(ti.f32)
        fb.dense(ti.ij, (2, 2)).place(x)
        tree = fb.finalize()
        x.fill(round_)
        inc(x)
        np.testing.assert_array_equal(x.to_numpy(), np.full((2, 2), round_ + 1, np.float32))
        tree.destroy()


def test_builder_after_kernels_ran():
    a = ti.field(ti.i32, shape=3)
    inc = _inc_kernel()
    inc(a)
    fb = ti.FieldsBuilder()
    b = ti.field(ti.i32)
    fb.dense(ti.i, 2).place(b)
    tree = fb.finalize()
    inc(b)
    inc(a)
    assert a.to_numpy().tolist() == [2, 2, 2]
    assert b.to_numpy().tolist() == [1, 1]
    tree.destroy()
    inc(a)
    assert a.to_numpy().tolist() == [3, 3, 3]


def test_builder_pointer_tree():
    fb = ti.FieldsBuilder()
    q = ti.field(ti.i32)
    ptr = fb.pointer(ti.i, 4)
    ptr.dense(ti.i, 2).place(q)
    tree = fb.finalize()
    q[5] = 1

    @ti.kernel
    def count() -> ti.i32:
        n = 0
        for _i in q:
            n += 1
        return n

    assert count() == 2  # one active block of 2
    ptr.deactivate_all()
    assert count() == 0
    tree.destroy()


def test_finalize_twice_and_declare_after_finalize_raise():
    fb = ti.FieldsBuilder()
    x = ti.field(ti.i32)
    fb.dense(ti.i, 2).place(x)
    tree = fb.finalize()
    with pytest.raises(RuntimeError):
        fb.finalize()
    with pytest.raises(RuntimeError):
        fb.dense(ti.i, 3)
    tree.destroy()
    with pytest.raises(RuntimeError):
        tree.destroy()


def test_destroyed_tree_fields_raise():
    fb = ti.FieldsBuilder()
    x = ti.field(ti.i32)
    fb.dense(ti.i, 4).place(x)
    tree = fb.finalize()
    inc = _inc_kernel()

    @ti.kernel
    def total() -> ti.i32:
        s = 0
        for i in x:
            s += x[i]
        return s

    inc(x)
    assert total() == 4
    keep = ti.field(ti.i32, shape=2)
    tree.destroy()
    assert tree.destroyed
    if _is_taichi():
        # Taichi 1.7.4 aborts the process on any use of a destroyed tree's field.
        return
    checks = [
        lambda: x[0],
        lambda: x.__setitem__(0, 1),
        lambda: x.to_numpy(),
        lambda: x.from_numpy(np.zeros(4, np.int32)),
        lambda: x.fill(1),
        lambda: total(),  # compiled against the tree before destroy(): invalidated
        lambda: inc(x),
    ]
    for check in checks:
        with pytest.raises(RuntimeError) as info:
            check()
        assert "destroy" in str(info.value), str(info.value)
    # the process keeps working
    inc(keep)
    assert keep.to_numpy().tolist() == [1, 1]
