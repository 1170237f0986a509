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
