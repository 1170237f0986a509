"""The widgets' pictures read in JupyterLab's light and dark themes: a notebook with the
layout widget (hand-written SVG) and a matplotlib figure drawn through
``widgets.render`` (the occupancy plot, inline as the tuner shows its plot) is run, then
shown in each theme; every SVG ``text`` element's computed fill must stand out from the
background it is drawn on. Screenshots go to ``TI_SCREENSHOT_DIR`` when set. Nothing is
timed (DESIGN.md section 8)."""

from __future__ import annotations

import pytest

from tests.browser.lab_driver import open_notebook, run_cells, wait_idle
from tests.browser.test_lab_widgets import _notebook

pytestmark = pytest.mark.browser

RUN_S = 180
CELLS = [
    "import ipywidgets\nimport ti_notebook as ti\nfrom ti_notebook import widgets\n"
    "from ti_notebook.widgets.render import inline_svg, svg_text\n\nti.init(arch=ti.cpu)",
    "x = ti.field(ti.f32, shape=(8, 12), name='x')\nwidgets.layout(x, loop='ndrange')",
    "figure = widgets.occupancy_figure(registers=64, shared_bytes=12_000, block_dim=256)\n"
    "ipywidgets.HTML(inline_svg(svg_text(figure)))",
]
# per SVG text outside a coloured cell: its fill and the colour behind it (the nearest
# ancestor with an opaque background), as [r, g, b]
COLOURS_JS = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const behind = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll('.jp-OutputArea-output svg text')]
    .filter(t => t.getAttribute('pointer-events') !== 'none' && t.textContent.trim())
    .map(t => [t.textContent, rgb(getComputedStyle(t).fill).slice(0, 3), behind(t)]);
}"""
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def _luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _set_theme(page, name: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=THEMES[name]).first.click()
    light = "true" if name == "light" else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'")
    page.wait_for_timeout(500)  # the theme's CSS applies after the attribute changes


def test_svg_text_reads_in_the_light_and_the_dark_theme(lab_server, browser, screenshot_dir):
    base, token, root = lab_server
    (root / "themes.ipynb").write_text(_notebook(CELLS))
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    try:
        open_notebook(page, base, token, "themes.ipynb", RUN_S)
        run_cells(page, RUN_S, len(CELLS))
        wait_idle(page, RUN_S)
        page.wait_for_selector("svg.ti-layout", timeout=RUN_S * 1000)
        page.wait_for_selector("svg.ti-figure:not(.ti-layout)", timeout=RUN_S * 1000)
        for name in ("dark", "light"):
            _set_theme(page, name)
            page.screenshot(path=str(screenshot_dir / f"lab-theme-{name}.png"))
            texts = page.evaluate(COLOURS_JS)
            assert len(texts) > 10, texts  # the layout's captions and the plot's labels
            poor = [t for t in texts if _contrast(t[1], t[2]) < 3]
            assert not poor, f"{name} theme: text that does not stand out: {poor[:5]}"
    except Exception:
        page.screenshot(path=str(screenshot_dir / "lab-themes-failed.png"))
        raise
    finally:
        page.close()
