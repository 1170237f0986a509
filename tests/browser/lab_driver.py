"""Driving JupyterLab from Playwright: run a notebook's cells one by one, wait for the
kernel to be idle. Shared by the browser tests (tests/browser/).

A keypress or click that lands while the page re-renders is lost without a word, so a
cell is started again until its prompt shows it ran.
"""

from __future__ import annotations


class CellNotStarted(AssertionError):
    """No request to run a cell reached the kernel (the UI dropped them all)."""


def menu(page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


# The k-th code cell's state, looked up afresh each time: JupyterLab may re-render a cell
# (a new DOM node) after the page first shows it, and a handle taken before then never
# sees the prompt change (the cell ran, the check waited on a detached node).
_CELL_JS = "k => document.querySelectorAll('.jp-CodeCell')[k]"
_ACTIVE_JS = f"k => ({_CELL_JS})(k)?.classList.contains('jp-mod-active')"
_PROMPT_JS = f"k => ({_CELL_JS})(k)?.querySelector('.jp-InputPrompt')?.textContent || ''"


def run_cells(page, run_s: float, count: int) -> None:
    """Runs the notebook's ``count`` code cells in order, each once its predecessor is
    done. A keypress or click that lands while the page re-renders is lost without a
    word (Run All Cells now and then ran only the first cell), so each cell is started
    until its prompt shows it started: Shift+Enter in the cell's editor, else Run → Run
    Selected Cell. The page may still be adding cells when the first shows: all
    ``count`` must be there before the first runs."""
    cells = page.locator(".jp-CodeCell")
    page.wait_for_function(
        "n => document.querySelectorAll('.jp-CodeCell').length >= n",
        arg=count,
        timeout=run_s * 1000,
    )
    started = f"k => /\\[(\\*|\\d+)\\]/.test(({_PROMPT_JS})(k))"
    finished = f"k => /\\[\\d+\\]/.test(({_PROMPT_JS})(k))"
    for k in range(count):
        if page.evaluate(started, k):  # a lost click of the cell before ran this one
            page.wait_for_function(finished, arg=k, timeout=run_s * 1000)
            continue
        for attempt in range(6):
            cells.nth(k).locator(".jp-InputArea-editor").click()
            try:  # under load the click may land late: run only once this cell is active
                page.wait_for_function(_ACTIVE_JS, arg=k, timeout=20_000)
            except Exception:  # playwright's TimeoutError: click again
                continue
            if attempt % 2 == 0:
                page.keyboard.press("Shift+Enter")
            else:
                menu(page, "Run", "Run Selected Cell")
            try:
                page.wait_for_function(started, arg=k, timeout=20_000)
                break
            except Exception:  # playwright's TimeoutError: the request was lost
                continue
        else:
            raise CellNotStarted(f"cell {k + 1} did not start in 6 tries")
        page.wait_for_function(finished, arg=k, timeout=run_s * 1000)


def wait_idle(page, run_s: float) -> None:
    """Until no cell is queued or running (their prompts say [*])."""
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-CodeCell').length > 0 && "
        "[...document.querySelectorAll('.jp-InputPrompt')].every("
        "p => !p.textContent.includes('*'))",
        timeout=run_s * 1000,
    )


def open_notebook(page, base: str, token: str, name: str, run_s: float) -> None:
    """Opens ``name`` (a path under the server's root) and waits for its kernel."""
    page.goto(f"{base}/lab/tree/{name}?token={token}&reset")
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=run_s * 1000)
    # the kernel must be up before a cell runs, or the run waits on the kernel picker
    page.wait_for_function(
        "() => [...document.querySelectorAll('span')].some("
        "s => s.textContent.includes('Kernel status: Idle'))",
        timeout=run_s * 1000,
    )
