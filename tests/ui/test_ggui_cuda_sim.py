"""The rasteriser kernels on the CUDA backend's code (SIMT emulator) draw what the CPU draws."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cuda_sim


def render() -> np.ndarray:
    window = ti.ui.Window("t", (24, 16), show_window=False)
    canvas, scene = window.get_canvas(), window.get_scene()
    canvas.set_background_color((0.1, 0.2, 0.3))
    canvas.triangles(np.array([[0, 0], [1, 0], [0, 1]], np.float32), color=(0.5, 0.5, 0))
    canvas.circles(np.array([[0.7, 0.7]], np.float32), radius=0.2, color=(1, 0, 0))
    canvas.lines(np.array([[0.1, 0.9], [0.9, 0.9]], np.float32), width=0.1, color=(0, 1, 0))
    camera = ti.ui.Camera()
    camera.position(0, 0, 3)
    camera.lookat(0, 0, 0)
    scene.set_camera(camera)
    scene.point_light((2, 2, 5), (1, 1, 1))
    scene.particles(np.array([[0, 0, 0], [0.3, 0, 0.5]], np.float32), radius=0.3, color=(0, 0, 1))
    quad = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1]], np.float32)
    scene.mesh(quad, per_vertex_color=np.eye(3, dtype=np.float32))
    scene.lines(np.array([[-1, 0.8, 0], [1, 0.8, 0]], np.float32), width=2, color=(1, 1, 1))
    canvas.scene(scene)
    return window.get_image_buffer_as_numpy()


def test_cuda_backend_draws_the_cpu_picture():
    cpu = render()
    ti.init(arch=ti.cuda, cuda_sim=True)
    sim = render()
    assert ti.current_arch() == "cuda"
    assert (cpu[:, :, 2] > 0.5).sum() > 20  # the spheres are there
    assert np.abs(cpu - sim).max() <= 1 / 255 + 1e-6  # at most one step of rounding
