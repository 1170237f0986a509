"""The profiler's native events: per-specialisation rows, ordered and nested
timestamps, per-thread busy spans, the active cells a sparse struct-for visits, compile
spans, and nothing compiled in when the profiler is off."""

from enum import IntEnum

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

N = 256


def _two_layouts():
    rows = ti.field(ti.f32)
    cols = ti.field(ti.f32)
    ti.root.dense(ti.i, N).dense(ti.j, N).place(rows)
    ti.root.dense(ti.j, N).dense(ti.i, N).place(cols)

    @ti.kernel
    def add_one(a: ti.template()):
        for i, j in ti.ndrange(N, N):
            a[i, j] += 1

    return rows, cols, add_one


def test_a_template_kernel_has_one_row_per_specialisation():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    rows, cols, add_one = _two_layouts()
    for _ in range(3):
        add_one(rows)
    add_one(cols)
    table = {row.specialisation: row for row in ti.profiler.rows()}
    assert table["add_one[a=rows]"].launches == 3
    assert table["add_one[a=cols]"].launches == 1
    assert ti.profiler.query_kernel_profiler_info("add_one[a=rows]").counter == 3
    assert ti.profiler.query_kernel_profiler_info("add_one").counter == 4  # Taichi's name
    numbers = [e.launch for e in ti.profiler.launches() if e.specialisation.endswith("rows]")]
    assert numbers == [0, 1, 2]


def test_timestamps_are_ordered_and_tasks_nest_in_their_launch():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    rows, _, add_one = _two_layouts()
    add_one(rows)
    add_one(rows)
    first, second = ti.profiler.launches()
    assert first.end_ns <= second.start_ns
    for event in (first, second):
        assert event.device == "cpu" and event.start_ns < event.end_ns
        assert [t.index for t in event.tasks] == list(range(len(event.tasks)))
        previous_end = event.start_ns
        for task in event.tasks:
            assert previous_end <= task.start_ns <= task.end_ns <= event.end_ns
            previous_end = task.end_ns
            for span in task.threads:
                assert task.start_ns <= span.start_ns <= span.end_ns <= task.end_ns


def test_busy_spans_fit_in_the_task_and_cover_every_index():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    x = ti.field(ti.f32, shape=1 << 20)

    @ti.kernel
    def work():
        for i in x:
            x[i] = ti.sin(i * 0.001) + ti.cos(i * 0.002)

    work()
    (task,) = ti.profiler.launches()[0].tasks
    threads = {span.thread for span in task.threads}
    assert len(threads) == len(task.threads)  # one span per thread
    assert sum(s.busy_ns for s in task.threads) <= task.duration_ns * len(task.threads)
    for span in task.threads:
        assert 0 < span.busy_ns <= span.end_ns - span.start_ns
    assert sum(s.iterations for s in task.threads) == task.iterations == 1 << 20
    assert task.kind == "struct_for" and task.threads[0].thread >= 0


def test_a_sparse_struct_for_counts_the_active_cells_it_visits():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 64).dense(ti.i, 64).place(x)
    y = ti.field(ti.f32)
    ti.root.dense(ti.i, 32).bitmasked(ti.i, 16).place(y)

    @ti.kernel
    def activate():
        for k in range(5):
            x[k * 640] = 1  # 5 pointer blocks of 64 cells
        for k in range(7):
            y[k * 3] = 1  # 7 bitmasked cells

    @ti.kernel
    def bump():
        for i in x:
            x[i] += 1
        for i in y:
            y[i] += 1

    activate()
    bump()
    tasks = ti.profiler.launches()[-1].tasks
    assert [t.iterations for t in tasks] == [5 * 64, 7]


def test_a_serial_task_has_a_span_and_no_iterations():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)

    @ti.kernel
    def add(a: ti.i32, b: ti.i32) -> ti.i32:
        return a + b

    assert add(2, 3) == 5
    (task,) = ti.profiler.launches()[0].tasks
    assert task.kind == "serial" and task.iterations is None and task.bytes is None
    assert [s.thread for s in task.threads] == [0]


def test_the_first_call_records_its_compile_span():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    rows, cols, add_one = _two_layouts()
    add_one(rows)
    add_one(rows)
    add_one(cols)
    spans = ti.profiler.spans()
    assert [(s.name, s.specialisation) for s in spans] == [
        ("compile", "add_one[a=rows]"),
        ("compile", "add_one[a=cols]"),
    ]
    launches = ti.profiler.launches()
    assert spans[0].end_ns <= launches[0].start_ns and spans[1].end_ns <= launches[2].start_ns


def test_off_records_nothing_and_compiles_no_clock_reads():
    ti.init(arch=ti.cpu, offline_cache=False)
    rows, _, add_one = _two_layouts()
    add_one(rows)
    assert ti.profiler.launches() == () and ti.profiler.spans() == ()
    assert "tin_now_ns" not in add_one.stages(rows)["llvm"]
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    rows, _, add_one = _two_layouts()
    add_one(rows)
    assert "tin_now_ns" in add_one.stages(rows)["llvm"]


def test_clock_counter_times_sections_into_an_i64_array():
    """The seeds' pattern: per-section cycle counts stored into an i64 ndarray."""

    class Time(IntEnum):
        Fill = 0
        Sum = 1

    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=4096)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def k1(it: ti.i32, times: ti.types.NDArray[ti.i64, 2]):
        start = ti.clock_counter()
        for i in range(4096):
            x[i] = 1.0
        end = ti.clock_counter()
        times[Time.Fill, it] = end - start
        start = end
        for i in range(4096):
            total[None] += x[i]
        end = ti.clock_counter()
        times[Time.Sum, it] = end - start

    times = np.zeros((2, 3), np.int64)
    for it in range(3):
        k1(it, times)
    assert (times > 0).all()
    assert total[None] == 3 * 4096


def test_bytes_per_task_match_hand_counts():
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    n = 1 << 16
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    a = ti.field(ti.f32, shape=(64, 64))
    b = ti.field(ti.f32, shape=(64, 64))
    s = ti.field(ti.f32)
    ti.root.pointer(ti.i, 16).dense(ti.i, 32).place(s)

    @ti.kernel
    def saxpy(k: ti.f32):
        for i in x:
            y[i] = k * x[i] + y[i]  # x read, y read and written: 12 bytes

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((1, 63), (1, 63)):  # a read once, b written: 8 bytes
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4 * a[i, j]

    @ti.kernel
    def bump():
        for i in s:  # active cells only: 3 blocks of 32, read and written
            s[i] += 1

    s[0] = s[100] = s[500] = 1
    saxpy(2.0)
    stencil()
    bump()
    by_name = {e.kernel: e for e in ti.profiler.launches()}
    parallel = lambda e: [t for t in e.tasks if t.kind != "serial"]  # noqa: E731
    assert [t.bytes for t in parallel(by_name["saxpy"])] == [12 * n]
    assert [t.bytes for t in parallel(by_name["stencil"])] == [8 * 62 * 62]
    assert [t.bytes for t in parallel(by_name["bump"])] == [8 * 3 * 32]
    (row,) = ti.profiler.rows("saxpy")
    assert row.bytes_per_launch == 12 * n and row.gbps > 0
