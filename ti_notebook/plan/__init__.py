"""The memory plan: where each element of a finalised SNode tree lives (DESIGN.md §4).

``layout.py`` holds the plan's data and its address arithmetic, ``visit.py`` the order a
struct-for visits cells in (memory order), ``build.py`` computes the plan when a tree is
finalised, from the description of its SNodes that ``lang`` hands down (``PlanNode``),
and ``tree.py`` is ``snode.plan()``'s view of it. They import nothing of ti_notebook's but
each other and the IR's types, and never call into the user's objects, so the language
objects, the passes, codegen and the widgets all read the same plan.
"""
