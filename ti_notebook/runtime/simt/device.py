"""The fake device the SIMT emulator stands for, and the launch-shape checks.

A backend that targets the emulator reads its limits here as it would read a GPU's
(``cuDeviceGetAttribute``): warp size, threads and shared memory per block, SM count
for its grid policy. :data:`SIMT_DEVICE` is sm_80's row of the device table
(``ir/devices.py``) except ``sm_count``, kept small because the emulator runs blocks
one after another: Taichi's grid (SMs x resident blocks per SM x 2) then stays cheap to
run.

    >>> SIMT_DEVICE.warp_size, SIMT_DEVICE.max_threads_per_block, SIMT_DEVICE.sm_count
    (32, 1024, 2)
    >>> check_launch("k", grid=(64, 1, 1), block=(128, 1, 1))
    >>> check_launch("k", grid=(1, 1, 1), block=(32, 32, 2))
    Traceback (most recent call last):
      ...
    ti_notebook.errors.TiValueError: kernel 'k': a block of 2048 threads is over the limit of 1024
    hint: use at most 1024 threads per block (block_dim)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.errors import TiValueError
from ti_notebook.ir.devices import DeviceLimits, device_limits

__all__ = ["SIMT_DEVICE", "check_launch", "normalize_dims"]

SIMT_DEVICE = dataclasses.replace(device_limits("sm_80"), name="SIMT emulator (CPU)", sm_count=2)


def check_launch(
    kernel: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    static_shared: int = 0,
    dynamic_shared: int = 0,
    device: DeviceLimits = SIMT_DEVICE,
) -> None:
    """Raises :class:`TiValueError` for a launch a GPU like ``device`` would refuse."""
    for what, dims, limits in (
        ("block", block, device.max_block_dims),
        ("grid", grid, device.max_grid_dims),
    ):
        for axis, size, limit in zip("xyz", dims, limits, strict=True):
            if size < 1 or size > limit:
                raise TiValueError(
                    f"kernel '{kernel}': {what} size {size} on axis {axis} is outside 1..{limit}",
                    hint=f"give the {what} 1 to {limit} on axis {axis}",
                )
    threads = block[0] * block[1] * block[2]
    if threads > device.max_threads_per_block:
        raise TiValueError(
            f"kernel '{kernel}': a block of {threads} threads is over the limit of "
            f"{device.max_threads_per_block}",
            hint=f"use at most {device.max_threads_per_block} threads per block (block_dim)",
        )
    if static_shared > device.shared_bytes_per_block:
        raise TiValueError(
            f"kernel '{kernel}': {static_shared} bytes of static shared memory is over "
            f"the limit of {device.shared_bytes_per_block}",
            hint="use dynamic shared memory (an extern addrspace(3) array) above 48 KB",
        )
    if dynamic_shared < 0:
        raise TiValueError(
            f"kernel '{kernel}': shared_bytes is {dynamic_shared}",
            hint="pass 0 or more bytes of dynamic shared memory",
        )
    total = static_shared + dynamic_shared
    if total > device.shared_bytes_per_block_optin:
        raise TiValueError(
            f"kernel '{kernel}': {static_shared} bytes of static and {dynamic_shared} of "
            f"dynamic shared memory are over the limit of "
            f"{device.shared_bytes_per_block_optin} per block",
            hint="use less shared memory per block (smaller tiles or blocks)",
        )


def normalize_dims(kernel: str, what: str, dims) -> tuple[int, int, int]:
    """``n`` or a tuple of 1 to 3 ints -> a 3-tuple padded with 1s.

    >>> normalize_dims("k", "grid", 4), normalize_dims("k", "block", (32, 4))
    ((4, 1, 1), (32, 4, 1))
    """
    if isinstance(dims, int):
        dims = (dims,)
    try:
        values = tuple(int(d) for d in dims)
        if any(int(d) != d for d in dims):
            raise ValueError
    except (TypeError, ValueError):
        raise TiValueError(
            f"kernel '{kernel}': {what} must be an int or a tuple of 1 to 3 ints, not {dims!r}",
            hint=f"for example {what}=(64, 1, 1)",
        ) from None
    if not 1 <= len(values) <= 3:
        raise TiValueError(
            f"kernel '{kernel}': {what} has {len(values)} dimensions",
            hint=f"give the {what} 1 to 3 dimensions (x, y, z)",
        )
    return values + (1,) * (3 - len(values))
