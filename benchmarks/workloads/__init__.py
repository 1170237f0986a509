"""Workloads of ``benchmarks/compare.py``: one module per peer, plus what they share.

``spec`` fixes sizes, rows and data; ``measure`` times and checks; ``ti_peer`` (with
``patterns_ti``) holds the kernels run by both ti_notebook and Taichi, each started by
``ti_init``; ``numba_peer`` and ``numpy_peer`` the same work in Numba and NumPy;
``cold`` the fresh-process compile figure; ``report`` the Markdown table.
"""
