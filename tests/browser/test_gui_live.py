"""``ti.GUI`` live in a real JupyterLab: a cell's ``while gui.running:`` loop draws
while the page counts the view's picture updates, a click on the view reaches
``get_cursor_pos`` (the cell prints it), the stop button ends ``gui.running``, and when
the cell ends the view becomes a static picture of its last frame. Nothing is timed; the
rates are printed for the record."""

from __future__ import annotations

import re

import pytest

from tests.browser.lab_driver import menu, open_notebook, run_cells, wait_idle
from tests.browser.test_lab_widgets import _notebook

pytestmark = pytest.mark.browser

RUN_S = 180
SIZE = 512
SETUP = "import numpy as np\nimport ti_notebook as ti"
LOOP = f"""\
import time

gui = ti.GUI("live", res={SIZE}, background_color=0x112F41)
rng = np.random.default_rng(0)
start = time.monotonic()
while gui.running and time.monotonic() - start < 120:
    gui.circles(rng.random((8192, 2)), radius=1.5, color=0x068587)
    for e in gui.get_events(ti.GUI.PRESS):
        if e.key == ti.GUI.LMB:
            x, y = gui.get_cursor_pos()
            print("CLICK", f"{{x:.2f}} {{y:.2f}}", flush=True)
    gui.show()
elapsed = time.monotonic() - start
print("STOPPED" if not gui.running else "TIMED OUT", "after", gui.frame, "frames,",
      f"{{gui.frame / elapsed:.1f}} frames/s drawn")
"""
ESC_LOOP = """\
esc_gui = ti.GUI("esc", res=128)
while esc_gui.running:
    esc_gui.show()
print("ESC ENDED", esc_gui.frame > 0)
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


def test_live_gui_shows_frames_hears_clicks_and_stops(lab_server, browser, screenshot_dir):
    base, token, root = lab_server
    (root / "gui_live.ipynb").write_text(_notebook([SETUP, LOOP, ESC_LOOP]))
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
            "() => document.querySelectorAll('.jp-CodeCell')[1]"
            ".querySelector('.jp-OutputArea').textContent.includes('CLICK ')",
            timeout=60_000,
        )
        text = cell.locator(".jp-Cell-outputArea").text_content()
        x, y = map(float, re.search(r"CLICK (\d\S*) (\d\S*)", text).groups())
        assert abs(x - 0.25) < 0.02 and abs(y - 0.75) < 0.02, text[-500:]

        cell.locator(".ti-gui-live button", has_text="stop").click()
        wait_idle(page, RUN_S)
        text = cell.locator(".jp-Cell-outputArea").text_content()
        assert "STOPPED" in text, text[-1500:]
        print(re.search(r"STOPPED after[^\n]*", text).group(0))
        # closed: the live widget is gone, its last frame stays as a PNG
        assert cell.locator(".ti-gui-live").count() == 0
        assert cell.locator('.jp-OutputArea-output[data-mime-type="image/png"] img').count() == 1
        errors = page.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        assert errors.count() == 0, errors.all_text_contents()
        page.screenshot(path=str(screenshot_dir / "gui-live.png"))

        # Esc on the focused view ends `while gui.running:` too
        esc_cell = page.locator(".jp-CodeCell").nth(2)
        esc_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        esc_cell.locator(".ti-gui-live img").wait_for(timeout=RUN_S * 1000)
        esc_cell.locator(".ti-gui-live img").click()
        page.keyboard.press("Escape")
        wait_idle(page, RUN_S)
        text = esc_cell.locator(".jp-Cell-outputArea").text_content()
        assert "ESC ENDED True" in text, text[-1500:]
    except Exception:
        page.screenshot(path=str(screenshot_dir / "gui-live-failed.png"))
        raise
    finally:
        page.close()
