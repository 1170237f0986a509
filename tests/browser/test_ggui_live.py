"""A GGUI scene live in a real JupyterLab: a cell's ``while window.running:`` loop draws
particles and a mesh with a camera driven by ``camera.track_user_inputs(window,
hold_key=ti.ui.RMB)``, Taichi's own examples' choice. A right-drag on the view turns
the camera: jupyter-rfb keeps the browser's (and JupyterLab's) context menu off the
view and captures the pointer for the drag, so the press, the moves and the release all
reach the loop. Holding ``w`` moves the camera forward. The cell prints the camera
before and after; the test checks both changed, that the view's picture changed with
them, and that no context menu opened. Nothing is timed."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from tests.browser.lab_driver import menu, open_notebook, run_cells, wait_idle
from tests.browser.test_lab_widgets import _notebook

pytestmark = pytest.mark.browser

RUN_S = 180
SIZE = 320
SETUP = "import numpy as np\nimport ti_notebook as ti"
LOOP = f"""\
window = ti.ui.Window("scene", ({SIZE}, {SIZE}))
canvas, scene = window.get_canvas(), window.get_scene()
camera = ti.ui.Camera()
camera.position(0.0, 0.0, 3.0)
camera.lookat(0.0, 0.0, 0.0)
x = ti.Vector.field(3, ti.f32, 64)
x.from_numpy(np.random.default_rng(0).random((64, 3)).astype(np.float32) - 0.5)
tri = ti.Vector.field(3, ti.f32, 3)
tri.from_numpy(np.array([[-1, -1, -0.5], [1, -1, -0.5], [0, 1, -0.5]], np.float32))


def state():
    direction = camera.curr_lookat - camera.curr_position
    direction /= np.linalg.norm(direction)
    return np.round(camera.curr_position, 4).tolist(), np.round(direction, 4).tolist()


start = state()
print("BEFORE", *start, flush=True)
said = set()
while window.running:
    camera.track_user_inputs(window, movement_speed=0.05, hold_key=ti.ui.RMB)
    position, direction = state()
    for news, happened in (
        ("DRAWING", window.frame > 0),
        ("TURNED", np.linalg.norm(np.subtract(direction, start[1])) > 0.05),
        ("MOVED", position != start[0]),
    ):
        if happened and news not in said:
            said.add(news)
            print(news, flush=True)
    scene.set_camera(camera)
    scene.ambient_light((0.5, 0.5, 0.5))
    scene.point_light(pos=(0, 1, 2), color=(1, 1, 1))
    scene.particles(x, radius=0.05, color=(0.9, 0.5, 0.2))
    scene.mesh(tri, color=(0.2, 0.6, 1.0))
    canvas.scene(scene)
    window.show()
print("AFTER", *state(), flush=True)
"""
OUTPUT_JS = (
    "t => document.querySelectorAll('.jp-CodeCell')[1]"
    ".querySelector('.jp-OutputArea').textContent.includes(t)"
)
# counts the view's picture updates (jupyter-rfb sets the img's src per frame)
COUNT_JS = """() => {
  const img = document.querySelector('.ti-gui-live img');
  if (!img) return false;
  if (!window.__tiFrames) {
    window.__tiFrames = {n: 0};
    new MutationObserver(m => { window.__tiFrames.n += m.length; })
      .observe(img, {attributes: true, attributeFilter: ['src']});
  }
  return true;
}"""
STATE = r"{} \[(\S+), (\S+), (\S+)\] \[(\S+), (\S+), (\S+)\]"


def _picture(locator) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("RGB"), np.float64)


def test_ggui_scene_turns_when_dragged(lab_server, browser, screenshot_dir):
    base, token, root = lab_server
    (root / "ggui_live.ipynb").write_text(_notebook([SETUP, LOOP]))
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    try:
        open_notebook(page, base, token, "ggui_live.ipynb", RUN_S)
        menu(page, "Edit", "Clear Outputs of All Cells")
        run_cells(page, RUN_S, 1)
        cell = page.locator(".jp-CodeCell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        view = cell.locator(".ti-gui-live img")
        view.wait_for(timeout=RUN_S * 1000)
        page.wait_for_function(OUTPUT_JS, arg="DRAWING", timeout=RUN_S * 1000)
        page.wait_for_function(COUNT_JS, timeout=RUN_S * 1000)
        page.wait_for_function("() => window.__tiFrames.n >= 2", timeout=RUN_S * 1000)
        before = _picture(view)

        # a right-drag, one step at a time until the loop says the camera turned (the
        # loop sees the press, then the moves, over several frames)
        box = view.bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(cx, cy)  # hover first: the loop learns where the pointer is
        shown = page.evaluate("() => window.__tiFrames.n")
        page.wait_for_function(f"() => window.__tiFrames.n >= {shown + 3}", timeout=60_000)
        page.mouse.down(button="right")
        for k in range(1, 200):
            page.mouse.move(cx + (4 * k) % 120, cy)  # sideways: a turn about the up axis
            if page.evaluate(OUTPUT_JS, "TURNED"):
                break
            page.wait_for_timeout(50)
        page.mouse.up(button="right")
        menus = page.locator(".lm-Menu")
        assert menus.count() == 0 or not menus.first.is_visible()  # no context menu

        page.keyboard.down("w")  # the view has the focus since the press
        page.wait_for_function(OUTPUT_JS, arg="MOVED", timeout=60_000)
        page.keyboard.up("w")
        shown = page.evaluate("() => window.__tiFrames.n")
        page.wait_for_function(f"() => window.__tiFrames.n >= {shown + 3}", timeout=60_000)
        after = _picture(view)

        cell.locator(".ti-gui-live button", has_text="stop").click()
        wait_idle(page, RUN_S)
        text = cell.locator(".jp-Cell-outputArea").text_content()
        errors = page.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        assert errors.count() == 0, errors.all_text_contents()
        start = [float(v) for v in re.search(STATE.format("BEFORE"), text).groups()]
        end = [float(v) for v in re.search(STATE.format("AFTER"), text).groups()]
        print("camera (position, direction) before", start, "after", end)
        assert start == [0.0, 0.0, 3.0, 0.0, 0.0, -1.0]
        assert np.linalg.norm(np.subtract(end[3:], start[3:])) > 0.05, text  # it turned
        assert np.linalg.norm(np.subtract(end[:3], start[:3])) > 0.01, text  # and moved
        assert before.shape == after.shape
        change = np.abs(after - before).mean()
        print(f"the picture changed by {change:.1f} (mean of |after - before|, 0-255)")
        assert change > 2.0
        page.screenshot(path=str(screenshot_dir / "ggui-live.png"))
    except Exception:
        page.screenshot(path=str(screenshot_dir / "ggui-live-failed.png"))
        raise
    finally:
        page.close()
