"""Every host path to field memory calls the device-copy hook first.

A recording stand-in for a tree's device copy (``TreeMemory.device``) lists the hook's
calls; each public way of reading or writing field data from Python must call it,
reads with ``write=False`` and writes with ``write=True``, before touching the bytes.
The second half does the same with a real ``DeviceTree`` whose device bytes were
changed behind the host's back: every read must see them, every write must survive
the next upload.
"""

from __future__ import annotations

import numpy as np
import pytest
from fake_device import FakeContext

import ti_notebook as ti
from ti_notebook.lang.sparse import active_cells
from ti_notebook.runtime.cuda import memory as cuda_memory

pytestmark = pytest.mark.unit


class Recorder:
    """A device copy that only records the hook's calls."""

    def __init__(self) -> None:
        self.calls: list[bool] = []
        self.dirty = False  # nothing for upload_host_writes to send

    def before_host_access(self, write: bool, span=None, covers: bool = False) -> None:
        self.calls.append(write)

    def free(self) -> None:
        pass


def recording(field) -> Recorder:
    tree = (field.components[0] if hasattr(field, "components") else field).tree
    recorder = tree.memory.device = Recorder()
    return recorder


def dense():
    return ti.field(ti.f32, shape=(4, 3))


def sparse():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 4).dense(ti.i, 4).place(x)
    x[5] = 1.0  # finalises the tree and activates a block
    return x


def vector():
    return ti.Vector.field(3, ti.f32, shape=4)


READS = {
    "getitem": (dense, lambda x: x[1, 2]),
    "to_numpy": (dense, lambda x: x.to_numpy()),
    "sparse getitem": (sparse, lambda x: x[5]),
    "sparse to_numpy": (sparse, lambda x: x.to_numpy()),
    "active_cells": (sparse, lambda x: active_cells(x.parent(2))),
    "vector to_numpy": (vector, lambda v: v.to_numpy()),
    "vector element": (vector, lambda v: v[1].tolist()),
    "vector component": (vector, lambda v: v[1].y),
    "vector element index": (vector, lambda v: v[1][0]),
}
WRITES = {
    "setitem": (dense, lambda x: x.__setitem__((1, 2), 5.0)),
    "fill": (dense, lambda x: x.fill(2.0)),
    "from_numpy": (dense, lambda x: x.from_numpy(np.ones((4, 3), np.float32))),
    "sparse setitem (activates)": (sparse, lambda x: x.__setitem__(13, 2.0)),
    "sparse fill": (sparse, lambda x: x.fill(3.0)),
    "sparse from_numpy": (sparse, lambda x: x.from_numpy(np.ones(16, np.float32))),
    "deactivate_all": (sparse, lambda x: x.parent(2).deactivate_all()),
    "vector setitem": (vector, lambda v: v.__setitem__(2, [1, 2, 3])),
    "vector fill": (vector, lambda v: v.fill(1.0)),
    "vector from_numpy": (vector, lambda v: v.from_numpy(np.ones((4, 3), np.float32))),
    "vector element setitem": (vector, lambda v: v[1].__setitem__(0, 4.0)),
    "vector component set": (vector, lambda v: setattr(v[1], "z", 4.0)),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_reads_call_the_hook(name):
    make, read = READS[name]
    field = make()
    recorder = recording(field)
    read(field)
    assert recorder.calls and not any(recorder.calls), recorder.calls


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_call_the_hook_as_writes(name):
    make, write = WRITES[name]
    field = make()
    recorder = recording(field)
    write(field)
    assert True in recorder.calls, recorder.calls


def test_without_a_device_copy_nothing_happens():
    x = dense()
    assert x.tree.memory.device is None
    x[1, 1] = 3.0
    assert x[1, 1] == 3.0


# -- the same paths against a device copy that changed ---------------------------------
def device_copy(field) -> tuple[FakeContext, cuda_memory.DeviceTree]:
    """Attaches a fake device copy, uploads, then writes 7s into the device copy of the
    field's elements, as a kernel would."""
    context = FakeContext()
    components = field.components if hasattr(field, "components") else [field]
    tree = cuda_memory.attach(components[0].tree.memory, context)
    cuda_memory.before_launch([tree])
    device = np.ctypeslib.as_array(context.buffers[tree.address])
    for component in components:
        layout = component.layout()
        addresses = layout.addresses().reshape(-1)
        for address in addresses.tolist():
            device[address : address + 4] = np.frombuffer(np.float32(7).tobytes(), np.uint8)
    cuda_memory.after_launch([tree])
    return context, tree


def test_reads_see_what_a_kernel_wrote():
    x = dense()
    _, tree = device_copy(x)
    assert x[3, 1] == 7.0
    assert tree.downloads == 1 and not tree.device_newer
    assert (x.to_numpy() == 7.0).all() and tree.downloads == 1  # once


def test_vector_reads_see_what_a_kernel_wrote():
    v = vector()
    device_copy(v)
    assert v.to_numpy().tolist() == [[7.0] * 3] * 4


def test_a_host_write_keeps_the_kernels_other_values_and_goes_back_up():
    x = dense()
    context, tree = device_copy(x)
    x[0, 0] = 1.0  # downloads first: the other elements keep the kernel's 7s
    assert tree.host_newer and x.to_numpy()[2, 2] == 7.0
    cuda_memory.before_launch([tree])
    device = np.ctypeslib.as_array(context.buffers[tree.address])
    offset = x.layout().address((0, 0))
    assert device[offset : offset + 4].view(np.float32)[0] == 1.0
    assert not tree.host_newer


def test_sparse_activity_set_by_a_kernel_is_seen_from_python():
    x = sparse()
    context, tree = device_copy(x)
    level = x.parent(2).layout().levels[-1]
    device = np.ctypeslib.as_array(context.buffers[tree.address])
    device[level.mask_offset] = 0b1001  # blocks 0 and 3 active on the device
    assert active_cells(x.parent(2)) == [0, 3]
    x.parent(2).deactivate_all()
    assert active_cells(x.parent(2)) == [] and tree.host_newer
