"""Running kernels on the host CPU: the process JIT, kernel code and its loader, the
native thread pool, the out-of-process compile worker and the inline launch.

``runtime/cpu/compile_server.py`` is also run as a script (``python -P <path>``) by
``runtime/cpu/compile_worker.py``, so it imports only the standard library and llvmlite.
"""
