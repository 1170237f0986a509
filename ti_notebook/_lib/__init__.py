"""``ti._lib``: the part of Taichi's private native module that examples read.

Taichi's GGUI examples choose their arch with ``ti._lib.core.with_vulkan()`` (and
``from taichi._lib import core as _ti_core``); :mod:`ti_notebook._lib.core` answers those
questions for ti_notebook, so the examples run with only their import changed.

>>> import ti_notebook as ti
>>> ti.vulkan if ti._lib.core.with_vulkan() else ti.cuda
'cuda'
"""

from ti_notebook._lib import core as core

__all__ = ["core"]
