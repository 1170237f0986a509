"""ti.profiler.enable() / disable(): the profiler switched within a session.

Kernels compiled before the switch recompile at their next call, with or without the
instrumentation; fields keep their values; what was recorded stays.
"""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _fill_kernel():
    x = ti.field(ti.f32, shape=4096)

    @ti.kernel
    def fill(v: ti.f32):  # scalar-only: its calls take the fast path once compiled
        for i in x:
            x[i] = v

    return x, fill


@pytest.mark.cpu_only(reason="per-thread spans and struct-for iterations come from the CPU's code")
def test_enable_gives_a_kernel_compiled_before_it_task_events():
    x, fill = _fill_kernel()
    fill(1.0)
    fill(2.0)  # the fast path, compiled without instrumentation
    assert not ti.profiler.is_enabled() and ti.profiler.launches() == ()
    ti.profiler.enable()
    assert ti.profiler.is_enabled() and ti.init_options()["kernel_profiler"]
    assert x[7] == 2.0  # the field survived
    fill(3.0)
    (event,) = ti.profiler.launches()
    assert event.specialisation == "fill" and event.tasks
    assert event.tasks[-1].iterations == 4096
    assert sum(t.iterations for t in event.tasks[-1].threads) == 4096
    assert [s.specialisation for s in ti.profiler.spans()] == ["fill"]  # the recompile
    assert x[4095] == 3.0


def test_enable_twice_recompiles_once():
    _, fill = _fill_kernel()
    ti.profiler.enable()
    generation = ti.session.config.generation()
    ti.profiler.enable()
    assert ti.session.config.generation() == generation
    fill(1.0)
    fill(1.0)
    assert [e.launch for e in ti.profiler.launches()] == [0, 1]


def test_disable_stops_recording_and_keeps_the_record():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    x, fill = _fill_kernel()
    fill(1.0)
    ti.profiler.disable()
    assert not ti.profiler.is_enabled() and not ti.init_options()["kernel_profiler"]
    fill(2.0)
    assert len(ti.profiler.launches()) == 1
    assert x[0] == 2.0


def test_enable_without_a_session_starts_one_with_the_profiler_on():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    ti.reset()
    assert not ti.profiler.is_enabled()  # no session, no profiler
    ti.profiler.disable()
    assert not ti.is_initialized()  # turning it off starts nothing
    ti.profiler.enable()
    assert ti.is_initialized() and ti.profiler.is_enabled()
    _, fill = _fill_kernel()
    fill(1.0)
    assert ti.profiler.launches()[0].tasks
