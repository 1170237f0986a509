"""``ti.ui``'s GGUI: ``Window``, ``Canvas``, ``Scene``, ``Camera`` and widgets, drawn by
a software rasteriser written as ti_notebook kernels (:mod:`.raster2d`, :mod:`.raster3d`).

>>> from ti_notebook.ui.ggui import PRESS, ProjectionMode
>>> PRESS, ProjectionMode.Perspective.name
('Press', 'Perspective')
"""

from __future__ import annotations

from ti_notebook.ui.ggui.camera import Camera, ProjectionMode, make_camera
from ti_notebook.ui.ggui.canvas import Canvas
from ti_notebook.ui.ggui.gui_panel import Gui
from ti_notebook.ui.ggui.scene import Scene
from ti_notebook.ui.ggui.window import PRESS, RELEASE, Window, WindowEvent

__all__ = [
    "PRESS",
    "RELEASE",
    "Camera",
    "Canvas",
    "Gui",
    "ProjectionMode",
    "Scene",
    "Window",
    "WindowEvent",
    "make_camera",
]
