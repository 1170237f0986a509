"""memory_traffic: the compulsory bytes per iteration of each parallel task, hand-counted.

Rule (passes/analysis/memory_traffic.py): per iteration of a task's body, each field or ndarray
argument read counts its element size once, each written once more (an atomic is
both), however many times and at however many neighbouring indices it is accessed.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.compiler.report import KernelReport
from ti_notebook.compiler.task_report import Task, Traffic

pytestmark = pytest.mark.cpu

N = 256


def _parallel(report):
    return [t for t in report.tasks if t.kind != "serial"]


def _only_task(report):
    (task,) = _parallel(report)
    return task


def _by_name(task):
    return {t.name: (t.read, t.written, t.bytes) for t in task.traffic}


def test_saxpy_on_fields_moves_12_bytes():
    x, y = ti.field(ti.f32, shape=N, name="x"), ti.field(ti.f32, shape=N, name="y")

    @ti.kernel
    def saxpy(a: ti.f32):
        for i in x:
            y[i] = a * x[i] + y[i]

    task = _only_task(saxpy.stages(2.0)["report"])
    assert task.bytes_per_iteration == 12
    assert _by_name(task) == {"x": (True, False, 4), "y": (True, True, 8)}


def test_saxpy_on_numpy_arguments_moves_12_bytes():
    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    xs, ys = np.ones(N, np.float32), np.ones(N, np.float32)
    saxpy(2.0, xs, ys)
    np.testing.assert_array_equal(ys, np.full(N, 3.0, np.float32))
    task = _only_task(saxpy.stages(2.0, xs, ys)["report"])
    assert task.bytes_per_iteration == 12
    # arguments are named by their slot: a is slot 0
    assert _by_name(task) == {"arg 1": (True, False, 4), "arg 2": (True, True, 8)}


def test_five_point_stencil_counts_each_field_once():
    a = ti.field(ti.f32, shape=(64, 64), name="a")
    b = ti.field(ti.f32, shape=(64, 64), name="b")

    @ti.kernel
    def laplace():
        for i, j in ti.ndrange((1, 63), (1, 63)):
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]

    task = _only_task(laplace.report)
    assert task.bytes_per_iteration == 8
    assert _by_name(task) == {"a": (True, False, 4), "b": (False, True, 4)}


def test_sparse_struct_for_read_modify_write():
    x = ti.field(ti.f32, name="x")
    ti.root.pointer(ti.i, 8).dense(ti.i, 16).place(x)

    @ti.kernel
    def bump():
        for i in x:
            x[i] += 1.0

    x[3] = 1.0
    bump()
    assert x[3] == 2.0
    task = _only_task(bump.report)
    assert task.kind == "struct_for"
    assert task.bytes_per_iteration == 8
    assert _by_name(task) == {"x": (True, True, 8)}


def test_f64_elements_count_8_bytes_per_access():
    x, y = ti.field(ti.f64, shape=N, name="x"), ti.field(ti.f64, shape=N, name="y")

    @ti.kernel
    def scale():
        for i in x:
            y[i] = 2.0 * x[i]

    task = _only_task(scale.report)
    assert _by_name(task) == {"x": (True, False, 8), "y": (False, True, 8)}
    assert task.bytes_per_iteration == 16


def _sum_kernel():
    x = ti.field(ti.f32, shape=N, name="x")
    s = ti.field(ti.f32, shape=(), name="s")

    @ti.kernel
    def total():
        for i in x:
            s[None] += x[i]

    return total


def test_thread_local_reduction_counts_only_the_input():
    total = _sum_kernel()
    report = total.report
    assert [r.destination for r in report.thread_local] == ["s[None]"]
    task = _only_task(report)
    # the accumulator's one atomic per chunk is in the epilogue: not per iteration
    assert task.bytes_per_iteration == 4
    assert _by_name(task) == {"x": (True, False, 4)}


def test_without_thread_local_the_reduction_atomic_counts():
    ti.init(arch=ti.cpu, make_thread_local=False)
    task = _only_task(_sum_kernel().report)
    assert _by_name(task) == {"x": (True, False, 4), "s": (True, True, 8)}
    assert task.bytes_per_iteration == 12


def test_vector_field_read_in_full_counts_its_three_components():
    v = ti.Vector.field(3, ti.f32, shape=N, name="v")
    length = ti.field(ti.f32, shape=N, name="length")

    @ti.kernel
    def norms():
        for i in v:
            length[i] = v[i].norm()

    task = _only_task(norms.report)
    components = {
        name: bytes_ for name, (_r, _w, bytes_) in _by_name(task).items() if name != "length"
    }
    assert len(components) == 3 and sum(components.values()) == 12
    assert _by_name(task)["length"] == (False, True, 4)
    assert task.bytes_per_iteration == 16


def test_atomic_at_computed_indices_is_a_read_and_a_write():
    keys = ti.field(ti.i32, shape=64, name="keys")
    histogram = ti.field(ti.i32, shape=64, name="histogram")

    @ti.kernel
    def count():
        for i in keys:
            ti.atomic_add(histogram[(keys[i] * 7) % 64], 1)

    keys.from_numpy(np.arange(64, dtype=np.int32))
    count()
    np.testing.assert_array_equal(histogram.to_numpy(), np.ones(64))
    report = count.report
    # few adds per element: neither demoted nor privatised, a real atomic
    assert report.privatized == () and report.demoted_atomics == ()
    task = _only_task(report)
    assert _by_name(task) == {"keys": (True, False, 4), "histogram": (True, True, 8)}
    assert task.bytes_per_iteration == 12


def test_privatized_scatter_adds_into_a_private_copy_not_counted():
    grid = ti.field(ti.f32, shape=16, name="grid")

    @ti.kernel
    def scatter():
        for i in range(4096):
            grid[i % 16] += 1.0

    scatter()
    assert grid[3] == 256.0
    report = scatter.report
    assert [p.fields for p in report.privatized] == [("grid",)]
    # the chunk-private copy is not global memory; its add-back runs per chunk
    assert _only_task(report).bytes_per_iteration == 0


def test_serial_tasks_count_nothing():
    x = ti.field(ti.f32, shape=N, name="x")

    @ti.kernel
    def mixed():
        x[0] = 1.0
        for i in x:
            x[i] = 2.0

    tasks = mixed.report.tasks
    assert [t.kind for t in tasks] == ["serial", "struct_for"]
    assert tasks[0].bytes_per_iteration is None and tasks[0].traffic == ()
    assert mixed.report["tasks"][0].get("bytes_per_iteration") is None
    assert tasks[1].bytes_per_iteration == 4


def test_inner_loop_with_constant_trips_counts_each_element():
    a = ti.field(ti.f32, shape=(N, 4), name="a")
    s = ti.field(ti.f32, shape=N, name="s")

    @ti.kernel
    def row_sums():
        for i in s:
            acc = 0.0
            for k in range(4):
                acc += a[i, k]
            s[i] = acc

    task = _only_task(row_sums.report)
    assert _by_name(task) == {"a": (True, False, 16), "s": (False, True, 4)}


def test_block_local_counts_the_block_cells_not_the_halo():
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    for f in (a, b):
        ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(f)

    @ti.kernel
    def smooth():
        for i, j in b:
            ti.block_local(a)
            b[i, j] = a[i - 1, j] + a[i, j + 2]

    report = smooth.report
    (buffer,) = report.block_local
    assert buffer.buffer_shape == (5, 6)  # the fill loop reads 30 cells per block
    task = _only_task(report)
    assert task.field == "pointer(i,j)"  # one iteration is a 4 x 4 block
    assert _by_name(task) == {"a": (True, False, 16 * 4), "b": (False, True, 16 * 4)}


def test_traffic_round_trips_through_the_dict_form():
    x, y = ti.field(ti.f32, shape=N, name="x"), ti.field(ti.f32, shape=N, name="y")

    @ti.kernel
    def both():
        y[0] = 1.0
        for i in x:
            y[i] += x[i]

    report = both.report
    plain = report.to_dict()
    assert plain["tasks"][1]["traffic"] == [
        {"name": "x", "read": True, "written": False, "bytes": 4},
        {"name": "y", "read": True, "written": True, "bytes": 8},
    ]
    assert KernelReport.from_dict(plain) == report
    assert report.tasks[1].traffic[1] == Traffic("y", True, True, 8)


def test_a_task_cached_before_traffic_was_counted_still_loads():
    old = {"kind": "range_for", "loop_config": {}, "line": 3, "range": [0, 8]}
    task = Task.from_dict(old)
    assert task.bytes_per_iteration is None and task.traffic == ()
    # an old report gets plain words for its task from what it stored
    assert task.to_dict() == dict(old, range=(0, 8), description="parallel loop over [0, 8)")
    assert KernelReport.from_dict({"tasks": [old]}).tasks == (task,)
