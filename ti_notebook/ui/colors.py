"""Taichi's colour helpers ``ti.rgb_to_hex`` and ``ti.hex_to_rgb`` (``taichi/ui/gui.py``).

``rgb_to_hex`` takes floats in ``[0, 1]`` (one colour, or three arrays for many: its
result is then an array of ``0xRRGGBB`` values, as ``ti.GUI``'s ``color=`` takes them);
each channel is truncated to an integer ``x * 255`` and clipped to ``[0, 255]``, as in
Taichi. ``hex_to_rgb`` is its inverse on one colour.

>>> hex(rgb_to_hex([1.0, 0.5, 0.0]))
'0xff7f00'
>>> hex_to_rgb(0xFF8000)
(1.0, 0.5019607843137255, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["hex_to_rgb", "rgb_to_hex"]


def rgb_to_hex(c: Any) -> Any:
    """``(r, g, b)`` in ``[0, 1]`` to ``0xRRGGBB``; with arrays for ``r, g, b``, an array.

    >>> rgb_to_hex([np.array([0.0, 1.0]), np.zeros(2), np.full(2, 2.0)]).tolist()
    [255, 16711935]
    """

    def to255(x: Any) -> Any:
        return np.clip(np.int32(np.asarray(x) * 255), 0, 255)

    return (to255(c[0]) << 16) + (to255(c[1]) << 8) + to255(c[2])


def hex_to_rgb(color: int) -> tuple[float, float, float]:
    """``0xRRGGBB`` to ``(r, g, b)`` floats in ``[0, 1]``.

    >>> hex_to_rgb(0x000000)
    (0.0, 0.0, 0.0)
    """
    r, g, b = (color >> 16) & 0xFF, (color >> 8) & 0xFF, color & 0xFF
    return r / 255, g / 255, b / 255
