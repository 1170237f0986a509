"""The NVPTX target: IR → NVPTX-form LLVM IR → PTX, one CUDA kernel per task.

- ``module.py``: the module of one kernel and its launch table (the launch contract);
- ``emitter.py``: a task's kernel, the shared body emitter (``codegen/function.py``)
  with what differs on a GPU, and its table from statement type to emit function;
- its parts, functions of the emitter: ``shared_memory.py`` (block-local storage),
  ``warp_reduce.py`` (reductions by warp shuffles), ``sparse_lists.py`` (lists of
  active blocks), ``device_math.py`` (libdevice and approximations), ``printing.py``
  (``vprintf``);
- ``target.py``: the target machine, libdevice, optimisation and PTX emission.
"""
