"""Notebook widgets for ti_notebook, installed as ``ti_notebook.widgets``.

The layout view, block-local-storage view, loop_config tuner and timeline: each reads
the compiler's read-only data and draws it (DESIGN.md sections 2, 4 and 6).
"""
