"""ti.ui.Scene through the rasteriser kernels: projection, particle size, depth order,
Lambert shading, meshes, lines, and the camera's user controls."""

from __future__ import annotations

import math
import time

import numpy as np

import ti_notebook as ti
from ti_notebook.ui.frames import MOTION, MOVE, PRESS, RELEASE, Event

RES = 128


def setup(res=(RES, RES), mode=None, distance=3.0):
    window = ti.ui.Window("t", res, show_window=False)
    scene = window.get_scene()
    camera = ti.ui.Camera()
    camera.position(0, 0, distance)
    camera.lookat(0, 0, 0)
    if mode is not None:
        camera.projection_mode(mode)
    scene.set_camera(camera)
    scene.ambient_light((0.2, 0.2, 0.2))
    scene.point_light((0, 0, 10), (1, 1, 1))
    return window, scene, camera


def draw(window, scene):
    window.get_canvas().scene(scene)
    return window.get_image_buffer_as_numpy()[:, :, :3]


def extent(mask):
    xs, ys = np.nonzero(mask)
    return xs.min(), xs.max(), ys.min(), ys.max()


def test_particle_at_lookat_is_centred_with_taichis_radius():
    window, scene, _ = setup()
    x = ti.Vector.field(3, ti.f32, shape=1)
    scene.particles(x, radius=0.2, color=(1, 0, 0))
    img = draw(window, scene)
    x0, x1, y0, y1 = extent(img[:, :, 0] > 0)
    expected = 0.2 / (math.tan(math.radians(22.5)) * 3.0) * RES / 2  # 15.45 pixels
    assert (x0 + x1) / 2 == (RES - 1) / 2 and (y0 + y1) / 2 == (RES - 1) / 2
    assert abs((x1 - x0 + 1) / 2 - expected) < 1.0
    assert img[64, 64].tolist() == [1.0, 0.0, 0.0]  # faces the light: ambient + diffuse, clipped


def test_orthogonal_size_does_not_depend_on_distance_perspective_does():
    sizes = {}
    for mode in (ti.ui.ProjectionMode.Perspective, ti.ui.ProjectionMode.Orthogonal):
        for distance in (2.0, 4.0):
            window, scene, _ = setup(mode=mode, distance=distance)
            scene.particles(np.zeros((1, 3), np.float32), radius=0.25, color=(1, 1, 1))
            x0, x1, _, _ = extent(draw(window, scene)[:, :, 0] > 0)
            sizes[mode, distance] = (x1 - x0 + 1) / 2
    persp, ortho = ti.ui.ProjectionMode.Perspective, ti.ui.ProjectionMode.Orthogonal
    for distance in (2.0, 4.0):  # Taichi's rule: half the width per tan(fov/2) * distance
        expected = 0.25 / (math.tan(math.radians(22.5)) * distance) * RES / 2
        assert abs(sizes[persp, distance] - expected) <= 1.0
    assert sizes[ortho, 2.0] == sizes[ortho, 4.0] == 0.25 * RES / 2  # [-1, 1] spans the view


def test_nearer_particle_covers_farther_whatever_the_order():
    for order in ((0, 1), (1, 0)):
        window, scene, _ = setup()
        centers = np.array([[0, 0, 0.5], [0.1, 0, -0.5]], np.float32)[list(order)]
        colors = np.array([[1, 0, 0], [0, 1, 0]], np.float32)[list(order)]
        scene.particles(centers, radius=0.3, per_vertex_color=colors)
        img = draw(window, scene)
        assert img[64, 64, 0] > 0.5 and img[64, 64, 1] == 0  # the red one is nearer


def test_lambert_brighter_where_the_sphere_faces_the_light():
    window, scene, camera = setup()
    scene.point_light((10, 0, 0), (1, 1, 1))  # a second light from the right
    scene.particles(np.zeros((1, 3), np.float32), radius=0.5, color=(0.4, 0.4, 0.4))
    img = draw(window, scene)
    lit = img[:, :, 0] > 0
    x0, x1, _, _ = extent(lit)
    right, left = img[x1 - 3, 64, 0], img[x0 + 3, 64, 0]
    assert right > left > 0.05


def two_triangles(near_color, far_color, near_first):
    near = [[-0.5, -0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.5, 0.5]]
    far = [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.0, 0.5, -0.5]]
    window, scene, _ = setup()
    order = [(near, near_color), (far, far_color)]
    for verts, color in order if near_first else order[::-1]:
        scene.mesh(np.array(verts, np.float32), color=color, two_sided=True)
    return draw(window, scene)


def test_triangle_depth_order_and_lambert_faces():
    for near_first in (True, False):
        img = two_triangles((1, 0, 0), (0, 1, 0), near_first)
        assert img[64, 60, 0] > 0.5 and img[64, 60, 1] == 0
    # one-sided lighting: a triangle facing away from the light gets ambient only
    window, scene, _ = setup()
    front = np.array([[-0.5, -0.5, 0], [0.5, -0.5, 0], [0, 0.5, 0]], np.float32)
    scene.mesh(front, color=(0.5, 0.5, 0.5))
    lit = draw(window, scene)[64, 60, 0]
    window, scene, _ = setup()
    scene.mesh(front[::-1].copy(), color=(0.5, 0.5, 0.5))  # the other winding faces -z
    unlit = draw(window, scene)[64, 60, 0]
    assert abs(lit - 0.6) < 0.01 and abs(unlit - 0.1) < 0.01  # 0.5*(0.2+1), 0.5*0.2


def test_indexed_mesh_with_normals_and_vertex_colors():
    window, scene, _ = setup()
    verts = ti.Vector.field(3, ti.f32, shape=4)
    verts.from_numpy(np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32))
    idx = ti.field(ti.i32, shape=6)
    idx.from_numpy(np.array([0, 1, 2, 0, 2, 3], np.int32))
    normals = np.tile(np.array([[0, 0, 1]], np.float32), (4, 1))
    colors = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1]], np.float32)
    scene.mesh(verts, indices=idx, normals=normals, per_vertex_color=colors)
    img = draw(window, scene)
    assert img[64, 20, 0] > img[64, 20, 2] and img[64, 108, 2] > img[64, 108, 0]  # red below
    assert img[2, 2].tolist() == [0, 0, 0]  # outside the square's projection


def test_scene_lines_width_in_pixels_and_depth():
    window, scene, _ = setup()
    scene.lines(np.array([[-0.5, 0, 0], [0.5, 0, 0]], np.float32), width=4, color=(0, 1, 0))
    img = draw(window, scene)
    _, _, y0, y1 = extent(img[:, :, 1] > 0.5)
    assert y1 - y0 + 1 == 4


def test_track_user_inputs_moves_and_turns_the_camera():
    window, _, camera = setup(distance=3.0)
    events = [Event(PRESS, "w", (0.5, 0.5))]
    window._sink.events = lambda: [events.pop(0)] if events else []
    camera.track_user_inputs(window, movement_speed=0.05, hold_key=ti.ui.RMB)
    time.sleep(0.05)
    camera.track_user_inputs(window, movement_speed=0.05, hold_key=ti.ui.RMB)
    assert camera.curr_position[2] < 3.0 - 1e-3  # forward is toward the look-at point
    assert abs(camera.curr_position[0]) < 1e-9
    front = camera.curr_lookat - camera.curr_position
    assert abs(front[0]) < 1e-9  # no drag yet: no turn
    events.extend(
        [Event(RELEASE, "w", (0.5, 0.5)), Event(PRESS, ti.ui.RMB, (0.5, 0.5)),
         Event(MOTION, MOVE, (0.7, 0.5))]
    )  # fmt: skip
    window._poll()
    window._poll()
    camera.last_mouse_x = 0.5  # the drag starts where the button went down
    time.sleep(0.02)
    before = camera.curr_position.copy()
    camera.track_user_inputs(window, movement_speed=0.05, hold_key=ti.ui.RMB)
    front = camera.curr_lookat - camera.curr_position
    assert np.allclose(camera.curr_position, before)  # w released: no move
    assert front[0] > 0.01  # dragging right turns the view (yaw) toward +x from -z


def test_mesh_without_normals_gets_smooth_vertex_normals():
    """A folded quad: with shared (indexed) vertices the shading is continuous across
    the fold; with separate vertices each face is flat and the two sides differ."""
    ridge = [[0, -0.8, 0], [0, 0.8, 0]]
    verts = np.array([[-0.8, -0.8, -0.6], *ridge, [0.8, -0.8, -0.6]], np.float32)
    left_right = {}
    for indexed in (True, False):
        window, scene, _ = setup()
        if indexed:
            scene.mesh(verts, indices=np.array([0, 1, 2, 1, 3, 2], np.int32), color=(0.3, 0.3, 0.3))
        else:
            scene.mesh(verts[[0, 1, 2, 1, 3, 2]].copy(), color=(0.3, 0.3, 0.3))
        scene.point_light((-10, 0, 2), (1, 1, 1))  # from the left: faces differ when flat
        img = draw(window, scene)
        left_right[indexed] = img[62, 64, 0], img[66, 64, 0]
    smooth, flat = left_right[True], left_right[False]
    assert abs(smooth[0] - smooth[1]) < 0.03 < abs(flat[0] - flat[1])


def test_mesh_instance_draws_one_copy_per_transform():
    window, scene, _ = setup()
    tri = np.array([[-0.2, -0.2, 0], [0.2, -0.2, 0], [0, 0.2, 0]], np.float32)
    transforms = ti.Matrix.field(4, 4, ti.f32, shape=2)
    for k, dx in enumerate((-0.6, 0.6)):
        m = np.eye(4, dtype=np.float32)
        m[0, 3] = dx
        transforms[k] = m.tolist()
    scene.mesh_instance(tri, transforms=transforms, color=(1, 1, 1))
    lit = draw(window, scene)[:, :, 0] > 0
    columns = np.nonzero(lit.any(axis=1))[0]
    assert columns.min() < 40 and columns.max() > 88
    assert not lit[60:68, :].any()  # nothing where the untransformed mesh would be


def test_f64_fields_vec4_colours_and_a_new_session():
    window, scene, _ = setup()
    x = ti.Vector.field(3, ti.f64, shape=2)
    x.from_numpy(np.array([[0, 0, 0], [5, 5, 0]], np.float64))  # the second is off screen
    colors = ti.Vector.field(4, ti.f32, shape=2)
    colors.from_numpy(np.array([[0, 1, 0, 1], [1, 0, 0, 1]], np.float32))
    scene.particles(x, radius=0.2, per_vertex_color=colors)
    img = draw(window, scene)
    assert img[64, 64, 1] > 0.5 and img[:, :, 0].max() == 0
    window.show()
    ti.init(arch=ti.cpu)  # a new session frees every field; the window draws on
    y = ti.Vector.field(3, ti.f32, shape=1)
    scene.point_light((0, 0, 10), (1, 1, 1))  # lights are declared anew each frame
    scene.particles(y, radius=0.2, color=(0, 0, 1))
    assert draw(window, scene)[64, 64, 2] > 0.5


def test_occlusion_culling_leaves_the_picture_unchanged(monkeypatch):
    from ti_notebook.ui.ggui import scene as scene_module

    rng = np.random.default_rng(1)
    cloud = (rng.random((3000, 3)) - 0.5).astype(np.float32)
    radii = rng.uniform(0.02, 0.08, 3000).astype(np.float32)
    colors = rng.random((3000, 3)).astype(np.float32)
    images = []
    for cull in (1, 0):
        monkeypatch.setattr(scene_module, "CULL", cull)
        window, scene, _ = setup()
        scene.particles(cloud, radius=0.05, per_vertex_color=colors, per_vertex_radius=radii)
        images.append(draw(window, scene))
    fb = window._fb
    assert (fb.occ.to_numpy() < 0x7FFFFFFF).mean() > 0.1  # the cloud hides blocks
    np.testing.assert_array_equal(images[0], images[1])


def test_frames_after_the_first_compile_nothing():
    window, scene, camera = setup()
    canvas = window.get_canvas()
    x = ti.Vector.field(3, ti.f32, shape=100)
    x.from_numpy((np.random.default_rng(2).random((100, 3)) - 0.5).astype(np.float32))
    compiled = []

    def frame(k):
        camera.position(0.1 * k, 0, 3)  # the camera moves: values, not code
        scene.set_camera(camera)
        scene.point_light((0, 2, 3), (1, 1, 1))
        scene.particles(x, radius=0.02 + 0.01 * k, color=(0.2, 0.6, 1.0))
        scene.mesh(x, color=(1, 1, 1))
        canvas.circles(x, radius=0.01)
        canvas.scene(scene)
        window.get_image_buffer_as_numpy()
        window.show()

    frame(0)
    stop = ti.watch_compiles(lambda event: compiled.append(event.kernel))
    try:
        for k in range(1, 4):
            frame(k)
    finally:
        stop()
    assert compiled == []
