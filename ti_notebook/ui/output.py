"""What a GUI leaves behind without a live view: the frame budget, PNGs and animations.

- :func:`frame_budget`: ``TI_GUI_MAX_FRAMES=N`` wins; else a notebook kernel with no
  live view stops after :data:`DEFAULT_NOTEBOOK_FRAMES` frames (a ``while gui.running``
  loop would otherwise never end under nbval or ``jupyter nbconvert --execute``); plain
  Python has no budget, as Taichi's ``show_gui=False``.
- :func:`png_bytes` and :func:`gif_bytes` write the same bytes for the same frames: fixed
  compression, no time or text chunks, so stored notebook outputs compare equal.
- :class:`Recorder` keeps at most ``limit`` frames: when full it drops every other one
  and records every second frame from then on, so a long run still spans its whole time.

>>> png_bytes(np.zeros((2, 2, 3), np.uint8)) == png_bytes(np.zeros((2, 2, 3), np.uint8))
True
"""

from __future__ import annotations

import base64
import io
import os

import numpy as np
from PIL import Image

from ti_notebook.ui.kernel_poll import in_kernel

DEFAULT_NOTEBOOK_FRAMES = 60
ENV_MAX_FRAMES = "TI_GUI_MAX_FRAMES"


def env_max_frames() -> int | None:
    """``TI_GUI_MAX_FRAMES`` as an int, or None when unset or empty.

    >>> os.environ.pop("TI_GUI_MAX_FRAMES", None) and None
    >>> env_max_frames() is None
    True
    """
    value = os.environ.get(ENV_MAX_FRAMES, "").strip()
    if not value:
        return None
    try:
        return max(0, int(value))
    except ValueError:
        message = f"{ENV_MAX_FRAMES} must be a whole number of frames, got {value!r}"
        raise ValueError(message) from None


def frame_budget(live: bool) -> int | None:
    """How many frames a GUI may show (None: no limit); see the module's rules."""
    limit = env_max_frames()
    if limit is not None:
        return limit
    if live or not in_kernel():
        return None
    return DEFAULT_NOTEBOOK_FRAMES


def png_bytes(rgb: np.ndarray) -> bytes:
    """A PNG of ``rgb`` (``uint8 (h, w, 3)``, row 0 at the top), deterministic bytes."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb), "RGB").save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def save_image(rgb: np.ndarray, path: str | os.PathLike) -> None:
    """Write ``rgb`` to ``path``; the suffix picks the format (``.png`` as :func:`png_bytes`)."""
    path = os.fspath(path)
    if path.lower().endswith(".png"):
        with open(path, "wb") as f:
            f.write(png_bytes(rgb))
    else:
        Image.fromarray(np.ascontiguousarray(rgb), "RGB").save(path)


def gif_bytes(frames: list[np.ndarray], fps: float = 24.0) -> bytes:
    """An endlessly looping animated GIF of ``frames``, deterministic bytes.

    >>> gif_bytes([np.zeros((2, 2, 3), np.uint8)] * 2)[:6]
    b'GIF89a'
    """
    images = [Image.fromarray(np.ascontiguousarray(f), "RGB") for f in frames]
    buffer = io.BytesIO()
    images[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=max(20, round(1000 / fps)),
        loop=0,
    )
    return buffer.getvalue()


class Recorder:
    """Frames kept for an animation (see the module's note on ``limit``).

    >>> r = Recorder(limit=4)
    >>> for i in range(9):
    ...     r.offer(np.full((1, 1, 3), i, np.uint8))
    >>> [int(f[0, 0, 0]) for f in r.frames]
    [0, 4, 8]
    """

    def __init__(self, limit: int = 200) -> None:
        self.limit = max(2, int(limit))
        self.frames: list[np.ndarray] = []
        self.stride = 1
        self.seen = 0

    def wants(self) -> bool:
        """Whether the next offered frame will be kept (skip rendering it otherwise)."""
        return self.seen % self.stride == 0

    def offer(self, rgb: np.ndarray) -> None:
        """Count a shown frame; keep it when it falls on the stride."""
        if self.wants():
            self.frames.append(rgb)
            if len(self.frames) > self.limit:
                self.frames = self.frames[::2]
                self.stride *= 2
        self.seen += 1


class Animation:
    """A recorded run as an inline animated GIF (``_repr_html_``) and its bytes.

    >>> a = Animation([np.zeros((2, 2, 3), np.uint8)] * 2)
    >>> a._repr_html_().startswith('<img src="data:image/gif;base64,')
    True
    """

    def __init__(self, frames: list[np.ndarray], fps: float = 24.0) -> None:
        self.frames = list(frames)
        self.fps = fps

    def gif(self) -> bytes:
        """The animation as GIF bytes."""
        return gif_bytes(self.frames, self.fps)

    def save(self, path: str | os.PathLike) -> None:
        """Write the GIF to ``path``."""
        with open(os.fspath(path), "wb") as f:
            f.write(self.gif())

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.gif()).decode("ascii")
        return f'<img src="data:image/gif;base64,{data}" alt="ti.GUI animation"/>'


def display_outputs(rgb: np.ndarray | None, animation: Animation | None) -> None:
    """Show the last frame (PNG) and the animation in the running cell's output."""
    if not in_kernel():
        return
    from IPython.display import HTML, display
    from IPython.display import Image as IPImage

    if rgb is not None:
        display(IPImage(data=png_bytes(rgb), format="png"))
    if animation is not None and animation.frames:
        display(HTML(animation._repr_html_()))
