"""``ti.tools``: image files, PLY meshes and point clouds, and video frames, as in Taichi 1.7.

    >>> import ti_notebook as ti
    >>> sorted(name for name in ti.tools.__all__)
    ['PLYWriter', 'VideoManager', 'imread', 'imresize', 'imshow', 'imwrite']

- :mod:`~ti_notebook.tools.image`: ``imwrite``, ``imread``, ``imresize``, ``imshow``;
- :mod:`~ti_notebook.tools.ply`: ``PLYWriter``, binary and ASCII ``.ply`` files;
- :mod:`~ti_notebook.tools.video`: ``VideoManager``, PNG frames made into GIF and MP4.

These work on NumPy arrays and on fields from Python scope; none of them compiles a
kernel.
"""

from __future__ import annotations

from ti_notebook.tools.image import imread, imresize, imshow, imwrite
from ti_notebook.tools.ply import PLYWriter
from ti_notebook.tools.video import VideoManager

__all__ = ["PLYWriter", "VideoManager", "imread", "imresize", "imshow", "imwrite"]
