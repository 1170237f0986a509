"""A kernel's machine code is freed when the last reference to it dies.

Each compiled kernel's object lives in an execution engine of its own
(``runtime/cpu/kernel_code.py``); these tests count the engines alive before and after
kernels are made and dropped: redefined kernels (a re-run cell), cache hits, a dropped
template specialisation, and ``ti.reset()``.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.runtime.cpu import kernel_code

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _clean_start():
    # earlier tests' kernels give their code back here, not in the middle of a count
    ti.reset()
    gc.collect()


def _settled_count() -> int:
    gc.collect()
    return kernel_code.live_count()


def _make_fill(x, k: int):
    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v + k

    return fill


def test_200_compiled_and_dropped_kernels_leave_no_code_loaded():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=64)
    before = _settled_count()
    for k in range(200):
        fill = _make_fill(x, k)
        fill(1.0)
        assert kernel_code.live_count() >= 1
        if k % 50 == 49:  # the previous definitions' code is gone, this one's is loaded
            assert 1 <= _settled_count() <= before + 1
    assert x.to_numpy()[0] == 200.0
    del fill
    assert _settled_count() <= before
    # the runtime shared by every kernel (thread pool, print) still works
    _make_fill(x, 5)(2.0)
    assert np.all(x.to_numpy() == 7.0)


def test_cache_hits_share_live_code_and_reload_freed_code(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    x = ti.field(ti.f32, shape=16)
    before = _settled_count()
    first = _make_fill(x, 3)
    first(1.0)
    second = _make_fill(x, 3)  # the same code, from the cache: it is already loaded
    second(2.0)
    assert second.report.cache == "hit"
    assert kernel_code.live_count() == before + 1
    del first, second
    assert _settled_count() == before
    for _ in range(20):  # a re-run cell: each definition loads it again, then drops it
        again = _make_fill(x, 3)
        again(4.0)
        assert again.report.cache == "hit"
    assert np.all(x.to_numpy() == 7.0)
    del again
    assert _settled_count() == before


class _Offset:
    """A template value keyed by identity: its specialisation dies with it."""

    def __init__(self, v: int) -> None:
        self.v = v


def test_a_dead_template_drops_its_specialisations_code():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fill(o: ti.template(), v: ti.i32):
        for i in x:
            x[i] = v + o.v

    before = _settled_count()
    offsets = [_Offset(k) for k in range(3)]
    for o in offsets:
        fill(o, 2)
    del o
    assert kernel_code.live_count() == before + 3
    offsets.pop(0)
    assert _settled_count() == before + 2
    offsets.pop()  # the one the last call used, too
    assert _settled_count() == before + 1
    fill(offsets[0], 2)
    assert x.to_numpy().tolist() == [3] * 4


def test_reset_frees_every_kernels_code():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=8)
    before = _settled_count()
    kept = [_make_fill(x, k) for k in range(5)]
    for kernel in kept:
        kernel(0.0)
    assert kernel_code.live_count() == before + 5
    ti.reset()
    assert _settled_count() == before
    ti.init(arch=ti.cpu, offline_cache=False)
    y = ti.field(ti.f32, shape=8)
    again = _make_fill(y, 1)
    again(1.0)
    assert y.to_numpy().tolist() == [2.0] * 8
