"""A ``ti.ndarray`` lives on the device once a CUDA kernel takes it
(``runtime/array_homes.py``; its copy is a ``runtime/cuda/memory.py`` ``DeviceTree``):
launches move no data, the host's reads bring it back once; NumPy arrays are still
copied for each launch."""

from __future__ import annotations

import numpy as np
import pytest
from fake_device import use_fake_device

import ti_notebook as ti

pytestmark = pytest.mark.unit

N = 4096  # 16 KiB of f32: told apart from the launch's own small copies by size


@pytest.fixture
def fake(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False)
    return use_fake_device(monkeypatch)


def copies(context, kind: str, since: int) -> list[int]:
    """The ``kind`` ("upload"/"download") copies of N f32 after call ``since``."""
    return [call[2] for call in context.calls[since:] if call[0] == kind and call[2] == 4 * N]


@ti.kernel
def scale(a: ti.types.ndarray(), k: ti.f32):
    for i in a:
        a[i] = a[i] * k


@ti.kernel
def total(a: ti.types.ndarray()) -> ti.f32:
    s = 0.0
    for i in a:
        s += a[i]
    return s


def test_a_loop_of_launches_over_a_ti_ndarray_moves_it_once(fake):
    a = ti.ndarray(ti.f32, shape=N)
    a.fill(1.0)
    start = len(fake.calls)
    for _ in range(5):
        scale(a, 2.0)
    assert copies(fake, "upload", start) == [4 * N]  # the first launch gives it a copy
    assert copies(fake, "download", start) == []
    assert a[7] == 32.0 and a.to_numpy()[-1] == 32.0
    assert copies(fake, "download", start) == [4 * N]  # one read brought it back


def test_a_numpy_argument_is_copied_in_and_out_for_each_launch(fake):
    a = np.ones(N, np.float32)
    start = len(fake.calls)
    for _ in range(3):
        scale(a, 2.0)
    assert copies(fake, "upload", start) == [4 * N] * 3
    assert copies(fake, "download", start) == [4 * N] * 3
    assert a[0] == 8.0


def test_host_writes_reach_the_next_launch_and_bulk_writes_go_at_once(fake):
    a = ti.ndarray(ti.f32, shape=N)
    scale(a, 1.0)
    start = len(fake.calls)
    a.from_numpy(np.full(N, 3.0, np.float32))
    # every element replaced: nothing downloaded first, the upload made at once
    assert copies(fake, "download", start) == [] and copies(fake, "upload", start) == [4 * N]
    assert total(a) == 3.0 * N
    a[5] = 10.0  # an element: the copy comes back first, goes up at the next launch
    assert total(a) == 3.0 * N + 7.0


def test_a_read_only_kernel_leaves_the_host_copy_current(fake):
    a = ti.ndarray(ti.f32, shape=N)
    a.fill(2.0)
    total(a)
    start = len(fake.calls)
    assert a[0] == 2.0 and total(a) == 2.0 * N
    assert copies(fake, "download", start) == [] and copies(fake, "upload", start) == []


def test_reset_brings_the_values_home(fake):
    a = ti.ndarray(ti.f32, shape=N)
    a.fill(1.0)
    scale(a, 5.0)
    ti.reset()
    assert a._home.device is None
    assert a.to_numpy()[0] == 5.0
