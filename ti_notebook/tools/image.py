"""Image files from fields and arrays: ``ti.tools.imwrite``, ``imread``, ``imresize``, ``imshow``.

An image is indexed ``[x, y]`` with ``y`` pointing up, as in Taichi: element ``[0, 0]``
is the bottom-left pixel, so the file's first row is the image's last ``y``. Its last
axis, when there is one, holds 1 (grey), 3 (RGB) or 4 (RGBA) channels. Pixels are
bytes in the file; other types are brought to 0..255 first (:func:`to_image_bytes`):
floats are clipped to [0, 1] and scaled by 255 (truncated, as Taichi does), ``u16``,
``u32`` and ``u64`` are divided by ``max // 256`` (255 for ``u16``) and clamped to 255,
``u8`` is written as it is.

    >>> import os, tempfile
    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> img = np.zeros((4, 2, 3), np.uint8)
    >>> img[1, 0] = (255, 0, 0)                     # x=1, y=0: the bottom row
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "red.png")
    >>> ti.tools.imwrite(img, path)
    >>> back = ti.tools.imread(path)
    >>> back.shape, bool((back == img).all())
    ((4, 2, 3), True)
    >>> tmp.cleanup()

Files are read and written with Pillow; the format follows the file's extension (png,
jpg/jpeg, bmp).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from ti_notebook.errors import TiOSError, TiTypeError, TiValueError
from ti_notebook.tools.paths import file_path

# extension -> Pillow's format name
FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".bmp": "BMP"}
# the JPEG quality Taichi's writer (stb_image_write) is called with
JPEG_QUALITY = 95
_CHANNEL_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}

__all__ = ["imread", "imresize", "imshow", "imwrite", "to_image_bytes"]


def _as_array(img: Any, caller: str) -> np.ndarray:
    """A NumPy copy of a field, vector field, ndarray or NumPy array."""
    if isinstance(img, np.ndarray):
        return img
    to_numpy = getattr(img, "to_numpy", None)
    if callable(to_numpy):
        return to_numpy()
    raise TiTypeError(
        f"{caller}: expected a field, a vector field or a NumPy array, got {type(img).__name__}",
        hint="pass e.g. ti.field(ti.f32, shape=(w, h)) or np.zeros((w, h, 3), np.uint8)",
    )


def _scaled_to_bytes(img: np.ndarray, caller: str) -> np.ndarray:
    """``img`` as uint8: floats in [0, 1] times 255, wide unsigned ints shifted down."""
    dtype = img.dtype
    if dtype == np.uint8:
        return img
    if dtype in (np.uint16, np.uint32, np.uint64):
        # Taichi's scale, max // 256 (255 for u16), with the results over 255 (the top
        # values, which Taichi lets wrap around to 0 or 1) clamped to 255
        scaled = img // (np.iinfo(dtype).max // 256)
        return np.minimum(scaled, 255).astype(np.uint8)
    if np.issubdtype(dtype, np.floating):
        clipped = np.clip(np.nan_to_num(img, nan=0.0), 0.0, 1.0)
        return (clipped.astype(np.float64) * 255.0).astype(np.uint8)
    raise TiTypeError(
        f"{caller}: pixels of type {dtype} cannot be written to an image",
        hint="use u8 (0..255), u16/u32/u64 (scaled down to 8 bits) or f16/f32/f64 in [0, 1]; "
        "e.g. img.astype(np.uint8) for integers already in 0..255",
    )


def to_image_bytes(img: Any, caller: str = "ti.tools.imwrite") -> np.ndarray:
    """The rows of the image file: a ``(height, width, channels)`` uint8 array, top row first.

    ``img`` is indexed ``[x, y]`` (y up), shaped ``(w, h)``, ``(w, h, 1)``,
    ``(w, h, 3)`` or ``(w, h, 4)``:

        >>> import numpy as np
        >>> img = np.array([[0.0, 1.0], [0.5, 2.0]], np.float32)  # [x, y]
        >>> to_image_bytes(img)[..., 0].tolist()                   # rows, top (y=1) first
        [[255, 255], [0, 127]]
    """
    img = _as_array(img, caller)
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (1, 3, 4)):
        raise TiValueError(
            f"{caller}: an image of shape {img.shape} is neither greyscale, RGB nor RGBA",
            hint="shape it (width, height) or (width, height, c) with c = 1, 3 or 4",
        )
    if img.shape[0] == 0 or img.shape[1] == 0:
        raise TiValueError(f"{caller}: the image of shape {img.shape} has no pixels")
    img = _scaled_to_bytes(img, caller)
    if img.ndim == 2:
        img = img[:, :, None]
    # [x, y] with y up -> rows top to bottom, columns left to right
    return np.ascontiguousarray(img.swapaxes(0, 1)[::-1])


# Taichi's name for it (``ti.tools.image.cook_image_to_bytes``), which some code calls
cook_image_to_bytes = to_image_bytes


def _format_of(filename: str, caller: str) -> str:
    extension = os.path.splitext(filename)[1].lower()
    if extension not in FORMATS:
        raise TiValueError(
            f"{caller}: cannot tell the image format of {filename!r} from its extension",
            hint=f"end the file name with one of {', '.join(FORMATS)}",
        )
    return FORMATS[extension]


def _pil_image(rows: np.ndarray, image_format: str):
    from PIL import Image

    # as Taichi's writer (stb_image_write): JPEG and BMP files get no alpha, and BMP files
    # are 24-bit colour, greyscale too
    if image_format in ("JPEG", "BMP") and rows.shape[2] == 4:
        rows = rows[:, :, :3]
    if image_format == "BMP" and rows.shape[2] == 1:
        rows = np.repeat(rows, 3, axis=2)
    channels = rows.shape[2]
    return Image.fromarray(rows[:, :, 0] if channels == 1 else rows, _CHANNEL_MODES[channels])


def imwrite(img: Any, filename: str) -> None:
    """Writes ``img`` (a field, vector field or NumPy array indexed ``[x, y]``) to an image
    file, png, jpg or bmp after the extension; see the module's docstring for the pixel
    types and the orientation.

        >>> import os, tempfile
        >>> import numpy as np
        >>> tmp = tempfile.TemporaryDirectory()
        >>> path = os.path.join(tmp.name, "grey.png")
        >>> imwrite(np.full((3, 2), 0.5, np.float32), path)
        >>> imread(path)[:, :, 0].tolist()
        [[127, 127], [127, 127], [127, 127]]
        >>> tmp.cleanup()
    """
    filename = file_path(filename, "ti.tools.imwrite")
    image_format = _format_of(filename, "ti.tools.imwrite")
    image = _pil_image(to_image_bytes(img), image_format)
    # stb_image_write keeps full-resolution colour (4:4:4) above quality 90; Pillow
    # would halve it (4:2:0) and blur a noisy image's colours (its std drops by a third)
    options = {"quality": JPEG_QUALITY, "subsampling": 0} if image_format == "JPEG" else {}
    try:
        image.save(filename, format=image_format, **options)
    except OSError as error:
        raise TiOSError(
            f"ti.tools.imwrite: cannot write {filename!r}: {error.strerror or error}",
            hint="check that the folder exists and is writable",
        ) from error


def _file_channels(image) -> int:
    """How many channels Taichi's reader (stb_image) gives a file by default."""
    if image.mode == "P":
        return 4 if "transparency" in image.info else 3
    if image.mode == "PA":
        return 4
    bands = len(image.getbands())
    return bands if bands in (1, 2, 4) else 3


def _to_bytes_mode(image, channels: int):
    """``image`` converted to the 8-bit mode with ``channels`` channels."""
    if image.mode.startswith("I") or image.mode == "F":
        # 16- and 32-bit greyscale: stb_image keeps the top byte of 16-bit samples; 32-bit
        # ones holding 16-bit data (older Pillows read 16-bit PNGs so) are treated the same
        from PIL import Image

        values = np.asarray(image).astype(np.float64)
        if image.mode.startswith("I;16") or values.max(initial=0) > 255:
            values = values / 256.0
        image = Image.fromarray(np.clip(values, 0, 255).astype(np.uint8), "L")
    return image.convert(_CHANNEL_MODES[channels])


def imread(filename: str, channels: int = 0) -> np.ndarray:
    """Reads an image file into a ``(width, height, channels)`` uint8 array indexed ``[x, y]``
    with y up (the file's last row is ``y = 0``), as Taichi does.

    ``channels`` = 0 keeps the file's own (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA); 1 to 4
    converts (colour to grey with Pillow's ITU-R 601 weights):

        >>> import os, tempfile
        >>> import numpy as np
        >>> tmp = tempfile.TemporaryDirectory()
        >>> path = os.path.join(tmp.name, "rgb.png")
        >>> imwrite(np.ones((2, 3, 3), np.float32), path)
        >>> imread(path).shape, imread(path, channels=4)[0, 0].tolist()
        ((2, 3, 3), [255, 255, 255, 255])
        >>> tmp.cleanup()
    """
    if channels not in (0, 1, 2, 3, 4):
        raise TiValueError(
            f"ti.tools.imread: channels={channels!r} is not a channel count",
            hint="pass 0 (the file's own), 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA)",
        )
    filename = file_path(filename, "ti.tools.imread")
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(filename) as image:
            image = _to_bytes_mode(image, channels or _file_channels(image))
    except UnidentifiedImageError as error:
        raise TiOSError(
            f"ti.tools.imread: {filename!r} is not an image file Pillow can read",
            hint="read png, jpg or bmp files",
        ) from error
    except OSError as error:
        raise TiOSError(
            f"ti.tools.imread: cannot read {filename!r}: {error.strerror or error}",
            hint="check the file name and that the file exists",
        ) from error
    rows = np.asarray(image, dtype=np.uint8)
    if rows.ndim == 2:
        rows = rows[:, :, None]
    return np.ascontiguousarray(rows[::-1].swapaxes(0, 1))


def imresize(img: Any, w: int, h: int | None = None) -> np.ndarray:
    """``img`` (indexed ``[x, y]``) resampled to ``w`` x ``h`` pixels (``h`` defaults to
    ``w``) by taking the nearest pixel at or below, as Taichi does:

        >>> import numpy as np
        >>> imresize(np.arange(4).reshape(2, 2), 4).tolist()
        [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    """
    img = _as_array(img, "ti.tools.imresize")
    h = w if h is None else h
    for name, size in (("w", w), ("h", h)):
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 2:
            raise TiValueError(
                f"ti.tools.imresize: {name}={size!r} is not a size of at least 2 pixels",
                hint="pass whole numbers >= 2, e.g. imresize(img, 256, 128)",
            )
    if img.ndim < 2:
        raise TiValueError(
            f"ti.tools.imresize: an array of shape {img.shape} is not an image",
            hint="pass an array shaped (width, height) or (width, height, channels)",
        )
    if (w, h) == img.shape[:2]:
        return img
    x = np.clip(np.arange(w) * (img.shape[0] / w), 0, img.shape[0] - 1).astype(np.int64)
    y = np.clip(np.arange(h) * (img.shape[1] / h), 0, img.shape[1] - 1).astype(np.int64)
    return img[x[:, None], y[None, :]]


_warned_no_window = False


def _ipython_shell():
    """The running IPython shell, or None outside IPython and Jupyter."""
    try:
        import IPython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    return IPython.get_ipython()


def imshow(img: Any, title: str = "imshow") -> None:
    """Shows ``img`` inline in Jupyter or IPython (as a PNG); ti_notebook has no GUI
    window, so elsewhere it warns once and points to :func:`imwrite`.

        >>> import numpy as np, warnings
        >>> from unittest import mock
        >>> no_shell = mock.patch(f"{__name__}._ipython_shell", return_value=None)
        >>> with warnings.catch_warnings(record=True), no_shell:  # as in a plain script
        ...     imshow(np.zeros((4, 4), np.uint8), "outside IPython: a warning, no window")
    """
    rows = to_image_bytes(img, "ti.tools.imshow")
    if _ipython_shell() is None:
        global _warned_no_window
        if not _warned_no_window:
            _warned_no_window = True
            warnings.warn(
                f"ti.tools.imshow({title!r}): ti_notebook has no GUI window and this is not "
                "IPython or Jupyter, so the image is not shown (this warning is shown once); "
                "save it with ti.tools.imwrite(img, 'image.png') instead",
                stacklevel=2,
            )
        return
    import io

    import IPython.display

    buffer = io.BytesIO()
    _pil_image(rows, "PNG").save(buffer, format="PNG")
    IPython.display.display(IPython.display.Image(data=buffer.getvalue(), format="png"))
