"""The native check and unpacking of NumPy array arguments (``runtime/cpu/array_args.py``):
it takes exactly the arrays the launch may use as they are, writes their data address
and shape, and refuses (without touching memory it must not read) anything else."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ti_notebook.runtime.cpu import array_args

pytestmark = pytest.mark.cpu


class _Sub(np.ndarray):
    pass


def _check(value, ndim: int, dtype, written: bool = False, extra: int = 3) -> tuple[int, list]:
    """(status, the context words after the check) for one argument at offset 8."""
    ctx = (ctypes.c_int64 * (2 + ndim + extra))()
    ctx[1] = id(value)
    words = array_args.table(0, ctypes.addressof(ctx), [(8, ndim, np.dtype(dtype), written)])
    status = array_args.check(ctypes.addressof(words))
    return status, list(ctx)


def test_the_probe_passes_on_cpython():
    assert array_args.available()


@pytest.mark.parametrize("shape", [(0,), (7,), (3, 4), (2, 3, 5), (1, 1, 1, 9)])
def test_an_expected_array_gives_its_data_address_and_shape(shape):
    a = np.zeros(shape, np.float32)
    status, ctx = _check(a, a.ndim, np.float32, written=True)
    assert status == 0
    assert ctx[1] == a.__array_interface__["data"][0]
    assert ctx[2 : 2 + a.ndim] == list(shape)
    assert ctx[0] == 0 and ctx[2 + a.ndim :] == [0, 0, 0]  # nothing else written


def test_a_view_gives_its_own_address():
    base = np.arange(20, dtype=np.int64).reshape(4, 5)
    status, ctx = _check(base[2], 1, np.int64)
    assert status == 0 and ctx[1] == base[2].__array_interface__["data"][0] and ctx[2] == 5


@pytest.mark.parametrize(
    "value",
    [
        np.zeros(4, np.float64),  # another dtype
        np.zeros(4, np.float32).astype(">f4"),  # the same kind, the other byte order
        np.zeros((2, 2), np.float32),  # another rank
        np.zeros(8, np.float32)[::2],  # not C-contiguous
        np.zeros(4, np.float32).view(_Sub),  # a subclass: the checked path decides
        [0.0, 1.0],
        7,
        2.5,
        None,
        "text",
        np.float32(1.0),  # a NumPy scalar, not an array
    ],
)
def test_anything_else_is_refused(value):
    assert _check(value, 1, np.float32)[0] == 1


def test_a_read_only_array_is_refused_only_where_the_kernel_writes():
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    assert _check(a, 1, np.float32, written=True)[0] == 1
    assert _check(a, 1, np.float32, written=False)[0] == 0


def test_the_first_refused_argument_stops_the_launch():
    launch = array_args.functions()[1]
    a, b = np.ones(3, np.float32), np.ones(3, np.float64)
    ctx = (ctypes.c_int64 * 4)(id(a), 0, id(b), 0)
    # entry 0: calling it would crash, and a refused argument returns before it
    arrays = [(0, 1, a.dtype, False), (16, 1, np.dtype(np.float32), False)]
    words = array_args.table(0, ctypes.addressof(ctx), arrays)
    assert launch(ctypes.addressof(words)) == 1
    assert ctx[2] == id(b)
