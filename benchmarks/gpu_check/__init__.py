"""``make gpu-check`` and ``benchmarks/gpu.py``: the CUDA test tier and GPU figures beside
Taichi 1.7.4's CUDA backend, in one markdown report.

- ``__main__``: the check (``python -m benchmarks.gpu_check``): steps, budget, report;
- ``bench``: the benchmark rows, one subprocess per peer, restarted after a crash;
- ``workloads``: the kernels, written once for ``ti_notebook`` and ``taichi``;
- ``device``: what the GPU is (name, driver, bandwidth from its attributes);
- ``report``: the markdown of the figures, goals and failures.
"""
