"""ti.ui.Canvas primitives at pixels computed by hand from Taichi's shader rules.

A circle's radius and a line's width are fractions of the window's height; positions
are in [0, 1] with y up; later draws cover earlier ones.
"""

from __future__ import annotations

import numpy as np

import ti_notebook as ti


def canvas(res=(64, 32), background=(0, 0, 0)):
    window = ti.ui.Window("t", res, show_window=False)
    c = window.get_canvas()
    c.set_background_color(background)
    return window, c


def rgb(window):
    """The frame as [x, y] (y up) uint8-valued floats * 255, channels RGB."""
    return np.round(window.get_image_buffer_as_numpy()[:, :, :3] * 255).astype(int)


def test_circle_radius_is_a_fraction_of_the_height():
    window, c = canvas()
    centers = ti.Vector.field(2, ti.f32, shape=1)
    centers[0] = [0.5, 0.5]
    c.circles(centers, radius=0.25, color=(1, 0, 0))  # 8 pixels in a 32-pixel-high window
    img = rgb(window)
    red = img[:, :, 0] == 255
    xs, ys = np.nonzero(red)
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (24, 39, 8, 23)
    assert img[32, 16].tolist() == [255, 0, 0] and img[2, 2].tolist() == [0, 0, 0]


def test_later_circles_cover_earlier_ones_and_per_vertex_color():
    window, c = canvas()
    pos = np.array([[0.5, 0.5], [0.55, 0.5]], np.float32)
    colors = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    c.circles(pos, radius=0.2, per_vertex_color=colors)
    img = rgb(window)
    assert img[35, 16].tolist() == [0, 255, 0]  # the second circle wins where both cover
    assert img[27, 16].tolist() == [255, 0, 0]
    c.circles(pos[:1], radius=0.05, color=(0, 0, 1))  # a later call covers both
    assert rgb(window)[32, 16].tolist() == [0, 0, 255]


def test_per_vertex_radius():
    window, c = canvas()
    pos = np.array([[0.25, 0.5], [0.75, 0.5]], np.float32)
    c.circles(pos, radius=0.5, color=(1, 1, 1), per_vertex_radius=np.array([0.1, 0.3], np.float32))
    white = rgb(window)[:, :, 0] == 255
    left, right = white[:32].sum(), white[32:].sum()
    assert 0 < left < right  # 3.2-pixel against 9.6-pixel radius
    assert abs(left - np.pi * 3.2**2) < 12 and abs(right - np.pi * 9.6**2) < 30


def test_line_width_and_square_ends():
    window, c = canvas()
    verts = np.array([[0.25, 0.5], [0.75, 0.5]], np.float32)
    c.lines(verts, width=0.25, color=(0, 1, 0))  # 8 pixels wide, x from 16 to 48
    green = rgb(window)[:, :, 1] == 255
    xs, ys = np.nonzero(green)
    assert (xs.min(), xs.max()) == (16, 47) and (ys.min(), ys.max()) == (12, 19)


def test_indexed_lines_with_interpolated_colors():
    window, c = canvas()
    verts = np.array([[0.1, 0.2], [0.9, 0.2], [0.5, 0.9]], np.float32)
    idx = ti.field(ti.i32, shape=4)
    idx.from_numpy(np.array([0, 1, 1, 2], np.int32))
    colors = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1]], np.float32)
    c.lines(verts, width=0.1, indices=idx, per_vertex_color=colors)
    img = rgb(window)
    y = int(0.2 * 32)
    assert img[8, y, 0] > img[8, y, 2] and img[56, y, 2] > img[56, y, 0]  # red -> blue
    assert img[32, 20, 2] == 0 and img[31, 6].tolist() != [0, 0, 0]


def test_triangle_covers_its_inside_only_and_interpolates():
    window, c = canvas((32, 32))
    verts = ti.Vector.field(2, ti.f32, shape=3)
    verts.from_numpy(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], np.float32))
    c.triangles(verts, color=(1, 1, 0))
    img = rgb(window)
    assert img[5, 5].tolist() == [255, 255, 0] and img[26, 26].tolist() == [0, 0, 0]
    colors = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    c.triangles(verts, per_vertex_color=colors, indices=np.array([0, 1, 2], np.int32))
    img = rgb(window)
    assert img[1, 1, 0] > 230 and img[29, 1, 1] > 200 and img[1, 29, 2] > 200


def test_set_image_orientation_and_stretch():
    window, c = canvas((4, 2))
    img = ti.Vector.field(3, ti.f32, shape=(4, 2))
    arr = np.zeros((4, 2, 3), np.float32)
    arr[0, 0] = (1, 0, 0)  # bottom-left
    arr[3, 1] = (0, 1, 0)  # top-right
    img.from_numpy(arr)
    c.set_image(img)
    out = rgb(window)
    assert out[0, 0].tolist() == [255, 0, 0] and out[3, 1].tolist() == [0, 255, 0]
    small = np.zeros((2, 1), np.uint8)
    small[1, 0] = 255  # right half white, grey u8 image
    c.set_image(small)
    out = rgb(window)
    assert out[:2, :, 0].max() == 0 and out[2:, :, 0].min() == 255


def test_background_colour_and_next_frame_clears():
    window, c = canvas((8, 8), background=(0, 0, 1))
    c.circles(np.array([[0.5, 0.5]], np.float32), radius=0.1, color=(1, 0, 0))
    window.show()
    assert rgb(window)[4, 4].tolist() == [0, 0, 255]  # a new frame starts as the background


def test_vector_field_draws_arrows_along_the_field():
    window, c = canvas((64, 64), background=(1, 1, 1))
    field = np.zeros((9, 9, 2), np.float32)
    field[..., 0] = 1.0  # everything points right
    c.vector_field(field, arrow_spacing=4, scale=0.2, width=0.02, color=(0, 0, 0))
    dark = rgb(window)[:, :, 0] < 128
    row = dark[:, 32]  # the arrow from (0.5, 0.5) runs right along y = 0.5
    assert row[33:43].all() and not row[46:60].any()
