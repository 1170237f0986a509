"""``ti.GUI`` and ``ti.ui`` in the notebook: rasterisers, frame transport, events, frames
and animations. ``ti.ui`` is this package: ``ti.ui.Window``, ``ti.ui.Scene``,
``ti.ui.Camera``, ``ti.ui.make_camera``, ``ti.ui.ProjectionMode``, the key names
(``ti.ui.ESCAPE``, ``ti.ui.LMB``...) and event types (``ti.ui.PRESS``, ``ti.ui.RELEASE``),
and ``ti.ui.GUI`` (the same class as ``ti.GUI``).

>>> from ti_notebook.ui.frames import HeadlessSink
>>> HeadlessSink().events()
[]
>>> import ti_notebook as ti
>>> ti.ui.PRESS, ti.ui.ESCAPE, ti.ui.GUI is ti.GUI
('Press', 'Escape', True)
"""

from ti_notebook.ui.frames import (
    ALT,
    BACKSPACE,
    CTRL,
    DOWN,
    ESCAPE,
    LEFT,
    LMB,
    MMB,
    RETURN,
    RIGHT,
    RMB,
    SHIFT,
    SPACE,
    TAB,
    UP,
)
from ti_notebook.ui.ggui import (
    PRESS,
    RELEASE,
    Camera,
    Canvas,
    ProjectionMode,
    Scene,
    Window,
    make_camera,
)
from ti_notebook.ui.gui import GUI

CAPSLOCK = "CapsLock"  # GGUI's spelling (ti.GUI's is "Caps_Lock")

__all__ = [
    "ALT", "BACKSPACE", "CAPSLOCK", "CTRL", "DOWN", "ESCAPE", "GUI", "LEFT", "LMB", "MMB",
    "PRESS", "RELEASE", "RETURN", "RIGHT", "RMB", "SHIFT", "SPACE", "TAB", "UP",
    "Camera", "Canvas", "ProjectionMode", "Scene", "Window", "make_camera",
]  # fmt: skip
