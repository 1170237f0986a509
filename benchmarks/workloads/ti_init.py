"""How every Taichi-language workload starts and waits, with either ``ti`` module.

``ti_peer`` and ``patterns_ti`` both call :func:`init` and :func:`sync`; ``compare.py``
sets :data:`INIT_OPTIONS` for its ``ti_notebook_unchecked`` peer before any run.

    >>> import ti_notebook as ti
    >>> init(ti)
    >>> sync(ti)
"""

from types import ModuleType

# Extra ti.init options of this process's peer (set by compare.py before any run_*).
INIT_OPTIONS: dict = {}


def init(ti: ModuleType) -> None:
    """``ti.init`` on the CPU with this process's :data:`INIT_OPTIONS`."""
    ti.init(arch=ti.cpu, **INIT_OPTIONS)


def sync(ti: ModuleType) -> None:
    """Waits for launched kernels where the module has ``ti.sync``."""
    # ti_notebook may have no ti.sync (its launches return when the work is done)
    if hasattr(ti, "sync"):
        ti.sync()
