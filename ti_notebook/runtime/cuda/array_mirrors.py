"""A ``ti.ndarray``'s device copy (``runtime/array_homes.py`` says when it is made).

``dirty``: the host wrote since the last upload (true at first: the copy starts empty);
the launcher uploads a dirty copy before a launch that takes it. ``stale``: a kernel
wrote the array since the host last downloaded it; the host's next access downloads it
(waiting for the kernels still running). So kernels that take the same ndarray launch
after launch with no copy in between (``tests/cuda/test_ndarray_residency.py`` counts
the copies on a fake device).
"""

from __future__ import annotations

import weakref

from ti_notebook.runtime.array_homes import ArrayHome
from ti_notebook.runtime.launch import no_launch_running

__all__ = ["ArrayMirror", "attach"]


class ArrayMirror:
    """The device copy of one ``ti.ndarray`` (``context``: what moves bytes,
    ``cuda_driver.CudaContext`` or a test's fake with the same methods)."""

    def __init__(self, home: ArrayHome, context) -> None:
        self.context = context
        self.nbytes = home.nbytes
        self.address = context.alloc(self.nbytes, f"a ti.ndarray of {self.nbytes:,} bytes")
        self._home = weakref.ref(home)  # the home holds this copy, not the other way
        self.dirty = True
        self.stale = False
        self.uploads = self.downloads = 0
        self.free = weakref.finalize(home, context.free, self.address)

    def before_host_access(self, write: bool, covers: bool = False) -> None:
        """The host is about to read (or, with ``write``, change) the array."""
        with no_launch_running():
            if self.stale and not (write and covers):
                self.download()
            self.stale = self.stale and not (write and covers)
            if write:
                self.dirty = True

    def upload(self) -> None:
        home = self._home()
        if home is not None:
            self.context.upload(self.address, home.address, self.nbytes)
            self.uploads += 1
        self.dirty = False

    def download(self) -> None:
        home = self._home()
        if home is not None:
            self.context.download(home.address, self.address, self.nbytes)
            self.downloads += 1
        self.stale = False

    def detach(self) -> None:
        """Brings a changed copy home and frees it (``ti.reset()``)."""
        home = self._home()
        with no_launch_running():
            if self.stale:
                self.download()
            self.free()
        if home is not None and home.device is self:
            home.device = None


def attach(home: ArrayHome, context) -> ArrayMirror:
    """``home``'s device copy, made (empty, dirty) on first use."""
    if home.device is not None and home.device.context is not context:
        home.device.detach()  # another context's copy: bring it home first
    if home.device is None:
        home.device = ArrayMirror(home, context)
    return home.device
