"""Frames per second of ``ti.ui``: N particles as lit spheres in a W x H window.

A frame is what a ``while window.running`` loop does: ``scene.particles`` of a field of
N random positions in a unit cube (radius 0.005, one point light), ``canvas.scene``,
and the frame turned into the uint8 picture a view or a recording gets
(``window.get_image_buffer``'s path, :meth:`FrameBuffer.to_rgb8`). Timed by
``ti.profiler.time_call`` (warm-up excluded, median and IQR).

    python benchmarks/ggui_particles.py [--n 100000] [--res 512] [--arch cpu] [--rounds 15]
"""

from __future__ import annotations

import argparse

import numpy as np

import ti_notebook as ti


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--res", type=int, default=512)
    parser.add_argument("--arch", default="cpu")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--radius", type=float, default=0.005)
    args = parser.parse_args()
    ti.init(arch=getattr(ti, args.arch))
    x = ti.Vector.field(3, ti.f32, shape=args.n)
    x.from_numpy(np.random.default_rng(0).random((args.n, 3), np.float32) - 0.5)
    window = ti.ui.Window("particles", (args.res, args.res), show_window=False)
    canvas, scene = window.get_canvas(), window.get_scene()
    camera = ti.ui.Camera()
    camera.position(0.5, 0.8, 2.0)
    camera.lookat(0, 0, 0)

    def frame() -> None:
        scene.set_camera(camera)
        scene.ambient_light((0.2, 0.2, 0.2))
        scene.point_light((0.5, 1.5, 1.5), (1, 1, 1))
        scene.particles(x, radius=args.radius, color=(0.2, 0.6, 1.0))
        canvas.scene(scene)
        # the uint8 frame a live view or recorder receives (plain Python headless skips
        # it in show(), so it is made here to count it)
        window._fb.to_rgb8()
        window.show()

    timing = ti.profiler.time_call(frame, label="frame", rounds=args.rounds)
    s = timing.summary
    print(timing.describe())
    print(
        f"{args.n} particles at {args.res}x{args.res} on {ti.current_arch()}: "
        f"{1 / s.median:.1f} frames/s median (IQR {1 / s.q3:.1f}-{1 / s.q1:.1f}), "
        f"{s.n} samples"
    )


if __name__ == "__main__":
    main()
