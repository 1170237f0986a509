"""What ``make compat`` skips, decided from the example's source before running."""

from __future__ import annotations

import pytest

from tests.conformance import skips
from tests.conformance.settings import Setting

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "source",
    [
        "x = ti.field(float, shape=4, needs_grad=True)",
        "x = ti.Vector.field(2, float, 4, needs_dual=True)",
        "with ti.ad.Tape(loss=U):\n    pass",
        "with ti.Tape(loss):\n    pass",
        "acc = -pos.grad[i]",
        "compute.grad()",
    ],
)
def test_autodiff_examples_run_instead_of_being_skipped(source):
    """ti_notebook's autodiff runs them; what it gets wrong shows in the table."""
    assert skips.detect(source) is None


@pytest.fixture
def a_source_rule(monkeypatch):
    """A source rule like the ones the table once had (ti.linalg, before it ran)."""
    rule = skips._Rule("gap", skips.re.compile(r"\bti\.missing\.\w+"))
    monkeypatch.setattr(skips, "RULES", (rule,))


def test_the_reason_names_what_matched_and_its_line(a_source_rule):
    source = "import taichi as ti\n\nK = ti.missing.Thing(4, 4)\n"
    assert skips.detect(source).reason == "gap: ti.missing.Thing (line 3)"


@pytest.mark.parametrize(
    "source",
    [
        "window = ti.ui.Window('w', (8, 8))\ncanvas = window.get_canvas()",
        "scene = ti.ui.Scene()",
        "camera = ti.ui.make_camera()",
    ],
)
def test_ggui_examples_run_instead_of_being_skipped(source):
    """ti_notebook's ti.ui either runs them or fails them, in the table, as its own gap."""
    assert skips.detect(source) is None


def test_sparse_solver_examples_run_instead_of_being_skipped():
    """ti.linalg exists: implicit_mass_spring, implicit_fem and stable_fluid -S run."""
    assert skips.detect("K = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=100)") is None


def test_plain_examples_run():
    source = "import taichi as ti\nimport numpy as np\nimport math\nx = ti.field(float, 4)\n"
    assert skips.detect(source) is None


def test_missing_optional_dependencies_are_named_with_their_pip_name(monkeypatch):
    real_find_spec = skips.importlib.util.find_spec
    monkeypatch.setattr(
        skips.importlib.util,
        "find_spec",
        lambda name: None if name in ("cv2", "cairo") else real_find_spec(name),
    )
    source = "try:\n    import cv2\n    import cairo\nexcept ImportError:\n    raise\n"
    skip = skips.detect(source)
    assert skip.category == "optional dependency"
    assert skip.reason == "needs cv2 (opencv-python), cairo (pycairo): not installed"


def test_a_missing_program_is_named(monkeypatch):
    monkeypatch.setattr(skips.shutil, "which", lambda program: None)
    skip = skips.detect("video_manager.make_video(gif=True, mp4=True)")
    assert skip.reason == "needs ffmpeg on PATH"


def test_imported_modules_reads_every_absolute_import_once():
    source = (
        "import taichi as ti\nimport numpy as np, os.path\nfrom taichi.math import vec2\n"
        "from . import sibling\ndef f():\n    import numpy\n    from scipy.spatial import x\n"
    )
    assert skips.imported_modules(source) == ["taichi", "numpy", "os", "scipy"]
    assert skips.imported_modules("def broken(:\n") == []  # the run reports it


def test_a_setting_skips_or_overrides_the_source_rules(a_source_rule):
    assert skips.detect("x = 1", Setting(skip="helper module")) == skips.Skip(
        "setting", "helper module"
    )
    source = "if use_it:\n    K = ti.missing.Thing(n, n)\n"
    assert skips.detect(source).category == "gap"
    assert skips.detect(source, Setting(not_skipped="only with -S")) is None
