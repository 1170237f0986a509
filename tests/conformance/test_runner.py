"""Fake examples through the ``make compat`` runner: one subprocess each, with ti_notebook.

These need neither taichi nor a compiled kernel (the examples only make fields and
draw with ti_notebook's own ``ti.GUI``), except the last, which checks that a kernel
reads the rewritten source.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest

import ti_notebook
from tests.conformance import runner

TIMEOUT_S = 120


@pytest.fixture
def run(examples_root, tmp_path):
    """Runs the fake example ``name`` with ti_notebook; returns the Run."""

    def run_one(name, source, frames=1, timeout=TIMEOUT_S):
        examples_root(name, source)
        return runner.run_child(
            "ti_notebook", name, frames, timeout, tmp_path / "work", examples_root.root,
            tmp_path / "pictures",
        )  # fmt: skip

    return run_one


DEMO = """
import numpy as np
import taichi as ti
import taichi.types
from taichi.examples.helpers.scale import FACTOR

ti.init(arch=ti.gpu)
x = ti.field(ti.f32, shape=4)
x.from_numpy(np.arange(4, dtype=np.float32) * FACTOR)
gui = ti.GUI("demo", res=(4, 4), background_color=0x0000FF)
while gui.running:
    gui.circles(x.to_numpy().reshape(2, 2), radius=2)
    gui.show()
print("shown", gui.frame, "is ti_notebook:", ti.__name__, "GUI:", type(gui).__module__)
"""


@pytest.mark.unit
def test_a_fake_example_runs_with_taichi_mapped_to_ti_notebook(examples_root, run, tmp_path):
    examples_root("helpers/scale", "FACTOR = 3\n")
    result = run("demo", DEMO, frames=2)
    assert result.status == "ok", result.problem
    assert result.result["ended"] == "finished"
    assert result.result["frames"] == 2
    assert result.result["requested_archs"] == [str(ti_notebook.gpu)]  # forced to the CPU
    np.testing.assert_array_equal(result.arrays()["field/x"], [0, 3, 6, 9])
    log = result.log_path.read_text()
    assert "shown 2 is ti_notebook: ti_notebook GUI: ti_notebook.ui.gui" in log  # no stub


def test_ti_notebooks_last_frame_is_saved_as_the_examples_picture(examples_root, run, tmp_path):
    examples_root("helpers/scale", "FACTOR = 3\n")
    result = run("demo", DEMO, frames=2)
    (picture,) = result.pictures
    assert picture["window"] == "GUI 'demo'" and picture["frames"] == 2
    assert picture["file"] == str(tmp_path / "pictures" / "demo.png")
    assert result.picture == "yes"
    from PIL import Image

    rgb = np.asarray(Image.open(picture["file"]))
    assert rgb.shape == (4, 4, 3)
    assert rgb[0, 0].tolist() == [0, 0, 255]  # the background, where no circle is


@pytest.mark.unit
def test_taichi_math_maps_to_ti_notebooks_or_fails_cleanly(run):
    source = "import taichi as ti\nimport taichi.math as tm\nti.init()\nv = tm.vec2\n"
    result = run("uses_math", source)
    if hasattr(ti_notebook, "math"):
        assert result.status == "ok", result.problem
    else:
        assert result.status == "error"
        assert result.result["error"] == "ModuleNotFoundError: No module named 'taichi.math'"
        assert result.result["where"] == "uses_math.py:2"
        assert result.result["blame"] == "backend"


@pytest.mark.unit
def test_a_name_ti_notebook_lacks_fails_as_a_missing_module(run):
    result = run("private", "import taichi as ti\nfrom taichi._kernels import ext_arr_to_tensor\n")
    assert result.result["error"] == "ModuleNotFoundError: No module named 'taichi._kernels'"


@pytest.mark.unit
def test_the_ggui_examples_arch_choice_maps_to_ti_notebooks_lib_core(run):
    source = (
        "import taichi as ti\nfrom taichi._lib import core as _ti_core\n"
        "arch = ti.vulkan if ti._lib.core.with_vulkan() else ti.cuda\n"
        "assert arch == ti.cuda and _ti_core.with_cuda()\n"
    )
    result = run("arch_choice", source)
    assert result.status == "ok", result.problem


@pytest.mark.unit
def test_fields_made_inside_main_are_found_through_its_locals(run):
    source = """
    import taichi as ti
    ti.init()

    class Solver:
        def __init__(self):
            self.levels = [ti.field(ti.i32, shape=2) for _ in range(2)]

    def main():
        solver = Solver()
        solver.levels[1].fill(7)
        gui = ti.GUI()
        while gui.running:
            gui.show()

    if __name__ == "__main__":
        main()
    """
    result = run("inside_main", source)
    assert result.status == "ok", result.problem
    arrays = result.arrays()
    np.testing.assert_array_equal(arrays["field/main:solver.levels[1]"], [7, 7])
    assert "field/main:solver.levels[0]" in arrays


@pytest.mark.unit
def test_an_escape_loop_ends_at_ti_notebooks_frame_limit_normally(run):
    """No key ever comes headless: the loop's next show() raises GUIFrameLimit, a normal end."""
    source = """
    import taichi as ti
    steps = ti.field(ti.i32, shape=())
    gui = ti.GUI()
    while True:
        for e in gui.get_events(ti.GUI.PRESS):
            if e.key in [ti.GUI.ESCAPE, ti.GUI.EXIT]:
                exit()
        steps[None] += 1
        gui.show()
    """
    result = run("escape", source, frames=2)
    assert result.status == "ok", result.problem
    assert result.result["ended"] == "stopped: GUIFrameLimit after 2 frames"
    assert result.result["frames"] == 2
    assert result.arrays()["field/steps"] == 3  # as many as Taichi's run with its stand-in
    assert result.picture == "yes"


@pytest.mark.unit
def test_a_loop_that_is_not_a_gui_loop_is_stopped_after_its_frames(run):
    source = "import taichi as ti\ngui = ti.GUI()\nfor frame in range(100000):\n    gui.show()\n"
    result = run("endless", source, frames=3)
    assert result.status == "ok", result.problem
    assert result.result["ended"] == "stopped: GUIFrameLimit after 3 frames"
    assert result.result["frames"] == 3
    assert result.result["median_frame_s"] is not None


@pytest.mark.unit
def test_a_ggui_example_runs_with_ti_notebooks_ti_ui_or_fails_as_its_gap(run):
    source = """
    import taichi as ti
    window = ti.ui.Window("w", (8, 8))
    canvas = window.get_canvas()
    while window.running:
        canvas.set_background_color((1, 0, 0))
        window.show()
    """
    result = run("ggui", source, frames=2)
    if hasattr(ti_notebook.ui, "Window"):
        assert result.status == "ok", result.problem
        assert result.result["frames"] == 2
    else:  # not a skip: the table shows ti_notebook's gap
        assert result.status == "error"
        assert result.result["blame"] == "backend"
        assert result.result["error"].startswith("AttributeError: ")
        assert result.result["where"] == "ggui.py:2"


@pytest.mark.unit
def test_an_error_gives_its_line_its_place_and_the_blame(run):
    result = run("bad", "import taichi as ti\nraise ValueError('bad input\\nmore detail')\n")
    assert result.status == "error"
    assert result.result["error"] == "ValueError: bad input"
    assert result.result["where"] == "bad.py:2"
    assert result.result["blame"] == "backend"
    assert result.problem == "ValueError: bad input (bad.py:2)"


@pytest.mark.unit
def test_a_gap_in_a_stand_in_is_blamed_on_the_harness(run):
    source = "from tests.conformance.gui_stub import StubGUI\nStubGUI().get_canvas()\n"
    result = run("stub_gap", source)
    assert result.result["blame"] == "harness"
    assert "not stubbed" in result.result["error"]


@pytest.mark.unit
def test_a_gap_in_ti_notebooks_gui_is_blamed_on_the_backend(run):
    result = run("gui_gap", "import taichi as ti\ngui = ti.GUI()\ngui.no_such_method()\n")
    assert result.result["blame"] == "backend"
    assert result.result["error"].startswith("AttributeError: ")


@pytest.mark.unit
def test_a_run_past_its_timeout_is_killed(run):
    started = time.perf_counter()
    result = run("hangs", "while True:\n    pass\n", timeout=3)
    assert result.status == "timeout"
    assert result.problem == "timeout after 3 s"
    assert time.perf_counter() - started < 3 + runner.KILL_GRACE_S


@pytest.mark.unit
def test_a_run_that_dies_is_reported_with_its_signal_and_place(run):
    result = run("aborts", "import os\nprint('about to abort')\nos.abort()\n")
    assert result.status == "crash"
    assert result.problem == "crashed (SIGABRT): in <module> (aborts.py:3)"


@pytest.mark.unit
def test_a_dead_run_is_tried_once_more(examples_root, tmp_path):
    examples_root("aborts", "import os\nos.abort()\n")
    result = runner.run_with_retry(
        "ti_notebook", "aborts", 1, TIMEOUT_S, tmp_path, examples_root.root
    )
    assert result.status == "crash"
    assert result.result["retried"] == "crashed (SIGABRT): in <module> (aborts.py:2); 3 runs"


@pytest.mark.unit
def test_one_backend_rows_say_ran(examples_root, tmp_path):
    examples_root("fine", "x = 1\n")
    row = runner.run_example(examples_root.root, "fine", ["ti_notebook"], 1, TIMEOUT_S, tmp_path)
    assert (row.status, row.reason) == ("ran", "")


@pytest.mark.cpu
def test_kernels_read_the_rewritten_source_and_clock(examples_root, tmp_path):
    """A setting's rewrite reaches kernel code (linecache), the clock follows frames."""
    examples_root(
        "rewritten",
        """
        import time
        import taichi as ti
        ti.init()
        result = ti.field(ti.i32, shape=())

        @ti.kernel
        def iterations() -> ti.i32:
            max_iters = 400
            return max_iters

        result[None] = iterations()
        t0 = time.perf_counter()
        gui = ti.GUI()
        while gui.running:
            gui.show()
        elapsed = ti.field(ti.f64, shape=())
        elapsed[None] = time.perf_counter() - t0
        """,
    )
    script = (
        "import sys\nfrom tests.conformance import child, settings\n"
        "settings.SETTINGS['rewritten'] = settings.Setting("
        "rewrites=(('max_iters = 400', 'max_iters = 40'),))\n"
        "sys.exit(child.main(sys.argv[1:]))\n"
    )
    result_path, arrays_path = tmp_path / "result.json", tmp_path / "arrays.npz"
    command = [sys.executable, "-c", script, "--backend", "ti_notebook"]
    command += ["--example", "rewritten", "--frames", "3", "--root", str(examples_root.root)]
    command += ["--result", str(result_path), "--arrays", str(arrays_path)]
    subprocess.run(command, cwd=runner.REPO_ROOT, check=True, timeout=TIMEOUT_S)
    result = json.loads(result_path.read_text())
    assert result["status"] == "ok", result.get("traceback")
    with np.load(arrays_path) as arrays:
        assert arrays["field/result"] == 40
        assert arrays["field/elapsed"] == pytest.approx(3 / 60)


def judged(reference_result, candidate_result):
    runs = {
        "taichi": runner.Run("taichi", "ok", reference_result),
        "ti_notebook": runner.Run("ti_notebook", "ok", candidate_result),
    }
    return runner._judge("x/draws", "x = 1\n", runs)


PICTURE = {"window": "GUI 'g'", "frames": 5, "file": "g.png", "size": [8, 8]}


@pytest.mark.unit
def test_an_example_that_draws_passes_only_with_ti_notebooks_picture():
    assert judged({"frames": 5}, {"frames": 5, "pictures": [PICTURE]}).status == "pass"
    blank = dict(PICTURE, size=None, file=None, missing="kept no last frame")
    row = judged({"frames": 5}, {"frames": 5, "pictures": [blank]})
    assert (row.status, row.category) == ("fail", "picture")
    assert row.reason == "no: GUI 'g' kept no last frame"
    row = judged({"frames": 5}, {"frames": 5, "pictures": []})
    assert row.reason == "no picture: Taichi's run showed 5 frames"


@pytest.mark.unit
def test_an_example_that_draws_nothing_needs_no_picture():
    row = judged({"frames": 0}, {"frames": 0, "pictures": []})
    assert row.status == "pass"
