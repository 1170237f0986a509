"""IPython magics for ti_notebook, installed as ``ti_notebook.magics``.

``%%kernel`` and its companions live here: they parse the magic's arguments and call the
public ``ti_notebook`` API, never compiler internals (DESIGN.md sections 2 and 6).
"""
