"""IPython magics for ti_notebook, installed as ``ti_notebook.magics``.

``%%kernel`` and its companions live here: they parse the magic's arguments and call the
public ``ti_notebook`` API, never compiler internals (DESIGN.md sections 2 and 6).

``%load_ext ti_notebook`` calls :func:`load_ipython_extension` (re-exported by
``ti_notebook``); ``import ti_notebook`` inside IPython registers the magics too. This
module stays light: IPython's magic machinery is imported only when a shell exists.

    >>> from IPython.core.interactiveshell import InteractiveShell
    >>> shell = InteractiveShell.instance()
    >>> load_ipython_extension(shell)
    >>> "kernel" in shell.magics_manager.magics["cell"]
    True
"""

from __future__ import annotations

import sys


def load_ipython_extension(ipython) -> None:
    """Registers ``%%kernel`` with the shell ``ipython``; prints nothing.

    Kernel cells say ``ti.f32``, so ``ti`` (the ``ti_notebook`` module) is also put in
    the user namespace, unless that name is already taken.
    """
    import ti_notebook
    from ti_notebook.magics.kernel_magic import KernelMagics

    ipython.register_magics(KernelMagics)
    _help_for_an_empty_cell(ipython)
    _show_ti_errors_short(ipython)
    _name_cells_in_messages(ipython)
    if "ti" not in ipython.user_ns:
        ipython.push({"ti": ti_notebook}, interactive=False)


def help_cell(lines: list[str]) -> list[str]:
    """``%%kernel -h`` (or ``--help``) with nothing below it as the line magic
    ``%kernel -h``: IPython refuses a cell magic with an empty body before calling it.

        >>> help_cell(["%%kernel --help\\n", "\\n"])
        ['%kernel --help\\n']
        >>> help_cell(["%%kernel\\n", "def f():\\n"])
        ['%%kernel\\n', 'def f():\\n']
    """
    if not lines or not lines[0].startswith("%%kernel") or any(text.strip() for text in lines[1:]):
        return lines
    if not any(token in ("-h", "--help") for token in lines[0].split()[1:]):
        return lines
    return [lines[0][1:]]


def _help_for_an_empty_cell(ipython) -> None:
    cleanup = ipython.input_transformers_cleanup
    if help_cell not in cleanup:
        cleanup.insert(0, help_cell)


def _show_ti_errors_short(ipython) -> None:
    """A ti_notebook error raised by any cell (a kernel's first call in a plain cell,
    say) shows as in ``%%kernel`` cells: message, caret, hint, no compiler frames; an
    interrupt that stopped a compile shows one line and the cell's line that started it.
    ``TI_DEBUG=1`` keeps IPython's full traceback."""
    import traceback

    from ti_notebook.errors import TiError
    from ti_notebook.magics.cell_errors import debug_enabled, ti_error_lines
    from ti_notebook.magics.compile_watch import (
        KernelCellInterrupt,
        compile_watch,
        interrupt_lines,
    )

    watch = compile_watch()  # listens from now on: any cell's compile may be interrupted

    def handler(shell, etype, value, tb, tb_offset=None):
        def place(filename: str) -> str | None:
            label = shell.compile.format_code_name(filename)
            return f"{label[0]} {label[1]}" if label else None

        stopped = watch.stopped_by(value) if isinstance(value, KeyboardInterrupt) else None
        if isinstance(value, KernelCellInterrupt):  # %%kernel's own short report
            lines = value._render_traceback_()
        elif stopped is not None and not debug_enabled():
            lines = interrupt_lines(stopped, value, place)
        elif hasattr(value, "_render_traceback_"):  # a running kernel's interrupt
            lines = value._render_traceback_()
        elif isinstance(value, TiError) and not debug_enabled():
            lines = ti_error_lines(value, lambda f: place(f) or f'File "{f}"')
        elif isinstance(value, KeyboardInterrupt):
            # an interrupt can land on an instruction without a line number, which
            # IPython's formatter asserts against: Python's own formatting then
            try:
                lines = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset)
            except Exception:
                lines = traceback.format_exception(etype, value, tb)
        else:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        shell._showtraceback(etype, value, lines)
        return lines

    ipython.set_custom_exc((TiError, KeyboardInterrupt), handler)


def _name_cells_in_messages(ipython) -> None:
    """Every ti_notebook message names a cell as IPython does (``Cell In[7]``), never
    ipykernel's temporary file: also the error's text that Jupyter stores as ``evalue``."""
    from ti_notebook.errors import set_place_namer

    def namer(filename: str) -> str | None:
        label = ipython.compile.format_code_name(filename)
        return f"{label[0]} {label[1]}" if label else None

    set_place_namer(namer, key=id(ipython))  # loading the extension again replaces it
    _name_cells_in_warnings(namer)


def _name_cells_in_warnings(namer) -> None:
    """Python's warnings say ``Cell In[7]:3: RuntimeWarning: ...`` for a cell, not
    ``/tmp/ipykernel_123/456.py:3`` (IPython's own formatter is kept for anything else)."""
    import warnings

    original = getattr(warnings.formatwarning, "__wrapped__", warnings.formatwarning)

    def formatwarning(message, category, filename, lineno, line=None):
        place = namer(str(filename))
        return original(message, category, place or filename, lineno, line)

    formatwarning.__wrapped__ = original
    warnings.formatwarning = formatwarning


def unload_ipython_extension(ipython) -> None:
    """Removes the magics that :func:`load_ipython_extension` registered."""
    from ti_notebook.magics.kernel_magic import KernelMagics

    manager = ipython.magics_manager
    for kind, names in KernelMagics.magics.items():
        for name in names:
            bound = manager.magics[kind].get(name)
            if isinstance(getattr(bound, "__self__", None), KernelMagics):
                del manager.magics[kind][name]
    manager.registry.pop(KernelMagics.__name__, None)
    ipython.set_custom_exc((), None)
    if help_cell in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.remove(help_cell)


def register_if_in_ipython() -> None:
    """Registers the magics when an IPython shell is running (``import ti_notebook``).

    IPython is not imported here: without it in ``sys.modules`` no shell can be running.
    """
    ipython_module = sys.modules.get("IPython")
    get_ipython = getattr(ipython_module, "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is not None:
        load_ipython_extension(shell)
