"""``DeviceKernel`` and ``CudaDeviceRuntime`` end to end, on a fake device.

The kernels are compiled by the real device backend (PTX made and kept), and launched
by the real ``DeviceKernel`` through :class:`fake_device.FakeContext`, whose device
memory is apart from the fields' host memory and whose kernels run on the SIMT
emulator. So what is checked here is everything of a GPU run but the GPU: the launch
context in device memory, the roots table, temporaries, ndarray copies, the coherence
of field memory, error slots, return values, grids and the profiler's events.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from fake_device import FAKE_STATUS, use_fake_device

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiRuntimeError
from ti_notebook.lang.sparse import active_cells

pytestmark = pytest.mark.cpu
RESULTS_BYTES = 80  # the error slot, its arguments and the return value, read back


@pytest.fixture
def fake(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False)
    return use_fake_device(monkeypatch)


def launches(fake) -> list[tuple]:
    return [call for call in fake.calls if call[0] == "launch"]


def test_a_kernel_writes_device_memory_and_python_reads_it_back(fake):
    x = ti.field(ti.f32, shape=1000)

    @ti.kernel
    def fill(scale: ti.f32):
        for i in x:
            x[i] = i * scale

    fill(2.0)
    host = x.tree.memory
    assert not host.buffer.any()  # written on the device only, so far
    assert host.device.device_newer
    assert x[10] == 20.0 and host.device.downloads == 1
    assert (x.to_numpy() == np.arange(1000) * 2.0).all() and host.device.downloads == 1
    _, symbol, grid, block, shared = launches(fake)[0]
    assert (grid, block, shared) == (8, 128, 0)  # ceil(1000 / 128) blocks


def test_host_writes_reach_the_next_launch_and_return_values_come_back(fake):
    x = ti.field(ti.i32, shape=100)

    @ti.kernel
    def total() -> ti.i32:
        s = 0
        for i in x:
            s += x[i]
        return s

    x.from_numpy(np.arange(100, dtype=np.int32))
    assert total() == 4950
    x[3] = 1003
    assert total() == 4950 + 1000
    assert x.tree.memory.device.uploads == 2


def test_values_passed_between_tasks_go_through_the_device_temporaries(fake):
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def staged(n: ti.i32) -> ti.f32:
        scale = ti.sqrt(n * 1.0)  # a serial task's value, read by the next task
        for i in range(n):
            x[i] = scale
        s = 0.0
        for i in range(n):
            s += x[i]
        return s

    assert staged(16) == pytest.approx(64.0)
    assert x[15] == 4.0 and x[16] == 0.0
    assert len(launches(fake)) >= 2


def test_ndarrays_are_copied_in_and_back_only_when_written(fake):
    @ti.kernel
    def scale(a: ti.types.ndarray(), b: ti.types.ndarray(), k: ti.f32):
        for i in a:
            b[i] = a[i] * k

    a = np.arange(8, dtype=np.float32)
    b = np.zeros(8, dtype=np.float32)
    before = len(fake.calls)
    scale(a, b, 3.0)
    assert b.tolist() == (np.arange(8) * 3.0).tolist()
    downloads = [call[2] for call in fake.calls[before:] if call[0] == "download"]
    assert [size for size in downloads if size != RESULTS_BYTES] == [32]  # b; a isn't written
    c = ti.ndarray(ti.f32, shape=8)
    scale(b, c, 0.5)
    assert c.to_numpy().tolist() == (np.arange(8) * 1.5).tolist()
    empty = np.zeros(0, dtype=np.float32)
    scale(empty, empty, 1.0)  # zero bytes: nothing to copy


def test_a_failed_bounds_check_stops_the_launch_and_names_the_index(fake):
    x = ti.field(ti.i32, shape=10)

    @ti.kernel
    def out_of_range(n: ti.i32):
        for i in range(n):
            x[i] = 1
        for i in range(n):
            x[i] += 1

    with pytest.raises(TiIndexError) as caught:
        out_of_range(12)
    assert "(10,)" in str(caught.value) and "outside shape (10,)" in str(caught.value)
    assert len(launches(fake)) == 1  # the second task never ran
    out_of_range(10)  # the error slot was cleared
    assert (x.to_numpy() == 2).all()


def test_asserts_in_debug_mode(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False, debug=True)
    use_fake_device(monkeypatch)

    @ti.kernel
    def positive(v: ti.i32):
        assert v > 0, "v must be positive"

    positive(1)
    with pytest.raises(TiRuntimeError, match="v must be positive"):
        positive(-1)


def test_sparse_activity_made_by_a_kernel(fake):
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 8)
    block.dense(ti.i, 16).place(x)

    @ti.kernel
    def activate():
        for i in range(128):
            if i % 40 == 0:
                x[i] = i + 1.0

    @ti.kernel
    def count() -> ti.i32:
        n = 0
        for _i in x:
            n += 1
        return n

    activate()
    assert active_cells(block) == [0, 2, 5, 7]
    assert count() == 4 * 16
    assert x[80] == 81.0 and x[81] == 0.0
    block.deactivate_all()
    assert count() == 0


def test_fields_of_two_trees_each_get_their_device_base(fake):
    a = ti.field(ti.i32, shape=16)
    a.fill(1)  # finalises ti.root's tree
    fb = ti.FieldsBuilder()
    b = ti.field(ti.i32)
    fb.dense(ti.i, 16).place(b)
    fb.finalize()

    @ti.kernel
    def copy():
        for i in a:
            b[i] = a[i] + i

    copy()
    assert b.to_numpy().tolist() == list(range(1, 17))
    assert (a.to_numpy() == 1).all()


def test_block_local_storage_past_48_kb_opts_into_dynamic_shared_memory(fake):
    a = ti.field(ti.f32)
    b = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 2).dense(ti.ij, 128).place(a, b)

    @ti.kernel
    def ones():
        for i, j in ti.ndrange(256, 256):
            a[i, j] = 1.0

    @ti.kernel
    def blur():
        ti.block_local(a)
        for i, j in a:
            right = 0.0
            if j < 255:
                right = a[i, j + 1]
            b[i, j] = a[i, j] + right

    ones()
    blur()
    opted = [call for call in fake.calls if call[0] == "allow_dynamic_shared"]
    assert opted and opted[0][2] > 48 << 10
    result = b.to_numpy()
    assert result[5, 5] == 2.0 and result[5, 255] == 1.0


def test_prints_are_waited_for(fake, capfd):
    @ti.kernel
    def hello(v: ti.i32):
        print("value", v)

    hello(7)
    assert "value 7" in capfd.readouterr().out
    assert fake.count("synchronize") == 1


def test_random_numbers_differ_between_launches(fake):
    x = ti.field(ti.f32, shape=256)

    @ti.kernel
    def draw():
        for i in x:
            x[i] = ti.random()

    draw()
    first = x.to_numpy()
    draw()
    second = x.to_numpy()
    assert first.min() >= 0 and first.max() < 1 and len(np.unique(first)) > 200
    assert not (first == second).all()


def test_an_empty_kernel_loads_nothing(fake):
    @ti.kernel
    def nothing():
        pass

    nothing()
    assert fake.count("load_module") == 0 and not launches(fake)


def test_grids_follow_the_device(fake):
    x = ti.field(ti.f32, shape=1 << 16)

    @ti.kernel
    def touch(n: ti.i32):
        for i in range(n):
            x[i] = 1.0

    touch(1 << 16)  # a count unknown while compiling: the device's saturating grid
    saturating = FAKE_STATUS.device().saturating_grid
    assert launches(fake)[-1][2] == saturating == 16
    assert x.to_numpy().sum() == 1 << 16


def test_the_profiler_records_device_events(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False, kernel_profiler=True)
    use_fake_device(monkeypatch)
    x = ti.field(ti.f32, shape=512)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    fill()
    fill()
    events = [e for e in ti.profiler.launches() if e.kernel == "fill"]
    assert [e.launch for e in events] == [0, 1]
    assert all(e.device == "cuda:0" and e.end_ns >= e.start_ns for e in events)
    (task,) = events[0].tasks
    assert task.kind == "struct_for" and task.iterations == 512
    assert task.bytes == 512 * 4 and events[0].start_ns <= task.start_ns <= task.end_ns
    assert ti.profiler.query_kernel_profiler_info("fill").counter == 2


def test_reset_frees_all_device_memory(fake):
    x = ti.field(ti.f32, shape=100)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    fill()
    assert fake.buffers
    del fill
    ti.reset()
    gc.collect()
    assert not fake.buffers


def _make_saxpy(x, y):
    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    return saxpy


def test_an_offline_cache_hit_loads_the_kept_ptx(monkeypatch, tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    fake = use_fake_device(monkeypatch)
    x, y = ti.field(ti.f32, shape=32), ti.field(ti.f32, shape=32)
    x.fill(1.0)
    first = _make_saxpy(x, y)
    first(2.0)
    assert first.stages()["report"]["cache"] == "miss"
    again = _make_saxpy(x, y)  # a re-run cell: same source, a new kernel object
    again(3.0)
    assert again.stages()["report"]["cache"] == "hit"
    assert (y.to_numpy() == 5.0).all()
    assert list((tmp_path / "cuda-sm_80").glob("*.json")) and fake.count("load_module") == 1


def test_a_kernel_that_only_reads_a_field_leaves_the_host_copy_current(fake):
    x = ti.field(ti.f32, shape=64)
    fb = ti.FieldsBuilder()
    y = ti.field(ti.f32)
    fb.dense(ti.i, 64).place(y)
    fb.finalize()
    x.fill(2.0)

    @ti.kernel
    def double_into_y():
        for i in x:
            y[i] = x[i] * 2

    double_into_y()
    x_copy, y_copy = x.tree.memory.device, y.tree.memory.device
    assert not x_copy.device_newer and y_copy.device_newer
    assert (y.to_numpy() == 4.0).all() and x_copy.downloads == 0
    (launch,) = double_into_y.stages()["report"]["launches"]
    assert len(launch["written_trees"]) == 1  # a slot: y's tree, of the two it uses


def test_a_kernel_that_deactivates_cells(fake):
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 8)
    block.dense(ti.i, 4).place(x)
    for i in range(32):
        x[i] = 1.0

    @ti.kernel
    def drop_odd_blocks():
        for b in range(8):
            if b % 2 == 1:
                ti.deactivate(block, [b])

    drop_odd_blocks()
    assert active_cells(block) == [0, 2, 4, 6]
    assert x.to_numpy().tolist() == ([1.0] * 4 + [0.0] * 4) * 4


def test_the_profiler_does_not_guess_a_sparse_loops_iterations(monkeypatch):
    ti.init(arch=ti.cpu, offline_cache=False, kernel_profiler=True)
    use_fake_device(monkeypatch)
    s = ti.field(ti.f32)
    ti.root.pointer(ti.i, 16).dense(ti.i, 32).place(s)
    s[0] = s[100] = 1.0

    @ti.kernel
    def bump():
        for i in s:
            s[i] += 1

    bump()
    (event,) = [e for e in ti.profiler.launches() if e.kernel == "bump"]
    assert [(t.kind, t.iterations, t.bytes) for t in event.tasks] == [("struct_for", None, None)]
    assert s[100] == 2.0


def test_a_module_is_shared_while_used_and_unloaded_after(monkeypatch, tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=str(tmp_path))
    fake = use_fake_device(monkeypatch)
    x = ti.field(ti.f32, shape=8)
    kernels = [_make_saxpy(x, x) for _ in range(2)]  # a miss, then a hit: the same PTX
    for kernel in kernels:
        kernel(1.0)
    assert fake.count("load_module") == 1
    del kernels, kernel
    ti.reset()
    gc.collect()
    assert fake.count("unload_module") == 1


def test_re_running_a_cell_keeps_device_memory_flat(fake):
    live = []
    for run in range(12):
        x = ti.field(ti.f32, shape=4096)  # a re-run cell: a new field, a new kernel
        saxpy = _make_saxpy(x, x)
        saxpy(2.0)
        del x, saxpy
        gc.collect()
        live.append(len(fake.buffers))
        if run == 1:
            loaded = fake.count("load_module") - fake.count("unload_module")
    assert live[-1] == live[1], live
    assert fake.count("load_module") - fake.count("unload_module") <= loaded
