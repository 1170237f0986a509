"""``ti.GUI`` in the notebook: rasteriser, frame transport, events, frames and animations.

>>> from ti_notebook.ui.frames import HeadlessSink
>>> HeadlessSink().events()
[]
"""
