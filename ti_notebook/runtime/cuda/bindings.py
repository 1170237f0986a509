"""cuda-python's driver module, found under either of its import paths, and the
driver's success code; what the driver and its error messages both call.

    >>> SUCCESS
    0
"""

from __future__ import annotations

SUCCESS = 0  # CUresult.CUDA_SUCCESS

__all__ = ["SUCCESS", "driver"]


def driver():
    """The driver bindings (imported when first needed: a machine without CUDA never
    imports them)."""
    try:
        from cuda.bindings import driver  # cuda-python >= 12.6 (the only path in 13.x)
    except ImportError:
        from cuda import cuda as driver  # older cuda-python: the same functions
    return driver
