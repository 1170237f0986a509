"""The live GUI view in a real JupyterLab: a cell's loop pushes frames through
``LiveView`` while the page counts the picture's updates, a click on the view reaches
the loop's ``events()`` (the cell prints it), the stop button ends the loop, and the
closed view leaves its last frame as a static picture. Nothing is timed; the rates are
printed for the record."""

from __future__ import annotations

import os
import re

import pytest

from tests.browser.lab_driver import menu, open_notebook, run_cells, wait_idle
from tests.browser.test_lab_widgets import _notebook

pytestmark = pytest.mark.browser

RUN_S = 180
SIZE = 512
SETUP = "import ti_notebook as ti\nfrom ti_notebook.ui.live_view import LiveView"
LOOP = f"""\
import time
import numpy as np

view = LiveView("live", {SIZE}, {SIZE})
picture = np.zeros(({SIZE}, {SIZE}, 3), np.uint8)
pushed, start = 0, time.monotonic()
while not view.stopped and time.monotonic() - start < 120:
    picture[:, :, 0] = pushed % 256
    picture[:, :, 1] = np.arange({SIZE}, dtype=np.uint8)[None, :]
    view.push(picture)
    pushed += 1
    for e in view.events():
        if e.type.name == "PRESS" and e.key == "LMB":
            print("CLICK", e.key, f"{{e.pos[0]:.2f}} {{e.pos[1]:.2f}}", flush=True)
    time.sleep(0.002)
elapsed = time.monotonic() - start
print("STOPPED" if view.stopped else "TIMED OUT", "pushed", pushed, "sent", view.frames_sent,
      f"{{view.frames_sent / elapsed:.1f}} frames/s sent")
view.close()
"""
# counts the view's picture updates (jupyter-rfb sets the img's src per frame)
COUNT_JS = """() => {
  const cell = document.querySelectorAll('.jp-CodeCell')[1];
  if (cell && cell.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]')) return true;
  const img = document.querySelector('.ti-gui-live img');
  if (!img) return false;
  if (!window.__tiFrames) {
    window.__tiFrames = {n: 0, t0: performance.now()};
    new MutationObserver(m => { window.__tiFrames.n += m.length; })
      .observe(img, {attributes: true, attributeFilter: ['src']});
  }
  return true;
}"""


# In JupyterLab 4.6 the jupyter-rfb view renders but no event of it reaches the kernel,
# during the cell (polled through jupyter-ui-poll, which does carry a Button's click: the
# tuner's Stop test) or after it, so the view's constructor gives up. It takes ~190 s to
# fail: run it with TI_GUI_LIVE_CHECK=1 while working on the live view.
@pytest.mark.skipif(
    os.environ.get("TI_GUI_LIVE_CHECK") != "1",
    reason="the live GUI view does not hear the browser yet (TI_GUI_LIVE_CHECK=1 runs it)",
)
def test_live_view_shows_frames_hears_clicks_and_stops(lab_server, browser, screenshot_dir):
    base, token, root = lab_server
    (root / "gui_live.ipynb").write_text(_notebook([SETUP, LOOP]))
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    try:
        open_notebook(page, base, token, "gui_live.ipynb", RUN_S)
        menu(page, "Edit", "Clear Outputs of All Cells")
        run_cells(page, RUN_S, 1)
        cell = page.locator(".jp-CodeCell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(COUNT_JS, timeout=RUN_S * 1000, polling=100)
        assert cell.locator(".ti-gui-live img").count() == 1, cell.text_content()[-1500:]
        page.wait_for_function("() => window.__tiFrames.n >= 30", timeout=RUN_S * 1000)
        rate = page.evaluate(
            "() => window.__tiFrames.n * 1000 / (performance.now() - window.__tiFrames.t0)"
        )
        print(f"the page showed {rate:.1f} frames/s")

        view = cell.locator(".ti-gui-live img").first
        view.click(position={"x": SIZE * 0.25, "y": SIZE * 0.25})  # (0.25, 0.75), y up
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-CodeCell')[1].textContent.includes('CLICK')",
            timeout=60_000,
        )
        text = cell.text_content()
        x, y = map(float, re.search(r"CLICK LMB (\S+) (\S+)", text).groups())
        assert abs(x - 0.25) < 0.02 and abs(y - 0.75) < 0.02, text[-500:]

        cell.locator(".ti-gui-live button", has_text="stop").click()
        wait_idle(page, RUN_S)
        text = cell.text_content()
        assert "STOPPED" in text, text[-1500:]
        print(re.search(r"STOPPED[^\n]*", text).group(0))
        # closed: the live widget is gone, its last frame stays as a PNG
        assert cell.locator(".ti-gui-live").count() == 0
        assert cell.locator('.jp-OutputArea-output[data-mime-type="image/png"] img').count() == 1
        errors = page.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        assert errors.count() == 0, errors.all_text_contents()
        page.screenshot(path=str(screenshot_dir / "gui-live.png"))
    except Exception:
        page.screenshot(path=str(screenshot_dir / "gui-live-failed.png"))
        raise
    finally:
        page.close()
