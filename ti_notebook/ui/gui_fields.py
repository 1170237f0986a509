"""``ti.GUI``'s drawings of whole arrays: point and arrow fields, vector fields, contours.

Taichi 1.7 builds these on its primitives, and so does :class:`FieldDrawing` (a base of
:class:`~ti_notebook.ui.gui.GUI`), with Taichi's own layout rules:

- ``point_field(radius)``/``arrow_field(direction)``: one circle/arrow per element of a
  ``(w, h)`` array, centred on a grid inset by ``bound`` cells from the edges;
- ``vector_field(v)``: an arrow every ``arrow_spacing`` cells of a vector field, the
  longest one 10% of the window;
- ``contour(f)``: the scalar field through matplotlib's ``plasma`` colour map, resized
  to the window bilinearly when its shape differs, optionally normalised to ``[0, 1]``;
- ``cook_image(img)``: a NumPy image as Taichi's float32 RGBA ``(w, h, 4)``.

>>> field_base(2, 1, 0.5).tolist()
[[0.25, 0.5], [0.75, 0.5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ti_notebook.ui.images import as_array

__all__ = ["FieldDrawing", "field_base"]


def field_base(w: int, h: int, bound: float) -> np.ndarray:
    """The ``(w * h, 2)`` centres of a ``w x h`` grid inset by ``bound`` cells, x major
    (Taichi's ``GUI._make_field_base``).

    >>> field_base(1, 2, 0.5).tolist()
    [[0.5, 0.25], [0.5, 0.75]]
    """
    x = np.linspace(bound / w, 1 - bound / w, w)
    y = np.linspace(bound / h, 1 - bound / h, h)
    xs, ys = np.meshgrid(x, y, indexing="ij")
    return np.stack([xs, ys], axis=-1).reshape(w * h, 2)


def _bilinear(values: np.ndarray, res: tuple[int, int]) -> np.ndarray:
    """``values`` resampled to ``res`` as Taichi's ``contour`` does (corners kept)."""
    x, y = np.meshgrid(np.linspace(0, 1, res[1]), np.linspace(0, 1, res[0]))
    x_idx, y_idx = x * (values.shape[1] - 1), y * (values.shape[0] - 1)
    x1, y1 = x_idx.astype(int), y_idx.astype(int)
    x2 = np.minimum(x1 + 1, values.shape[1] - 1)
    y2 = np.minimum(y1 + 1, values.shape[0] - 1)
    fx, fy = x_idx - x1, y_idx - y1
    return (
        values[y1, x1] * (1 - fx) * (1 - fy)
        + values[y1, x2] * fx * (1 - fy)
        + values[y2, x1] * (1 - fx) * fy
        + values[y2, x2] * fx * fy
    )


class FieldDrawing:
    """The array drawings of ``ti.GUI`` (see the module); needs ``res``, ``circles``,
    ``arrows`` and ``set_image`` from the GUI.

    >>> from ti_notebook.ui.gui import GUI
    >>> gui = GUI("demo", res=(4, 4), show_gui=False)
    >>> gui.point_field(np.full((2, 2), 1.0), color=0xFF0000)
    >>> gui.get_image()[1, 1].tolist()
    [1.0, 0.0, 0.0, 1.0]
    """

    res: tuple[int, int]

    def point_field(self, radius: Any, color: Any = 0xFFFFFF, bound: float = 0.5) -> None:
        """A circle per element of the 2-D array ``radius`` (its radius in pixels)."""
        radius = np.asarray(as_array(radius), np.float64)
        if radius.ndim != 2:
            raise ValueError(f"GUI.point_field: radius must be a 2-D array, got {radius.shape}")
        base = field_base(radius.shape[0], radius.shape[1], bound)
        self.circles(base, radius=radius.reshape(-1), color=color)

    def arrow_field(self, direction: Any, radius: float = 1, color: Any = 0xFFFFFF,
                    bound: float = 0.5, **kwargs: Any) -> None:  # fmt: skip
        """An arrow per element of ``direction (w, h, 2)``, from its grid cell's centre."""
        direction = np.asarray(as_array(direction), np.float64)
        if direction.ndim != 3 or direction.shape[2] != 2:
            raise ValueError(
                f"GUI.arrow_field: direction must have shape (w, h, 2), got {direction.shape}"
            )
        base = field_base(direction.shape[0], direction.shape[1], bound)
        self.arrows(base, direction.reshape(-1, 2), radius=radius, color=color, **kwargs)

    def vector_field(self, vector_field: Any, arrow_spacing: int = 5, color: Any = 0xFFFFFF
                     ) -> None:  # fmt: skip
        """Arrows of a 2-D vector field, every ``arrow_spacing`` cells; the longest is 10%
        of the window."""
        v = np.asarray(as_array(vector_field), np.float64)
        if v.ndim != 3 or v.shape[2] != 2:
            raise ValueError(
                f"GUI.vector_field takes a 2-D field of 2-vectors, got shape {v.shape}"
            )
        nx, ny, _ = v.shape
        scale = 0.1 / (np.max(np.linalg.norm(v, axis=-1)) + 1e-16)
        xs, ys = np.meshgrid(
            np.arange(0, 1, arrow_spacing / nx), np.arange(0, 1, arrow_spacing / ny)
        )
        begin = np.dstack((xs, ys)).reshape(-1, 2, order="F")
        step = (v[::arrow_spacing, ::arrow_spacing] * scale).reshape(-1, 2, order="C")
        self.arrows(begin, step, radius=1, color=color)

    def contour(self, scalar_field: Any, normalize: bool = False) -> None:
        """The scalar field in matplotlib's ``plasma`` colours (resized to the window)."""
        from matplotlib import colormaps

        values = np.asarray(as_array(scalar_field), np.float64)
        if values.ndim != 2:
            raise ValueError(f"GUI.contour takes a 2-D scalar field, got shape {values.shape}")
        if tuple(values.shape) != tuple(self.res):
            values = _bilinear(values, self.res)
        if normalize:
            low, high = np.min(values), np.max(values)
            values = (values - low) / (high - low)
        self.set_image(colormaps["plasma"](values).astype(np.float32))

    def cook_image(self, img: Any) -> np.ndarray:
        """``img`` (NumPy, ``[x, y]`` or ``[x, y, channels]``) as Taichi's float32 RGBA
        ``(w, h, 4)``: unsigned integers scaled by their maximum, missing channels 0."""
        img = np.asarray(img)
        if img.dtype.kind == "u":
            img = img.astype(np.float32) * np.float32(1 / np.iinfo(img.dtype).max)
        elif img.dtype.kind == "f":
            img = img.astype(np.float32)
        else:
            raise ValueError(f"Data type {img.dtype} not supported in GUI.set_image")
        if img.ndim == 2:
            img = img[..., None]
        if img.ndim != 3 or img.shape[2] not in (1, 2, 3, 4):
            raise ValueError(
                f"GUI.cook_image: image must be grey, RG, RGB or RGBA, got {img.shape}"
            )
        if img.shape[2] == 1:
            img = img + np.zeros((1, 1, 4), np.float32)
        else:
            pad = np.zeros((*img.shape[:2], 4 - img.shape[2]), np.float32)
            img = np.concatenate([img, pad], axis=2)
        if tuple(img.shape[:2]) != tuple(self.res):
            raise ValueError(
                f"GUI.cook_image: the image is {img.shape[0]}x{img.shape[1]} but the GUI's res "
                f"is {self.res[0]}x{self.res[1]}"
            )
        return np.ascontiguousarray(img)
