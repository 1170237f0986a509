"""``ti.tools.VideoManager``: frames saved as PNG files, then made into a GIF and an MP4.

Each :meth:`VideoManager.write_frame` writes ``output_dir/frames/000000.png``,
``000001.png``, ... with :func:`~ti_notebook.tools.image.imwrite` (so images are
indexed ``[x, y]``, y up). :meth:`VideoManager.make_video` makes ``video.gif`` with
Pillow and ``video.mp4`` with ``ffmpeg``, which must be on ``PATH``; without it,
asking for an MP4 is a ``TiRuntimeError`` that says where the frames are:

    >>> import os, tempfile
    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = tmp.name
    >>> video = ti.tools.VideoManager(out, framerate=10, automatic_build=False)
    >>> for t in range(3):
    ...     video.write_frame(np.full((8, 6), t / 2, np.float32))
    >>> sorted(os.listdir(video.get_frame_directory()))
    ['000000.png', '000001.png', '000002.png']
    >>> video.make_video(mp4=False, gif=True)
    >>> os.path.exists(os.path.join(out, "video.gif"))
    True
    >>> tmp.cleanup()
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from typing import Any

import numpy as np

from ti_notebook.errors import TiOSError, TiRuntimeError, TiValueError
from ti_notebook.tools.image import imwrite
from ti_notebook.tools.paths import file_path

FRAME_FN_TEMPLATE = "%06d.png"
FRAME_DIR = "frames"

__all__ = ["VideoManager"]


def ffmpeg_path() -> str | None:
    """Where ``ffmpeg`` is on ``PATH``, or None."""
    return shutil.which("ffmpeg")


class VideoManager:
    """Writes frames and turns them into videos, as Taichi's ``VideoManager``.

    ``VideoManager(output_dir, video_filename=None, width=None, height=None,
    post_processor=None, framerate=24, automatic_build=True)``: ``video_filename`` names
    the videos (``video`` by default, its extension ignored); ``post_processor`` is any
    object with a ``process(img) -> img`` method, applied to each frame;
    ``automatic_build`` remakes the videos after frame 4, 8, 16, ... (without
    ``ffmpeg``, only the GIF, with one warning). See the module's docstring for an example.
    """

    def __init__(
        self,
        output_dir: str,
        video_filename: str | None = None,
        width: int | None = None,
        height: int | None = None,
        post_processor: Any = None,
        framerate: int = 24,
        automatic_build: bool = True,
    ) -> None:
        if (width is None) != (height is None):
            raise TiValueError(
                f"VideoManager: width={width!r} and height={height!r}: give both or neither",
                hint="leave both out to take the size of the first frame",
            )
        if not (isinstance(framerate, int | float) and framerate > 0):
            raise TiValueError(f"VideoManager: framerate={framerate!r} is not a positive number")
        if post_processor is not None and not callable(getattr(post_processor, "process", None)):
            raise TiValueError(
                "VideoManager: post_processor has no process(img) method",
                hint="pass an object whose process(img) returns the processed image",
            )
        self.directory = file_path(output_dir, "VideoManager")
        self.frame_directory = os.path.join(self.directory, FRAME_DIR)
        try:
            os.makedirs(self.frame_directory, exist_ok=True)
        except OSError as error:
            raise TiOSError(
                f"VideoManager: cannot make the folder {self.frame_directory!r}: "
                f"{error.strerror or error}",
                hint="choose an output_dir that can be written to",
            ) from error
        self.video_filename = video_filename
        self.width = width
        self.height = height
        self.post_processor = post_processor
        self.framerate = framerate
        self.automatic_build = automatic_build
        self.next_video_checkpoint = 4
        self.frame_counter = 0
        self.frame_fns: list[str] = []
        self._warned_no_ffmpeg = False

    def get_output_filename(self, suffix: str) -> str:
        """The path of the video with extension ``suffix`` (``".mp4"``, ``".gif"``)."""
        if not self.video_filename:
            return os.path.join(self.directory, "video" + suffix)
        filename, extension = os.path.splitext(self.video_filename)
        if extension:
            warnings.warn(
                f"VideoManager: the extension {extension!r} of video_filename is ignored; "
                f"the video is {filename + suffix!r}",
                stacklevel=2,
            )
        return os.path.join(self.directory, filename + suffix)

    def get_frame_directory(self) -> str:
        """The folder the frames are written to: ``output_dir/frames``."""
        return self.frame_directory

    def write_frame(self, img: Any) -> None:
        """Writes ``img`` (a field or array indexed ``[x, y]``, as ``imwrite`` takes) as the
        next frame. An odd width or height loses its last column or row (video encoders
        need even sizes), with a warning, as in Taichi."""
        to_numpy = getattr(img, "to_numpy", None)
        img = to_numpy() if callable(to_numpy) else np.asarray(img)
        if img.ndim < 2:
            raise TiValueError(
                f"VideoManager.write_frame: a frame of shape {img.shape} is not an image",
                hint="pass an array shaped (width, height) or (width, height, channels)",
            )
        if img.shape[0] % 2:
            warnings.warn(
                "VideoManager: the width is odd; the last column is dropped", stacklevel=2
            )
            img = img[:-1]
        if img.shape[1] % 2:
            warnings.warn("VideoManager: the height is odd; the last row is dropped", stacklevel=2)
            img = img[:, :-1]
        if self.post_processor is not None:
            img = self.post_processor.process(img)
        if self.width is None:
            self.width, self.height = img.shape[0], img.shape[1]
        fn = FRAME_FN_TEMPLATE % self.frame_counter
        imwrite(img, os.path.join(self.frame_directory, fn))
        self.frame_fns.append(fn)
        self.frame_counter += 1
        if self.automatic_build and self.frame_counter % self.next_video_checkpoint == 0:
            self._build_automatically()
            self.next_video_checkpoint *= 2

    def write_frames(self, images: Any) -> None:
        """:meth:`write_frame` for each image of ``images``."""
        for img in images:
            self.write_frame(img)

    def clean_frames(self) -> None:
        """Deletes the frames this manager wrote; the next frame is number 0 again."""
        for fn in self.frame_fns:
            path = os.path.join(self.frame_directory, fn)
            if os.path.exists(path):
                os.remove(path)
        self.frame_fns.clear()
        self.frame_counter = 0
        self.next_video_checkpoint = 4

    def _build_automatically(self) -> None:
        if ffmpeg_path() is None and not self._warned_no_ffmpeg:
            self._warned_no_ffmpeg = True
            warnings.warn(
                "VideoManager: ffmpeg is not on PATH, so the automatic build makes only the "
                f"GIF; the frames are in {os.path.abspath(self.frame_directory)!r}",
                stacklevel=3,
            )
        self.make_video(mp4=ffmpeg_path() is not None, gif=True)

    def make_video(self, mp4: bool = True, gif: bool = True) -> None:
        """Makes ``video.gif`` (with Pillow) and ``video.mp4`` (with ffmpeg, H.264) from
        the frames written so far; without ffmpeg on PATH, the MP4 is a TiRuntimeError
        (after the GIF is made)."""
        if not self.frame_fns:
            raise TiRuntimeError(
                "VideoManager.make_video: no frames have been written",
                hint="call write_frame(img) for each frame first",
            )
        if gif:
            self._make_gif(self.get_output_filename(".gif"))
        if mp4:
            self._make_mp4(self.get_output_filename(".mp4"))

    def _make_gif(self, path: str) -> None:
        from PIL import Image

        frames = [Image.open(os.path.join(self.frame_directory, fn)) for fn in self.frame_fns]
        try:
            first, *rest = [frame.convert("RGB") for frame in frames]
            first.save(
                path,
                format="GIF",
                save_all=True,
                append_images=rest,
                duration=max(round(1000 / self.framerate), 1),
                loop=0,
            )
        except OSError as error:
            raise TiOSError(f"VideoManager: cannot write {path!r}: {error}") from error
        finally:
            for frame in frames:
                frame.close()

    def _make_mp4(self, path: str) -> None:
        ffmpeg = ffmpeg_path()
        if ffmpeg is None:
            raise TiRuntimeError(
                "VideoManager.make_video: making an MP4 needs ffmpeg, which is not on PATH; "
                f"the frames are in {os.path.abspath(self.frame_directory)!r}",
                hint="install ffmpeg (e.g. apt-get install ffmpeg), or pass mp4=False for the "
                "GIF alone",
            )
        # argument list, no shell: folder names with spaces or quotes stay one argument
        command = [
            ffmpeg,
            "-loglevel",
            "error",
            "-framerate",
            str(self.framerate),
            "-i",
            os.path.join(self.frame_directory, FRAME_FN_TEMPLATE),
            "-s:v",
            f"{self.width}x{self.height}",
            "-c:v",
            "libx264",
            "-profile:v",
            "high",
            "-crf",
            "1",
            "-pix_fmt",
            "yuv420p",
            "-y",
            path,
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise TiRuntimeError(
                f"VideoManager.make_video: ffmpeg failed (exit status {result.returncode}) "
                f"making {path!r}: {result.stderr.strip()[-500:]}",
                hint=f"the frames are in {os.path.abspath(self.frame_directory)!r}; run the "
                f"command yourself to see more: {' '.join(command)}",
            )
