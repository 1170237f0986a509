"""Device copies of SNode trees (``runtime/cuda/memory.py``) on a fake device."""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest
from fake_device import GARBAGE, FakeContext

import ti_notebook as ti
from ti_notebook.runtime.cuda import memory as cuda_memory
from ti_notebook.runtime.cuda.memory import nonzero_spans, page_flags, runs
from ti_notebook.runtime.memory import PAGE, allocate_tree

pytestmark = pytest.mark.unit
linux_only = pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="no smaps")


def committed_bytes(host) -> int:
    """Memory the kernel really gave the tree's mapping (``Anonymous`` in smaps: pages
    only read map the shared zero page, which ``mincore`` counts but this does not)."""
    with open("/proc/self/smaps") as smaps:
        lines = smaps.read().splitlines()
    for k, line in enumerate(lines):
        if line.split("-", 1)[0] == f"{host.map_address:x}":
            for entry in lines[k + 1 :]:
                if entry.startswith("Anonymous:"):
                    return int(entry.split()[1]) * 1024
    raise AssertionError("the tree's mapping is not in /proc/self/smaps")


def device_bytes(context: FakeContext, tree: cuda_memory.DeviceTree) -> np.ndarray:
    return np.ctypeslib.as_array(context.buffers[tree.address])[: tree.nbytes]


# -- pages of zeros ----------------------------------------------------------------------
def test_page_flags_mark_pages_holding_anything():
    data = np.zeros(3 * PAGE + 10, np.uint8)
    data[PAGE - 1] = 1
    data[3 * PAGE + 9] = 2
    assert page_flags(data).tolist() == [True, False, False, True]
    assert page_flags(np.zeros(0, np.uint8)).tolist() == []


def test_runs_and_spans():
    flags = np.array([1, 1, 0, 0, 0, 1, 0, 1], dtype=bool)
    assert runs(flags) == [(0, 2, True), (2, 5, False), (5, 6, True), (6, 7, False), (7, 8, True)]
    assert nonzero_spans(flags, merge_gap=0) == [(0, 2), (5, 6), (7, 8)]
    assert nonzero_spans(flags, merge_gap=1) == [(0, 2), (5, 8)]
    assert nonzero_spans(flags, merge_gap=3) == [(0, 8)]
    assert runs(np.zeros(0, bool)) == [] and nonzero_spans(np.zeros(3, bool)) == []


# -- coherence -------------------------------------------------------------------------------
def test_the_first_launch_uploads_then_nothing_moves_until_the_host_looks():
    context = FakeContext()
    host = allocate_tree(3 * PAGE + 100, huge_pages=True)
    host.buffer[:] = np.arange(host.nbytes) % 251
    tree = cuda_memory.attach(host, context)
    assert cuda_memory.attach(host, context) is tree and host.device is tree
    assert (device_bytes(context, tree) == GARBAGE).all()  # cuMemAlloc gives garbage
    cuda_memory.before_launch([tree])
    assert (device_bytes(context, tree) == host.buffer).all() and tree.uploads == 1
    cuda_memory.after_launch([tree])
    cuda_memory.before_launch([tree])  # a second kernel: the device copy is current
    cuda_memory.after_launch([tree])
    assert tree.uploads == 1 and tree.downloads == 0 and tree.device_newer
    device_bytes(context, tree)[5] = 0
    tree.before_host_access(write=False)
    assert host.buffer[5] == 0 and tree.downloads == 1 and not tree.host_newer
    tree.before_host_access(write=False)
    assert tree.downloads == 1  # still current
    tree.before_host_access(write=True)
    assert tree.host_newer and tree.downloads == 1
    host.free()


@linux_only
def test_a_sparse_tree_moves_only_pages_that_hold_data():
    context = FakeContext()
    host = allocate_tree(64 * PAGE, huge_pages=False)
    assert host.commits_lazily
    host.buffer[10 * PAGE + 3] = 1
    host.buffer[40 * PAGE] = 2
    tree = cuda_memory.attach(host, context)
    cuda_memory.before_launch([tree])
    assert committed_bytes(host) == 2 * PAGE  # looking for zero pages commits none
    assert host.resident_bytes() == 2 * PAGE  # nor maps the untouched ones
    assert (device_bytes(context, tree) == host.buffer).all()  # zeros cleared, not copied
    uploaded = sum(call[2] for call in context.calls if call[0] == "upload")
    assert uploaded == 2 * PAGE
    # a "kernel" activates page 50 and clears page 10; the host gets both
    device = device_bytes(context, tree)
    device[50 * PAGE + 7], device[10 * PAGE + 3] = 9, 0
    cuda_memory.after_launch([tree])
    tree.before_host_access(write=False)
    assert (host.buffer == device).all()
    assert committed_bytes(host) == 2 * PAGE  # pages 40 and 50; page 10 handed back
    host.free()


@pytest.mark.parametrize("swapping", [False, True])
def test_pages_that_may_hold_data(monkeypatch, swapping):
    monkeypatch.setattr(cuda_memory, "swap_in_use", lambda: swapping)
    host = allocate_tree(8 * PAGE + 5, huge_pages=False)
    host.buffer[3 * PAGE] = 1
    host.buffer[8 * PAGE + 4] = 0  # written, though zero: touched
    assert cuda_memory.touched_pages(host).tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 1]
    assert cuda_memory.nonzero_pages(host).tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0]
    host.free()


def test_without_the_page_map_every_page_is_looked_at(monkeypatch):
    monkeypatch.setattr(cuda_memory, "swap_in_use", lambda: True)
    monkeypatch.setattr(cuda_memory, "swapped_pages", lambda address, pages: None)
    host = allocate_tree(3 * PAGE, huge_pages=False)
    assert cuda_memory.touched_pages(host).all()
    host.free()


def test_a_sparse_download_through_several_staging_buffers(monkeypatch):
    monkeypatch.setattr(cuda_memory, "STAGING_BYTES", 4 * PAGE)
    context = FakeContext()
    host = allocate_tree(10 * PAGE + 123, huge_pages=False)
    tree = cuda_memory.attach(host, context)
    cuda_memory.before_launch([tree])
    device = device_bytes(context, tree)
    device[[3, 5 * PAGE, 9 * PAGE + 1, 10 * PAGE + 122]] = [1, 2, 3, 4]
    cuda_memory.after_launch([tree])
    tree.download()
    assert (host.buffer == device).all()
    host.free()


# -- freeing ---------------------------------------------------------------------------------
def test_destroy_frees_the_device_copy():
    context = FakeContext()
    fb = ti.FieldsBuilder()
    x = ti.field(ti.f32)
    fb.dense(ti.i, 16).place(x)
    snode_tree = fb.finalize()
    tree = cuda_memory.attach(snode_tree.memory, context)
    snode_tree.destroy()
    assert tree.address not in context.buffers and not tree.free.alive


def test_reset_frees_every_device_copy():
    context = FakeContext()
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.i32, shape=())
    trees = [cuda_memory.attach(f.tree.memory, context) for f in (x, y)]
    ti.reset()
    assert not context.buffers and all(not t.free.alive for t in trees)


def test_an_unreachable_tree_frees_its_device_copy():
    context = FakeContext()
    host = allocate_tree(100)
    address = cuda_memory.attach(host, context).address
    del host
    gc.collect()
    assert address not in context.buffers
