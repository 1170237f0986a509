"""The memory plan: where each element of a finalised SNode tree lives (DESIGN.md §4).

``layout.py`` holds the plan's data and its address arithmetic, ``visit.py`` the order a
struct-for visits cells in (memory order), ``build.py`` computes the plan from a tree's
SNodes when it is finalised and ``tree.py`` is ``snode.plan()``'s view of it. They import
nothing of ti_notebook's but each other (SNodes are read duck-typed), so the language
objects, the passes, codegen and the widgets all read the same plan.
"""
