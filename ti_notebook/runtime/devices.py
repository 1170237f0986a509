"""Which accelerators this process can use."""

from __future__ import annotations

import functools


@functools.cache
def cuda_available() -> bool:
    """True when cuda-python is installed and the driver reports a device."""
    try:
        from cuda.bindings import driver  # cuda-python >= 12.6
    except ImportError:
        try:
            from cuda import cuda as driver  # older cuda-python
        except ImportError:
            return False
    try:
        (err,) = driver.cuInit(0)
        if int(err) != 0:
            return False
        err, count = driver.cuDeviceGetCount()
        return int(err) == 0 and count > 0
    except Exception:  # a broken driver install is "no device", not a crash
        return False


@functools.cache
def cuda_unavailable_reason() -> str | None:
    """Why kernels cannot run on a CUDA device here, in the driver's own words (None when
    one can): ``"no CUDA device (the NVIDIA driver library was not found ...)"``."""
    try:
        from cuda.bindings import driver
    except ImportError:
        return "cuda-python is not installed (pip install 'ti_notebook[cuda]')"
    try:
        (err,) = driver.cuInit(0)
        if int(err) != 0:
            return f"no CUDA device (cuInit: {driver.cuGetErrorName(err)[1].decode()})"
        err, count = driver.cuDeviceGetCount()
        if int(err) != 0 or count == 0:
            return "no CUDA device (the driver reports none)"
    except Exception as exc:  # no driver library: cuda-python raises, with the reason
        return f"no CUDA device ({exc})"
    try:
        from ti_notebook.compiler.backends import cuda_device  # noqa: F401
    except ImportError:
        return "a CUDA device is present, but this ti_notebook cannot launch on one yet"
    return None
