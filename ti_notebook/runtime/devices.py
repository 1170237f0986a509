"""Which accelerators this process can use (``runtime/cuda/driver.py`` looks, once).

>>> cuda_available() == (cuda_unavailable_reason() is None)
True
"""

from __future__ import annotations

from ti_notebook.runtime.cuda.driver import cuda_status


def cuda_available() -> bool:
    """True when cuda-python is installed and the driver reports a device."""
    return cuda_status().available


def cuda_unavailable_reason() -> str | None:
    """Why kernels cannot run on a CUDA device here, in the driver's own words (None when
    one can): ``"no CUDA device (the NVIDIA driver library was not found ...)"``."""
    status = cuda_status()
    return None if status.available else f"no CUDA device ({status.reason})"
