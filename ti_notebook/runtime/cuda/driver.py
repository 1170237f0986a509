"""The CUDA driver through cuda-python: what the device is, and checked calls to it.

:func:`cuda_status` says once per process whether a CUDA device can be used and, if
not, why (the driver's own words: cuda-python raises ``DynamicLibNotFoundError`` when
the NVIDIA driver library is missing, and ``cuInit`` returns an error code when no
device is visible). :func:`context` is the process's :class:`CudaContext`: the device's
primary context, made current in each thread that uses it, and every driver call the
runtime makes (memory, modules, launches, events), each checked by :func:`check`
(``cuda_errors.py``), which turns a ``CUresult`` into a :mod:`ti_notebook.errors`
exception that names the kernel, the driver's error name and text, and what to do.

cuda-python is imported on first use only: a CPU session never loads it.

    >>> status = cuda_status()
    >>> status is cuda_status(), isinstance(status.reason, str)
    (True, True)
    >>> check((0, 42), "reading a number")
    42
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import threading
import weakref
from collections.abc import Sequence

from ti_notebook.errors import TiRuntimeError
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.runtime.cuda.bindings import SUCCESS
from ti_notebook.runtime.cuda.bindings import driver as _driver
from ti_notebook.runtime.cuda.errors import check, describe, error_for, note_launch

JIT_LOG_BYTES = 1 << 16  # ptxas messages beyond 64 KiB are cut off

__all__ = ["CudaContext", "CudaStatus", "check", "context", "cuda_status", "synchronize"]


@dataclasses.dataclass(frozen=True)
class CudaStatus:
    """Whether a CUDA device is usable; when it is, what it is (device 0)."""

    available: bool
    reason: str  # why not (the driver's message), or a one-line description of the device
    name: str = ""
    compute_capability: str = ""  # "sm_90"
    multiprocessors: int = 0
    threads_per_multiprocessor: int = 0
    blocks_per_multiprocessor: int = 0
    shared_memory_per_block: int = 0
    shared_memory_opt_in: int = 0  # the most dynamic shared memory a block may opt into
    total_memory: int = 0  # bytes
    driver_version: int = 0  # 12040 for CUDA 12.4

    def device(self, compute_capability: str | None = None) -> CudaDevice:
        """What code generation needs of this device; ``compute_capability`` overrides the
        target (a newer GPU runs code made for an older one: PTX is forward compatible)."""
        return CudaDevice(
            compute_capability or self.compute_capability,
            self.multiprocessors,
            self.threads_per_multiprocessor,
            self.blocks_per_multiprocessor,
            self.shared_memory_per_block,
            self.shared_memory_opt_in,
        )


@functools.cache
def cuda_status() -> CudaStatus:
    """The process's CUDA device, looked at once (``cuInit``, then device 0's attributes).

    Never raises: a missing package, a missing driver or no device gives
    ``available=False`` and the reason, for the CPU-fallback warning and skip messages.
    """
    try:
        driver = _driver()
    except ImportError as error:
        return CudaStatus(False, f"cuda-python is not installed ({error}): pip install cuda-python")
    try:
        (result,) = driver.cuInit(0)
        if result != SUCCESS:
            return CudaStatus(False, describe(result))
        result, count = driver.cuDeviceGetCount()
        if result != SUCCESS or count == 0:
            return CudaStatus(False, describe(result) if result != SUCCESS else "no CUDA device")
        return _describe_device(driver)
    except TiRuntimeError as error:
        return CudaStatus(False, error.message)
    except Exception as error:  # DynamicLibNotFoundError (a RuntimeError), a broken install
        return CudaStatus(False, str(error) or type(error).__name__)


def _describe_device(driver) -> CudaStatus:
    device = check(driver.cuDeviceGet(0), "getting device 0")
    name = check(driver.cuDeviceGetName(256, device), "reading the device's name")
    name = name.split(b"\0", 1)[0].decode(errors="replace")
    attribute = driver.CUdevice_attribute

    def read(which: str) -> int:
        code = getattr(attribute, f"CU_DEVICE_ATTRIBUTE_{which}")
        return int(check(driver.cuDeviceGetAttribute(code, device), f"reading {which}"))

    major, minor = read("COMPUTE_CAPABILITY_MAJOR"), read("COMPUTE_CAPABILITY_MINOR")
    memory = int(check(driver.cuDeviceTotalMem(device), "reading the memory size"))
    version = int(check(driver.cuDriverGetVersion(), "reading the driver version"))
    sms = read("MULTIPROCESSOR_COUNT")
    return CudaStatus(
        True,
        f"{name}, sm_{major}{minor}, {sms} SMs, {memory / 2**30:.1f} GiB",
        name,
        f"sm_{major}{minor}",
        sms,
        read("MAX_THREADS_PER_MULTIPROCESSOR"),
        read("MAX_BLOCKS_PER_MULTIPROCESSOR"),
        read("MAX_SHARED_MEMORY_PER_BLOCK"),
        read("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        memory,
        version,
    )


# -- launch arguments and JIT options, made before any driver call -----------------------
class KernelParams:
    """``kernelParams`` of ``cuLaunchKernel`` for kernels taking 64-bit values (our
    kernels take one: the launch context's device address), packed once: the driver
    reads ``void* params[k]`` pointing at each value. ``address`` is what to pass.

    >>> params = KernelParams([0x7F0000001000])
    >>> hex(ctypes.c_uint64.from_address(ctypes.c_void_p.from_address(params.address).value).value)
    '0x7f0000001000'
    """

    def __init__(self, values: Sequence[int]) -> None:
        self.values = (ctypes.c_uint64 * max(len(values), 1))(*values)
        first = ctypes.addressof(self.values)
        self.pointers = (ctypes.c_void_p * max(len(values), 1))(
            *(first + 8 * k for k in range(len(values)))
        )
        self.address = ctypes.addressof(self.pointers)


def jit_log_options(size: int = JIT_LOG_BYTES) -> tuple[list, list, bytearray, bytearray]:
    """(options, values, error log, info log) for ``cuModuleLoadDataEx``: the driver
    writes ptxas's messages into the two byte arrays (NUL-terminated)."""
    option = _driver().CUjit_option
    errors, info = bytearray(size), bytearray(size)
    options = [
        option.CU_JIT_ERROR_LOG_BUFFER,
        option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        option.CU_JIT_INFO_LOG_BUFFER,
        option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ]
    return options, [errors, size, info, size], errors, info


def log_text(buffer: bytearray) -> str:
    """The text the driver wrote into a JIT log buffer."""
    return bytes(buffer).split(b"\0", 1)[0].decode(errors="replace")


def launch_kernel(function, grid: int, block: int, shared_bytes: int, params: int, kernel: str):
    """``cuLaunchKernel`` on the default stream; ``params``: a :class:`KernelParams`
    address. Launches are asynchronous: a crash shows at the next synchronising call."""
    note_launch(kernel)
    returned = _driver().cuLaunchKernel(
        function, grid, 1, 1, block, 1, 1, shared_bytes, 0, params, 0
    )
    check(returned, f"launching {grid} block(s) of {block} thread(s)", kernel)


class LoadedModule:
    """A module loaded through ``context`` (``handle``), unloaded when nothing holds it:
    the kernels launched from it keep it, so re-running a cell that recompiles a kernel
    does not keep every old module on the GPU."""

    def __init__(self, context, ptx: bytes, kernel: str) -> None:
        self.handle = context.load_module(ptx, kernel)
        weakref.finalize(self, context.unload_module, self.handle)


# -- the context ----------------------------------------------------------------------------
class CudaContext:
    """Device 0's primary context, and the runtime's driver calls on it.

    Memory is addressed by plain ints (device addresses), host memory by int addresses
    too. Every method makes the context current in the calling thread first (once per
    thread), so kernels may be launched from any thread.
    """

    def __init__(self, status: CudaStatus) -> None:
        if not status.available:
            raise TiRuntimeError(
                f"no CUDA device can be used: {status.reason}",
                hint="ti.init(arch=ti.cpu) runs the kernels on the CPU; ti.init(arch=ti.cuda, "
                "cuda_sim=True) runs their CUDA code on the CPU",
            )
        driver = self.driver = _driver()
        self.status = status
        self.device = check(driver.cuDeviceGet(0), "getting device 0")
        self.handle = check(driver.cuDevicePrimaryCtxRetain(self.device), "retaining the context")
        self._threads = threading.local()
        self.make_current()

    def make_current(self) -> None:
        if not getattr(self._threads, "current", False):
            check(self.driver.cuCtxSetCurrent(self.handle), "making the CUDA context current")
            self._threads.current = True

    # memory
    def alloc(self, nbytes: int, what: str = "device memory") -> int:
        self.make_current()
        pointer = check(self.driver.cuMemAlloc(max(int(nbytes), 1)), f"allocating {what}")
        return int(pointer)

    def free(self, address: int) -> None:
        """Frees device memory; a driver already shut down (interpreter exit) is ignored."""
        try:
            self.make_current()
            self.driver.cuMemFree(address)
        except Exception:  # at exit cuda-python may be half torn down: nothing to free then
            pass

    def upload(self, device_address: int, host_address: int, nbytes: int) -> None:
        """Host → device in stream order: the host bytes are staged before this returns
        (free to change), and the copy runs after the kernels launched before it, so
        the host does not wait for them (``cuMemcpyHtoD`` would)."""
        self.make_current()
        returned = self.driver.cuMemcpyHtoDAsync(device_address, host_address, nbytes, 0)
        check(returned, "copying to GPU")

    def download(self, host_address: int, device_address: int, nbytes: int) -> None:
        self.make_current()
        check(self.driver.cuMemcpyDtoH(host_address, device_address, nbytes), "copying from GPU")

    def memset(self, device_address: int, byte: int, nbytes: int) -> None:
        self.make_current()
        check(self.driver.cuMemsetD8(device_address, byte, nbytes), "clearing GPU memory")

    def synchronize(self) -> None:
        self.make_current()
        check(self.driver.cuCtxSynchronize(), "waiting for the GPU")

    # code
    def load_module(self, ptx: bytes, kernel: str):
        """Loads PTX (the driver compiles it for this GPU, and caches the result in its
        JIT cache); ptxas's error log goes into the exception."""
        self.make_current()
        image = ptx if ptx.endswith(b"\0") else ptx + b"\0"
        options, values, errors, _info = jit_log_options()
        result, module = self.driver.cuModuleLoadDataEx(image, len(options), options, values)
        if result != SUCCESS:
            raise error_for(result, "loading its PTX", kernel, log_text(errors))
        return module

    def unload_module(self, module) -> None:
        """Unloads a module; a driver already shut down (interpreter exit) is ignored."""
        try:
            self.make_current()
            self.driver.cuModuleUnload(module)
        except Exception:  # at exit cuda-python may be half torn down
            pass

    def function(self, module, name: str, kernel: str):
        self.make_current()
        return check(
            self.driver.cuModuleGetFunction(module, name.encode()), f"finding {name}", kernel
        )

    def allow_dynamic_shared(self, function, nbytes: int, kernel: str) -> None:
        """Opts a kernel into ``nbytes`` of dynamic shared memory (needed above 48 KB)."""
        attribute = self.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self.make_current()
        check(
            self.driver.cuFuncSetAttribute(function, attribute, int(nbytes)),
            f"allowing {nbytes} bytes of dynamic shared memory",
            kernel,
        )

    def launch(self, function, grid: int, block: int, shared_bytes: int, params: int, kernel: str):
        self.make_current()
        launch_kernel(function, grid, block, shared_bytes, params, kernel)

    # timing
    def event(self):
        self.make_current()
        return check(self.driver.cuEventCreate(0), "creating an event")

    def record(self, event) -> None:
        check(self.driver.cuEventRecord(event, 0), "recording an event")

    def elapsed_ms(self, start, end) -> float:
        """Milliseconds between two recorded events (waits for ``end``)."""
        check(self.driver.cuEventSynchronize(end), "waiting for an event")
        return float(check(self.driver.cuEventElapsedTime(start, end), "timing events"))


_context: CudaContext | None = None
_context_lock = threading.Lock()


def context() -> CudaContext:
    """The process's CUDA context, made on first use (raises without a device)."""
    global _context
    if _context is None:
        with _context_lock:
            if _context is None:
                _context = CudaContext(cuda_status())
    return _context


def synchronize() -> None:
    """Waits for every launched CUDA kernel (``ti.sync()``); nothing without a context.

    >>> synchronize()  # a CPU session: no CUDA context was ever made
    """
    if _context is not None:
        _context.synchronize()
