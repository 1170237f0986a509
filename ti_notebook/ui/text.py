"""Text for ``ti.GUI.text``: Pillow's bundled font, rendered as a coverage mask.

``pos`` is the top-left of the text box in ``[0, 1]²`` (y up), as in Taichi.

>>> mask = text_mask("Hi", (0.1, 0.9), 16, 64, 32)
>>> mask.shape, bool(mask.max() > 0.5)
((32, 64), True)
"""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image, ImageDraw, ImageFont


@functools.lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def text_mask(content: str, pos: tuple[float, float], font_size: float, width: int, height: int):
    """Coverage in ``[0, 1]`` of ``content`` at ``pos``: ``(height, width)``, row 0 at bottom."""
    image = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(image)
    size = float(font_size)
    # Taichi's font is smaller and sits higher than Pillow's at the same size: these
    # factors match its glyph boxes (checked against Taichi 1.7.4's own images)
    x = float(pos[0]) * width + 0.05 * size
    y = (1.0 - float(pos[1])) * height - 0.1 * size
    draw.text((x, y), str(content), fill=255, font=_font(max(1, round(0.85 * size))))
    return np.asarray(image, dtype=np.float32)[::-1] * np.float32(1 / 255)
