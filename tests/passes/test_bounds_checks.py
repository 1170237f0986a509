"""Out-of-range indices raise by default (passes/prove_bounds.py), and nothing breaks.

Each kernel reads or writes one index past a field's shape, in a range-for, a
struct-for, an ndrange with offsets and a ``ti.func``; every one must raise
``TiIndexError`` at its line (kernel name, caret, index and shape in the message), and
afterwards the process keeps working: fields keep what they held, the next launch runs.
What the pass proves, hoists and merges is in ``test_bounds_proofs.py``.
"""

import pathlib

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError

pytestmark = pytest.mark.cpu

_SOURCE = pathlib.Path(__file__).read_text().splitlines()


def _line(marker: str) -> int:
    """The 1-based line of this file that ends with ``# <marker>``."""
    hits = [k + 1 for k, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, marker
    return hits[0]


def _raises_at(call, marker: str, kernel_name: str) -> TiIndexError:
    with pytest.raises(TiIndexError) as info:
        call()
    err = info.value
    assert isinstance(err, IndexError)
    assert err.lineno == _line(marker), str(err)
    text = str(err)
    assert f"Kernel '{kernel_name}'" in text and f"line {err.lineno}" in text
    assert any(set(row.strip()) == {"^"} for row in text.splitlines()), text
    assert "index (" in text and "outside shape (" in text and "hint:" in text
    return err


def _still_works(guard: ti.Field, kept: np.ndarray) -> None:
    """What ``guard`` held survives, and a new kernel compiles and runs."""
    np.testing.assert_array_equal(guard.to_numpy(), kept)
    fresh = ti.field(ti.i32, 4)

    @ti.kernel
    def count() -> ti.i32:
        s = 0
        for i in fresh:
            fresh[i] = i + 1
            s += fresh[i]
        return s

    assert count() == 10
    np.testing.assert_array_equal(fresh.to_numpy(), [1, 2, 3, 4])


@pytest.fixture
def fields():
    """x (6 x 5, i32) with z (4, i32) placed right behind it in the same tree, so an
    unchecked write past x would land in z."""
    x = ti.field(ti.i32)
    z = ti.field(ti.i32)
    ti.root.dense(ti.ij, (6, 5)).place(x)
    ti.root.dense(ti.i, 4).place(z)
    x.from_numpy(np.arange(30, dtype=np.int32).reshape(6, 5))
    z.from_numpy(np.array([7, 7, 7, 7], dtype=np.int32))
    return x, z


def _range_write(x, z):
    @ti.kernel
    def range_write(n: ti.i32):
        for i in range(n):
            x[i, 0] = -1  # range-write

    return range_write, (7,), "range-write"


def _range_read(x, z):
    @ti.kernel
    def range_read(n: ti.i32) -> ti.i32:
        s = 0
        for i in range(n):
            s += x[i, 4]  # range-read
        return s

    return range_read, (7,), "range-read"


def _struct_write(x, z):
    @ti.kernel
    def struct_write():
        for i, j in x:
            x[i + 1, j] = 0  # struct-write

    return struct_write, (), "struct-write"


def _struct_read(x, z):
    @ti.kernel
    def struct_read() -> ti.i32:
        s = 0
        for i, j in x:
            s += x[i, j - 1]  # struct-read
        return s

    return struct_read, (), "struct-read"


def _ndrange_write(x, z):
    @ti.kernel
    def ndrange_write():
        for i, j in ti.ndrange((2, 7), (1, 5)):
            x[i, j] = 0  # ndrange-write

    return ndrange_write, (), "ndrange-write"


def _ndrange_read(x, z):
    @ti.kernel
    def ndrange_read() -> ti.i32:
        s = 0
        for i, j in ti.ndrange((-1, 3), (0, 5)):
            s += x[i, j]  # ndrange-read
        return s

    return ndrange_read, (), "ndrange-read"


@ti.func
def _put(x: ti.template(), i, j, v):
    x[i, j] = v  # func-write


@ti.func
def _get(x: ti.template(), i, j):
    return x[i, j]  # func-read


def _func_write(x, z):
    @ti.kernel
    def func_write(k: ti.i32):
        for i in range(6):
            _put(x, i, k, 0)

    return func_write, (5,), "func-write"


def _func_read(x, z):
    @ti.kernel
    def func_read() -> ti.i32:
        s = 0
        for i, j in x:
            s += _get(x, i, j + 3)
        return s

    return func_read, (), "func-read"


CASES = [
    _range_write,
    _range_read,
    _struct_write,
    _struct_read,
    _ndrange_write,
    _ndrange_read,
    _func_write,
    _func_read,
]


@pytest.mark.parametrize("make", CASES, ids=lambda make: make.__name__.strip("_"))
def test_out_of_range_raises_at_the_line_and_the_process_keeps_working(fields, make):
    x, z = fields
    before = x.to_numpy()
    kernel, args, marker = make(x, z)
    _raises_at(lambda: kernel(*args), marker, kernel.__name__)
    assert z.to_numpy().tolist() == [7, 7, 7, 7]  # nothing landed in the neighbour
    if "write" not in marker:
        np.testing.assert_array_equal(x.to_numpy(), before)
    _still_works(z, np.array([7, 7, 7, 7]))
    _raises_at(lambda: kernel(*args), marker, kernel.__name__)  # and again, same error


def test_the_message_shows_the_index_and_the_shape(fields):
    x, _ = fields

    @ti.kernel
    def at(i: ti.i32, j: ti.i32) -> ti.i32:
        return x[i, j]  # at-read

    assert at(5, 4) == 29  # the last element: in range
    err = _raises_at(lambda: at(6, 2), "at-read", "at")
    assert "index (6, 2) is outside shape (6, 5)" in str(err)
    err = _raises_at(lambda: at(0, -1), "at-read", "at")
    assert "index (0, -1) is outside shape (6, 5)" in str(err)


def test_in_range_launches_of_a_checked_kernel_give_the_right_result(fields):
    x, _ = fields
    kernel, _, _ = _range_read(x, None)
    assert kernel(6) == sum(range(4, 30, 5))
    assert kernel(0) == 0  # an empty range checks nothing


def test_ndarray_arguments_are_checked():
    @ti.kernel
    def shift(a: ti.types.ndarray(), k: ti.i32):
        for i in range(a.shape[0]):
            a[i] = a[i + k] + 1  # ndarray-read

    data = np.arange(8, dtype=np.float32)
    shift(data, 0)
    np.testing.assert_array_equal(data, np.arange(8) + 1)
    err = _raises_at(lambda: shift(data, 1), "ndarray-read", "shift")
    assert "outside shape (8,)" in str(err)


def test_many_failing_chunks_report_one_consistent_failure():
    n = 1 << 16
    x = ti.field(ti.f32, n)
    where = ti.field(ti.i32, n)
    where.from_numpy((np.arange(n, dtype=np.int32) % 7) + n)  # all past the end

    @ti.kernel
    def gather():
        for i in where:
            x[i] = x[where[i]]  # gather

    err = _raises_at(gather, "gather", "gather")
    index = int(str(err).split("index (")[1].split(",")[0])
    assert n <= index < n + 7 and f"outside shape ({n},)" in str(err)


def _two_trees():
    """A sparse tree and a second tree whose cell bits sit right behind its bitmask."""
    fb = ti.FieldsBuilder()
    x = ti.field(ti.i32)
    blk = fb.pointer(ti.i, 4)
    blk.dense(ti.i, 8).place(x)
    fb.finalize()
    fb2 = ti.FieldsBuilder()
    y = ti.field(ti.i32)
    other = fb2.pointer(ti.i, 64)
    other.place(y)
    fb2.finalize()
    return x, blk, y, other


def test_activate_deactivate_and_is_active_out_of_range_raise_and_touch_nothing():
    x, blk, y, other = _two_trees()

    @ti.kernel
    def act(i: ti.i32):
        ti.activate(blk, i)  # activate

    @ti.kernel
    def deact(i: ti.i32):
        ti.deactivate(blk, i)  # deactivate

    @ti.kernel
    def probe(i: ti.i32) -> ti.i32:
        return ti.is_active(blk, i)  # is-active

    @ti.kernel
    def others() -> ti.i32:
        n = 0
        for i in range(64):
            n += ti.is_active(other, i)
        return n

    act(1)
    assert probe(1) == 1 and probe(3) == 0 and others() == 0
    for bad in (4, 40, 100, -1):
        _raises_at(lambda bad=bad: act(bad), "activate", "act")
        _raises_at(lambda bad=bad: deact(bad), "deactivate", "deact")
        _raises_at(lambda bad=bad: probe(bad), "is-active", "probe")
    assert others() == 0 and y.to_numpy().tolist() == [0] * 64
    assert [probe(i) for i in range(4)] == [0, 1, 0, 0]


def test_checks_are_on_by_default_and_debug_implies_them():
    assert ti.session.config.current().check_bounds is True
    ti.init(arch=ti.cpu, check_bounds=False, debug=True)
    assert ti.session.config.current().check_bounds is True
    ti.init(arch=ti.cpu, check_bounds=False)
    assert ti.session.config.current().check_bounds is False


@pytest.mark.parametrize("value", ["no", 1, None])
def test_check_bounds_must_be_a_bool(value):
    with pytest.raises(TypeError, match="check_bounds"):
        ti.init(arch=ti.cpu, check_bounds=value)
