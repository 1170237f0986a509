"""The CPU target: IR → LLVM IR for the host, tasks run by the native thread pool.

- ``module.py``: the module of one kernel (an entry function and a function per
  parallel task), built with the shared body emitter (``codegen/function.py``);
- ``profiling.py``: the kernel profiler's timestamps, written by the code itself;
- ``slp_vectoriser.py``: whether LLVM's straight-line (SLP) vectoriser pays for a kernel.
"""
