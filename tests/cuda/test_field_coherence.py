"""A device copy is kept coherent field by field (``runtime/cuda/memory.py``): touching
one field from Python moves that field's bytes, not its tree's, on a fake device."""

from __future__ import annotations

import numpy as np
import pytest
from fake_device import FakeContext, use_fake_device

import ti_notebook as ti
from ti_notebook.runtime.byte_spans import ByteSpans
from ti_notebook.runtime.cuda import memory as cuda_memory
from ti_notebook.runtime.memory import PAGE, allocate_tree

pytestmark = pytest.mark.unit

BIG = 1 << 16  # elements of the large field that shares the scalar's tree


def moved(context, kind: str, since: int = 0) -> list[int]:
    """Byte counts of the ``kind`` ("upload"/"download") copies after call ``since``."""
    return [call[2] for call in context.calls[since:] if call[0] == kind]


# -- byte spans ----------------------------------------------------------------------------
def test_byte_spans_merge_split_and_overlap():
    spans = ByteSpans([(10, 20), (30, 40)])
    spans.add(20, 30)  # touching ranges merge
    assert list(spans) == [(10, 40)]
    spans.remove(15, 35)
    assert list(spans) == [(10, 15), (35, 40)]
    assert spans.overlap(0, 100) == [(10, 15), (35, 40)] and spans.overlap(15, 35) == []
    spans.add(0, 0)  # empty: nothing
    spans.clear()
    assert not spans


# -- one tree, by hand ---------------------------------------------------------------------
def _tree(context, nbytes=4 * PAGE):
    host = allocate_tree(nbytes, huge_pages=True)
    host.buffer[:] = 1
    tree = cuda_memory.attach(host, context)
    cuda_memory.before_launch([tree])
    cuda_memory.after_launch([tree])  # a kernel ran: the device copy is newer
    return host, tree


def test_reading_a_span_downloads_it_once_and_nothing_else():
    context = FakeContext()
    host, tree = _tree(context)
    start = len(context.calls)
    tree.before_host_access(False, (100, 200))
    tree.before_host_access(False, (120, 180))  # inside what came back: nothing moves
    assert moved(context, "download", start) == [100]
    tree.before_host_access(False, (150, 300))  # only the part not yet back
    assert moved(context, "download", start) == [100, 100]
    assert tree.device_newer  # the rest of the tree is still the device's
    host.free()


def test_a_write_marks_only_its_span_for_the_next_upload():
    context = FakeContext()
    host, tree = _tree(context)
    start = len(context.calls)
    tree.before_host_access(True, (64, 68))  # a scalar: read-modify-write
    assert moved(context, "download", start) == [4] and list(tree.dirty) == [(64, 68)]
    cuda_memory.before_launch([tree])
    assert moved(context, "upload", start) == [4] and not tree.host_newer
    host.free()


def test_a_write_covering_its_span_downloads_nothing():
    context = FakeContext()
    host, tree = _tree(context)
    start = len(context.calls)
    tree.before_host_access(True, (0, 2 * PAGE), covers=True)
    assert moved(context, "download", start) == []
    assert tree.stale.overlap(0, 2 * PAGE) == [] and tree.device_newer
    host.free()


def test_a_sparse_tree_moves_whole_whatever_the_span():
    context = FakeContext()
    host = allocate_tree(4 * PAGE)  # commits lazily: pointer/bitmasked trees
    assert host.commits_lazily
    tree = cuda_memory.attach(host, context)
    cuda_memory.before_launch([tree])
    cuda_memory.after_launch([tree])
    start = len(context.calls)
    tree.before_host_access(True, (0, 8), covers=True)  # covers is ignored here
    assert sum(moved(context, "download", start)) == 4 * PAGE
    assert list(tree.dirty) == [(0, 4 * PAGE)]
    host.free()


# -- fields on the fake device ---------------------------------------------------------------
@pytest.fixture
def fake(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False)
    return use_fake_device(monkeypatch)


def _scalar_beside_a_big_field():
    big = ti.field(ti.f32, shape=BIG)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def reduce():
        for i in big:
            total[None] += big[i]

    big.from_numpy(np.ones(BIG, np.float32))
    return big, total, reduce


def test_writing_a_scalar_after_a_kernel_moves_four_bytes_not_the_tree(fake):
    big, total, reduce = _scalar_beside_a_big_field()
    total[None] = 0.0
    reduce()
    assert total[None] == BIG
    start = len(fake.calls)
    total[None] = 0.0  # the reduction's usual reset
    reduce()
    assert total[None] == BIG
    assert moved(fake, "download", start) == [4]  # the read after the kernel: 4 bytes
    assert 4 in moved(fake, "upload", start)  # the scalar, before the launch
    # the rest is the launch's own context (a few hundred bytes), never big's 256 KiB
    assert max(moved(fake, "upload", start)) < 1024


def test_from_numpy_of_a_whole_field_uploads_at_once_and_downloads_nothing(fake):
    big, total, reduce = _scalar_beside_a_big_field()
    reduce()
    start = len(fake.calls)
    big.from_numpy(np.full(BIG, 2.0, np.float32))
    assert moved(fake, "download", start) == []  # every byte is overwritten
    assert moved(fake, "upload", start) == [4 * BIG]  # sent now, not at the next launch
    total[None] = 0.0
    reduce()
    assert total[None] == 2.0 * BIG


def test_interleaved_fields_keep_their_neighbours_bytes(fake):
    """AoS: a field's span holds the other field's bytes, so a write downloads first."""
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.dense(ti.i, 64).place(a, b)

    @ti.kernel
    def fill():
        for i in a:
            a[i] = 1.0
            b[i] = 2.0

    fill()
    a.from_numpy(np.full(64, 5.0, np.float32))
    assert (b.to_numpy() == 2.0).all() and (a.to_numpy() == 5.0).all()
    fill()
    a.fill(7.0)
    assert (b.to_numpy() == 2.0).all() and (a.to_numpy() == 7.0).all()


def test_matrix_fields_fill_and_copy_in_through_one_view(fake):
    v = ti.Vector.field(3, ti.f32, shape=32)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        for i in v:
            s[None] += v[i].sum()

    v.fill([1.0, 2.0, 3.0])
    total()
    assert s[None] == 32 * 6.0
    v.from_numpy(np.ones((32, 3), np.float32))
    s[None] = 0.0
    total()
    assert s[None] == 32 * 3.0 and (v.to_numpy() == 1.0).all()


def test_sync_sends_what_python_wrote(fake):
    big, total, reduce = _scalar_beside_a_big_field()
    reduce()
    total[None] = 5.0
    start = len(fake.calls)
    ti.sync()
    assert moved(fake, "upload", start) == [4]
    start = len(fake.calls)
    reduce()  # nothing left to send before it
    assert [n for n in moved(fake, "upload", start) if n == 4] == []
