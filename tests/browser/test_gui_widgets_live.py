"""``ti.GUI``'s own widgets live in a real JupyterLab: a cell's ``while gui.running:``
loop declares ``gui.slider("gravity", 0, 10)``, a label and a button; the slider, moved
in the page with the keyboard, changes the value the loop reads (the cell prints it),
the label shows what the loop sets, and a click on the button reaches the loop as a
PRESS event. A loop that never reads ``gui.running`` is ended by the stop button with a
one-line error. Nothing is timed."""

from __future__ import annotations

import re

import pytest

from tests.browser.lab_driver import menu, open_notebook, run_cells, wait_idle
from tests.browser.test_lab_widgets import _notebook

pytestmark = pytest.mark.browser

RUN_S = 180
SETUP = "import numpy as np\nimport ti_notebook as ti"
LOOP = """\
gui = ti.GUI("widgets", res=256, background_color=0x112F41)
gravity = gui.slider("gravity", 0, 10)
frames = gui.label("frame")
reset = gui.button("reset")
seen = None
while gui.running:
    if gravity.value != seen:
        seen = gravity.value
        print("GRAVITY", seen, flush=True)
    for e in gui.get_events(ti.GUI.PRESS):
        if e.key == reset:
            print("PRESSED", e.key, flush=True)
    frames.value = gui.frame
    gui.circle((0.5, 0.5), radius=4 + 8 * seen, color=0x068587)
    gui.show()
print("DONE", gui.frame)
"""
# a loop that never reads `running`: the stop button ends it with one line
FOR_LOOP = """\
spin = ti.GUI("spin", res=128)
for frame in range(100000):
    spin.circle((0.5, 0.5), radius=frame % 20)
    spin.show()
"""
OUTPUT_JS = (
    "t => document.querySelectorAll('.jp-CodeCell')[1]"
    ".querySelector('.jp-OutputArea').textContent.includes(t)"
)


def test_gui_slider_label_and_button_reach_the_loop(lab_server, browser, screenshot_dir):
    base, token, root = lab_server
    (root / "gui_widgets.ipynb").write_text(_notebook([SETUP, LOOP, FOR_LOOP]))
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    try:
        open_notebook(page, base, token, "gui_widgets.ipynb", RUN_S)
        menu(page, "Edit", "Clear Outputs of All Cells")
        run_cells(page, RUN_S, 1)
        cell = page.locator(".jp-CodeCell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        live = cell.locator(".ti-gui-live")
        slider = live.locator(".widget-slider", has_text="gravity")
        slider.wait_for(timeout=RUN_S * 1000)
        page.wait_for_function(OUTPUT_JS, arg="GRAVITY 0.0", timeout=RUN_S * 1000)

        slider.locator(".noUi-handle").focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")  # one step (1) each
        assert slider.locator(".widget-readout").text_content().strip() == "3.00"
        page.wait_for_function(OUTPUT_JS, arg="GRAVITY 3.0", timeout=60_000)

        # the label follows gui.frame, which the loop sets every frame
        label = live.locator(".widget-label", has_text="frame:")
        page.wait_for_function(
            "() => [...document.querySelectorAll('.ti-gui-live .widget-label')].some("
            "l => /^frame: [1-9]/.test(l.textContent))",
            timeout=60_000,
        )
        assert re.fullmatch(r"frame: \d+", label.text_content().strip())

        live.locator("button", has_text="reset").click()
        page.wait_for_function(OUTPUT_JS, arg="PRESSED WidgetButton_reset", timeout=60_000)

        page.screenshot(path=str(screenshot_dir / "gui-widgets.png"))
        live.locator("button", has_text="stop").click()
        wait_idle(page, RUN_S)
        text = cell.locator(".jp-Cell-outputArea").text_content()
        assert "DONE" in text, text[-1500:]
        # 0.0, then what the keys made of it on the way to 3.0 (the loop may see 1.0, 2.0)
        values = [float(v) for v in re.findall(r"GRAVITY (\S+)", text)]
        assert values[0] == 0.0 and values[-1] == 3.0, text[-1500:]
        assert values == sorted(values) and set(values) <= {0.0, 1.0, 2.0, 3.0}, text[-1500:]
        errors = cell.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        assert errors.count() == 0, errors.all_text_contents()
        # the cell ended: view and widgets gone, the last frame stays as a picture
        assert cell.locator(".ti-gui-live").count() == 0
        assert cell.locator('.jp-OutputArea-output[data-mime-type="image/png"] img').count() == 1

        spin = page.locator(".jp-CodeCell").nth(2)
        spin.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        stop = spin.locator(".ti-gui-live button", has_text="stop")
        stop.wait_for(timeout=RUN_S * 1000)
        stop.click()
        wait_idle(page, RUN_S)
        error = spin.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        assert error.count() == 1, spin.text_content()[-1500:]
        message = error.text_content().strip()
        assert message.startswith("GUIStopped: ti.GUI 'spin' was stopped"), message
        assert "`while gui.running:`" in message and "Traceback" not in message, message
        assert len(message.splitlines()) == 1, message
        assert spin.locator('.jp-OutputArea-output[data-mime-type="image/png"] img').count() == 1
    except Exception:
        page.screenshot(path=str(screenshot_dir / "gui-widgets-failed.png"))
        raise
    finally:
        page.close()
