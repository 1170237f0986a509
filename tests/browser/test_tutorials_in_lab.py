"""Every tutorial in JupyterLab: opened in headless Chromium on the "Python 3
(ti_notebook)" kernel, its outputs cleared, every cell run in order; then each code cell
has run, no cell shows an error (except those tagged ``raises-exception``), and every
widget rendered. A copy runs, never the repository's file. Nothing is timed.

The measuring pictures are checked too: no share of a ceiling above 100 % is shown
without its flag (a ``*`` pointing at the reason under the table, or the reason in
parentheses), and after tutorial 04 a cell appended to the copy checks that every tuner
the notebook made plots a y-range within 3x of its largest median."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser.lab_driver import CellNotStarted, menu, open_notebook, run_cells, wait_idle

pytestmark = pytest.mark.browser

RUN_S = 240  # a tutorial's slowest cell on a loaded 2-core machine, with margin
NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]-*.ipynb"))
ERROR_LINE = re.compile(r"^(Traceback|\w*(Error|Exception|Interrupted)\b)", re.MULTILINE)
# "243 % of L3 bandwidth *" / "(above the measured ...)": a share of a ceiling
SHARE = re.compile(r"(\d+(?:\.\d+)?)\s?% of(?P<rest>[^\n]*)")
# run after the tutorial's own cells (the copy only): every tuner's plot, as drawn
TUNER_CHECK = """
from ti_notebook import widgets as _w
_tuners = [v for v in list(globals().values()) if type(v).__name__ == "Tuner"]
_bad = []
for _t in _tuners:
    _figure = _w.tune_figure(_t)
    _top = max(ax.get_ylim()[1] for ax in _figure.axes if ax.has_data())
    _largest = max(r.median_s for r in _t.results) * 1e3
    if not _top <= 3 * _largest:
        _bad.append((_t.kernel.name, _top, _largest))
print("TUNER-CHECK", len(_tuners), "ok" if _tuners and not _bad else f"failed {_bad}")
"""
EXTRA_CELLS = {"04-tuning-loop-config.ipynb": [TUNER_CHECK]}
# A live GUI's `while gui.running:` loop runs until a reader stops it: once a view has
# been on the page for STOP_AFTER_MS, press its stop button, as a reader would.
STOP_AFTER_MS = 3_000  # a few frames each: enough to see the loop draw live
STOP_LIVE_VIEWS = """ms => {
  if (window.__tiStopper) return;
  window.__tiStopper = setInterval(() => {
    for (const view of document.querySelectorAll('.ti-gui-live')) {
      view.__tiSeen = view.__tiSeen || performance.now();
      if (view.__tiStopped || performance.now() - view.__tiSeen < ms) continue;
      const stop = [...view.querySelectorAll('button')].find(b => b.textContent.includes('stop'));
      if (stop) { view.__tiStopped = true; stop.click(); }
    }
  }, 500);
}"""


def _kernel_name() -> str:
    """The tutorials' kernel when this environment has it (make setup installs it)."""
    from jupyter_client.kernelspec import KernelSpecManager

    return "ti_notebook" if "ti_notebook" in KernelSpecManager().find_kernel_specs() else "python3"


def _copy_for_lab(path: Path, root: Path) -> tuple[str, list[bool]]:
    """The notebook, outputs cleared and solutions unfolded (a folded cell's editor cannot
    be clicked), under ``root``; and which code cells are meant to raise."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    raises = []
    for cell in notebook["cells"]:
        cell["metadata"].pop("jupyter", None)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            raises.append("raises-exception" in cell["metadata"].get("tags", []))
    for source in EXTRA_CELLS.get(path.name, ()):
        notebook["cells"].append(
            {
                "cell_type": "code",
                "metadata": {},
                "source": source,
                "outputs": [],
                "execution_count": None,
            }
        )
        raises.append(False)
    notebook["metadata"]["kernelspec"]["name"] = _kernel_name()
    (root / path.name).write_text(json.dumps(notebook), encoding="utf-8")
    return path.name, raises


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_tutorial_runs_in_jupyterlab_without_errors(lab_server, browser, screenshot_dir, path):
    base, token, root = lab_server
    name, raises = _copy_for_lab(path, root)
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    try:
        for attempt in (1, 2):  # a fresh page once if JupyterLab dropped a run request
            try:
                open_notebook(page, base, token, name, RUN_S)
                page.evaluate(STOP_LIVE_VIEWS, STOP_AFTER_MS)
                menu(page, "Edit", "Clear Outputs of All Cells")
                run_cells(page, RUN_S, len(raises))
                break
            except CellNotStarted:
                if attempt == 2:
                    raise
        wait_idle(page, RUN_S)
        _check(page, raises)
        _check_shares(page)
        if path.name in EXTRA_CELLS:
            last = page.locator(".jp-CodeCell").nth(len(raises) - 1).text_content()
            assert "TUNER-CHECK" in last and " ok" in last, last[-2000:]
    except Exception:
        page.screenshot(path=str(screenshot_dir / f"{path.stem}-failed.png"), full_page=True)
        raise
    finally:
        page.close()


def _check(page, raises: list[bool]) -> None:
    cells = page.locator(".jp-CodeCell")
    # Shift+Enter in a last cell adds an empty one below: only the notebook's own count
    assert cells.count() in (len(raises), len(raises) + 1)
    for k in range(len(raises)):
        cell = cells.nth(k)
        prompt = cell.locator(".jp-InputPrompt").text_content()
        assert re.search(r"\[\d+\]", prompt), f"code cell {k + 1} did not run: {prompt!r}"
        stderr = cell.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        texts = [stderr.nth(j).text_content() for j in range(stderr.count())]
        failed = [t for t in texts if ERROR_LINE.search(t)]
        if raises[k]:
            assert failed, f"code cell {k + 1} is tagged raises-exception but showed no error"
        else:
            assert not failed, f"code cell {k + 1} failed:\n{failed[0][:2000]}"
        text = cell.text_content()
        assert "Error displaying widget" not in text, f"code cell {k + 1}: a widget failed"


def _check_shares(page) -> None:
    """No share of a ceiling above 100 % without its flag, anywhere in the outputs."""
    areas = page.locator(".jp-OutputArea")
    for k in range(areas.count()):
        text = areas.nth(k).inner_text() or ""
        for match in SHARE.finditer(text):
            rest = match["rest"]
            if float(match[1]) > 100:
                assert "*" in rest or "(" in rest, f"an unflagged share: {match[0]!r}"
