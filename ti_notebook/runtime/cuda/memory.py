"""Field memory on a CUDA device: one device copy per SNode tree, kept coherent.

The host region of a tree (``runtime/memory.py``) stays the Python side's copy: field
indexing, ``to_numpy``, ``from_numpy``, ``fill`` and sparse activity read and write it.
When a CUDA kernel first uses a tree, a :class:`DeviceTree` of the same size is
attached to it (``TreeMemory.device``), and two sets of byte ranges
(``runtime/byte_spans.py``) say which copy is newer where:

- ``dirty``: bytes the host wrote since the last upload (at first the whole tree: the
  device copy starts empty). Before a launch, the trees the kernel uses are uploaded
  (:func:`before_launch`), their dirty ranges only; ``ti.sync()`` and the bulk writers
  (``from_numpy``, ``fill``) upload at once, so the copy is not charged to the next
  kernel.
- ``stale``: bytes a kernel may have changed since the host last downloaded them. After
  a launch, every tree the kernel writes is wholly stale (:func:`after_launch`; which
  bytes a kernel writes is not tracked). Before the host reads or writes a range,
  :meth:`DeviceTree.before_host_access` downloads its stale part (the copy waits for the
  kernels still running); a write then marks the range dirty.

Callers pass the range of the field they touch, so writing a scalar field from Python
moves that field's bytes, not its tree's; a range the write covers whole (a contiguous
field's ``from_numpy``) is not downloaded first. A loop of kernel launches moves no
data, and reading a field after it moves that field once.

Sparse trees (``pointer``, ``bitmasked``) are reserved lazily on the host: only written
pages cost memory. Their copies skip pages of zeros both ways: an upload clears the
device copy and copies the non-zero pages, looking only at pages the host ever touched
(``mincore``; with swap in use, ``/proc/self/pagemap`` adds the swapped-out ones), since
reading an untouched page would map it; a download writes the non-zero pages and hands
zero pages back to the OS. So a large, mostly empty grid stays small on the host. The
device copy itself is the tree's full size (no device-side pool yet).

    >>> import numpy as np
    >>> flags = np.array([0, 0, 1, 1, 0, 1], dtype=bool)
    >>> runs(flags)
    [(0, 2, False), (2, 4, True), (4, 5, False), (5, 6, True)]
    >>> nonzero_spans(np.array([1, 0, 0, 0, 1, 0, 1], dtype=bool), merge_gap=1)
    [(0, 1), (4, 7)]
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable

import numpy as np

from ti_notebook.runtime.array_homes import ArrayHome
from ti_notebook.runtime.byte_spans import ByteSpans
from ti_notebook.runtime.launch import no_launch_running
from ti_notebook.runtime.memory import PAGE, TreeMemory

STAGING_BYTES = 16 << 20  # a sparse tree downloads through a buffer of this size
MERGE_GAP_PAGES = 16  # upload zero gaps this short with their neighbours: fewer copies

__all__ = ["DeviceTree", "after_launch", "attach", "attach_array", "before_launch"]


def page_flags(data: np.ndarray) -> np.ndarray:
    """One bool per ``PAGE`` bytes of a uint8 array (the last page may be partial):
    whether it holds anything but zeros.

    >>> data = np.zeros(2 * PAGE + 3, np.uint8); data[PAGE + 5] = 1
    >>> page_flags(data).tolist()
    [False, True, False]
    """
    full = data.size // PAGE
    flags = np.empty(full + (data.size % PAGE > 0), dtype=bool)
    if full:
        words = data[: full * PAGE].view(np.uint64).reshape(full, PAGE // 8)
        np.any(words, axis=1, out=flags[:full])
    if flags.size > full:
        flags[full] = bool(data[full * PAGE :].any())
    return flags


def runs(flags: np.ndarray) -> list[tuple[int, int, bool]]:
    """Maximal runs of equal values: ``(start, end, value)``."""
    if flags.size == 0:
        return []
    change = np.flatnonzero(flags[1:] != flags[:-1]) + 1
    bounds = [0, *change.tolist(), int(flags.size)]
    return [(a, b, bool(flags[a])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def nonzero_spans(flags: np.ndarray, merge_gap: int = MERGE_GAP_PAGES) -> list[tuple[int, int]]:
    """``[start, end)`` spans of true flags, joined across false gaps of at most
    ``merge_gap`` (copying a few zero pages is cheaper than another driver call)."""
    spans: list[tuple[int, int]] = []
    for start, end, value in runs(flags):
        if not value:
            continue
        if spans and start - spans[-1][1] <= merge_gap:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def swap_in_use() -> bool:
    """Whether the system swaps (then a page not in memory may still hold data)."""
    try:
        with open("/proc/swaps") as swaps:
            return len(swaps.read().splitlines()) > 1
    except OSError:
        return True  # cannot tell: assume it does


def swapped_pages(address: int, pages: int) -> np.ndarray | None:
    """One bool per page from ``address``: swapped out (``/proc/self/pagemap`` bit 62);
    None where the page map cannot be read."""
    try:
        fd = os.open("/proc/self/pagemap", os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.pread(fd, 8 * pages, address // PAGE * 8)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(raw) != 8 * pages:
        return None
    return (np.frombuffer(raw, dtype=np.uint64) >> np.uint64(62) & np.uint64(1)).astype(bool)


def touched_pages(tree: TreeMemory) -> np.ndarray:
    """The tree's pages that may hold data: in memory or swapped out (all of them when
    that cannot be told); the others were never written, so they hold zeros."""
    pages = -(-tree.nbytes // PAGE)
    resident = tree.resident_pages()
    if resident is None:
        return np.ones(pages, dtype=bool)
    resident = resident[:pages]
    if swap_in_use():
        swapped = swapped_pages(tree.address, pages)
        if swapped is None:
            return np.ones(pages, dtype=bool)
        resident |= swapped
    return resident


def nonzero_pages(tree: TreeMemory) -> np.ndarray:
    """``page_flags`` of the tree's bytes, reading only the pages it touched."""
    flags = np.zeros(-(-tree.nbytes // PAGE), dtype=bool)
    for start, end, touched in runs(touched_pages(tree)):
        if touched:
            flags[start:end] = page_flags(tree.buffer[start * PAGE : end * PAGE])
    return flags


class DeviceTree:
    """A tree's device copy: ``address`` (device memory of ``nbytes``) and the flags.

    ``context`` is what moves bytes (``cuda_driver.CudaContext``, or a test's fake with
    the same ``alloc/free/upload/download/memset`` methods).
    """

    def __init__(self, tree: TreeMemory | ArrayHome, context) -> None:
        self.context = context
        self.tree_id = tree.tree_id  # None: a ti.ndarray's memory
        self.nbytes = tree.nbytes
        self.commits_lazily = tree.commits_lazily
        if tree.tree_id is None:
            what = f"a ti.ndarray of {tree.nbytes:,} bytes"
        else:
            what = f"{tree.nbytes:,} bytes for SNode tree {tree.tree_id}"
        self.address = context.alloc(tree.nbytes, what)
        self._tree = weakref.ref(tree)  # the tree holds this copy, not the other way
        self.dirty = ByteSpans([(0, tree.nbytes)])  # host-written since the last upload
        self.stale = ByteSpans()  # kernel-written since the host last downloaded
        self.uploads = self.downloads = 0  # transfers so far, for tests and curiosity
        # freed with the tree: at destroy() / ti.reset() (free) or when it is collected
        self.free = weakref.finalize(tree, context.free, self.address)

    @property
    def host_newer(self) -> bool:
        """Whether the host wrote bytes the device copy does not have yet."""
        return bool(self.dirty)

    @property
    def device_newer(self) -> bool:
        """Whether a kernel may have written bytes the host copy does not have yet."""
        return bool(self.stale)

    def before_host_access(
        self, write: bool, span: tuple[int, int] | None = None, covers: bool = False
    ) -> None:
        """The host is about to read (or, with ``write``, change) ``span`` (byte offsets
        ``[start, end)``; None: the whole tree). ``covers``: the write replaces every
        byte of the span, so its stale part need not be downloaded first."""
        with no_launch_running():  # a launch in another thread moves the flags too
            if span is None or self.commits_lazily:  # a sparse tree moves whole
                span, covers = (0, self.nbytes), False
            start, end = span
            if self.stale:
                if (start, end) == (0, self.nbytes):
                    if not (write and covers):
                        self.download()
                    self.stale.clear()
                elif write and covers:
                    self.stale.remove(start, end)
                else:
                    self._download_spans(start, end)
            if write:
                self.dirty.add(start, end)

    def upload(self) -> None:
        """Host → device, the dirty ranges (a sparse tree: all of it); afterwards the
        device copy holds every byte the host wrote."""
        tree = self._tree()
        if tree is None or not tree.alive:
            return
        if not self.commits_lazily:
            for begin, stop in self.dirty:
                self.context.upload(self.address + begin, tree.address + begin, stop - begin)
        else:
            self.context.memset(self.address, 0, self.nbytes)
            for start, end in nonzero_spans(nonzero_pages(tree)):
                begin, stop = start * PAGE, min(end * PAGE, self.nbytes)
                self.context.upload(self.address + begin, tree.address + begin, stop - begin)
        self.dirty.clear()
        self.uploads += 1

    def download(self) -> None:
        """Device → host, the whole tree (waits for the kernels still running)."""
        tree = self._tree()
        if tree is None or not tree.alive:
            return
        if not self.commits_lazily:
            self.context.download(tree.address, self.address, self.nbytes)
        else:
            self._download_sparse(tree)
        self.stale.clear()
        self.downloads += 1

    def _download_spans(self, start: int, end: int) -> None:
        """Device → host, the stale part of ``[start, end)``."""
        tree = self._tree()
        if tree is None or not tree.alive:
            return
        for begin, stop in self.stale.overlap(start, end):
            self.context.download(tree.address + begin, self.address + begin, stop - begin)
        self.stale.remove(start, end)
        self.downloads += 1

    def _download_sparse(self, tree: TreeMemory) -> None:
        staging = np.empty(min(STAGING_BYTES, self.nbytes), dtype=np.uint8)
        for offset in range(0, self.nbytes, staging.size):
            count = min(staging.size, self.nbytes - offset)
            self.context.download(staging.ctypes.data, self.address + offset, count)
            for start, end, nonzero in runs(page_flags(staging[:count])):
                begin, stop = start * PAGE, min(end * PAGE, count)
                if nonzero:
                    tree.buffer[offset + begin : offset + stop] = staging[begin:stop]
                else:  # zeros: give the host pages back rather than write them
                    tree.zero(offset + begin, stop - begin)

    def detach(self) -> None:
        """Brings what a kernel changed home and frees the copy; its owner has none
        then (``ti.reset()`` for a ``ti.ndarray``)."""
        owner = self._tree()
        with no_launch_running():
            if self.stale:
                self.download()
            self.free()
        if owner is not None and owner.device is self:
            owner.device = None

    def __repr__(self) -> str:
        state = (
            "host newer" if self.host_newer else "device newer" if self.device_newer else "equal"
        )
        return f"<DeviceTree {self.tree_id}: {self.nbytes} bytes at {self.address:#x}, {state}>"


def attach(tree: TreeMemory, context) -> DeviceTree:
    """The tree's device copy, made (empty, host-newer) on first use."""
    if tree.device is None:
        tree.device = DeviceTree(tree, context)
    return tree.device


def attach_array(home: ArrayHome, context) -> DeviceTree:
    """A ``ti.ndarray``'s device copy (``runtime/array_homes.py``), made (empty,
    host-newer) on first use; a copy made in another context is brought home first."""
    if home.device is not None and home.device.context is not context:
        home.device.detach()
    if home.device is None:
        home.device = DeviceTree(home, context)
    return home.device


def before_launch(trees: Iterable[DeviceTree]) -> None:
    """Uploads the trees a kernel uses whose host copy changed since the last upload."""
    for tree in trees:
        if tree.dirty:
            tree.upload()


def after_launch(trees: Iterable[DeviceTree]) -> None:
    """The kernel may have written every tree it uses: the device copies are newer."""
    for tree in trees:
        tree.stale.add(0, tree.nbytes)
