"""``runtime/cuda/driver.py`` and ``cuda_errors.py`` without a GPU.

cuda-python converts a call's arguments before it loads the driver library, so on a
machine without the NVIDIA driver a call that fails with ``DynamicLibNotFoundError``
accepted its arguments (a wrong one raises ``TypeError`` first): that is how the launch
parameters and the JIT options are checked here. Those tests skip where a driver is
installed (the call would then reach it); the error mapping needs no driver at all.
"""

from __future__ import annotations

import ctypes
import threading

import pytest

from ti_notebook.errors import TiMemoryError, TiRuntimeError
from ti_notebook.ir.devices import CudaDevice
from ti_notebook.runtime.cuda import driver as cuda_driver
from ti_notebook.runtime.cuda import errors as cuda_errors
from ti_notebook.runtime.cuda.driver import CudaStatus, KernelParams, cuda_status

driver = pytest.importorskip("cuda.bindings.driver")
pathfinder = pytest.importorskip("cuda.pathfinder")

pytestmark = pytest.mark.unit
MISSING_DRIVER = "can only be found via system search"  # DynamicLibNotFoundError's text


def _driver_library_missing() -> bool:
    try:
        driver.cuDriverGetVersion()
    except pathfinder.DynamicLibNotFoundError:
        return True
    return False


without_driver = pytest.mark.skipif(
    not _driver_library_missing(), reason="the NVIDIA driver is installed: calls reach it"
)


@without_driver
def test_status_without_driver_keeps_the_drivers_reason():
    status = cuda_status()
    assert status.available is False
    assert MISSING_DRIVER in status.reason
    assert status.compute_capability == "" and status.multiprocessors == 0
    assert cuda_status() is status  # looked at once per process


@without_driver
def test_context_without_driver_raises_with_the_reason_and_a_way_out():
    with pytest.raises(TiRuntimeError) as caught:
        cuda_driver.CudaContext(cuda_status())
    text = str(caught.value)
    assert MISSING_DRIVER in text and "ti.init(arch=ti.cpu)" in text and "cuda_sim" in text


def test_synchronize_without_a_context_does_nothing(monkeypatch):
    monkeypatch.setattr(cuda_driver, "_context", None)
    cuda_driver.synchronize()


def test_status_describes_a_device_for_code_generation():
    status = CudaStatus(True, "", "A100", "sm_80", 108, 2048, 32, 49152, 166912, 40 << 30)
    assert status.device() == CudaDevice.for_capability("sm_80")
    assert status.device("sm_75").compute_capability == "sm_75"


# -- launch parameters and JIT options are accepted by cuda-python -----------------------
def test_kernel_params_point_at_each_value():
    params = KernelParams([0x1000, 0x7F00_0000_2000])
    pointers = (ctypes.c_void_p * 2).from_address(params.address)
    values = [ctypes.c_uint64.from_address(p).value for p in pointers]
    assert values == [0x1000, 0x7F00_0000_2000]


@without_driver
def test_launch_arguments_are_accepted_by_cuLaunchKernel():
    params = KernelParams([0x7F00_0000_1000])
    with pytest.raises(pathfinder.DynamicLibNotFoundError):
        cuda_driver.launch_kernel(driver.CUfunction(), 16, 128, 49152, params.address, "k")


@without_driver
def test_a_wrong_launch_argument_is_refused_before_the_driver():
    with pytest.raises(TypeError):
        driver.cuLaunchKernel(driver.CUfunction(), 1, 1, 1, 1, 1, 1, 0, 0, "params", 0)


@without_driver
def test_jit_log_options_are_accepted_by_cuModuleLoadDataEx():
    options, values, errors, info = cuda_driver.jit_log_options(1024)
    assert values[1] == values[3] == 1024 and len(errors) == len(info) == 1024
    with pytest.raises(pathfinder.DynamicLibNotFoundError):
        driver.cuModuleLoadDataEx(b"// ptx\0", len(options), options, values)


@without_driver
def test_memory_calls_take_plain_int_addresses():
    for call, args in (
        (driver.cuMemcpyHtoDAsync, (0x7F00_0000_0000, ctypes.addressof(ctypes.c_int64()), 8, 0)),
        (driver.cuMemcpyDtoH, (ctypes.addressof(ctypes.c_int64()), 0x7F00_0000_0000, 8)),
        (driver.cuMemsetD8, (0x7F00_0000_0000, 0, 8)),
        (driver.cuMemFree, (0x7F00_0000_0000,)),
    ):
        with pytest.raises(pathfinder.DynamicLibNotFoundError):
            call(*args)


def _context_without_init() -> cuda_driver.CudaContext:
    """A context whose calls go straight to cuda-python (no cuInit, nothing retained)."""
    context = object.__new__(cuda_driver.CudaContext)
    context.driver = driver
    context._threads = threading.local()
    context._threads.current = True
    context.handle = driver.CUcontext()
    return context


CONTEXT_CALLS = {
    "alloc": lambda c: c.alloc(64, "a test buffer"),
    "upload": lambda c: c.upload(0x7F00_0000_0000, ctypes.addressof(ctypes.c_int64()), 8),
    "download": lambda c: c.download(ctypes.addressof(ctypes.c_int64()), 0x7F00_0000_0000, 8),
    "memset": lambda c: c.memset(0x7F00_0000_0000, 0, 8),
    "synchronize": lambda c: c.synchronize(),
    "load_module": lambda c: c.load_module(b"// PTX\n.version 7.8\n", "k"),
    "function": lambda c: c.function(driver.CUmodule(), "k_task0", "k"),
    "allow_dynamic_shared": lambda c: c.allow_dynamic_shared(driver.CUfunction(), 65536, "k"),
    "launch": lambda c: c.launch(driver.CUfunction(), 16, 128, 0, KernelParams([1]).address, "k"),
    "event": lambda c: c.event(),
    "record": lambda c: c.record(driver.CUevent()),
    "elapsed_ms": lambda c: c.elapsed_ms(driver.CUevent(), driver.CUevent()),
    "make_current": lambda c: (setattr(c._threads, "current", False), c.make_current()),
}


@without_driver
@pytest.mark.parametrize("name", sorted(CONTEXT_CALLS))
def test_every_context_call_passes_arguments_cuda_python_accepts(name):
    with pytest.raises(pathfinder.DynamicLibNotFoundError):
        CONTEXT_CALLS[name](_context_without_init())


def test_log_text_stops_at_the_terminating_nul():
    buffer = bytearray(32)
    buffer[:24] = b"ptxas error: bad thing\n\0"
    assert cuda_driver.log_text(buffer) == "ptxas error: bad thing\n"


# -- CUresult codes become ti_notebook errors ---------------------------------------------
def test_success_gives_the_values():
    assert cuda_errors.check((driver.CUresult.CUDA_SUCCESS,), "x") is None
    assert cuda_errors.check((driver.CUresult.CUDA_SUCCESS, 7), "x") == 7
    assert cuda_errors.check((0, 1, 2), "x") == (1, 2)
    assert cuda_errors.check(driver.CUresult.CUDA_SUCCESS, "x") is None


def test_out_of_memory_is_a_memory_error_naming_the_kernel():
    with pytest.raises(TiMemoryError) as caught:
        cuda_errors.check((driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None), "allocating", "k")
    error = caught.value
    assert isinstance(error, MemoryError)
    assert error.message.startswith("kernel 'k': allocating failed: CUDA_ERROR_OUT_OF_MEMORY")
    assert "smaller fields" in error.hint and "ti.reset()" in error.hint


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("CUDA_ERROR_ILLEGAL_ADDRESS", ("index out of range", "restart")),
        ("CUDA_ERROR_LAUNCH_FAILED", ("bounds checks", "restart")),
        ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", ("block_dim",)),
        ("CUDA_ERROR_UNSUPPORTED_PTX_VERSION", ("update",)),
        ("CUDA_ERROR_INVALID_VALUE", ("arch=ti.cpu",)),
    ],
)
def test_each_error_has_a_hint(code, words):
    error = cuda_errors.error_for(getattr(driver.CUresult, code), "launching", "saxpy")
    assert isinstance(error, TiRuntimeError)
    assert code in error.message and "saxpy" in error.message
    for word in words:
        assert word in error.hint


def test_a_kernel_fault_reported_later_names_the_last_kernel_launched(monkeypatch):
    monkeypatch.setattr(cuda_errors, "_last_launched", None)
    fault = driver.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS
    assert "kernel" not in cuda_errors.error_for(fault, "copying from GPU").message
    cuda_errors.note_launch("stencil")
    error = cuda_errors.error_for(fault, "copying from GPU")
    assert error.message.startswith("kernel 'stencil' (the last one launched): copying from GPU")
    # not for errors of the call itself
    memory = cuda_errors.error_for(driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, "allocating")
    assert "stencil" not in memory.message


def test_ptxas_log_goes_into_the_message():
    error = cuda_errors.error_for(
        driver.CUresult.CUDA_ERROR_INVALID_PTX, "loading its PTX", "k", "ptxas fatal: x\n"
    )
    assert error.message.endswith("\nptxas fatal: x")


def test_unknown_codes_still_have_a_name():
    assert cuda_errors.error_name(123456) == "CUresult 123456"
    assert cuda_errors.describe(driver.CUresult.CUDA_ERROR_NOT_FOUND).startswith(
        "CUDA_ERROR_NOT_FOUND"
    )
