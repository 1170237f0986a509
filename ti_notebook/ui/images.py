"""``set_image`` input (fields, ndarrays, NumPy) to the canvas's float RGB planes.

Taichi's conventions: the array is indexed ``[x, y]`` with y up, so ``img[0, 0]`` is
the bottom-left pixel; unsigned integers scale by their maximum (``u8`` 255 is 1.0),
floats are taken as ``[0, 1]``; 1 channel is grey, 2 are red and green, 3 are RGB and a
4th (alpha) is ignored.

>>> planes = image_planes(np.array([[0, 255]], np.uint8), (1, 2))
>>> planes.shape, planes[:, 1, 0].tolist()
((3, 2, 1), [1.0, 1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_array(img: Any) -> np.ndarray:
    """A NumPy array of ``img``: a field, vector field or ndarray (``to_numpy()``) or an array.

    >>> as_array([[1.0]]).shape
    (1, 1)
    """
    if hasattr(img, "to_numpy") and not isinstance(img, np.ndarray):
        return np.asarray(img.to_numpy())
    return np.asarray(img)


def image_planes(img: Any, res: tuple[int, int]) -> np.ndarray:
    """``img`` as float32 planes ``(3, height, width)``, row 0 at the bottom.

    ``res`` is the GUI's ``(width, height)``; a wrong shape or dtype is a ``ValueError``
    naming what was given and what is expected.

    >>> image_planes(np.zeros((2, 3, 3), np.float32), (2, 3)).shape
    (3, 3, 2)
    """
    a = as_array(img)
    if a.ndim == 4 and a.shape[3] == 1:  # a matrix field of n x 1 is a vector per pixel
        a = a[..., 0]
    if a.ndim == 2:
        a = a[..., None]
    if a.ndim != 3 or a.shape[2] not in (1, 2, 3, 4):
        raise ValueError(
            f"GUI.set_image takes an image indexed [x, y] or [x, y, channel] with 1 to 4 "
            f"channels, got shape {a.shape}"
        )
    if tuple(a.shape[:2]) != tuple(res):
        raise ValueError(
            f"GUI.set_image: the image is {a.shape[0]}x{a.shape[1]} (indexed [x, y]) but the "
            f"GUI's res is {res[0]}x{res[1]}; make the field with shape=gui.res"
        )
    if a.dtype.kind == "u":
        a = a.astype(np.float32) * np.float32(1.0 / np.iinfo(a.dtype).max)
    elif a.dtype.kind == "f":
        a = a.astype(np.float32, copy=False)
    else:
        raise ValueError(
            f"GUI.set_image takes unsigned integer or float images, got {a.dtype} "
            "(floats in [0, 1], or u8 in [0, 255])"
        )
    channels = a.shape[2]
    planes = np.zeros((3,) + a.shape[1::-1], np.float32)
    if channels == 1:
        planes[:] = a[:, :, 0].T
    else:
        for ch in range(min(channels, 3)):
            planes[ch] = a[:, :, ch].T
    return planes
