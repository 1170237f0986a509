"""File names given to ``ti.tools``: a ``str`` or an ``os.PathLike``, checked once.

Every ``ti.tools`` function that takes a file name passes it through :func:`file_path`,
so a wrong argument is a ``TiTypeError`` naming the function, not a bare ``TypeError``:

    >>> file_path("frame.png", "ti.tools.imwrite")
    'frame.png'
"""

from __future__ import annotations

import os
from typing import Any

from ti_notebook.errors import TiTypeError

__all__ = ["file_path"]


def file_path(filename: Any, caller: str) -> str:
    """``filename`` (a ``str`` or ``os.PathLike``) as a ``str``; anything else is a
    ``TiTypeError`` that names ``caller``.

        >>> import pathlib
        >>> file_path(pathlib.Path("out") / "a.png", "ti.tools.imwrite")
        'out/a.png'
    """
    try:
        path = os.fspath(filename)
    except TypeError:
        path = None
    if not isinstance(path, str):
        raise TiTypeError(
            f"{caller}: the file name {filename!r} is not a str or a path",
            hint="pass a file name such as 'image.png' or a pathlib.Path",
        )
    return path
