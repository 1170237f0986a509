"""Field memory: lazily committed buffers registered in the process's roots table.

Every SNode tree owns one region reserved with ``mmap(MAP_NORESERVE)``: the kernel
commits a page only when it is first written, so a sparse (pointer) grid of any size
costs memory only for the blocks that become active, and reading an untouched page
gives zeros. Kernels never embed a buffer's address: each compiled kernel gets a small
table of the bases of the trees it uses (copied from the *roots table*, slot
``tree_id``, when it is loaded) and its code reads tree ``k`` from slot ``k`` at the start
of each task, so object code can be cached across processes and reused for fields of a
new tree with the same plan. Destroying a tree makes every kernel recompile.

A region is unmapped when its tree is destroyed, at ``ti.reset()``, or when nothing
holds it any more: the tree's Python objects (fields, SNodes) and every compiled kernel
whose table points into it (``holders``). Trees form reference cycles (fields and their
SNodes point at each other), so Python frees them only when its cyclic collector runs;
after every ``COLLECT_EVERY`` bytes of new dense trees we run it, so a notebook cell
re-run hundreds of times does not keep hundreds of dead fields mapped.

On a CUDA device a tree also has a device copy (``runtime/cuda/memory.py``), attached
as ``TreeMemory.device`` when a CUDA kernel first uses the tree; it is None otherwise.
Code that reads or writes a tree's bytes from the host (field indexing, ``to_numpy``,
``fill``, sparse activity...) calls :func:`before_host_access` first, which may
download the tree; on the CPU it is one attribute test (field indexing inlines it).

    >>> tree = allocate_tree(1 << 20)
    >>> int(roots_table()[tree.tree_id]) == tree.address, tree.resident_bytes()
    (True, 0)
    >>> tree.free()
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import mmap
import os
import weakref
from collections.abc import Iterator

import numpy as np

from ti_notebook.errors import TiMemoryError

MAX_TREES = 4096
PAGE = mmap.PAGESIZE

_roots = np.zeros(MAX_TREES, dtype=np.int64)
_free_ids = list(range(MAX_TREES - 1, -1, -1))
_by_id: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # tree id -> memory
COLLECT_EVERY = 32 << 20  # bytes of dense trees between two runs of the cycle collector
_since_collect = 0

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
_MADV_DONTNEED = 4
_MADV_HUGEPAGE = 14
HUGE_PAGE = 2 * 1024 * 1024
_MAP_FAILED = ctypes.c_void_p(-1).value


def roots_table() -> np.ndarray:
    return _roots


class TreeMemory:
    """One tree's zero-initialised, page-aligned region and its roots-table slot."""

    device = None  # the CUDA device copy (cuda_memory.DeviceTree), once a kernel used it

    def __init__(self, nbytes: int, huge_pages: bool = False) -> None:
        _collect_dead_trees(int(nbytes) if huge_pages else 0)  # dense trees commit it all
        if not _free_ids:
            raise TiMemoryError(
                f"{MAX_TREES} SNode trees are alive, the most there can be",
                hint="destroy() trees no longer needed, or declare fields together in fewer "
                "FieldsBuilders",
            )
        self.nbytes = max(int(nbytes), 1)
        self.reserved = (self.nbytes + PAGE - 1) // PAGE * PAGE
        # Huge pages (dense trees only: a sparse tree must commit 4 KiB at a time) cut
        # TLB misses of strided loops; THP needs 2 MiB-aligned ranges, so over-reserve.
        huge = huge_pages and self.reserved >= HUGE_PAGE
        self.mapped = self.reserved + (HUGE_PAGE if huge else 0)
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE
        prot = mmap.PROT_READ | mmap.PROT_WRITE
        self.map_address = _libc.mmap(None, self.mapped, prot, flags, -1, 0)
        if self.map_address in (None, _MAP_FAILED):
            raise MemoryError(
                f"cannot reserve {self.reserved} bytes: {os.strerror(ctypes.get_errno())}"
            )
        address = self.map_address
        if huge:
            address = (address + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE
            _libc.madvise(address, self.reserved, _MADV_HUGEPAGE)
        self.address = address
        # sparse trees (no huge pages) commit pages on first write: copies skip zero pages
        self.commits_lazily = not huge_pages
        self.buffer = np.ctypeslib.as_array((ctypes.c_uint8 * self.nbytes).from_address(address))
        self.tree_id = _free_ids.pop()
        _roots[self.tree_id] = self.address
        self.alive = True
        _by_id[self.tree_id] = self
        # Runs when this object dies (nothing holds the tree) or at free(): never both.
        self._release = weakref.finalize(
            self, _release, self.map_address, self.mapped, self.tree_id
        )

    def view(self, dtype: np.dtype, offset: int, shape: tuple, strides: tuple) -> np.ndarray:
        """A NumPy view of part of the region (no copy)."""
        return np.ndarray(shape, dtype=dtype, buffer=self.buffer, offset=offset, strides=strides)

    def zero(self, offset: int, nbytes: int) -> None:
        """Zeroes a byte range, handing whole pages back to the OS."""
        start, end = offset, offset + nbytes
        first_page = (start + PAGE - 1) // PAGE * PAGE
        last_page = end // PAGE * PAGE
        if last_page > first_page:
            self.buffer[start:first_page] = 0
            _libc.madvise(self.address + first_page, last_page - first_page, _MADV_DONTNEED)
            self.buffer[last_page:end] = 0
        else:
            self.buffer[start:end] = 0

    def resident_bytes(self) -> int:
        """Bytes of the region the OS has actually committed (``mincore``)."""
        pages = self.resident_pages()
        return -1 if pages is None else int(np.count_nonzero(pages)) * PAGE

    def resident_pages(self) -> np.ndarray | None:
        """One bool per page of the region: in memory (``mincore``); None if unknown."""
        vec = (ctypes.c_ubyte * (self.reserved // PAGE))()
        if _libc.mincore(self.address, self.reserved, vec) != 0:
            return None
        return (np.frombuffer(vec, dtype=np.uint8) & 1).astype(bool)

    def free(self) -> None:
        if self.alive:
            self.alive = False
            self.buffer = None
            if self.device is not None:
                self.device.free()
            self._release()


def _release(map_address: int, mapped: int, tree_id: int) -> None:
    _roots[tree_id] = 0
    _free_ids.append(tree_id)
    _by_id.pop(tree_id, None)
    _libc.munmap(map_address, mapped)


def _collect_dead_trees(new_bytes: int) -> None:
    """Runs the cycle collector once enough dense memory was reserved since the last run,
    or when every tree id is taken: unreachable trees are unmapped before a new one."""
    global _since_collect
    _since_collect += new_bytes
    if _since_collect >= COLLECT_EVERY or not _free_ids:
        _since_collect = 0
        gc.collect()


def before_host_access(
    tree: TreeMemory, write: bool, span: tuple[int, int] | None = None, covers: bool = False
) -> None:
    """The host is about to read (``write``: change) ``tree``'s bytes, those of ``span``
    (``[start, end)`` offsets, e.g. :func:`view_span` of a field; None: all of them): a
    CUDA device copy that a kernel changed is downloaded first, and a write marks the
    span newer on the host. ``covers``: the write replaces every byte of the span.

    >>> tree = allocate_tree(64)
    >>> before_host_access(tree, write=False)  # no device copy: nothing to do
    >>> tree.free()
    """
    if tree.device is not None:
        tree.device.before_host_access(write, span, covers)


def upload_host_writes(tree: TreeMemory | None = None) -> None:
    """Sends what the host wrote to the device copy now rather than at the next launch
    (``ti.sync()``, and the bulk writers after they wrote): ``tree``'s, or every tree's.

    >>> upload_host_writes()  # no device copies: nothing to send
    """
    trees = [tree] if tree is not None else list(_by_id.values())
    for each in trees:
        if each.device is not None and each.device.dirty:
            each.device.upload()


def before_view_access(tree: TreeMemory, write: bool, view: np.ndarray | None) -> None:
    """:func:`before_host_access` for the bytes a field's ``view`` spans (None: a
    sparse field, the whole tree).

    >>> tree = allocate_tree(64)
    >>> before_view_access(tree, False, tree.view(np.float32, 0, (16,), (4,)))
    >>> tree.free()
    """
    if tree.device is not None:
        span = view_span(tree, view) if view is not None else None
        before_host_access(tree, write, span)


@contextlib.contextmanager
def writing_every_element(tree: TreeMemory, view: np.ndarray) -> Iterator[None]:
    """Around a host write of every element of ``view``, a view of ``tree``
    (``fill``, ``from_numpy``): a CUDA device copy brings back only the bytes that lie
    between the view's elements (none when the view is contiguous), and gets the
    written bytes as soon as the write is done, as Taichi's copy kernels would, rather
    than at the next launch.

    >>> tree = allocate_tree(64)
    >>> with writing_every_element(tree, tree.view(np.float32, 0, (16,), (4,))):
    ...     pass  # no device copy: nothing to do
    >>> tree.free()
    """
    if tree.device is None:
        yield
        return
    span = view_span(tree, view)
    before_host_access(tree, True, span, covers=view.nbytes == span[1] - span[0])
    yield
    upload_host_writes(tree)


def view_span(tree: TreeMemory, view: np.ndarray) -> tuple[int, int]:
    """The ``[start, end)`` byte offsets in ``tree`` that a NumPy view of it spans.

    >>> tree = allocate_tree(4096)
    >>> view = tree.view(np.float32, 64, (4, 2), (32, 4))
    >>> view_span(tree, view)
    (64, 168)
    >>> tree.free()
    """
    low = high = view.ctypes.data
    for extent, stride in zip(view.shape, view.strides, strict=True):
        if extent == 0:
            return (0, 0)
        reach = stride * (extent - 1)
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return (low - tree.address, high + view.itemsize - tree.address)


def holders(tree_ids) -> list[TreeMemory]:
    """The live regions of ``tree_ids``: a compiled kernel keeps them so the trees it
    points into stay mapped while it can still be launched."""
    return [_by_id[t] for t in tree_ids if t in _by_id]


def allocate_tree(nbytes: int, huge_pages: bool = False) -> TreeMemory:
    return TreeMemory(nbytes, huge_pages)
