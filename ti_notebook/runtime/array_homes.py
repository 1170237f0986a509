"""Where a ``ti.ndarray``'s elements live: its host array, and a device copy once a CUDA
kernel has used it.

A NumPy array passed to a kernel is copied to the device for each launch (and back when
the kernel writes it), as Taichi does. A ``ti.ndarray`` is the kernel's own array: the
first CUDA launch that takes it gives it a device copy, kept as a field tree's is
(``runtime/cuda/memory.py``'s ``DeviceTree``, over the whole array), and later launches
use that copy as it is, so a loop of kernels over a ``ti.ndarray`` moves no data. The
copy's ``dirty`` bytes are those the host wrote since the last upload, its ``stale``
ones those a kernel wrote since the host last downloaded. The ndarray's
methods call :meth:`ArrayHome.before_host_access` before they touch the host array and
:meth:`ArrayHome.after_bulk_write` after ``from_numpy``/``fill``.

A launcher finds an argument's home by the host address it was given (:func:`lookup`).
``ti.reset()`` brings every device copy home (:func:`bring_all_home`).

    >>> import numpy as np
    >>> home = home_of(np.zeros(4, np.float32))
    >>> lookup(home.address, 16) is home, lookup(home.address, 32)
    (True, None)
    >>> home.before_host_access(write=True)  # no device copy: nothing to do
"""

from __future__ import annotations

import weakref

import numpy as np

__all__ = ["ArrayHome", "bring_all_home", "home_of", "lookup"]

_by_address: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class ArrayHome:
    """A ``ti.ndarray``'s host array and its device copy (``device``; None until a CUDA
    launch takes the array)."""

    __slots__ = ("__weakref__", "array", "device")
    # what a device copy asks of the memory it mirrors, as of a field tree's
    tree_id = None
    commits_lazily = False
    alive = True

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.device = None  # a cuda.memory.DeviceTree once a CUDA kernel used it

    @property
    def address(self) -> int:
        return self.array.ctypes.data

    @property
    def nbytes(self) -> int:
        return self.array.nbytes

    def before_host_access(self, write: bool, covers: bool = False) -> None:
        """The host is about to read (``write``: change) the array; ``covers``: the write
        replaces every element, so a newer device copy need not come back first."""
        if self.device is not None:
            self.device.before_host_access(write, (0, self.nbytes), covers)

    def after_bulk_write(self) -> None:
        """After ``from_numpy``/``fill``: the device copy gets the elements now, as
        Taichi's copy kernel would, rather than at the next launch."""
        if self.device is not None and self.device.dirty:
            self.device.upload()


def home_of(array: np.ndarray) -> ArrayHome:
    """A new home for a ``ti.ndarray``'s host ``array`` (the ndarray keeps it alive)."""
    home = ArrayHome(array)
    if array.nbytes:
        _by_address[home.address] = home
    return home


def lookup(address: int, nbytes: int) -> ArrayHome | None:
    """The home of the ``ti.ndarray`` whose host array starts at ``address`` and holds at
    least ``nbytes``, or None (a NumPy array: copied for each launch)."""
    home = _by_address.get(address)
    return home if home is not None and home.nbytes >= nbytes else None


def bring_all_home() -> None:
    """Downloads every device copy a kernel changed and lets the copies go
    (``ti.reset()``): the host arrays are the ndarrays' memory again."""
    for home in list(_by_address.values()):
        if home.device is not None:
            home.device.detach()
