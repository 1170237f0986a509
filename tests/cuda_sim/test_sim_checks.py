"""Asserts and bounds checks (``debug=True``) on the GPU raise the CPU's errors: the same
class and message (kernel, index, shape, source line), and the session goes on working.

Where one index fails, the messages are equal word for word; where several threads
fail at once, which one reports first is a race on both backends, so only the failing
set is checked.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiRuntimeError


def _error(run) -> tuple[type, str]:
    """(class, message) of the exception ``run()`` raises."""
    with pytest.raises(Exception) as info:
        run()
    return type(info.value), str(info.value)


def _still_works() -> None:
    y = ti.field(ti.i32, shape=64)

    @ti.kernel
    def fill():
        for i in y:
            y[i] = i

    fill()
    assert y.to_numpy().sum() == 64 * 63 // 2


def test_a_failed_assert_in_serial_code(gpu):
    def build():
        @ti.kernel
        def positive(a: ti.i32) -> ti.i32:
            assert a > 0, "a must be positive"
            return a * 2

        ok = positive(4)
        error = _error(lambda: positive(-1))
        _still_works()
        return ok, error, positive(5)

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    ok, (cls, message), again = actual
    assert (ok, again, cls) == (8, 10, TiRuntimeError)
    assert "Kernel 'positive': a must be positive" in message and "assert a > 0" in message


def test_a_failed_assert_in_one_thread_of_a_parallel_loop(gpu):
    def build():
        hits = ti.field(ti.i32, shape=())

        @ti.kernel
        def scan(bad: ti.i32):
            for i in range(2000):
                assert i != bad, "found the bad index"
                hits[None] += 1

        scan(-1)
        count = hits[None]
        return count, _error(lambda: scan(1234))

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    assert actual[0] == 2000 and "found the bad index" in actual[1][1]


@pytest.mark.parametrize("index", [(6, 2), (0, -1), (-1, 0), (40, 40)])
def test_out_of_range_read_in_serial_code(gpu, index):
    def build():
        x = ti.field(ti.i32, shape=(6, 5))

        @ti.kernel
        def read(i: ti.i32, j: ti.i32) -> ti.i32:
            return x[i, j]

        x[5, 4] = 9
        return read(5, 4), _error(lambda: read(*index))

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    value, (cls, message) = actual
    assert value == 9 and cls is TiIndexError
    assert f"index {index} is outside shape (6, 5)" in message


@pytest.mark.parametrize(
    "layout",
    [
        lambda f: ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (4, 4)).place(f),
        lambda f: ti.root.dense(ti.j, 12).dense(ti.i, 8).place(f),
        lambda f: ti.root.pointer(ti.ij, (4, 6)).dense(ti.ij, 2).place(f),
    ],
    ids=["hierarchical", "column_major", "pointer"],
)
def test_out_of_range_write_at_one_cell_of_a_parallel_loop(gpu, layout):
    def build():
        grid = ti.field(ti.f32, name="grid")
        layout(grid)

        @ti.kernel
        def poke(k: ti.i32):
            for i, j in ti.ndrange(8, 12):
                if i * 12 + j == k:
                    grid[i + 5, j] = 1.0  # grid-write

        return _error(lambda: poke(50))  # i = 4, j = 2: row 9 of 8

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    cls, message = actual
    assert cls is TiIndexError and "index (9, 2) is outside shape (8, 12)" in message
    assert "grid-write" in message  # the source line


def test_several_threads_out_of_range_report_one_of_them(gpu):
    def build():
        heat = ti.field(ti.f32)
        ti.root.dense(ti.ij, (2, 2)).dense(ti.ij, (4, 4)).place(heat)
        total = ti.field(ti.f32, shape=())

        @ti.kernel
        def smear():
            for i, j in heat:
                total[None] += heat[i + 1, j]  # i + 1 == 8 on the last row

        cls, message = _error(smear)
        _still_works()
        return cls, message

    (cpu_cls, cpu_message), (cls, message) = gpu.against_cpu(build, debug=True)
    assert cls is cpu_cls is TiIndexError
    assert message.split("index")[0] == cpu_message.split("index")[0]  # kernel, field
    column = int(message.split("index (8, ")[1].split(")")[0])
    assert 0 <= column < 8 and "is outside shape (8, 8)" in message


def test_ndarray_arguments_are_checked(gpu):
    def build():
        @ti.kernel
        def shift(a: ti.types.ndarray(), k: ti.i32):
            for i in range(a.shape[0]):
                if i == 7:
                    a[i] = a[i + k] + 1  # ndarray-read

        data = np.arange(8, dtype=np.float32)
        shift(data, 0)
        return data.tolist(), _error(lambda: shift(data, 1))

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    assert actual[0][7] == 8.0 and "outside shape (8,)" in actual[1][1]


def test_a_failed_check_stops_the_tasks_after_it(gpu):
    def build():
        x = ti.field(ti.i32, shape=16)
        after = ti.field(ti.i32, shape=())

        @ti.kernel
        def two_tasks(k: ti.i32):
            for i in x:
                if i == 3:
                    x[i] = x[i + k]
            for _ in range(10):
                after[None] += 1

        error = _error(lambda: two_tasks(16))
        return error, after[None]

    expected, actual = gpu.against_cpu(build, debug=True)
    assert actual == expected
    assert actual[1] == 0


def test_a_failed_assert_in_a_block_local_loop_does_not_hang(gpu):
    def build():
        a, b = ti.field(ti.f32), ti.field(ti.f32)
        ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(a, b)

        @ti.kernel
        def smooth(limit: ti.f32):
            ti.block_local(a)
            for i, j in b:
                assert a[i, j] < limit, "value over the limit"
                if 0 < i < 15 and 0 < j < 15:
                    b[i, j] = a[i - 1, j] + a[i + 1, j]

        @ti.kernel
        def load():
            for i, j in ti.ndrange(16, 16):
                a[i, j] = i * 16 + j
                b[i, j] = 0

        load()
        smooth(1000.0)
        good = b.to_numpy()
        return good, _error(lambda: smooth(100.0))

    expected, actual = gpu.against_cpu(build, debug=True)
    np.testing.assert_array_equal(actual[0], expected[0])
    assert actual[1] == expected[1] and "value over the limit" in actual[1][1]
