"""Dynamic SNodes: lists along one axis, ``ti.append``, ``ti.length``, emptying.

Every expectation below was checked against real Taichi 1.7.4 (scripts run with
``import taichi as ti``), except where a comment says ti_notebook chooses otherwise.

Taichi 1.7.4 facts relied on (observed):
- ``ti.root.dense(ti.i, 4).dynamic(ti.j, 8)``: ``x.shape == (4, 8)``; ``x.parent()`` is
  the dynamic node; its lists are indexed by ``i`` (``ti.append(x.parent(), i, v)``,
  ``ti.length(x.parent(), i)``), ``ti.root.dynamic(ti.i, n)``'s one list by ``[]``.
- ``ti.append`` returns the old length; ``x[i].append(v)``, ``x[i].length()``,
  ``x[i].deactivate()`` (``x.append(v)``... for a 1-D field) are the method forms.
- Writing ``x[i, j]`` (kernel or Python) makes list ``i`` at least ``j + 1`` long.
- A struct-for over ``x`` (or over the dynamic node) visits ``[0, length)`` of each list;
  a struct-for that appends to the list it visits sees the elements it started with.
- ``ti.deactivate(node, i)`` empties list ``i``; its cells read 0 afterwards.
  ``node.deactivate_all()`` empties every list; deactivating a pointer cell above
  lists empties them too.
- Appending a vector to a vector field's list, or ``ti.Vector([a, b])`` to a node
  holding ``place(a, b)``, stores one component per field (cast to its type).
- ``ti.is_active``/``ti.activate`` refuse a dynamic node; ``ti.append`` refuses any other.
- Taichi lets a list grow past its declared size (chunks are linked on demand); here a
  list holds at most its extent: appending to a full list is an error with bounds
  checks on (the default) and is dropped, the length staying at the extent, without.
"""

import numpy as np
import pytest
from snode_helpers import visit_counter

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _lists(n=4, m=8, dtype=ti.i32):
    x = ti.field(dtype)
    node = ti.root.dense(ti.i, n).dynamic(ti.j, m, chunk_size=4)
    node.place(x)
    return x, node


def _lengths(node, n):
    return [ti.length(node, i) for i in range(n)]


def test_taichi_dynamic_example():
    x = ti.field(ti.i32)
    count = ti.field(ti.i32)
    n = 16
    ti.root.dense(ti.i, n).dynamic(ti.j, n).place(x)
    ti.root.dense(ti.i, n).place(count)

    @ti.kernel
    def make_lists():
        for i in range(n):
            for j in range(i):
                ti.append(x.parent(), i, j * j)
            count[i] = ti.length(x.parent(), i)

    make_lists()
    assert count.to_numpy().tolist() == list(range(n))
    expect = np.array([[j * j if j < i else 0 for j in range(n)] for i in range(n)])
    np.testing.assert_array_equal(x.to_numpy(), expect)


def test_shape_parent_and_plan():
    x, node = _lists()
    assert x.shape == (4, 8) and node.shape == (4, 8) and x.parent() == node
    assert node.chunk_size == 4
    # a fixed array of 8 cells per list: every element has an address in the plan
    layout = x.layout()
    assert layout.address((1, 3)) - layout.address((0, 0)) == (8 + 3) * 4
    text = str(node.parent().plan())
    assert "dynamic(j) extents=(8,)" in text and "lengths at +" in text


def test_append_returns_the_old_length_and_writes_grow_the_list():
    x, node = _lists()

    @ti.kernel
    def write_then_length() -> ti.i32:
        x[1, 5] = 7
        return ti.length(node, 1)

    assert write_then_length() == 6
    x[2, 3] = 1  # from Python too
    assert _lengths(node, 4) == [0, 6, 4, 0]
    assert x[1, 2] == 0 and x[1, 5] == 7

    @ti.kernel
    def appends() -> ti.i32:
        r = 0
        ti.loop_config(serialize=True)  # in order: the list is 10, 11, 12
        for k in range(3):
            r = ti.append(node, 0, 10 + k)
        return r

    assert appends() == 2
    np.testing.assert_array_equal(x.to_numpy()[0], [10, 11, 12, 0, 0, 0, 0, 0])


def test_methods_on_an_element_of_the_list_axis():
    x, node = _lists()

    @ti.kernel
    def methods() -> ti.i32:
        x[3].append(5)
        x[3].append(6)
        x[1].append(1)
        x[1].deactivate()
        return x[3].length() * 10 + x[1].length()

    assert methods() == 20
    assert x.to_numpy()[3, :3].tolist() == [5, 6, 0]


def test_a_list_directly_under_the_root():
    x = ti.field(ti.i32)
    ti.root.dynamic(ti.i, 16, chunk_size=4).place(x)

    @ti.kernel
    def fill() -> ti.i32:
        x.append(3)
        r = ti.append(x.parent(), [], 4)
        return r * 100 + x.length()

    assert fill() == 102
    x[5] = 1
    assert ti.length(x.parent(), []) == 6

    @ti.kernel
    def empty():
        x.deactivate()

    empty()
    assert ti.length(x.parent(), []) == 0 and not x.to_numpy().any()


def test_struct_for_visits_each_list_up_to_its_length():
    x, node = _lists()
    count = visit_counter(x)
    hits = ti.field(ti.i32, shape=(4, 8))

    @ti.kernel
    def mark():
        for i, j in x:
            hits[i, j] += 1

    for i, n in enumerate([3, 6, 0, 1]):
        for k in range(n):
            ti.append(node, i, k + 1)
    assert count() == 10
    mark()
    expect = np.zeros((4, 8), np.int32)
    for i, n in enumerate([3, 6, 0, 1]):
        expect[i, :n] = 1
    np.testing.assert_array_equal(hits.to_numpy(), expect)

    @ti.kernel
    def over_node() -> ti.i32:
        total = 0
        for _i, _j in node:
            total += 1
        return total

    assert over_node() == 10


def test_a_struct_for_appending_to_its_own_list_sees_the_elements_it_started_with():
    x = ti.field(ti.i32)
    ti.root.dynamic(ti.i, 16).place(x)
    for v in range(6):
        ti.append(x.parent(), [], v)

    @ti.kernel
    def grow():
        for i in x:
            x.append(x[i] + 100)

    grow()
    assert ti.length(x.parent(), []) == 12
    values = x.to_numpy()
    assert values[:6].tolist() == list(range(6))
    assert sorted(values[6:12].tolist()) == [100, 101, 102, 103, 104, 105]


def test_parallel_appends_keep_every_value_once():
    n = 20000
    x = ti.field(ti.i32)
    ti.root.dense(ti.i, 8).dynamic(ti.j, n).place(x)
    olds = ti.field(ti.i32, shape=n)

    @ti.kernel
    def scatter():
        for k in range(n):
            olds[k] = ti.append(x.parent(), k % 8, k)

    scatter()
    values = x.to_numpy()
    for i in range(8):
        length = ti.length(x.parent(), i)
        mine = list(range(i, n, 8))
        assert length == len(mine)
        assert sorted(values[i, :length].tolist()) == mine
        assert not values[i, length:].any()
    # each append got its own slot: the returned old lengths are 0..len-1 per list
    got = olds.to_numpy()
    for i in range(8):
        assert sorted(got[i::8].tolist()) == list(range(len(range(i, n, 8))))


def test_deactivate_empties_lists_and_zeroes_them():
    x, node = _lists()
    for i in range(4):
        for _ in range(i + 2):
            ti.append(node, i, 7)

    @ti.kernel
    def empty(i: ti.i32):
        ti.deactivate(node, i)

    empty(1)
    assert _lengths(node, 4) == [2, 0, 4, 5]
    assert not x.to_numpy()[1].any()
    ti.deactivate(node, 2)  # from Python
    assert _lengths(node, 4) == [2, 0, 0, 5]
    node.deactivate_all()
    assert _lengths(node, 4) == [0, 0, 0, 0] and not x.to_numpy().any()
    ti.append(node, 3, 9)
    node.parent().deactivate_all()  # a dense node: its sparse subtree
    assert _lengths(node, 4) == [0, 0, 0, 0]
    ti.append(node, 0, 9)
    ti.deactivate_all_snodes()
    assert _lengths(node, 4) == [0, 0, 0, 0] and not x.to_numpy().any()


def test_vector_fields_and_several_fields_in_one_list():
    v = ti.Vector.field(2, ti.f32)
    ti.root.dense(ti.i, 2).dynamic(ti.j, 8).place(v)
    a, b = ti.field(ti.i32), ti.field(ti.f32)
    ti.root.dense(ti.i, 2).dynamic(ti.j, 8).place(a, b)

    @ti.kernel
    def fill():
        v[1].append(ti.Vector([1.5, 2.5]))
        ti.append(a.parent(), 0, ti.Vector([7.9, 8.5]))  # 7.9 -> i32 7, as Taichi

    fill()
    np.testing.assert_array_equal(v.to_numpy()[1, :2], [[1.5, 2.5], [0, 0]])
    assert a.to_numpy()[0, :2].tolist() == [7, 0] and b.to_numpy()[0, :2].tolist() == [8.5, 0]
    assert ti.append(a.parent(), 0, [1, 2.5]) == 1  # Python scope
    assert a[0, 1] == 1 and b[0, 1] == 2.5


def test_lists_under_a_pointer():
    p = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dynamic(ti.j, 8).place(p)
    count = visit_counter(p)

    @ti.kernel
    def fill():
        ti.append(p.parent(), 1, 5)
        ti.append(p.parent(), 1, 6)
        p[2, 3] = 9

    fill()
    assert _lengths(p.parent(), 4) == [0, 2, 4, 0] and count() == 6
    assert ti.is_active(ptr, 1) == 1

    @ti.kernel
    def drop(i: ti.i32):
        ti.deactivate(ptr, i)

    drop(1)  # the pointer cell's lists go with it
    assert _lengths(p.parent(), 4) == [0, 0, 4, 0] and count() == 4
    fill()
    assert _lengths(p.parent(), 4) == [0, 2, 4, 0]
    assert p.to_numpy()[1].tolist() == [5, 6, 0, 0, 0, 0, 0, 0]
    ti.deactivate(ptr, 2)  # from Python
    assert _lengths(p.parent(), 4) == [0, 2, 0, 0] and not p.to_numpy()[2].any()
    ptr.deactivate_all()
    assert _lengths(p.parent(), 4) == [0, 0, 0, 0] and count() == 0


def test_fill_and_from_numpy_touch_the_active_cells_only():
    x, node = _lists()
    ti.append(node, 0, 1)
    ti.append(node, 2, 1)
    x.fill(5)
    assert _lengths(node, 4) == [1, 0, 1, 0]
    expect = np.zeros((4, 8), np.int32)
    expect[0, 0] = expect[2, 0] = 5
    np.testing.assert_array_equal(x.to_numpy(), expect)
    x.from_numpy(np.ones((4, 8), np.int32) * 3)
    np.testing.assert_array_equal(x.to_numpy(), expect // 5 * 3)


def test_empty_lists_commit_no_memory():
    x = ti.field(ti.f32)
    node = ti.root.dense(ti.i, 64).dynamic(ti.j, 1 << 16)
    node.place(x)
    assert x.tree.resident_bytes() == 0  # 16 MiB of cells reserved, none committed
    ti.append(node, 3, 1.0)
    assert 0 < x.tree.resident_bytes() <= 4 * 4096


# -- a full list --------------------------------------------------------------------------
def test_appending_to_a_full_list_is_an_error_at_its_line():
    x, node = _lists(m=4)

    @ti.kernel
    def overflow():
        ti.loop_config(serialize=True)
        for k in range(6):
            ti.append(node, 2, k)

    message = r"full list of dynamic\(j\) \(capacity 4\)"
    with pytest.raises(ti.errors.TiIndexError, match=message) as e:
        overflow()
    assert "ti.append(node, 2, k)" in str(e.value) and "^" in str(e.value)
    assert _lengths(node, 4) == [0, 0, 4, 0]
    assert x.to_numpy()[2].tolist() == [0, 1, 2, 3]
    with pytest.raises(ti.errors.TiIndexError, match="is full"):
        ti.append(node, 2, 9)


def test_without_bounds_checks_a_full_list_drops_what_does_not_fit():
    ti.init(arch=ti.cpu, check_bounds=False)
    x, node = _lists(m=4)

    @ti.kernel
    def overflow() -> ti.i32:
        dropped = 0
        ti.loop_config(serialize=True)
        for k in range(6):
            if ti.append(node, 2, k) >= 4:  # an append that did not fit sees the extent
                dropped += 1
        return dropped

    assert overflow() == 2
    assert _lengths(node, 4) == [0, 0, 4, 0]
    assert x.to_numpy()[2].tolist() == [0, 1, 2, 3]


# -- misuse -------------------------------------------------------------------------------
def test_declaration_errors():
    with pytest.raises(ti.errors.TiValueError, match="exactly one axis"):
        ti.root.dynamic(ti.ij, 8)
    with pytest.raises(ti.errors.TiValueError, match="already split by dense"):
        ti.root.dense(ti.i, 4).dynamic(ti.i, 8)
    with pytest.raises(ti.errors.TiValueError, match="dynamic node holds fields only"):
        ti.root.dynamic(ti.i, 8).dense(ti.j, 4)
    with pytest.raises(ti.errors.TiValueError, match="chunk_size must be a positive integer"):
        ti.root.dense(ti.i, 4).dynamic(ti.j, 8, chunk_size=0)
    with pytest.raises(ti.errors.TiValueError, match="chunk_size"):
        ti.root.dense(ti.i, 4).dynamic(ti.j, 8, chunk_size=2.5)


def test_append_to_a_dense_node_names_the_line():
    x = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).place(x)

    @ti.kernel
    def wrong():
        ti.append(x.parent(), 0, 1)

    with pytest.raises(ti.errors.TiTypeError, match="dynamic nodes only, not on a dense node") as e:
        wrong()
    assert "x.parent()" in str(e.value) and "hint:" in str(e.value)
    with pytest.raises(ti.errors.TiTypeError, match="dynamic nodes only"):
        ti.append(x.parent(), 0, 1)


def test_wrong_indices_and_values():
    x, node = _lists()

    @ti.kernel
    def full_index():
        ti.append(node, [0, 1], 1)

    with pytest.raises(ti.errors.TiTypeError, match="2 index"):
        full_index()

    @ti.kernel
    def method_full_index():
        x[0, 1].append(1)

    with pytest.raises(ti.errors.TiIndexError, match=r"x\[0, 1\].append\(\) got 2 index"):
        method_full_index()

    @ti.kernel
    def two_values():
        ti.append(node, 0, ti.Vector([1, 2]))

    with pytest.raises(ti.errors.TiTypeError, match="2 value.*1 field component"):
        two_values()
    with pytest.raises(ti.errors.TiIndexError, match="outside"):
        ti.length(node, 4)


def test_is_active_and_activate_refuse_a_dynamic_node():
    x, node = _lists()

    @ti.kernel
    def probe() -> ti.i32:
        return ti.is_active(node, [0, 1])

    with pytest.raises(ti.errors.TiTypeError, match="not on a dynamic node") as e:
        probe()
    assert "ti.length" in str(e.value)
    with pytest.raises(ti.errors.TiTypeError, match="not on a dynamic node"):
        ti.activate(node, [0, 1])


def test_several_lists_in_one_pointer_cell():
    # a pointer block holds two lists: an empty first list must not hide the second
    # (the CUDA backend lists active blocks by running a block's first row head)
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 2).dynamic(ti.j, 8).place(x)
    hits = ti.field(ti.i32, shape=(8, 8))

    @ti.kernel
    def mark() -> ti.i32:
        n = 0
        for i, j in x:
            hits[i, j] += x[i, j]
            n += 1
        return n

    ti.append(x.parent(), 3, 5)  # list 3: the second of pointer cell 1
    ti.append(x.parent(), 3, 6)
    ti.append(x.parent(), 6, 7)  # the first of pointer cell 3
    assert mark() == 3
    expect = np.zeros((8, 8), np.int32)
    expect[3, :2] = [5, 6]
    expect[6, 0] = 7
    np.testing.assert_array_equal(hits.to_numpy(), expect)


def test_a_length_as_a_loop_bound_like_marching_squares():
    edges = ti.field(ti.i32)
    ti.root.dynamic(ti.i, 64, chunk_size=32).place(edges)

    @ti.kernel
    def march(n: ti.i32) -> ti.i32:
        edges.deactivate()
        for i in range(n):
            if i % 3 == 0:
                edges.append(i)
        return edges.length()

    @ti.kernel
    def total() -> ti.i32:
        s = 0
        for k in range(edges.length()):
            s += edges[k]
        return s

    assert march(30) == 10 and total() == sum(range(0, 30, 3))
    assert march(9) == 3 and total() == 0 + 3 + 6
    assert not edges.to_numpy()[3:].any()


def test_struct_field_in_a_dynamic_list():
    """marching_squares' pattern: a struct field under ti.root.dynamic, appended whole."""
    edge = ti.types.struct(p0=ti.types.vector(2, ti.f32), w=ti.i32)
    edges = edge.field()
    ti.root.dynamic(ti.i, 16, chunk_size=4).place(edges)

    @ti.kernel
    def build(n: ti.i32) -> ti.i32:
        edges.deactivate()
        for k in range(n):
            edges.append(edge(ti.Vector([k, 2 * k]), k * 10))
        return edges.length()

    assert build(5) == 5
    got = edges.to_numpy()
    assert sorted(got["w"][:5].tolist()) == [0, 10, 20, 30, 40]
    for p0, w in zip(got["p0"][:5], got["w"][:5], strict=True):
        assert p0.tolist() == [w / 10, 2 * w / 10]
    assert build(2) == 2  # deactivate() emptied the list first
