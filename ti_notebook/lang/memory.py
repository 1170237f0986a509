"""Field memory: aligned buffers registered in the process's roots table.

Every SNode tree owns one buffer. Kernels never embed a buffer's address: they read
it from the *roots table* (``roots_table_address()``, slot ``tree_id``) at the start
of each task, so compiled code stays valid when a tree is freed and its id reused, and
object code can be cached across processes.

    >>> tree = allocate_tree(64)
    >>> roots_table()[tree.tree_id] == tree.address
    True
    >>> tree.free()
"""

from __future__ import annotations

import numpy as np

MAX_TREES = 4096
ALIGNMENT = 64  # a cache line: vector loads of a row never straddle two lines

_roots = np.zeros(MAX_TREES, dtype=np.int64)
_free_ids = list(range(MAX_TREES - 1, -1, -1))


def roots_table() -> np.ndarray:
    return _roots


def roots_table_address() -> int:
    return _roots.ctypes.data


class TreeMemory:
    """One tree's zero-initialised, 64-byte aligned buffer and its roots-table slot."""

    def __init__(self, nbytes: int) -> None:
        if not _free_ids:
            raise MemoryError(f"more than {MAX_TREES} SNode trees alive; destroy() some")
        self.nbytes = max(int(nbytes), 1)
        raw = np.zeros(self.nbytes + ALIGNMENT, dtype=np.uint8)
        skip = (-raw.ctypes.data) % ALIGNMENT
        self._raw = raw
        self.buffer = raw[skip : skip + self.nbytes]
        self.address = self.buffer.ctypes.data
        self.tree_id = _free_ids.pop()
        _roots[self.tree_id] = self.address
        self.alive = True

    def view(self, dtype: np.dtype, offset: int, shape: tuple, strides: tuple) -> np.ndarray:
        """A NumPy view of part of the buffer (no copy)."""
        return np.ndarray(shape, dtype=dtype, buffer=self.buffer, offset=offset, strides=strides)

    def free(self) -> None:
        if self.alive:
            self.alive = False
            _roots[self.tree_id] = 0
            _free_ids.append(self.tree_id)
            self._raw = self.buffer = None


def allocate_tree(nbytes: int) -> TreeMemory:
    return TreeMemory(nbytes)
