"""``python -m ti_notebook.install_kernel``: installs the "Python 3 (ti_notebook)" kernel.

The code lives in ``magics/kernelspec.py`` (``ti_notebook.magics.kernelspec``); this
module is the command-line entry point:

    python -m ti_notebook.install_kernel            # into this environment (sys.prefix)
    python -m ti_notebook.install_kernel --user     # for the current user
    python -m ti_notebook.install_kernel --prefix /some/prefix
"""

from __future__ import annotations

from ti_notebook.magics.kernelspec import install, kernel_json, main

__all__ = ["install", "kernel_json", "main"]

if __name__ == "__main__":
    main()
