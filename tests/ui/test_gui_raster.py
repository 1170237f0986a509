"""ti.GUI's primitives against pixels computed by hand (Taichi 1.7's canvas rules)."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti


def gui(w=12, h=10, bg=0):
    return ti.GUI("t", res=(w, h), background_color=bg, show_gui=False)


def red(g):
    return g.get_image()[:, :, 0]  # indexed [x, y], y up


def test_circle_centre_edge_and_outside():
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


def test_circles_radius_array_palette_and_order():
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


def test_one_batch_later_circle_on_top_and_single_colour_coverage():
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
