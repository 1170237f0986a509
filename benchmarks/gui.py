"""Frames per second of ti.GUI and ti.ui (not a test): what one frame of each costs.

Each row times one frame, headless (no view, so no wait for the frame rate limit), by
the timing protocol (``workloads/measure.py``: the first call apart, then samples of
at least 5 ms each):

  1. ``gui.set_image`` of a 512x512 ``ti.Vector.field(3, ti.f32)``, the frame's
     conversion to RGB bytes and the JPEG that the live view sends per frame
     (jupyter_rfb's ``array2compressed``, quality 90; the encoder it picked is printed);
  2. mpm88's frame: ``gui.circles`` of 8,192 particles at radius 1.5 on 512x512, then
     ``gui.show()`` (which clears): with the kernels of a CPU session, and with the NumPy
     splat the GUI uses without one; one colour (mpm88's) and a 3-colour palette;
  3. 100,000 3-D particles at 512x512 through ``ti.ui.Window``/``Scene``, when
     ``ti.ui`` has them (otherwise the row says why it is skipped).

    python benchmarks/gui.py
"""

from __future__ import annotations

import os
import platform

import numpy as np
from workloads.measure import Timer, attempt, one_line

import ti_notebook as ti

RES = 512
PARTICLES_2D = 8192  # mpm88's n_particles
PARTICLES_3D = 100_000
PALETTE = [0x068587, 0xED553B, 0xEEEEF0]  # mpm88's colour and two more


def set_image_row(timer: Timer) -> tuple[str, dict]:
    """set_image of a vector field + RGB bytes + the live view's JPEG, per frame."""
    from jupyter_rfb._jpg import encoder
    from jupyter_rfb._utils import array2compressed

    ti.init(arch=ti.cpu)
    img = ti.Vector.field(3, ti.f32, shape=(RES, RES))
    img.from_numpy(np.random.default_rng(0).random((RES, RES, 3), np.float32))
    gui = ti.GUI("bench", res=RES, show_gui=False)

    def frame() -> None:
        gui.set_image(img)
        mimetype, _ = array2compressed(gui.canvas.to_rgb8(), quality=90)
        assert mimetype == "image/jpeg"

    frame()
    return f"set_image 512² vec3 field + JPEG q90 ({type(encoder).__name__})", timer.per_call(frame)


def circles_rows(timer: Timer) -> list[tuple[str, dict]]:
    """mpm88's frame on the kernel path (a CPU session) and on the NumPy path (none)."""
    rng = np.random.default_rng(0)
    pos = rng.random((PARTICLES_2D, 2)) * 0.8 + 0.1
    indices = rng.integers(0, len(PALETTE), PARTICLES_2D)
    gui = ti.GUI("mpm88", res=RES, background_color=0x112F41, show_gui=False)
    single = ti.GUI("mpm88", res=RES, background_color=0x112F41, show_gui=False)

    def one_colour() -> None:
        gui.circles(pos, radius=1.5, color=0x068587)
        gui.show()

    def palette() -> None:
        gui.circles(pos, radius=1.5, palette=PALETTE, palette_indices=indices)
        gui.show()

    rows = []
    for path in ("kernels", "NumPy"):
        if path == "kernels":
            ti.init(arch=ti.cpu)
        else:
            ti.reset()  # no session: the GUI never starts one, so NumPy draws
        for label, frame in (("1 colour", one_colour), ("3-colour palette", palette)):
            frame()
            rows.append((f"8,192 circles r=1.5, {label} ({path})", timer.per_call(frame)))
    # the two paths draw the same frame (both compose one circle after another)
    ti.init(arch=ti.cpu)
    single.circles(pos, radius=1.5, palette=PALETTE, palette_indices=indices)
    drawn = single.get_image()
    ti.reset()
    single.clear()
    single.circles(pos, radius=1.5, palette=PALETTE, palette_indices=indices)
    assert np.abs(single.get_image() - drawn).max() < 1e-5, "the two paths differ"
    return rows


def scene_row(timer: Timer) -> tuple[str, dict]:
    """100,000 particles through ti.ui.Scene, or the reason the row is skipped."""
    name = "100,000 3-D particles, ti.ui.Scene 512²"
    ui = getattr(ti, "ui", None)
    missing = [n for n in ("Window", "Scene", "Camera") if not hasattr(ui, n)]
    if missing:
        return name, {"na": f"skipped: ti.ui has no {', '.join(missing)} yet"}
    ti.init(arch=ti.cpu)
    window = ti.ui.Window("bench", (RES, RES), show_window=False)
    canvas = window.get_canvas()
    scene = window.get_scene() if hasattr(window, "get_scene") else ti.ui.Scene()
    camera = ti.ui.Camera()
    camera.position(0.5, 0.5, 2.0)
    camera.lookat(0.5, 0.5, 0.0)
    x = ti.Vector.field(3, ti.f32, shape=PARTICLES_3D)
    x.from_numpy(np.random.default_rng(0).random((PARTICLES_3D, 3), np.float32))

    def frame() -> None:
        scene.set_camera(camera)
        scene.ambient_light((0.5, 0.5, 0.5))
        scene.point_light(pos=(0.5, 1.5, 1.5), color=(1.0, 1.0, 1.0))
        scene.particles(x, radius=0.005, color=(0.4, 0.6, 0.9))
        canvas.scene(scene)
        window.show()

    frame()
    return name, timer.per_call(frame)


def main() -> None:
    timer = Timer()
    rows = [attempt(set_image_row, timer), *circles_rows(timer)]
    try:
        rows.append(scene_row(timer))
    except Exception as exc:  # one failing row keeps the others
        rows.append(("100,000 3-D particles, ti.ui.Scene 512²", {"error": one_line(exc)}))
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'frame':58s} {'median ms (q1–q3)':>22s} {'frames/s':>9s}")
    for row in rows:
        name, fig = row if isinstance(row, tuple) else ("set_image row", row)
        if "median" not in fig:
            print(f"{name:58s} {fig.get('na') or fig.get('error')}")
            continue
        ms = f"{fig['median'] * 1e3:.2f} ({fig['q1'] * 1e3:.2f}–{fig['q3'] * 1e3:.2f})"
        print(f"{name:58s} {ms:>22s} {1 / fig['median']:9.0f}")


if __name__ == "__main__":
    main()
