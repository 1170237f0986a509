"""The kernel profiler on the emulator (``runtime/simt/launch.py``): a launch event
per launch, as on the CPU, and a task event per task of the CUDA code (whose tasks may
differ from the CPU's: ``passes/spill_between_tasks.py``); a sparse loop's helper
kernels count as part of its task. Times are the host's clock, so only their order is
checked, never their size."""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cuda_sim


def _kernels():
    x = ti.field(ti.f32, shape=4096)
    s = ti.field(ti.i32)
    ti.root.pointer(ti.i, 16).dense(ti.i, 8).place(s)

    @ti.kernel
    def three_tasks(n: ti.i32) -> ti.f32:
        for i in range(1000):
            x[i] = i * n
        total = 0.0
        for i in x:
            total += x[i]
        return total

    @ti.kernel
    def sparse():
        for i in s:
            s[i] += 1

    s[3] = 1
    s[100] = 1
    return three_tasks, sparse


def _profile():
    three_tasks, sparse = _kernels()
    three_tasks(1000)
    three_tasks(2000)
    sparse()
    kinds = {k.name: [t.kind for t in k.stages()["report"].tasks] for k in (three_tasks, sparse)}
    return ti.profiler.launches(), kinds


def test_launch_and_task_events_for_every_task(sim):
    ti.init(arch=ti.cpu, kernel_profiler=True)
    on_cpu, _ = _profile()
    sim.init(kernel_profiler=True)
    events, kinds = _profile()
    assert [(e.kernel, e.launch) for e in events] == [(e.kernel, e.launch) for e in on_cpu]
    assert [[t.kind for t in e.tasks] for e in events] == [kinds[e.kernel] for e in events]
    assert kinds["sparse"] == ["struct_for"]  # its list kernels are part of its task
    assert {e.device for e in events} == {"cuda (SIMT emulator)"}
    for event in events:
        assert event.start_ns <= event.end_ns
        for before, after in zip(event.tasks, event.tasks[1:], strict=False):
            assert before.end_ns <= after.start_ns
        for task in event.tasks:
            assert event.start_ns <= task.start_ns <= task.end_ns <= event.end_ns
    ranges = [t.iterations for e in events[:2] for t in e.tasks if t.kind == "range_for"]
    assert ranges == [1000, 1000]  # known while compiling; a run-time count would be None
    assert all(t.iterations is None for e in events for t in e.tasks if t.kind != "range_for")


def test_the_profiler_off_records_nothing(sim):
    sim.init()
    assert _profile()[0] == ()
