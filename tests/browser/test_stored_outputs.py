"""A stored tutorial opened in JupyterLab without running it shows every widget's
picture: each output stored with a widget view renders an SVG or an image, none only
its text line. Nothing is run or timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.test_tutorials_in_lab import NOTEBOOKS, _kernel_name

pytestmark = pytest.mark.browser

OPEN_S = 120
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# per code cell: does its output area show an <svg> or an <img>, and its text
SHOWN_JS = """() => [...document.querySelectorAll('.jp-CodeCell')].map(c => {
  const out = c.querySelector('.jp-OutputArea');
  return [!!(out && out.querySelector('svg, img')), out ? out.textContent.slice(0, 200) : ''];
})"""


def _widget_cells(path: Path) -> list[int]:
    """Positions among the code cells of those stored with a widget view."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return [
        k
        for k, cell in enumerate(cells)
        if any(WIDGET_VIEW in out.get("data", {}) for out in cell.get("outputs", []))
    ]


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if _widget_cells(p)], ids=lambda path: path.name
)
def test_a_stored_tutorial_shows_every_widgets_picture(lab_server, browser, screenshot_dir, path):
    base, token, root = lab_server
    notebook = json.loads(path.read_text(encoding="utf-8"))
    notebook["metadata"]["kernelspec"]["name"] = _kernel_name()  # no kernel picker dialog
    (root / path.name).write_text(json.dumps(notebook), encoding="utf-8")
    expected = _widget_cells(path)
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    try:
        page.goto(f"{base}/lab/tree/{path.name}?token={token}&reset")
        page.wait_for_function(
            "k => { const c = document.querySelectorAll('.jp-CodeCell')[k];"
            " return c && c.querySelector('.jp-OutputArea svg, .jp-OutputArea img'); }",
            arg=expected[0],
            timeout=OPEN_S * 1000,
        )
        page.wait_for_timeout(2000)  # the other widgets render from the saved state
        shown = page.evaluate(SHOWN_JS)
        missing = [(k, shown[k][1]) for k in expected if not shown[k][0]]
        assert not missing, f"widget outputs without a picture: {missing}"
    except Exception:
        page.screenshot(path=str(screenshot_dir / f"{path.stem}-stored-failed.png"))
        raise
    finally:
        page.close()
