"""ti.GUI's primitives against pixels computed by hand (Taichi 1.7's canvas rules).

Circles have two rasterisers, a ti_notebook kernel (while a CPU session runs) and a
NumPy splat (otherwise): the circle tests run on both (the ``circle_path`` fixture).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.ui import raster, raster_kernels
from ti_notebook.ui.raster import Canvas


@pytest.fixture(params=["kernel", "numpy"])
def circle_path(request, monkeypatch):
    """Draw circles with the kernel (a CPU session runs) or with NumPy (none may run)."""
    if request.param == "numpy":
        monkeypatch.setattr(raster_kernels, "available", lambda: False)
    else:
        ti.init(arch=ti.cpu)
        assert raster_kernels.available()
    return request.param


def gui(w=12, h=10, bg=0):
    return ti.GUI("t", res=(w, h), background_color=bg, show_gui=False)


def red(g):
    return g.get_image()[:, :, 0]  # indexed [x, y], y up


def test_circle_centre_edge_and_outside(circle_path):
    g = gui()
    g.circle((0.5, 0.5), color=0xFF0000, radius=3)  # centre at pixel corner (6, 5)
    r = red(g)
    assert r[6, 5] == 1.0
    assert r[6 + 1, 5 + 2] == pytest.approx(3 - np.sqrt(5), abs=1e-5)  # anti-aliased edge
    assert r[6 + 2, 5 + 2] == pytest.approx(3 - np.sqrt(8), abs=1e-5)
    assert r[6 + 3, 5] == 0.0 and r[6, 5 + 3] == 0.0  # distance 3: no coverage
    far = np.hypot(*np.meshgrid(np.arange(12) - 6, np.arange(10) - 5, indexing="ij")) >= 3
    assert np.all(r[far] == 0.0)
    assert np.all(g.get_image()[:, :, 1:3] == [0.0, 0.0])  # pure red, no other channel


def test_circles_radius_array_palette_and_order(circle_path):
    g = gui()
    pos = np.array([[0.25, 0.5], [0.75, 0.5]])
    pal = [0x00FF00, 0x0000FF]
    g.circles(pos, radius=np.array([1.5, 2.0]), palette=pal, palette_indices=[1, 0])
    img = g.get_image()
    assert img[3, 5, :3].tolist() == [0.0, 0.0, 1.0]
    assert img[9, 5, :3].tolist() == [0.0, 1.0, 0.0]
    assert img[4, 5, 2] == pytest.approx(0.5)  # radius 1.5 at distance 1
    # two calls compose in call order: the later circle's core is on top
    g.clear()
    g.circle((0.5, 0.5), color=0xFF0000, radius=4)
    g.circle((0.5, 0.5), color=0x0000FF, radius=2)
    img = g.get_image()
    assert img[6, 5, :3].tolist() == [0.0, 0.0, 1.0] and img[9, 5, :3].tolist() == [1.0, 0.0, 0.0]


def test_one_batch_later_circle_on_top_and_single_colour_coverage(circle_path):
    g = gui()
    g.circles(np.array([[0.5, 0.5], [0.5, 0.5]]), radius=3, color=np.array([0xFF0000, 0x00FF00]))
    assert g.get_image()[6, 5, :3].tolist() == [0.0, 1.0, 0.0]
    g.clear()
    # same colour, two half covers: 1 - (1 - a)^2, as drawing one after the other
    g.circles(np.array([[0.5, 0.5], [0.5, 0.5]]), radius=1.5, color=0xFFFFFF)
    assert red(g)[7, 5] == pytest.approx(0.75)


def test_line_thickness_and_caps():
    g = gui()
    g.line((0.1, 0.5), (0.9, 0.5), radius=1, color=0xFFFFFF)  # y = 5: pixel centres 4.5, 5.5
    r = red(g)
    assert r[5, 4] == pytest.approx(0.5) and r[5, 5] == pytest.approx(0.5)
    assert r[5, 3] == 0.0 and r[5, 6] == 0.0
    assert r[0, 5] == pytest.approx(1 - np.hypot(0.7, 0.5), abs=1e-5)  # round cap
    g.clear()
    g.line((0.1, 0.5), (0.9, 0.5), radius=2)
    r = red(g)
    assert r[5, 4] == 1.0 and r[5, 6] == pytest.approx(0.5) and r[5, 7] == 0.0


def test_triangle_covers_pixel_centres_inside():
    g = gui()
    g.triangle((0.1, 0.1), (0.9, 0.1), (0.1, 0.9), color=0xFFFFFF)
    r = red(g)
    i, j = np.meshgrid(np.arange(12) + 0.5, np.arange(10) + 0.5, indexing="ij")
    inside = (i >= 1.2) & (j >= 1.0) & ((i - 1.2) / 9.6 + (j - 1.0) / 8.0 <= 1.0)
    assert np.array_equal(r == 1.0, inside) and np.all(r[~inside] == 0.0)


def test_rect_outline_and_arrow():
    g = gui(64, 48)
    g.rect((0.2, 0.8), (0.6, 0.3), radius=1, color=0xFFFFFF)
    xs, ys = np.nonzero(red(g) > 0.05)
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (12, 38, 13, 38)
    assert red(g)[25, 25] == 0.0  # hollow
    g.clear()
    g.arrow((0.2, 0.5), (0.5, 0.0), radius=1)
    r = red(g)
    assert r[30, 24] > 0 and r[47, 24] == 0  # the shaft and tip end at 0.7 * 64 = 44.8


def test_text_is_drawn_below_and_right_of_its_position():
    g = gui(64, 48)
    g.text("Hi", (0.25, 0.75), font_size=20, color=0x00FF00)
    xs, ys = np.nonzero(g.get_image()[:, :, 1] > 0.05)
    assert 16 <= xs.min() <= 21 and ys.max() <= 36 and ys.min() >= 16


def test_clear_and_background():
    g = gui(bg=0x123456)
    assert g.get_image()[0, 0, :3] == pytest.approx([0x12 / 255, 0x34 / 255, 0x56 / 255])
    g.clear(0xFFFFFF)
    assert np.all(g.get_image()[:, :, :3] == 1.0)
    g.show()
    assert g.get_image()[3, 3, 0] == pytest.approx(0x12 / 255)  # show() clears to background


def test_set_image_orientation_and_ranges():
    g = gui(4, 3)
    a = np.zeros((4, 3, 3), np.float32)
    a[0, 0] = (1, 0, 0)
    g.set_image(a)
    rgb = g.canvas.to_rgb8()  # display orientation: row 0 at the top
    assert rgb[2, 0].tolist() == [255, 0, 0] and rgb[0, 0].tolist() == [0, 0, 0]
    g.set_image(np.full((4, 3), 255, np.uint8))  # u8 grey
    assert np.all(g.get_image()[:, :, :3] == 1.0)
    rgba = np.zeros((4, 3, 4), np.uint8)
    rgba[..., 1] = 51
    g.set_image(rgba)  # alpha ignored, u8 scaled by 255
    assert g.get_image()[1, 1, :3] == pytest.approx([0.0, 0.2, 0.0])
    g.set_image(np.full((4, 3, 1), 0.5, np.float64))
    assert g.get_image()[2, 2, :3] == pytest.approx([0.5] * 3)
    with pytest.raises(ValueError, match="res"):
        g.set_image(np.zeros((3, 4)))


def test_set_image_from_fields():
    ti.init(arch=ti.cpu)
    g = gui(4, 3)
    x = ti.Vector.field(3, ti.f32, shape=(4, 3))
    x[0, 0] = (1.0, 0.0, 0.0)
    g.set_image(x)
    assert g.canvas.to_rgb8()[2, 0].tolist() == [255, 0, 0]
    s = ti.field(ti.u8, shape=(4, 3))
    s[3, 2] = 255
    g.set_image(s)
    assert g.canvas.to_rgb8()[0, 3].tolist() == [255, 255, 255]


# circles on both rasterisers: edges, anti-aliasing, palettes, radii, clipping ----------


def exact_circle(w, h, cx, cy, r):
    """Coverage ``clip(r - |corner - centre|, 0, 1)`` of every pixel, indexed ``[x, y]``."""
    x, y = np.meshgrid(np.arange(w), np.arange(h), indexing="ij")
    return np.clip(r - np.hypot(x - cx, y - cy), 0.0, 1.0)


@pytest.mark.parametrize("r", [0.8, 1.5, 2.2, 7.0])
def test_circle_coverage_matches_the_rule_everywhere(circle_path, r):
    g = gui(24, 20)
    g.circle((0.4321, 0.5678), color=0xFFFFFF, radius=r)
    want = exact_circle(24, 20, np.float32(0.4321) * 24, np.float32(0.5678) * 20, r)
    assert np.abs(red(g) - want).max() < 1e-5
    rim = red(g)[(want > 0) & (want < 1)]
    assert rim.size and np.all((rim > 0) & (rim < 1))  # the rim is anti-aliased, not hard


def test_circles_partly_outside_the_canvas_are_clipped(circle_path):
    g = gui(16, 12)
    centres = np.array([[0.0, 0.0], [1.0, 0.5], [0.5, 1.02], [-0.1, 0.5], [1.3, 1.3]])
    g.circles(centres, radius=3.0, color=0xFFFFFF)
    want = np.zeros((16, 12))
    for cx, cy in centres.astype(np.float32) * np.float32([16, 12]):
        want = 1 - (1 - want) * (1 - exact_circle(16, 12, cx, cy, 3.0))
    assert np.abs(red(g) - want).max() < 1e-5
    assert red(g)[0, 0] == 1.0 and red(g)[15, 6] > 0 and red(g)[8, 11] > 0


def test_radius_zero_draws_nothing_and_a_large_radius_fills(circle_path):
    g = gui(16, 12, bg=0x0000FF)
    g.circles(np.array([[0.5, 0.5], [0.2, 0.2]]), radius=np.array([0.0, 0.0]), color=0xFF0000)
    assert np.all(g.get_image()[:, :, :3] == [0.0, 0.0, 1.0])
    g.circle((0.5, 0.5), color=0xFF0000, radius=40.0)  # larger than the canvas
    assert np.all(g.get_image()[:, :, :3] == [1.0, 0.0, 0.0])
    g.circles(np.zeros((0, 2)), radius=3, color=0x00FF00)  # no circles: no change
    assert np.all(red(g) == 1.0)


def test_palette_indices_pick_each_circles_colour(circle_path):
    g = gui(40, 8)
    pal = [0xFF0000, 0x00FF00, 0x0000FF]
    pos = np.array([[(i + 0.5) / 5, 0.5] for i in range(5)])
    g.circles(pos, radius=2.0, palette=pal, palette_indices=[2, 0, 1, 1, 0])
    img = g.get_image()
    centres = [img[4 + 8 * i, 4, :3].tolist() for i in range(5)]
    assert centres == [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 1, 0], [1, 0, 0]]
    rim = img[4 + 8 * 1 + 1, 4 + 1, :3]  # radius 2 at distance sqrt(2): a partial red
    assert rim[0] == pytest.approx(2 - np.sqrt(2), abs=1e-5) and rim[1] == rim[2] == 0.0
    with pytest.raises(ValueError, match="palette_indices"):
        g.circles(pos, radius=2.0, palette=pal, palette_indices=[0, 1, 2, 3, 0])


def test_kernel_blends_each_circle_over_the_earlier_ones_in_order():
    """The kernel's result is Taichi's: each circle composed onto the frame in turn."""
    ti.init(arch=ti.cpu)
    rng = np.random.default_rng(3)
    pos = rng.random((300, 2))
    radius = rng.uniform(0.0, 4.0, 300).astype(np.float32)
    color = rng.integers(0, 1 << 24, 300)
    got = Canvas(64, 48, 0x112F41)
    got.circles(pos, radius, color)
    want = Canvas(64, 48, 0x112F41)
    for k in range(300):  # one at a time: the NumPy splat of one circle is exact
        pixel, alpha, owner = raster.circle_samples(pos[k : k + 1], radius[k : k + 1], 64, 48)
        want._compose(pixel, alpha, owner, raster.hex_to_rgb(color[k : k + 1]))
    assert np.abs(got.planes - want.planes).max() < 1e-5


def test_numpy_splat_composes_a_batch_as_drawing_one_by_one(monkeypatch):
    monkeypatch.setattr(raster_kernels, "available", lambda: False)
    c = Canvas(8, 8, background=0x00FF00)
    pos = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    c.circles(
        pos, np.array([1.5, 1.5, 1.5], np.float32), np.array([0xFF0000, 0x0000FF] * 1 + [0xFF0000])
    )
    # three half covers at distance 1 over green: red, then blue, then red again
    assert c.planes[:, 4, 5].tolist() == pytest.approx([0.5 + 0.125, 0.125, 0.25])


def test_kernel_and_numpy_give_the_taichi_oracle_frame(monkeypatch):
    """The oracle's calls (tests/ui/test_gui_taichi_oracle.py) draw alike on both paths."""
    from .test_gui_taichi_oracle import CALLS

    frames = []
    for kernel in (True, False):
        monkeypatch.setattr(raster_kernels, "available", lambda k=kernel: k)
        g = ti.GUI("o", res=(40, 32), background_color=0x112F41, show_gui=False)
        exec(CALLS, {"gui": g, "np": np})
        frames.append(g.get_image())
    assert np.abs(frames[0] - frames[1]).max() < 1e-5


def test_kernel_is_used_only_in_a_cpu_session_and_stays_out_of_the_profile():
    ti.reset()
    assert not raster_kernels.available()
    c = Canvas(8, 8)
    c.circles(np.array([[0.5, 0.5]]), np.array([3.0], np.float32), np.array([0xFF0000]))
    assert not ti.is_initialized()  # the GUI never starts a session by itself
    ti.init(arch=ti.cpu, kernel_profiler=True)
    c.circles(np.array([[0.5, 0.5]]), np.array([3.0], np.float32), np.array([0x00FF00]))
    assert c.planes[:, 4, 4].tolist() == [0.0, 1.0, 0.0]
    assert ti.profiler.launches() == () and ti.profiler.is_enabled()


@pytest.mark.parametrize("kind", ["lines", "triangles"])
def test_line_and_triangle_kernels_draw_what_the_numpy_splat_draws(monkeypatch, kind):
    """Both draw one by one (the splat by its sums): overlaps of many colours agree."""
    rng = np.random.default_rng(7)
    a = rng.random((200, 2)) * 1.2 - 0.1
    b, c = a + rng.normal(0, 0.1, (200, 2)), a + rng.normal(0, 0.1, (200, 2))
    color = rng.integers(0, 1 << 24, 200)
    frames = []
    for kernel in (True, False):
        monkeypatch.setattr(raster_kernels, "available", lambda k=kernel: k)
        canvas = Canvas(48, 40, 0x112F41)
        if kind == "lines":
            canvas.lines(a, b, np.linspace(0.2, 3.0, 200), color)
        else:
            canvas.triangles(a, b, c, color)
        frames.append(canvas.planes)
    assert np.abs(frames[0] - frames[1]).max() < 1e-5


@pytest.mark.parametrize("kernel", [True, False])
def test_lines_and_triangles_in_one_batch_keep_the_later_colour_on_top(monkeypatch, kernel):
    monkeypatch.setattr(raster_kernels, "available", lambda: kernel)
    c = Canvas(16, 16)
    a, b = np.array([[0.1, 0.5], [0.1, 0.5]]), np.array([[0.9, 0.5], [0.9, 0.5]])
    c.lines(a, b, np.array([2.0, 2.0]), np.array([0xFF0000, 0x00FF00]))
    assert c.planes[:, 8, 8].tolist() == [0.0, 1.0, 0.0]
    c.clear()
    tri = np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([[1.0, 0.0]] * 2), np.array([[0.0, 1.0]] * 2)
    c.triangles(*tri, np.array([0x0000FF, 0xFF0000]))
    assert c.planes[:, 2, 2].tolist() == [1.0, 0.0, 0.0] and c.planes[0, 14, 14] == 0.0


OVERLAPS = """
rng = np.random.default_rng(5)
pos = rng.random((400, 2)) * 1.1 - 0.05
gui.circles(pos, radius=rng.uniform(0.5, 4.0, 400), color=rng.integers(0, 1 << 24, 400))
gui.lines(pos[:100], pos[100:200], radius=1.5, color=rng.integers(0, 1 << 24, 100))
"""


@pytest.mark.taichi
@pytest.mark.skipif(importlib.util.find_spec("taichi") is None, reason="needs taichi")
def test_overlapping_colours_blend_as_taichi_draws_them(monkeypatch):
    """400 circles of random colours and radii over each other, then lines: Taichi's
    own frame (in a subprocess), on both paths."""
    script = (
        "import json, sys, numpy as np, taichi as ti\n"
        "ti.init(arch=ti.cpu, log_level=ti.ERROR)\n"
        "gui = ti.GUI('o', res=(64, 48), background_color=0x112F41, show_gui=False)\n"
        f"{OVERLAPS}\n"
        "json.dump(gui.get_image()[:, :, :3].tolist(), sys.stdout)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    want = np.array(json.loads(run.stdout.splitlines()[-1]))
    for kernel in (True, False):
        monkeypatch.setattr(raster_kernels, "available", lambda k=kernel: k)
        gui = ti.GUI("o", res=(64, 48), background_color=0x112F41, show_gui=False)
        exec(OVERLAPS, {"gui": gui, "np": np})
        # lines: Taichi computes in f32, these in f64 (about 1e-3 apart at a rim)
        assert np.abs(gui.get_image()[:, :, :3] - want).max() < 5e-3, kernel


def test_primitives_take_transposed_and_strided_positions(circle_path):
    # simulation/mpm3d draws a projection built as np.array([u, v]).T: Fortran order
    rng = np.random.default_rng(3)
    pos = rng.random((2, 40))
    ends = rng.random((2, 40))
    expected, got = gui(), gui()
    expected.circles(np.ascontiguousarray(pos.T), radius=2, color=0x00FF00)
    expected.lines(np.ascontiguousarray(pos.T), np.ascontiguousarray(ends.T), color=0xFF)
    got.circles(pos.T, radius=2, color=0x00FF00)
    got.lines(pos.T, ends[:, ::1].T, color=0xFF)
    np.testing.assert_array_equal(got.get_image(), expected.get_image())
