"""Ready-made kernels in the ti_notebook language, installed as ``ti_notebook.kernels``.

Reductions, stencils and particle kernels written against the public API, shared by the
notebooks, the tests and the benchmarks (DESIGN.md section 2).
"""
