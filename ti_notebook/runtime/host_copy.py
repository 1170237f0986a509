"""Copies between NumPy arrays and field memory on several threads.

One thread copies about 7-10 GB/s here, well under what two cores draw from memory, and
NumPy releases the GIL while it copies; so a large ``to_numpy``/``from_numpy`` splits
the copy along the first axis and runs the pieces on a small pool of threads (as
Taichi's own copies run as parallel kernels). A copy under :data:`PARALLEL_BYTES`, or a
first axis too short to split, runs in the caller's thread.

    >>> import numpy as np
    >>> src = np.arange(12, dtype=np.float32).reshape(4, 3)
    >>> dst = np.zeros_like(src)
    >>> copy_into(dst, src, threads=2)
    >>> bool((dst == src).all()), copy_out(src, np.int32, threads=2).dtype
    (True, dtype('int32'))
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

PARALLEL_BYTES = 1 << 22  # below 4 MiB a thread hand-off costs more than it saves

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def _executor(threads: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < threads:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(threads, thread_name_prefix="ti_notebook-copy")
            _pool_size = threads
        return _pool


def copy_into(dst: np.ndarray, src, threads: int) -> None:
    """``dst[...] = src`` (broadcasting and casting as NumPy's assignment does)."""
    src = np.asarray(src)
    if src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)
    pieces = min(threads, dst.shape[0] if dst.ndim else 1)
    if dst.nbytes < PARALLEL_BYTES or pieces < 2:
        np.copyto(dst, src, casting="unsafe")
        return
    bounds = np.linspace(0, dst.shape[0], pieces + 1).astype(int)
    pool = _executor(pieces - 1)
    futures = [
        pool.submit(np.copyto, dst[lo:hi], src[lo:hi], casting="unsafe")
        for lo, hi in zip(bounds[1:-1], bounds[2:], strict=True)
    ]
    np.copyto(dst[: bounds[1]], src[: bounds[1]], casting="unsafe")
    for future in futures:
        future.result()


def copy_out(view: np.ndarray, dtype, threads: int) -> np.ndarray:
    """A new array holding ``view``'s values (as ``dtype``, if given)."""
    out = np.empty(view.shape, dtype=dtype if dtype is not None else view.dtype)
    copy_into(out, view, threads)
    return out
