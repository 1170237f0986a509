"""The generated call of a compiled kernel (``runtime/cpu/launch_call.py``): the kernel's own
``__call__`` and no other Python frame for arguments in their common form, the checked
path (with its errors) for any other call."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiOverflowError, TiValueError

pytestmark = pytest.mark.cpu


def _python_frames(call) -> list[str]:
    """The Python functions one call enters (C functions not counted)."""
    names = []

    def profile(frame, event, _arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names


def test_a_repeated_ndarray_call_runs_in_one_python_frame():
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def axpy(y: ti.types.ndarray(ti.f32, ndim=1), x: ti.types.ndarray(ti.f32, ndim=1), a: float):
        for i in range(y.shape[0]):
            y[i] += a * x[i]

    y, x = np.zeros(8, np.float32), np.ones(8, np.float32)
    axpy(y, x, 2.0)
    assert _python_frames(lambda: axpy(y, x, 2.0)) == ["<lambda>", "__call__"]
    assert y.tolist() == [4.0] * 8


def test_an_all_scalar_call_runs_in_one_python_frame():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fill(v: ti.i32) -> ti.i32:
        for i in x:
            x[i] = v
        return v + 1

    assert fill(1) == 2
    frames = _python_frames(lambda: fill(5))
    assert frames == ["<lambda>", "__call__"]
    assert x.to_numpy().tolist() == [5] * 4
    with pytest.raises(TiOverflowError, match="argument 'v' = 4294967296"):
        fill(1 << 32)  # not the common form: the checked path says why


def test_specialisations_take_turns_and_errors_name_the_argument():
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def total(a: ti.types.ndarray()) -> ti.f64:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    f32, i64 = np.arange(4, dtype=np.float32), np.arange(5, dtype=np.int64)
    for _ in range(3):  # each key becomes the latest in turn
        assert total(f32) == 6.0
        assert total(i64) == 10.0
    assert _python_frames(lambda: total(i64)) == ["<lambda>", "__call__"]
    with pytest.raises(TiValueError, match="argument 'a' is not C-contiguous"):
        total(np.arange(8, dtype=np.int64)[::2])
    assert total(f32) == 6.0


def test_every_call_is_a_new_launch_for_random_streams():
    ti.init(arch=ti.cpu, offline_cache=False, random_seed=7)

    @ti.kernel
    def draw(out: ti.types.ndarray(ti.f32, ndim=1)):
        for i in range(out.shape[0]):
            out[i] = ti.random(ti.f32)

    first, second = np.zeros(16, np.float32), np.zeros(16, np.float32)
    draw(first)
    draw(second)
    assert not np.array_equal(first, second)
