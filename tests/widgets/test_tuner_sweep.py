"""A tuner sweep through the one timing protocol: every setting is a candidate of
``ti.profiler.measure`` (interleaved, rotated rounds), ``should_stop`` ends it early
with the settings measured so far, the controls and the kernel keep the best setting
until ``close()``, and a re-measured setting replaces its row."""

import pytest

import ti_notebook as ti
from ti_notebook.widgets import tune

pytestmark = pytest.mark.cpu


def _kernel(tag: str):
    x = ti.field(ti.f32, shape=256)

    def body(k: ti.f32):
        for i in x:
            x[i] = x[i] * k + 1.0

    body.__name__ = body.__qualname__ = f"sweep_{tag}"
    return ti.kernel(body)


@pytest.fixture
def prepared(monkeypatch):
    """The labels of the candidates, in the order the protocol prepares them."""
    order: list[str] = []
    real = ti.profiler.measure

    def spy(candidates, **options):
        def logged(c):
            def prepare():
                order.append(c.label)
                c.prepare()

            return ti.profiler.Candidate(c.label, c.call, prepare, c.bytes_per_call)

        return real([logged(c) for c in candidates], **options)

    monkeypatch.setattr(ti.profiler, "measure", spy)
    return order


def test_a_sweep_measures_the_settings_interleaved(prepared):
    tuner = tune(_kernel("interleaved"), 1.0, block_dim=[16, 32, 64], repeat=3)
    prepared.clear()  # the measurement made when the tuner opened
    tuner.sweep()
    a, b, c = "block_dim=16", "block_dim=32", "block_dim=64"
    first_calls = [a, b, c]
    rounds = [a, b, c, b, c, a, c, a, b]  # each round starts one setting later
    assert prepared == first_calls + rounds
    assert [r.samples_n for r in tuner.results] == [3, 3, 3]


def test_should_stop_ends_a_sweep_with_the_settings_measured(prepared):
    kernel = _kernel("stopped")
    tuner = tune(kernel, 1.0, block_dim=[16, 32, 64], repeat=4)
    asked = []

    def should_stop() -> bool:
        asked.append(tuner.controls["block_dim"].disabled and tuner.sweep_button.disabled)
        return len(asked) > 3 + 4  # first calls, then after four samples

    tuner.sweep(should_stop)
    assert sorted(r.options["block_dim"] for r in tuner.results) == [16, 32, 64]
    assert sorted(r.samples_n for r in tuner.results) == [1, 1, 2]
    assert "stopped" in tuner.progress.label.value
    assert tuner.progress.stop_button.disabled
    assert all(asked)  # the controls were off while the sweep ran, and are back on
    assert not tuner.controls["block_dim"].disabled and not tuner.sweep_button.disabled
    assert tuner.choice == dict(tuner.best().options)


def test_a_stop_before_the_first_samples_keeps_what_was_there():
    tuner = tune(_kernel("early"), 1.0, block_dim=[16, 32], repeat=2)
    before = tuner.results
    tuner.sweep(lambda: True)
    assert tuner.results == before
    assert "0 of 2 settings" in tuner.progress.label.value


def test_after_a_sweep_controls_and_kernel_keep_the_best_until_close():
    kernel = _kernel("best").configure(parallelize=2)
    tuner = tune(kernel, 1.0, block_dim=[8, 16, 32], serialize=True, repeat=2)
    tuner.sweep()
    assert len(tuner.results) == 6
    best = tuner.best()
    assert best is min(tuner.results, key=lambda r: r.median_s)
    assert tuner.choice == dict(best.options)  # the sliders show the best setting
    assert kernel.configuration == {"parallelize": 2, **best.options}
    assert tuner.latest == dict(best.options)
    assert f"best: {best.label}" in tuner.status.value
    tuner.controls["block_dim"].value = 8 if best.options["block_dim"] != 8 else 16
    assert tuner.latest["block_dim"] == tuner.choice["block_dim"]  # moving it measures
    assert len(tuner.results) == 6  # that setting's row was replaced
    tuner.close()
    assert kernel.configuration == {"parallelize": 2}


def test_slow_rows_carry_the_reason_the_report_shows():
    tuner = tune(_kernel("reasons"), 1.0, parallelize=[1, 2], repeat=1)
    tuner.sweep()
    for row in tuner.results:
        slow = row.median_s > 2 * tuner.best().median_s
        assert (row.reason is not None) == slow
        if slow and row.options["parallelize"] == 1:
            assert row.reason_tag == "one thread"


def test_a_background_sweep_ends_and_close_waits_for_it():
    kernel = _kernel("background")
    tuner = tune(kernel, 1.0, block_dim=[16, 32], repeat=2)
    tuner.sweep(background=True)
    thread = tuner._sweeping
    if thread is not None:
        thread.join(timeout=120)
    assert len(tuner.results) == 2 and all(r.samples_n == 2 for r in tuner.results)
    tuner.close()
    assert kernel.configuration == {}
