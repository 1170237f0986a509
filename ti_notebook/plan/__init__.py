"""The memory plan: where each element of a finalised SNode tree lives (DESIGN.md §4).

``layout.py`` holds the plan's data and its address arithmetic. It imports nothing
else of ti_notebook's, so the language objects, the passes, codegen and the widgets
all read the same plan.
"""
