"""A stand-in for the CUDA driver: device memory in buffers of its own, kernels on the
SIMT emulator.

:class:`FakeContext` has the methods of ``cuda_driver.CudaContext``. Its "device
memory" is host memory apart from the fields' (filled with 0xA5 when allocated, as
``cuMemAlloc`` leaves garbage), so a missing upload or download shows as wrong values,
and a launch's parameters are read the way the driver reads them (``void**`` to the
context's device address). The kernels are the backend's own optimised NVPTX IR run
by the SIMT emulator (``runtime/simt``), which reaches any address of this process: a
host address leaking into the device context would go unnoticed by the kernel, so the
tests also check that the fields' host bytes do not change before a download.

:func:`use_fake_device` makes the current session compile through
:class:`FakeDeviceBackend` (the CUDA target with the real ``CudaDeviceRuntime`` on
this context).
"""

from __future__ import annotations

import ctypes
import time

import numpy as np

from ti_notebook.compiler.backends.base import Backend
from ti_notebook.compiler.backends.cuda import CudaTarget
from ti_notebook.compiler.backends.cuda_device import CudaDeviceRuntime
from ti_notebook.runtime.cuda.driver import CudaStatus
from ti_notebook.runtime.cuda.launch import DeviceKernel
from ti_notebook.runtime.simt import SIMT_DEVICE, SimtModule
from ti_notebook.session import config as config_module

GARBAGE = 0xA5
# an sm_80 as small as the emulator's: 2 SMs x 4 blocks x 2 = a grid of 16 at most
FAKE_STATUS = CudaStatus(
    True,
    "fake device (SIMT emulator)",
    "Fake GPU",
    "sm_80",
    multiprocessors=SIMT_DEVICE.sm_count,
    threads_per_multiprocessor=SIMT_DEVICE.max_threads_per_sm,
    blocks_per_multiprocessor=4,
    shared_memory_per_block=SIMT_DEVICE.shared_bytes_per_block,
    shared_memory_opt_in=SIMT_DEVICE.shared_bytes_per_block_optin,
    total_memory=1 << 30,
    driver_version=13000,
)


_IR_FOR_PTX: dict[bytes, str] = {}  # the optimised IR each PTX text was made from


class FakeContext:
    """Device memory and launches, recorded in ``calls`` as (method, details...)."""

    def __init__(self) -> None:
        self.buffers: dict[int, np.ndarray] = {}
        self.ir_for_ptx = _IR_FOR_PTX  # every fake's: a cache hit may come from another
        self.calls: list[tuple] = []

    def count(self, method: str) -> int:
        return sum(1 for call in self.calls if call[0] == method)

    def _check(self, address: int, nbytes: int) -> None:
        for start, buffer in self.buffers.items():
            if start <= address and address + nbytes <= start + buffer.size:
                return
        raise AssertionError(f"{nbytes} bytes at {address:#x} are not device memory")

    def alloc(self, nbytes: int, what: str = "") -> int:
        buffer = np.full(max(int(nbytes), 1), GARBAGE, dtype=np.uint8)
        address = buffer.ctypes.data
        self.buffers[address] = buffer
        self.calls.append(("alloc", nbytes, what))
        return address

    def free(self, address: int) -> None:
        assert address in self.buffers, f"freeing {address:#x}, never allocated or freed twice"
        del self.buffers[address]
        self.calls.append(("free", address))

    def upload(self, device_address: int, host_address: int, nbytes: int) -> None:
        self._check(device_address, nbytes)
        ctypes.memmove(device_address, host_address, nbytes)
        self.calls.append(("upload", device_address, nbytes))

    def download(self, host_address: int, device_address: int, nbytes: int) -> None:
        self._check(device_address, nbytes)
        ctypes.memmove(host_address, device_address, nbytes)
        self.calls.append(("download", device_address, nbytes))

    def memset(self, device_address: int, byte: int, nbytes: int) -> None:
        self._check(device_address, nbytes)
        ctypes.memset(device_address, byte, nbytes)
        self.calls.append(("memset", device_address, nbytes))

    def synchronize(self) -> None:
        self.calls.append(("synchronize",))

    def load_module(self, ptx: bytes, kernel: str) -> SimtModule:
        assert ptx.lstrip().startswith(b"//") and b".entry" in ptx, "not PTX"
        self.calls.append(("load_module", kernel))
        return SimtModule(self.ir_for_ptx[ptx])

    def unload_module(self, module: SimtModule) -> None:
        self.calls.append(("unload_module",))

    def function(self, module: SimtModule, name: str, kernel: str):
        return module.kernel(name)

    def allow_dynamic_shared(self, function, nbytes: int, kernel: str) -> None:
        self.calls.append(("allow_dynamic_shared", function.name, nbytes))

    def launch(self, function, grid: int, block: int, shared_bytes: int, params: int, kernel):
        # the driver's reading of kernelParams: params[0] points at the context's address
        ctx = ctypes.c_uint64.from_address(ctypes.c_void_p.from_address(params).value).value
        self._check(ctx, 128)
        self.calls.append(("launch", function.name, grid, block, shared_bytes))
        function.launch(grid=grid, block=block, params=[ctx], shared_bytes=shared_bytes)

    def event(self) -> list:
        return [0]

    def record(self, event: list) -> None:
        event[0] = time.monotonic_ns()

    def elapsed_ms(self, start: list, end: list) -> float:
        return (end[0] - start[0]) / 1e6


class CheckedDeviceKernel(DeviceKernel):
    """Checks the written-trees analysis at every launch: the device copies of the trees
    the kernel is said not to write must come out of it unchanged."""

    def run_tasks(self) -> None:
        kept = [t for t in self.device_trees if t not in self.written_trees]
        before = [self.device_bytes(t).copy() for t in kept]
        super().run_tasks()
        for tree, old in zip(kept, before, strict=True):
            assert (self.device_bytes(tree) == old).all(), (
                f"kernel '{self.name}' wrote tree {tree.tree_id}, not in its written_trees"
            )

    def device_bytes(self, tree) -> np.ndarray:
        return np.ctypeslib.as_array(self.context.buffers[tree.address])[: tree.nbytes]


class FakeDeviceRuntime(CudaDeviceRuntime):
    """The device runtime on :class:`FakeContext`: it tells the fake which optimised IR
    each PTX text came from, so the emulator can run it, and its kernels check which
    trees they write."""

    def __init__(self, context: FakeContext) -> None:
        super().__init__(FAKE_STATUS, context=context)

    def load(self, target, module_text, artifact, keep_code):
        entry, optimized = super().load(target, module_text, artifact, keep_code)
        self.context.ir_for_ptx[artifact.code] = optimized
        return entry, optimized

    def launchable(self, name, entry, layout, return_type, artifact):
        module = self.module_for(artifact, name) if artifact.launches else None
        return CheckedDeviceKernel(
            name, layout, return_type, artifact, module, self.context, self.device
        )


class FakeDeviceBackend(Backend):
    """The CUDA target for the fake device, with :class:`FakeDeviceRuntime`."""

    def __init__(self, context: FakeContext) -> None:
        runtime = FakeDeviceRuntime(context)
        super().__init__(CudaTarget(runtime.device), runtime)


def use_fake_device(monkeypatch) -> FakeContext:
    """Compiles the current session's kernels for the fake device; returns its context."""
    context = FakeContext()
    backend = FakeDeviceBackend(context)
    monkeypatch.setattr(config_module.Config, "backend", lambda self: backend)
    return context
